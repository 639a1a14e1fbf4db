// MPIUtil: process identity, startup and shutdown (and the rank-exit hook),
// name resolution with a per-rank cache, time and reports.
#include <mpi.h>
#include <tessera/syscall.h>

#include "control.hpp"
#include "os.hpp"
#include "process.hpp"
#include "rank_state.hpp"
#include "text.hpp"

namespace lwmpi::util {

namespace {

thread_local RankState t_state;

// "mpi:<rank>", the name a rank links to its cluster.
void rank_name(char (&buf)[kNameMax], int rank) {
    TextBuilder(buf, sizeof buf).put("mpi:").put_int(rank);
}

}  // namespace

RankState &self() { return t_state; }

int fail(int mpi_class, const char *what, long os_error) {
    TextBuilder t(t_state.detail, sizeof t_state.detail);
    t.put(what);
    if (os_error)
        t.put(" (error ").put_int(os_error).put(')');
    return mpi_class;
}

const char *error_detail() { return t_state.detail; }

int init() {
    RankState &s = t_state;
    s.detail[0] = '\0';
    if (s.ready)
        return fail(MPI_ERR_OTHER, "MPI is already initialized");
    const ts_job_info *job = os::job();
    const int rank = os::rank();
    const int local = os::local_index();
    if (rank < 0 || local < 0 || job->np < 1)
        return fail(MPI_ERR_OTHER, "not an MPI process");
    if (job->np > kMaxRanks)
        return fail(MPI_ERR_OTHER, "job has more ranks than LWMPI supports");
    if (job->mailbox_payload < static_cast<int>(sizeof(ControlMsg)))
        return fail(MPI_ERR_INTERN, "mailbox payload too small for control messages");
    tessera::pm::JobShape shape{};
    if (!tessera::pm::make_shape(job->np, job->nclusters - job->nio_clusters, job->slots_per_cluster,
                                 job->map_policy, &shape) ||
        !shape.fits() || TS_PORT_MPI_BASE + local >= TS_PORT_NAME_REPLY_BASE)
        return fail(MPI_ERR_OTHER, "job shape does not fit the platform");

    s.rank = rank;
    s.cluster = job->cluster_id;
    s.port = TS_PORT_MPI_BASE + local;
    s.shape = shape;
    s.next_seq = 0;
    s.unexpected.count = 0;
    for (auto &c : s.cluster_of)
        c = 0;
    s.cluster_of[rank] = static_cast<int16_t>(s.cluster + 1);

    s.mailbox = os::mailbox_create(s.port);
    if (s.mailbox < 0)
        return fail(MPI_ERR_OTHER, "cannot create the rank's mailbox", s.mailbox);
    s.portal = os::portal_create(s.port);
    if (s.portal < 0) {
        const int err = s.portal;
        os::mailbox_unlink(s.mailbox);
        return fail(MPI_ERR_OTHER, "cannot create the rank's portal", err);
    }
    // Linked last: once others can resolve us, we can receive.
    char name[kNameMax];
    rank_name(name, rank);
    const int r = os::name_link(name, s.cluster);
    if (r < 0) {
        os::portal_unlink(s.portal);
        os::mailbox_unlink(s.mailbox);
        // Every job boots afresh: a taken name means two threads got one rank.
        if (r == -TS_EEXIST)
            return fail(MPI_ERR_INTERN, "another process already has this rank (a mapping bug)");
        return fail(MPI_ERR_OTHER, "cannot link the rank's name", r);
    }
    s.ready = true;
    s.entered = true;
    return MPI_SUCCESS;
}

int finalize() {
    RankState &s = t_state;
    if (!s.ready)
        return fail(MPI_ERR_OTHER, "MPI is not initialized");
    s.ready = false;
    char name[kNameMax];
    rank_name(name, s.rank);
    const int r1 = os::name_unlink(name);
    const int r2 = os::portal_unlink(s.portal);
    const int r3 = os::mailbox_unlink(s.mailbox);
    if (r1 < 0)
        return fail(MPI_ERR_OTHER, "cannot unlink the rank's name", r1);
    if (r2 < 0 || r3 < 0)
        return fail(MPI_ERR_OTHER, "cannot release the rank's mailbox or portal", r2 < 0 ? r2 : r3);
    return MPI_SUCCESS;
}

int world_rank() { return t_state.rank; }
int world_size() { return t_state.shape.np; }
int cluster_id() { return t_state.cluster; }

namespace {

// The cluster of world rank `rank` (>= 0), or -TS_E* from the name
// server; waits while the rank has not linked its name.
int lookup(int rank) {
    char name[kNameMax];
    rank_name(name, rank);
    for (unsigned long pause = kLookupFirstPauseNs;; ) {
        const int c = os::name_lookup(name);
        if (c != -TS_ENOENT)
            return c;
        os::sleep_ns(pause);
        pause = pause * 2 < kLookupMaxPauseNs ? pause * 2 : kLookupMaxPauseNs;
    }
}

}  // namespace

int resolve(int rank, Address *out) {
    RankState &s = t_state;
    if (rank < 0 || rank >= s.shape.np)
        return fail(MPI_ERR_RANK, "rank out of range");
    if (s.cluster_of[rank] == 0) {
        const int c = lookup(rank);
        if (c < 0)
            return fail(MPI_ERR_OTHER, "name lookup failed", c);
        s.cluster_of[rank] = static_cast<int16_t>(c + 1);
    }
    out->cluster = s.cluster_of[rank] - 1;
    out->port = TS_PORT_MPI_BASE + s.shape.place(rank).local;
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
    if (os::console_flush())
        os::console_write("\n", 1);
    os::console_write(line, text_length(line));
}

void abort_job(int code) { os::abort_job(code); }

bool rank_exit(int status) {
    if (!t_state.ready)
        return t_state.entered;
    char line[96];
    TextBuilder(line, sizeof line)
        .put("MPI error: rank ").put_int(t_state.rank)
        .put(" exited with status ").put_int(status)
        .put(" without calling MPI_Finalize\n");
    report(line);
    abort_job(status ? status : 1);
    return true;
}

}  // namespace lwmpi::util
