// A fixed-capacity text builder for messages and names (no libc, no heap).
#pragma once

#include <stddef.h>

namespace lwmpi {

/// Length of the NUL-terminated string `s` (0 for nullptr).
constexpr size_t text_length(const char *s) {
    size_t n = 0;
    while (s && s[n])
        ++n;
    return n;
}

/// Appends to a caller-provided buffer of `cap` bytes, always keeping it
/// NUL-terminated; text that does not fit is dropped.
class TextBuilder {
public:
    constexpr TextBuilder(char *buf, size_t cap) : buf_(buf), cap_(cap) {
        if (cap_) buf_[0] = '\0';
    }

    constexpr TextBuilder &put(const char *s) {
        for (; s && *s; ++s)
            put(*s);
        return *this;
    }

    constexpr TextBuilder &put(char c) {
        if (len_ + 1 < cap_) {
            buf_[len_++] = c;
            buf_[len_] = '\0';
        }
        return *this;
    }

    /// Decimal form of `v`.
    constexpr TextBuilder &put_int(long long v) {
        char digits[24] = {};
        int n = 0;
        unsigned long long u =
            v < 0 ? 0ull - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v);
        do {
            digits[n++] = static_cast<char>('0' + u % 10);
            u /= 10;
        } while (u);
        if (v < 0) put('-');
        while (n)
            put(digits[--n]);
        return *this;
    }

    constexpr size_t length() const { return len_; }
    constexpr const char *c_str() const { return buf_; }

private:
    char *buf_;
    size_t cap_;
    size_t len_ = 0;
};

}  // namespace lwmpi
