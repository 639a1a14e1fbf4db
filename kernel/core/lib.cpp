// The few C library functions the compiler and the kernel use, since the
// kernel is freestanding (no libc on the kernel side).
#include <stddef.h>
#include <stdint.h>

extern "C" {

void *memcpy(void *dst, const void *src, size_t n) {
    auto *d = static_cast<unsigned char *>(dst);
    auto *s = static_cast<const unsigned char *>(src);
    if (((reinterpret_cast<uintptr_t>(d) | reinterpret_cast<uintptr_t>(s)) & 7) == 0) {
        for (; n >= 8; n -= 8, d += 8, s += 8)
            *reinterpret_cast<uint64_t *>(d) = *reinterpret_cast<const uint64_t *>(s);
    }
    while (n--)
        *d++ = *s++;
    return dst;
}

void *memset(void *dst, int c, size_t n) {
    auto *d = static_cast<unsigned char *>(dst);
    while (n--)
        *d++ = static_cast<unsigned char>(c);
    return dst;
}

int memcmp(const void *a, const void *b, size_t n) {
    auto *x = static_cast<const unsigned char *>(a);
    auto *y = static_cast<const unsigned char *>(b);
    for (; n; --n, ++x, ++y)
        if (*x != *y) return *x - *y;
    return 0;
}
}

extern "C" char *strncpy(char *dst, const char *src, size_t n) {
    size_t i = 0;
    for (; i < n && src[i]; ++i)
        dst[i] = src[i];
    for (; i < n; ++i)
        dst[i] = 0;
    return dst;
}
