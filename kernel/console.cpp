// The console device. The UART belongs to cluster 0's kernel (the I/O
// cluster). A user write on a compute cluster travels to cluster 0 over the
// NoC in kernel messages that name the writing thread (cluster, core) and
// its tag; cluster 0's own user writes take the same path without the NoC.
// Cluster 0 keeps a line buffer per thread and writes only whole lines, so
// lines of different threads (ranks) never mix, even when two ranks of one
// cluster write at once:
//   - a line longer than line_max bytes is cut into pieces of line_max,
//     each written as a line of its own;
//   - at the end of the job, every unfinished line is written out;
//   - every line written ends with a newline (one is added if needed);
//   - when the job was started with TS_MANIFEST_TAG_OUTPUT (mpirun
//     --tag-output), each line starts with "[rank R] ", R being the tag the
//     thread had when it began the line, or "[cluster C] " for a thread
//     without a tag (the runtime tags a rank's thread when it starts it).
// The report of a fault that kills a user thread takes that thread's path
// (console_write_kernel), so it comes after the thread's earlier output.
// Other kernel diagnostics (panics) go straight to the UART from every
// cluster, so that a panic gets out even when the NoC does not.
#include <string.h>

#include "kernel.hpp"
#include "kmsg.hpp"

namespace kernel {
namespace {

constexpr size_t line_max = 232;   ///< bytes of a line before it is cut (so a cluster's lines fill a page)
constexpr size_t prefix_max = 24;  ///< "[rank 2147483647] ", "[cluster 31] " and their NUL

// A thread's line so far (never holding a newline).
struct Line {
    int32_t tag;  ///< the thread's tag when the line began
    uint32_t n;
    char bytes[line_max];
};
using ClusterLines = Line[TS_MAX_CORES];
static_assert(sizeof(ClusterLines) <= hal::page_size);

// Cluster 0: the lines of each cluster's threads, in a zeroed page frame
// taken at the cluster's first output (most clusters of a big platform
// may never write).
Line *lines[TS_MAX_CLUSTERS];

// The line of thread (cluster, core), or nullptr when there is no frame
// left for it.
Line *line_of(int cluster, int core) {
    if (!lines[cluster]) lines[cluster] = static_cast<Line *>(frame_alloc());
    return lines[cluster] ? &lines[cluster][core] : nullptr;
}

// Writes l out as one line (prefixed if the job asked for it) and empties it.
void write_line(Line &l, int cluster) {
    char out[prefix_max + line_max + 1];
    size_t n = 0;
    if (hal::manifest().flags & TS_MANIFEST_TAG_OUTPUT)
        n = l.tag >= 0 ? ksnprintf(out, prefix_max, "[rank %d] ", l.tag)
                       : ksnprintf(out, prefix_max, "[cluster %d] ", cluster);
    memcpy(out + n, l.bytes, l.n);
    n += l.n;
    out[n++] = '\n';
    hal::console_write(out, n);
    l.n = 0;
}

// Adds the n bytes thread (cluster, core) wrote to its line, writing out
// each line they complete. Without a frame for the line buffers, the bytes
// go straight out: mixed with others' maybe, but not lost.
void console_put(int cluster, int core, int tag, const char *text, size_t n) {
    Line *l = line_of(cluster, core);
    if (!l) {
        hal::console_write(text, n);
        return;
    }
    for (size_t i = 0; i < n; ++i) {
        if (l->n == line_max && text[i] != '\n')
            write_line(*l, cluster);  // cut: the rest is a line of its own
        if (l->n == 0) l->tag = tag;
        if (text[i] == '\n')
            write_line(*l, cluster);
        else
            l->bytes[l->n++] = text[i];
    }
}

}  // namespace

void console_deliver(const Kmsg &m) {
    if (m.cluster < 0 || m.cluster >= TS_MAX_CLUSTERS || m.core < 0 || m.core >= TS_MAX_CORES ||
        m.value < 0 || static_cast<size_t>(m.value) > sizeof(m.text))
        return;
    console_put(m.cluster, m.core, m.tag, m.text, static_cast<size_t>(m.value));
}

void console_flush_all() {
    for (int cluster = 0; cluster < TS_MAX_CLUSTERS; ++cluster) {
        if (!lines[cluster]) continue;
        for (int core = 0; core < TS_MAX_CORES; ++core)
            if (lines[cluster][core].n) write_line(lines[cluster][core], cluster);
    }
}

namespace {

/// Text to write as the caller thread's console output.
struct Text {
    const char *buf;
    size_t len;
};

// Sends the text as the console output of the caller's thread: to cluster
// 0 in messages that name it, or into its line on cluster 0. c.p.done
// counts the bytes sent on; returns its length, or pending while cluster
// 0's mailbox has no room.
long console_send(const Text &text, Call &c) {
    const char *buf = text.buf;
    const size_t len = text.len;
    const int core = caller_core();
    if (hal::cluster_id() == 0) {
        console_put(0, core, threads[core].tag, buf, len);
        return static_cast<long>(len);
    }
    const size_t room = ikc::mailbox_payload() - kmsg_header;
    while (c.p.done < len) {
        Kmsg m;
        m.kind = KmsgKind::console;
        m.cluster = hal::cluster_id();
        m.core = core;
        m.tag = threads[core].tag;
        const size_t n = len - c.p.done < room ? len - c.p.done : room;
        m.value = static_cast<int32_t>(n);
        memcpy(m.text, buf + c.p.done, n);
        if (ikc::mailbox_send(TS_PORT_KERNEL, 0, TS_PORT_KERNEL, &m, kmsg_header + n) == pending)
            return pending;
        c.p.done += n;
    }
    return static_cast<long>(len);
}

}  // namespace

// p.done counts the bytes sent on; the buffer is checked again at each
// attempt (decoding), as another thread may unmap it meanwhile.
long sys_write(const write_args &a, Call &c) {
    return console_send(Text{static_cast<const char *>(a.buf.data), a.buf.size}, c);
}

void console_write_kernel(const char *text, size_t n) { call_on_master<Text, console_send>(Text{text, n}); }

}  // namespace kernel
