// MPIUtil's OS interface on the Tessera target: forwards to the user
// runtime and the name client. The only LWMPI file that includes them.
#include "os.hpp"
#include <mpiutil/mpiutil.hpp>

#include <tessera/image.h>
#include <tessera/runtime.h>
#include <tessera/syscall.h>
#include <tessera/trace.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tessera/names.h>

namespace lwmpi::os {

namespace {

// core()'s answer for the calling thread, once asked: a thread runs on its
// core from start to end, and the local path asks before each sleep.
thread_local int t_core = -1;

constexpr size_t shared_bytes = cluster_shared_bytes;
static_assert(util::max_local_ranks >= TS_MAX_CORES - 1, "a slot for every rank a cluster hosts");
static_assert(shared_bytes <= TS_CLUSTER_SHARED_SIZE, "the kernel's shared area holds it");
// The memory of cluster_shared() in threads mode: the ranks of a cluster
// are threads of one process, so a global of the library is the memory
// they share (and nothing outside the cluster sees it). In processes mode
// the kernel gives the ranks of a cluster an area at one address
// (ts_job_info.shared_base), whichever program each runs.
alignas(64) unsigned char g_shared[shared_bytes];

// The process's aliasing and shared memory, from its job info. Computed
// when the program starts (the runtime runs the constructors after it
// has the job's info, before any rank runs), so that translating is one
// comparison and one addition, without a lock.
struct Layout {
    Aliasing self;  // mine: global(), private_of()
    void *shared;   // cluster_shared(), nullptr if the ranks share none

    static Layout of(const ts_job_info &j) {
        if (j.ranks_mode != TS_RANKS_PROCESSES) return Layout{Aliasing{}, g_shared};
        // Without aliases the ranks share nothing (shared_base 0).
        return Layout{Aliasing::of(j, j.local_index), reinterpret_cast<void *>(j.shared_base)};
    }
};
const Layout g_layout = Layout::of(*ts_job());
// Asked on every MPI call: the job's flag, read with the layout.
const bool g_tracing = ts_job()->mpi_flags & TS_JOB_MPI_TRACE;

}  // namespace

const ts_job_info *job() { return ts_job(); }
int core() {
    if (t_core < 0) t_core = ts_thread_core();
    return t_core;
}
// In processes mode the runtime answers the process's rank, whichever
// thread asks.
int rank() { return ts_rank(); }
int local_index() { return ts_local_index(); }

void *cluster_shared(size_t size) { return size <= shared_bytes ? g_layout.shared : nullptr; }
void *global(const void *p) { return g_layout.self.global(p); }
void *private_of(const void *g) { return g_layout.self.private_of(g); }

void *&rank_word() {
    static void *words[TS_MAX_CORES];  // a process's globals: shared by its threads
    const int local = ts_job()->ranks_mode == TS_RANKS_PROCESSES ? 0 : ts_local_index();
    return words[local >= 0 && local < TS_MAX_CORES ? local : 0];
}

void futex_wait(const uint32_t *addr, uint32_t expected, unsigned long timeout_ns) {
    ts_futex_wait(addr, expected, timeout_ns);
}
void futex_wake(const uint32_t *addr, int n) { ts_futex_wake(addr, n); }

unsigned long time() { return ts_time(); }
void sleep_ns(unsigned long ns) { ts_sleep_ns(ns); }
void yield() { ts_thread_yield(); }

void console_write(const char *s, size_t n) { ts_console_write(s, n); }
bool console_flush() { return ts_console_flush() != 0; }

int mpi_state_send(const ts_mpi_state &st) { return ts_mpi_state_send(&st); }
void abort_job(int code) { ts_job_abort(code); }

bool tracing() { return g_tracing; }

void trace_record(unsigned kind, int rank, int a, long b, unsigned long c, unsigned long d) {
    const unsigned long word = kind | (static_cast<unsigned long>(rank) & 0xffff) << 16 |
                               static_cast<unsigned long>(static_cast<uint32_t>(a)) << 32;
    ts_trace_record(word, b, c, d);
}

int trace_dump(int core) {
    char name[48];
    snprintf(name, sizeof name, "tessera-trace-c%d-k%d.bin", job()->cluster_id, core);
    // A header tells the ring's capacity: the buffer for all of it.
    ts_trace_header h;
    long r = ts_trace_read(core, TS_TRACE_RING_MPI, &h, sizeof h);
    if (r < 0) return static_cast<int>(r);
    const size_t size = sizeof h + static_cast<size_t>(h.capacity) * sizeof(ts_trace_event);
    void *buf = malloc(size);
    if (!buf) return -TS_ENOMEM;
    const int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = fd < 0 ? -TS_EIO : 0;
    for (int ring = 0; ring < TS_TRACE_RINGS && !err; ++ring) {
        r = ts_trace_read(core, ring, buf, size);
        if (r < 0)
            err = static_cast<int>(r);
        else if (write(fd, buf, static_cast<size_t>(r)) != r)
            err = -TS_EIO;
    }
    if (fd >= 0 && close(fd) != 0 && !err) err = -TS_EIO;
    free(buf);
    return err;
}

int mailbox_create(int port) { return ts_mailbox_create(port); }
int mailbox_open(int local_port, int cluster, int port) { return ts_mailbox_open(local_port, cluster, port); }
long mailbox_awrite(int id, const void *buf, size_t size) { return ts_mailbox_awrite(id, buf, size); }
long mailbox_test(int id) { return ts_mailbox_test(id); }
long mailbox_trywrite(int id, const void *buf, size_t size) { return ts_mailbox_trywrite(id, buf, size); }
long mailbox_ring(int id, ts_ring *ring, unsigned nslots) { return ts_mailbox_ring(id, ring, nslots); }
long mailbox_drain(int id) { return ts_mailbox_drain(id); }
long mailbox_parked(int id) {
    ts_ikc_stats st;
    const int e = ts_mailbox_ioctl(id, TS_IKC_IOCTL_STATS, &st);
    return e < 0 ? e : static_cast<long>(st.parked);
}
int mailbox_close(int id) { return ts_mailbox_close(id); }
int mailbox_unlink(int id) { return ts_mailbox_unlink(id); }

int portal_create(int port) { return ts_portal_create(port); }
int portal_allow(int id, int cluster, int port, uint32_t tag) {
    return ts_portal_allow(id, cluster, port, tag);
}
int portal_open(int local_port, int cluster, int port) { return ts_portal_open(local_port, cluster, port); }
long portal_aread(int id, void *buf, size_t size, size_t transfer) {
    return ts_portal_aread(id, buf, size, transfer);
}
long portal_awrite(int id, const void *buf, size_t size, uint32_t tag) {
    return ts_portal_awrite(id, buf, size, tag);
}
long portal_wait(int id) { return ts_portal_wait(id); }
long portal_test(int id) { return ts_portal_test(id); }
long portal_cancel(int id) { return ts_portal_cancel(id); }
long ikc_wait_any(unsigned long seen, unsigned long timeout_ns) { return ts_ikc_wait_any(seen, timeout_ns); }
int ikc_wake(int core) { return ts_ikc_wake(core); }
int portal_close(int id) { return ts_portal_close(id); }
int portal_unlink(int id) { return ts_portal_unlink(id); }

int window_create() { return ts_window_create(); }
int window_expose(int key, void *base, size_t size) { return ts_window_expose(key, base, size); }
int window_withdraw(int key, void *base) { return ts_window_withdraw(key, base); }
int window_free(int key) { return ts_window_free(key); }

long window_write(int key, int cluster, int target, uint64_t addr, const void *buf, size_t n) {
    return ts_window_write(key, cluster, target, addr, buf, n);
}
long window_read(int key, int cluster, int target, uint64_t addr, void *buf, size_t n) {
    return ts_window_read(key, cluster, target, addr, buf, n);
}
long window_flush(int key, int cluster, int target) { return ts_window_flush(key, cluster, target); }
long window_atomic(int key, int cluster, int target, uint64_t addr, unsigned kind, uint64_t operand,
                   uint64_t compare, uint64_t *old) {
    unsigned long value = 0;
    const long r = ts_window_atomic(key, cluster, target, addr, kind, operand, compare, &value);
    if (old) *old = value;
    return r;
}

int name_register(const char *name, int port) { return ts_name_register(name, port); }
int name_resolve_start(const char *name) { return ts_name_resolve_start(name); }
int name_resolve_test(int *cluster, int *port) { return ts_name_resolve_test(cluster, port); }
int name_unregister(const char *name) { return ts_name_unregister(name); }

}  // namespace lwmpi::os

extern "C" int ts_rank_exit_hook(int status) { return lwmpi::util::rank_exit(status); }
