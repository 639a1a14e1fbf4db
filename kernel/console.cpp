// The console device. The UART belongs to cluster 0's kernel (the I/O
// cluster): a user write there goes straight out; on a compute cluster the
// master sends it over the NoC to cluster 0 in kernel messages, and cluster
// 0 writes each sender's bytes out line by line. Kernel diagnostics (fault
// reports, panics) still go straight to the UART from every cluster, so that
// a panic gets out even when the NoC does not.
#include <string.h>

#include "ikc/ikc.hpp"
#include "kernel/kernel.hpp"
#include "kernel/kmsg.hpp"

namespace kernel {
namespace {

constexpr size_t max_write = 64 * 1024;
constexpr size_t line_max = 256;

// Cluster 0: each sender's line so far.
struct Line {
    char bytes[line_max];
    size_t n = 0;
};
Line lines[TS_MAX_CLUSTERS];

void flush(Line &l) {
    hal::console_write(l.bytes, l.n);
    l.n = 0;
}

}  // namespace

void console_deliver(const Kmsg &m) {
    if (m.cluster < 0 || m.cluster >= TS_MAX_CLUSTERS || m.value < 0) return;
    Line &l = lines[m.cluster];
    const size_t n = static_cast<size_t>(m.value) < sizeof(m.text) ? static_cast<size_t>(m.value) : sizeof(m.text);
    for (size_t i = 0; i < n; ++i) {
        l.bytes[l.n++] = m.text[i];
        if (m.text[i] == '\n' || l.n == line_max) flush(l);
    }
}

void console_flush_all() {
    for (Line &l : lines)
        if (l.n) flush(l);
}

// (const void *buf, unsigned long len): p.done counts the bytes sent on.
long sys_write(Call &c) {
    const uint64_t len = c.a[1];
    if (len > max_write) return -TS_EINVAL;
    if (long err = check_user(c.a[0], len, false)) return err;
    const char *buf = reinterpret_cast<const char *>(c.a[0]);
    if (hal::cluster_id() == 0) {
        hal::console_write(buf, len);
        return static_cast<long>(len);
    }
    const size_t room = ikc::mailbox_payload() - kmsg_header;
    while (c.p.done < len) {
        Kmsg m;
        m.kind = KmsgKind::console;
        m.cluster = hal::cluster_id();
        const size_t n = len - c.p.done < room ? len - c.p.done : room;
        m.value = static_cast<int32_t>(n);
        memcpy(m.text, buf + c.p.done, n);
        if (ikc::mailbox_send(TS_PORT_KERNEL, 0, TS_PORT_KERNEL, &m, kmsg_header + n) == pending) return pending;
        c.p.done += n;
    }
    return static_cast<long>(len);
}

}  // namespace kernel
