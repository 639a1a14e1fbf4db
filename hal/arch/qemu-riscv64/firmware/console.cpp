// The firmware's console: the UART, polled, without the HAL's lock (only
// the boot hart writes before any kernel runs; a firmware fault after).
#include "firmware.hpp"
#include "../virt.hpp"

namespace fw {
namespace {

volatile uint8_t *const uart = reinterpret_cast<volatile uint8_t *>(hal::virt::uart_base);
constexpr int uart_lsr = 5, uart_lsr_thre = 0x20;

void put(char ch) {
    while (!(uart[uart_lsr] & uart_lsr_thre)) {}
    uart[0] = static_cast<uint8_t>(ch);
}

}  // namespace

void say(const char *s) {
    for (; *s; ++s) {
        if (*s == '\n') put('\r');
        put(*s);
    }
}

void say_number(uint64_t n, unsigned base) {
    char digits[24];
    char *p = digits + sizeof(digits) - 1;
    *p = 0;
    do {
        *--p = "0123456789abcdef"[n % base];
        n /= base;
    } while (n);
    say(p);
}

}  // namespace fw

// The compiler may call memset for a zeroed local (the firmware is built
// with -fno-tree-loop-distribute-patterns, so this loop stays a loop).
extern "C" void *memset(void *dst, int c, size_t n) {
    auto *p = static_cast<volatile uint8_t *>(dst);
    for (size_t i = 0; i < n; ++i)
        p[i] = static_cast<uint8_t>(c);
    return dst;
}
