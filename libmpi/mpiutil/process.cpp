// MPIUtil: process identity (and which thread holds a rank's state),
// startup and shutdown (and the rank-exit hook), name resolution with a
// per-rank cache, time and reports.
#include <mpi.h>
#include <tessera/syscall.h>

#include <stdlib.h>
#include <string.h>

#include "control.hpp"
#include "engine.hpp"
#include "os.hpp"
#include <lwmpi/rank_local.hpp>
#include "rank_state.hpp"
#include <lwmpi/text.hpp>

namespace lwmpi::util {

namespace {

thread_local RankLocal<RankState> t_state;

// "mpi:<rank>", the name a rank links to its cluster.
void rank_name(char (&buf)[name_max], int rank) { TextBuilder(buf, sizeof buf).put("mpi:").put_int(rank); }

// Unlinks my mailbox, then frees its ring (the kernel writes it until then).
int release_mailbox() {
    RankState &s = self();
    const int r = os::mailbox_unlink(s.mailbox);
    free(s.inbox.ring);
    s.inbox.ring = nullptr;
    return r;
}

// Frees the tables init() and the message path made: the rank's requests
// are all over (finalize()) or none was made (a failed init()).
void free_tables() {
    RankState &s = self();
    free(s.peers);
    s.peers = nullptr;
    free(s.eager.assemblies);
    s.eager.assemblies = nullptr;
    s.eager.capacity = 0;
    s.requests.release();
}

// init()'s part that takes OS resources: the local path, my mailbox and
// its ring, my portal, then my name. Undoes what it did when it fails.
int open_endpoints(RankState &s) {
    if (int e = local_init()) return e;
    s.mailbox = os::mailbox_create(s.port);
    if (s.mailbox < 0) return fail(MPI_ERR_OTHER, "cannot create the rank's mailbox", s.mailbox);
    if (int e = ring_attach()) {
        os::mailbox_unlink(s.mailbox);
        return e;
    }
    s.portal = os::portal_create(s.port);
    if (s.portal < 0) {
        const int err = s.portal;
        release_mailbox();
        return fail(MPI_ERR_OTHER, "cannot create the rank's portal", err);
    }
    // Registered last: once others can resolve us, we can receive.
    char name[name_max];
    rank_name(name, s.rank);
    const int r = os::name_register(name, s.port);
    if (r < 0) {
        os::portal_unlink(s.portal);
        release_mailbox();
        // Every job boots afresh: a taken name means two threads got one rank.
        if (r == -TS_EEXIST)
            return fail(MPI_ERR_INTERN, "another process already has this rank (a mapping bug)");
        return fail(MPI_ERR_OTHER, "cannot register the rank's name", r);
    }
    return MPI_SUCCESS;
}

}  // namespace

void find_home() {
    // The home thread's link stands for its block of thread_local objects.
    const void *home = __atomic_load_n(&os::rank_word(), __ATOMIC_ACQUIRE);
    const uintptr_t shift = reinterpret_cast<uintptr_t>(home) - reinterpret_cast<uintptr_t>(&t_rank_link);
    t_rank_link = home ? RankLink{shift, true} : RankLink{0, false};
}

void become_home() {
    t_rank_link = RankLink{0, true};
    __atomic_store_n(&os::rank_word(), static_cast<void *>(&t_rank_link), __ATOMIC_RELEASE);
}

RankState &self() { return t_state.get(); }

int fail(int mpi_class, const char *what, long os_error) {
    RankState &s = self();
    TextBuilder t(s.detail, sizeof s.detail);
    t.put(what);
    if (os_error) t.put(" (error ").put_int(os_error).put(')');
    return mpi_class;
}

const char *error_detail() { return self().detail; }

int init() {
    RankState &s = self();
    s.detail[0] = '\0';
    if (s.ready) return fail(MPI_ERR_OTHER, "MPI is already initialized");
    const ts_job_info *job = os::job();
    const int rank = os::rank();
    const int local = os::local_index();
    if (rank < 0 || local < 0 || job->np < 1) return fail(MPI_ERR_OTHER, "not an MPI process");
    // The I/O rank (mpirun --io-rank) is process np, after the world's.
    const int nprocs = job->np + (job->has_io_rank ? 1 : 0);
    if (nprocs > max_ranks) return fail(MPI_ERR_OTHER, "job has more ranks than LWMPI supports");
    if (job->mailbox_payload < static_cast<int>(sizeof(ControlMsg)) + 8 || job->mailbox_payload > mailbox_max)
        return fail(MPI_ERR_INTERN, "mailbox payload does not suit the protocols");
    tessera::pm::JobShape shape{};
    if (!tessera::pm::make_shape(job->np, job->nclusters - job->nio_clusters, job->slots_per_cluster,
                                 job->map_policy, &shape) ||
        !shape.fits() || TS_PORT_MPI_BASE + local >= TS_PORT_NAME_REPLY_BASE)
        return fail(MPI_ERR_OTHER, "job shape does not fit the platform");

    const bool entered = s.entered;
    memset(&s, 0, sizeof s);  // all-zero is the empty state (no heap table left: finalize() freed them)
    s.entered = entered;
    s.rank = rank;
    s.nprocs = nprocs;
    s.cluster = job->cluster_id;
    s.local = local;
    s.port = TS_PORT_MPI_BASE + local;
    s.shape = shape;
    const uint64_t given = job->mpi_eager_max > 0 ? static_cast<uint64_t>(job->mpi_eager_max) : 0;
    s.limits.local_eager_max = given ? given : default_eager_max;
    s.limits.eager_max = given ? given
                         : job->mpi_flags & TS_JOB_MPI_EAGER_ONE_MESSAGE
                             ? eager_first_bytes(job->mailbox_payload)
                             : default_eager_max;
    s.limits.eager_credits = eager_credits(nprocs, s.limits.eager_max);
    s.limits.local_path = !(job->mpi_flags & TS_JOB_MPI_LOCAL_IKC);
    s.limits.wait = job->mpi_wait_policy == TS_MPI_WAIT_SPIN       ? WaitPolicy::spin
                    : job->mpi_wait_policy == TS_MPI_WAIT_ADAPTIVE ? WaitPolicy::adaptive
                                                                   : WaitPolicy::block;
    s.match.posted = RequestQueue{-1, -1};
    s.rdv.incoming = RequestQueue{-1, -1};
    s.rdv.waiting = RequestQueue{-1, -1};
    s.match.unexpected_tail = &s.match.unexpected;
    s.inbox.stash_tail = &s.inbox.stash;
    for (OutEndpoint &o : s.outbox.ends)
        o.id = -1;
    for (OutEndpoint &o : s.rdv.out_portals)
        o.id = -1;
    // My share of a hardware mailbox's references, less my name client's.
    const int share = job->virtual_per_hw / (job->slots_per_cluster > 0 ? job->slots_per_cluster : 1) - 1;
    s.outbox.limit = share < 1 ? 1 : share > max_out_mailboxes ? max_out_mailboxes : share;
    s.outbox.tail = &s.outbox.head;
    s.peers = static_cast<Peer *>(malloc(sizeof(Peer) * static_cast<size_t>(nprocs)));
    if (!s.peers) return fail(MPI_ERR_NO_MEM, "no memory for the table of ranks");
    for (int r = 0; r < nprocs; ++r)
        s.peers[r] = Peer{Address{-1, 0}, 0, 0, 0};
    if (int e = open_endpoints(s)) {
        free_tables();
        return e;
    }
    s.peers[rank].address = Address{static_cast<int16_t>(s.cluster), static_cast<int16_t>(s.port)};
    s.ready = true;
    s.entered = true;
    // The rank's other threads may call MPI from now on, with this state.
    become_home();
    return MPI_SUCCESS;
}

int finalize() {
    RankState &s = self();
    if (!s.ready) return fail(MPI_ERR_OTHER, "MPI is not initialized");
    // Every message to me was written before its writer entered the last
    // barrier (quiesce()), so it is in my cluster now: read until a mark I
    // send myself, then what is still parked for me. Nothing is left for
    // the kernel to keep after the unlink.
    const ControlMsg mark = make_control(ControlKind::kick, s.rank, s.cluster, s.port, final_mark);
    if (int e = post_control(s.peers[s.rank].address, &mark, sizeof mark)) return e;
    if (int e = flush()) return e;
    for (bool marked = false;;) {
        const char *msg;
        long n;
        if (int e = ring_next(&msg, &n)) return e;
        if (n < 0) {
            if (marked && os::mailbox_parked(s.mailbox) <= 0) break;
            // Where the master fills my ring, it may not have yet.
            const long moved = os::mailbox_drain(s.mailbox);
            if (moved < 0) return fail(MPI_ERR_OTHER, "mailbox read failed", moved);
            if (moved == 0)
                if (int e = ikc_wait_any()) return e;
            continue;
        }
        const auto *m = reinterpret_cast<const ControlMsg *>(msg);
        marked =
            marked || (n == sizeof *m && m->kind == mark.kind && m->source == s.rank && m->seq == final_mark);
        if (int e = ring_pop()) return e;
    }
    s.ready = false;
    watch_finalized(s);
    for (const OutEndpoint &o : s.outbox.ends)
        if (o.id >= 0) os::mailbox_close(o.id);
    for (const OutEndpoint &o : s.rdv.out_portals)
        if (o.id >= 0) os::portal_close(o.id);
    drop_stash();
    drop_unexpected();  // sent but never received
    local_finalize();
    s.outbox.spare.drop();
    free_tables();
    char name[name_max];
    rank_name(name, s.rank);
    const int r1 = os::name_unregister(name);
    const int r2 = os::portal_unlink(s.portal);
    const int r3 = release_mailbox();
    if (r1 < 0) return fail(MPI_ERR_OTHER, "cannot unregister the rank's name", r1);
    if (r2 < 0 || r3 < 0)
        return fail(MPI_ERR_OTHER, "cannot release the rank's mailbox or portal", r2 < 0 ? r2 : r3);
    if (tracing()) trace_dump();
    return MPI_SUCCESS;
}

int quiesce() {
    self().quiet = true;
    return flush();
}

int world_rank() { return self().rank; }
int world_size() { return self().shape.np; }
int io_rank() { return self().nprocs > self().shape.np ? self().shape.np : -1; }
int appnum() { return os::job()->appnum; }
int cluster_id() { return self().cluster; }
int core_id() { return os::core(); }
int cluster_of(int rank) { return rank < self().shape.np ? self().shape.place(rank).cluster : -1; }
const Limits &limits() { return self().limits; }

namespace {

// Lets `ns` nanoseconds pass, taking my messages meanwhile.
int pause_outside(unsigned long ns) {
    const double until = wtime() + static_cast<double>(ns) * 1e-9;
    for (double now; (now = wtime()) < until;)
        if (int e = ikc_wait_outside(static_cast<unsigned long>((until - now) * 1e9) + 1)) return e;
    return MPI_SUCCESS;
}

}  // namespace

int resolve(int rank, Address *out) {
    RankState &s = self();
    if (!s.peers) return fail(MPI_ERR_OTHER, "MPI is not initialized");
    if (rank < 0 || rank >= s.nprocs) return fail(MPI_ERR_RANK, "rank out of range");
    Address &a = s.peers[rank].address;
    if (a.cluster < 0) {
        char name[name_max];
        rank_name(name, rank);
        int cluster, port;
        for (unsigned long pause = lookup_first_pause_ns;;) {
            int r = os::name_resolve_start(name);
            if (r == 0)
                while ((r = os::name_resolve_test(&cluster, &port)) == -TS_EAGAIN)
                    if (int e = ikc_wait_outside(0)) return e;
            if (r == 0) break;
            if (r != -TS_ENOENT) return fail(MPI_ERR_OTHER, "name resolution failed", r);
            if (int e = pause_outside(pause)) return e;
            pause = pause * 2 < lookup_max_pause_ns ? pause * 2 : lookup_max_pause_ns;
        }
        a = Address{static_cast<int16_t>(cluster), static_cast<int16_t>(port)};
    }
    *out = a;
    return MPI_SUCCESS;
}

int same_cluster(int rank, bool *out) {
    // The placement says it: a name resolution would cost a round trip to
    // the name daemon, and the local path needs no address.
    const RankState &s = self();
    if (rank < 0 || rank >= s.nprocs) return fail(MPI_ERR_RANK, "rank out of range");
    *out = cluster_of(rank) == cluster_of(s.rank);
    return MPI_SUCCESS;
}

namespace {
double timebase() {
    const unsigned long hz = os::job()->timebase_hz;
    return static_cast<double>(hz ? hz : 1);
}
}  // namespace

double wtime() { return static_cast<double>(os::time()) / timebase(); }
double wtick() { return 1.0 / timebase(); }

void report(const char *line) {
    if (os::console_flush()) os::console_write("\n", 1);
    os::console_write(line, text_length(line));
}

void abort_job(int code) { os::abort_job(code); }

bool rank_exit(int status) {
    // The thread that holds its rank's state is the rank; in processes
    // mode the rank's other threads are not, and their own state is empty.
    const RankState &s = t_state.own();
    if (!s.ready) return s.entered;
    char line[96];
    TextBuilder(line, sizeof line)
        .put("MPI error: rank ")
        .put_int(s.rank)
        .put(" exited with status ")
        .put_int(status)
        .put(" without calling MPI_Finalize\n");
    report(line);
    abort_job(status ? status : 1);
    return true;
}

}  // namespace lwmpi::util
