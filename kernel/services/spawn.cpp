// Spawn server and job monitor.
//
// Rings: cluster 0 starts its services (ring 0: the name server), then
// releases the compute clusters through a ONE_TO_ALL sync; each compute
// cluster that hosts MPI ranks (by the job's mapping policy) starts them
// (ring 1): one process whose threads are the ranks, or in processes mode
// (mpirun --ranks processes) one process per rank, running the program of
// the rank's application (an MPMD launch has several). When the
// program's processes have ended, or as soon as one of them has a non-zero
// status (a rank that exits with a failure, even after MPI_Finalize), its
// spawn server sends an exit report to cluster 0's kernel port, naming the
// thread (rank) the first failure comes from. Cluster 0 powers off with status 0 once every hosting
// cluster has reported 0, and at once with the first non-zero status (a
// failed or killed rank would leave its peers waiting forever). MPI_Abort
// sends an abort report, which also powers off at once. The monitor also
// hears what blocked ranks wait for (TS_SYS_MPI_STATE_SEND, watch.cpp) and
// ends a job whose ranks are deadlocked with status 125 and a report of
// each rank's wait. A job that ends
// early or fails ends with a line that mpirun shows, e.g.
//   tessera: job ended: rank 5 (cluster 2 thread 3) was killed by a fault, status 139
// A job with an I/O rank (mpirun --io-rank: MPI process np, outside
// MPI_COMM_WORLD) has cluster 0 start it once the compute clusters are
// released. The job's end is the world's: an I/O rank may serve requests
// forever, and is stopped with the machine when every hosting cluster has
// reported 0; it ends the job early only when it fails (a non-zero status,
// a fault, MPI_Abort).
#include "spawn.hpp"

#include <string.h>

#include "kernel.hpp"
#include "kmsg.hpp"
#include "watch.hpp"
#include <tessera/mapping.hpp>

namespace kernel {
namespace {

constexpr int ring_sync_port = 0;
/// The job's status when the job monitor sees a deadlock (docs/tools.md,
/// "Exit status").
constexpr int deadlock_status = 125;

tessera::pm::JobShape job_shape() {
    const ts_manifest &m = hal::manifest();
    tessera::pm::JobShape shape{};
    if (!tessera::pm::make_shape(static_cast<int>(m.np), static_cast<int>(m.nclusters - m.nio_clusters),
                                 static_cast<int>(m.slots_per_cluster), static_cast<int>(m.map_policy),
                                 &shape))
        panic("the boot manifest names an unknown mapping policy");
    return shape;
}

// A report to the job monitor: `status`, from the thread on `core` with
// `tag` (core -1: no particular thread).
Kmsg report(KmsgKind kind, int status, int core, int tag) {
    Kmsg r;
    r.kind = kind;
    r.cluster = hal::cluster_id();
    r.core = core;
    r.tag = tag;
    r.value = status;
    return r;
}

// One attempt at sending r to the job monitor: sent, or pending.
long try_report(const Kmsg &r) {
    return ikc::mailbox_send(TS_PORT_KERNEL, 0, TS_PORT_KERNEL, &r, kmsg_header);
}

void send_report(const Kmsg &r) {
    wait_for([&] { return try_report(r); });
}

// What the master does once its part of the boot is done: serve calls.
[[noreturn]] void serve_forever() {
    block_until([] { return false; });
    __builtin_unreachable();
}

// The machine's exit status for a job status: QEMU's status is 8 bits, so
// a non-zero status that is 0 modulo 256 becomes 1 (never a false success).
[[noreturn]] void end_job(int status) {
    const int code = status & 0xff;
    hal::poweroff(status != 0 && code == 0 ? 1 : code);
}

// True when this (compute) cluster hosts MPI ranks of the job.
bool hosts_ranks() {
    return job_shape().ranks_on(hal::cluster_id() - static_cast<int>(hal::manifest().nio_clusters)) > 0;
}

// Cluster 0 and the compute clusters, for the ring barrier.
int ring_members(int *clusters) {
    const ts_manifest &m = hal::manifest();
    int n = 0;
    clusters[n++] = 0;
    for (unsigned c = m.nio_clusters; c < m.nclusters; ++c)
        clusters[n++] = static_cast<int>(c);
    return n;
}

/// What start_ring() may start: the programs of a ring, and one process
/// per rank of the cluster.
constexpr int max_started = TS_MAX_PROGRAMS + TS_MAX_CORES;

// The manifest's program `i` as an executable.
Executable executable(int i) {
    const ts_manifest &m = hal::manifest();
    const ts_program_desc &prog = m.programs[i];
    return {prog.name, reinterpret_cast<const char *>(&m) + prog.offset, prog.size, i};
}

// The index of the manifest's MPI program (application) that runs `rank`,
// or -1 when none does.
int program_of_rank(int rank) {
    const ts_manifest &m = hal::manifest();
    for (unsigned i = 0; i < m.nprograms && i < TS_MAX_PROGRAMS; ++i) {
        const ts_program_desc &prog = m.programs[i];
        if (prog.is_mpi && static_cast<unsigned>(rank) - prog.first_rank < prog.nranks)
            return static_cast<int>(i);
    }
    return -1;
}

// Starts the ranks this cluster hosts as one process each, each running
// its application's program (processes mode).
int start_rank_processes(Process **out) {
    const tessera::pm::JobShape shape = job_shape();
    const int cluster = hal::cluster_id() - static_cast<int>(hal::manifest().nio_clusters);
    const int n = shape.ranks_on(cluster);
    int ranks[TS_MAX_CORES] = {};
    Executable exes[TS_MAX_CORES] = {};
    for (int l = 0; l < n && l < TS_MAX_CORES; ++l) {
        ranks[l] = shape.rank_at(cluster, l);
        const int program = program_of_rank(ranks[l]);
        if (program < 0) {
            kprintf("tessera: cluster %d: the boot manifest has no program for rank %d\n", hal::cluster_id(),
                    ranks[l]);
            return 0;
        }
        exes[l] = executable(program);
    }
    return process_spawn_ranks(exes, ranks, n, out);
}

// Starts the ranks this cluster hosts as one process, of the program of
// its first rank, whose threads they are (threads mode: mpirun allows it
// for a single application only).
int start_rank_threads(Process **out) {
    const tessera::pm::JobShape shape = job_shape();
    const int cluster = hal::cluster_id() - static_cast<int>(hal::manifest().nio_clusters);
    const int program = program_of_rank(shape.rank_at(cluster, 0));
    return program >= 0 && (out[0] = process_spawn(executable(program))) ? 1 : 0;
}

// Starts the programs of `ring`: on ring 1, where this cluster hosts
// ranks, its ranks; then the ring's other (non-MPI) programs. Fills
// out[0..max_started-1]; returns how many processes it started, or -1 when
// a program did not start.
int start_ring(unsigned ring, Process **out) {
    const ts_manifest &m = hal::manifest();
    int n = 0;
    if (ring == 1 && hosts_ranks()) {
        n = m.flags & TS_MANIFEST_RANK_PROCESSES ? start_rank_processes(out) : start_rank_threads(out);
        if (n == 0) return -1;
    }
    for (unsigned i = 0; i < m.nprograms && i < TS_MAX_PROGRAMS; ++i) {
        const ts_program_desc &prog = m.programs[i];
        if (prog.ring != ring || prog.is_mpi) continue;
        if (!(out[n] = process_spawn(executable(static_cast<int>(i))))) return -1;
        ++n;
    }
    return n;
}

bool all_done(Process *const *ps, int n) {
    for (int i = 0; i < n; ++i)
        if (!process_done(ps[i])) return false;
    return true;
}

// The first process that has ended with a non-zero status, or nullptr.
const Process *failed(Process *const *ps, int n) {
    const Process *first = nullptr;
    for (int i = 0; i < n; ++i)
        if (process_done(ps[i]) && ps[i]->status_seq && (!first || ps[i]->status_seq < first->status_seq))
            first = ps[i];
    return first;
}

// Sends cluster 0 the cluster's exit report, which p's status makes.
[[noreturn]] void report_and_serve(const Process *p) {
    send_report(
        report(p->killed ? KmsgKind::killed : KmsgKind::exit, p->status, p->status_core, p->status_tag));
    serve_forever();
}

// Before the job ends: writes out the console output that has already
// reached cluster 0 (the messages are queued, so a read does not wait).
void drain_console(int in) {
    for (;;) {
        Kmsg r{};
        if (ikc::mailbox_read(in, &r, sizeof(r)) == pending) break;
        if (r.kind == KmsgKind::console) console_deliver(r);
    }
    console_flush_all();
}

// The visible last line of a job that fails or is aborted: who ended it, how.
void say_why_job_ends(const Kmsg &r) {
    char who[thread_name_max];
    thread_name(who, r.cluster, r.core, r.tag);
    const char *how = r.kind == KmsgKind::abort    ? "aborted the job with status"
                      : r.kind == KmsgKind::killed ? "was killed by a fault, status"
                                                   : "exited with status";
    kprintf("tessera: job ended: %s %s %d\n", who, how, r.value);
}

// A request of mpirun, written on the console input: stop the job now, with
// the report of what each rank was doing (its timeout, a ^C).
struct StopRequest {
    int byte;
    const char *why;
    int status;  ///< the job's status: mpirun's own for that case
};
constexpr StopRequest stop_requests[] = {{'t', "mpirun's timeout", 124},
                                         {'i', "mpirun was interrupted", 130}};
/// How often the job monitor looks for a stop request.
constexpr uint64_t input_polls_per_second = 10;

// The stop request that came on the console input, or nullptr (other bytes
// are dropped).
const StopRequest *stop_request() {
    for (int c; (c = hal::console_read()) >= 0;)
        for (const StopRequest &s : stop_requests)
            if (c == s.byte) return &s;
    return nullptr;
}

// Ends the job with the ranks' report: every line of output that reached
// cluster 0 first, then `headline`, what each rank is blocked in (watch.cpp),
// and the last line.
[[noreturn]] void report_and_end(int in, const char *headline, const char *why, int status) {
    drain_console(in);
    kprintf("tessera: %s\n", headline);
    watch_report();
    kprintf("tessera: job ended: %s, status %d\n", why, status);
    end_job(status);
}

// The job's I/O rank (TS_MANIFEST_IO_RANK), started on this cluster: the
// manifest's MPI program of process np, run as that rank. nullptr when
// the job has none; a job whose I/O rank cannot start ends with 127.
Process *start_io_rank() {
    const ts_manifest &m = hal::manifest();
    if (!(m.flags & TS_MANIFEST_IO_RANK)) return nullptr;
    const int io_rank = static_cast<int>(m.np);
    const int program = program_of_rank(io_rank);
    Process *p = program >= 0 ? process_spawn(executable(program), io_rank) : nullptr;
    if (!p) {
        kprintf("tessera: job ended: the I/O rank did not start, status 127\n");
        end_job(127);
    }
    return p;
}

// True once the I/O rank `io` (nullptr: none) has ended with a failure:
// the job ends with its status (one that ends with 0 leaves the job to
// the world's ranks).
bool io_rank_failed(Process *io) { return io && process_done(io) && failed(&io, 1); }

[[noreturn, gnu::noinline]] void job_monitor(Process *io) {
    const tessera::pm::JobShape shape = job_shape();
    int expected = 0;
    for (int k = 0; k < shape.ncompute; ++k)
        expected += shape.ranks_on(k) > 0 ? 1 : 0;
    const long in = ikc::mailbox_create(TS_PORT_KERNEL);
    if (in < 0) panic("cannot create the job monitor's mailbox");
    if (!watch_init(shape.np + (io ? 1 : 0), shape.np))
        kprintf("tessera: cluster 0: no memory to watch for deadlocks\n");
    for (int reported = 0; reported < expected;) {
        Kmsg r{};
        const StopRequest *stop = nullptr;
        wait_for([&] {
            if ((stop = stop_request()) || io_rank_failed(io)) return 0L;
            master_wake_at(hal::time() + hal::timebase() / input_polls_per_second);
            return ikc::mailbox_read(static_cast<int>(in), &r, sizeof(r));
        });
        if (stop)
            report_and_end(static_cast<int>(in), "the job is stopped: what each MPI process was doing",
                           stop->why, stop->status);
        if (io_rank_failed(io)) {
            drain_console(static_cast<int>(in));
            r = report(io->killed ? KmsgKind::killed : KmsgKind::exit, io->status, io->status_core,
                       io->status_tag);
            say_why_job_ends(r);
            end_job(r.value);
        }
        if (r.kind == KmsgKind::console) {
            console_deliver(r);
            continue;
        }
        if (r.kind == KmsgKind::mpi_state) {
            watch_note(r);
            if (!watch_deadlocked()) continue;
            report_and_end(
                static_cast<int>(in),
                "deadlock: every MPI process is blocked in MPI or finalized, and no message is in flight",
                "deadlock", deadlock_status);
        }
        const bool ends_job = r.kind == KmsgKind::abort || r.value != 0;
        if (ends_job || reported + 1 == expected) drain_console(static_cast<int>(in));
        if (ends_job) {
            say_why_job_ends(r);
            end_job(r.value);
        }
        kprintf("[kernel] cluster %d: MPI program exited with status 0\n", r.cluster);
        ++reported;
    }
    kprintf("[kernel] job done: status 0\n");
    end_job(0);
}

// Starts ring 1 (the MPI program), waits until its processes have ended,
// and reports to the job monitor.
[[noreturn]] void run_programs() {
    const size_t in_use = frames_total_count() - frames_free_count();
    Process *started[max_started];
    const int n = start_ring(1, started);
    if (n <= 0) {
        // Either this cluster hosts no rank, or the program failed to start.
        if (hosts_ranks()) send_report(report(KmsgKind::exit, 127, -1, -1));
        serve_forever();
    }
    // Until every process has ended, or one has ended with a failure: a
    // rank that exits with a non-zero status (after MPI_Finalize too) may
    // leave others waiting for it forever, so its failure is reported at
    // once. (A thread that fails while its process goes on, as a
    // program's helper thread may, is the process's business until then.)
    block_until([&] { return all_done(started, n) || failed(started, n); });
    const Process *p = failed(started, n);
    if (!all_done(started, n)) report_and_serve(p);
    // The program's memory (frames of its pages, page tables and kernel
    // objects), for mpirun --verbose and the benchmarks.
    kprintf(
        "[kernel] cluster %d: the MPI program used at most %lu KiB in %d process%s; kernel stacks held at "
        "most %lu of %lu bytes\n",
        hal::cluster_id(), (frames_peak_count() - in_use) * hal::page_size / 1024, n, n == 1 ? "" : "es",
        kstack_deepest(), hal::kernel_stack(0).size);
    report_and_serve(p ? p : started[0]);  // none failed: the first one's 0
}

}  // namespace

// A rank's MPI state, for cluster 0's deadlock check: sent as the caller
// waits (a master call: the caller is blocked anyway).
long sys_mpi_state_send(const mpi_state_send_args &a, Call &) {
    const int core = caller_core();
    if (threads[core].tag < 0) return -TS_EPERM;
    const ts_mpi_state st = *a.st;
    if (st.state != TS_MPI_STATE_BLOCKED && st.state != TS_MPI_STATE_FINALIZED) return -TS_EINVAL;
    Kmsg r = report(KmsgKind::mpi_state, st.state, core, threads[core].tag);
    memcpy(r.text, &st, sizeof st);
    if (ikc::mailbox_send(TS_PORT_KERNEL, 0, TS_PORT_KERNEL, &r, kmsg_header + sizeof st) == pending)
        return pending;
    return 0;
}

// MPI_Abort: step 0 sends the abort report, then the process is killed
// (its threads end as they enter the kernel).
long sys_job_abort(const job_abort_args &a, Call &c) {
    const int code = a.code;
    if (hal::cluster_id() == 0) end_job(code);
    if (c.p.step == 0) {
        const int core = caller_core();
        if (try_report(report(KmsgKind::abort, code, core, threads[core].tag)) == pending) return pending;
        c.p.step = 1;
    }
    process_kill(current_process(), code);
    return 0;
}

void spawn_server() {
    const ts_manifest &m = hal::manifest();
    const int self = hal::cluster_id();
    int members[TS_MAX_CLUSTERS];
    const int n = ring_members(members);
    if (self == 0) {
        Process *services[max_started];
        if (start_ring(0, services) <= 0) kprintf("tessera: cluster 0: services did not start\n");
        const long ring = ikc::sync_open(members, n, TS_SYNC_ONE_TO_ALL, ring_sync_port);
        if (ring < 0) panic("cannot open the ring barrier");
        ikc::sync_signal(static_cast<int>(ring));
        job_monitor(start_io_rank());
    }
    if (static_cast<unsigned>(self) < m.nio_clusters) serve_forever();  // other I/O clusters: idle for now
    const long ring = ikc::sync_create(members, n, TS_SYNC_ONE_TO_ALL, ring_sync_port);
    if (ring < 0) panic("cannot create the ring barrier");
    Progress ring_wait;
    wait_for([&] { return ikc::sync_wait(static_cast<int>(ring), ring_wait); });
    run_programs();
}

}  // namespace kernel
