// Kernel console output and panics.
#include <stdarg.h>

#include "kernel/core.hpp"

namespace kernel {
namespace {

// Formatted text being written into `data` (cut at `size` bytes).
struct Buffer {
    char *data;
    size_t size;
    size_t n = 0;
    void put(char c) {
        if (n < size) data[n++] = c;
    }
    void put(const char *s) {
        while (*s)
            put(*s++);
    }
    void put_unsigned(uint64_t v, unsigned base) {
        char digits[24];
        int i = 0;
        do {
            digits[i++] = "0123456789abcdef"[v % base];
            v /= base;
        } while (v);
        while (i)
            put(digits[--i]);
    }
};

void format(Buffer &b, const char *fmt, va_list ap) {
    for (const char *p = fmt; *p; ++p) {
        if (*p != '%') {
            b.put(*p);
            continue;
        }
        if (p[1] == '\0') break;  // a lone '%' at the end
        bool is_long = false;
        if (p[1] == 'l' && p[2] != '\0') {
            is_long = true;
            ++p;
        }
        switch (*++p) {
        case 'd': {
            const int64_t v = is_long ? va_arg(ap, long) : va_arg(ap, int);
            if (v < 0) b.put('-');
            b.put_unsigned(v < 0 ? -static_cast<uint64_t>(v) : static_cast<uint64_t>(v), 10);
            break;
        }
        case 'u': b.put_unsigned(is_long ? va_arg(ap, unsigned long) : va_arg(ap, unsigned), 10); break;
        case 'x': b.put_unsigned(is_long ? va_arg(ap, unsigned long) : va_arg(ap, unsigned), 16); break;
        case 'p':
            b.put("0x");
            b.put_unsigned(reinterpret_cast<uintptr_t>(va_arg(ap, void *)), 16);
            break;
        case 's': {
            const char *s = va_arg(ap, const char *);
            b.put(s ? s : "(null)");
            break;
        }
        case 'c': b.put(static_cast<char>(va_arg(ap, int))); break;
        case '%': b.put('%'); break;
        default: b.put('?'); break;
        }
    }
}

}  // namespace

void kprintf(const char *fmt, ...) {
    char text[256];
    Buffer b{text, sizeof(text)};
    va_list ap;
    va_start(ap, fmt);
    format(b, fmt, ap);
    va_end(ap);
    hal::console_write(b.data, b.n);
}

size_t ksnprintf(char *buf, size_t size, const char *fmt, ...) {
    if (size == 0) return 0;
    Buffer b{buf, size - 1};
    va_list ap;
    va_start(ap, fmt);
    format(b, fmt, ap);
    va_end(ap);
    buf[b.n] = '\0';
    return b.n;
}

void thread_name(char (&buf)[thread_name_max], int cluster, int core, int tag) {
    if (core < 0)
        ksnprintf(buf, sizeof(buf), "cluster %d", cluster);
    else if (tag < 0)
        ksnprintf(buf, sizeof(buf), "cluster %d thread %d", cluster, core);
    else
        ksnprintf(buf, sizeof(buf), "rank %d (cluster %d thread %d)", tag, cluster, core);
}

void panic(const char *what) {
    kprintf("tessera: kernel panic: cluster %d core %d: %s\n", hal::cluster_id(), hal::core_id(), what);
    hal::poweroff(status_panic);
}

}  // namespace kernel

extern "C" void kernel_trap_panic(uint64_t cause, uint64_t pc, uint64_t tval) {
    kernel::kprintf("tessera: kernel panic: cluster %d core %d: %s at pc=0x%lx addr=0x%lx\n",
                    hal::cluster_id(), hal::core_id(), hal::cause_name(cause), pc, tval);
    hal::poweroff(kernel::status_panic);
}
