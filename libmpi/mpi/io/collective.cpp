// Collective data access (MPI 3.1 sections 13.4.2-13.4.5): the _all,
// _ordered and split collective calls, with two-phase collective
// buffering.
//
// Two-phase: the file range the ranks' accesses cover together is cut
// into one domain per aggregator (cb_nodes ranks, by default the first
// rank of each cluster the file's ranks use), and each domain into steps
// of cb_buffer_size bytes. Step by step, every rank sends each
// aggregator the pieces of its data that fall in the aggregator's step
// (a write), or asks for them (a read); the aggregator moves its step
// with one contiguous request to the file server, reading it first when
// the ranks' pieces leave holes in it. So the file server sees a few
// large requests in place of the ranks' many small ones. A write's
// overlapping pieces land in rank order, as if the ranks had written one
// after the other.
//
// In atomic mode, or with "romio_cb_read"/"romio_cb_write" "disable", or
// for a file of one rank, each rank makes its access alone (access.cpp).
// A non-blocking or split collective is carried out by the call that
// starts it.
#include <stdlib.h>
#include <string.h>

#include "comm/comm.hpp"
#include "datatype/datatype.hpp"
#include "env/call.hpp"
#include "env/errors.hpp"
#include "io/file.hpp"
#include <mpiutil/mpiutil.hpp>

using namespace lwmpi;

namespace lwmpi {

namespace {

constexpr int64_t none = INT64_MAX;

/// Who aggregates and what: aggregator i serves file bytes
/// [lo + i * domain, lo + (i + 1) * domain) ∩ [lo, hi), `step` bytes a
/// round, in `rounds` rounds.
struct Plan {
    int naggr;
    int aggr[util::max_ranks];
    int64_t lo, hi, domain, step;
    int64_t rounds;
    int me;  ///< the caller's index among the aggregators, or -1
};

// The aggregators of `f`: cb_nodes ranks if the hint is set, else the
// first rank of each cluster its ranks use.
void choose_aggregators(const File &f, Plan &p) {
    const Comm &c = *comm_get(f.comm);
    p.naggr = 0;
    if (f.hints.cb_nodes > 0) {
        for (int i = 0; i < f.hints.cb_nodes; ++i)
            p.aggr[p.naggr++] = static_cast<int>(static_cast<int64_t>(i) * f.size / f.hints.cb_nodes);
        return;
    }
    for (int r = 0; r < f.size; ++r) {
        const int cluster = util::cluster_of(c.group.world[r]);
        bool seen = false;
        for (int i = 0; i < p.naggr && !seen; ++i)
            seen = util::cluster_of(c.group.world[p.aggr[i]]) == cluster;
        if (!seen) p.aggr[p.naggr++] = r;
    }
}

// The file range of the aggregators' round `round`: [*from, *to).
void window(const Plan &p, int aggregator, int64_t round, int64_t *from, int64_t *to) {
    const int64_t start = p.lo + aggregator * p.domain;
    int64_t end = start + p.domain < p.hi ? start + p.domain : p.hi;
    *from = start + round * p.step;
    *to = *from + p.step < end ? *from + p.step : end;
    if (*from > end) *from = end;
}

// A growable byte buffer.
struct Bytes {
    char *at = nullptr;
    int64_t n = 0, cap = 0;
    Bytes() = default;
    Bytes(const Bytes &) = delete;
    Bytes &operator=(const Bytes &) = delete;
    ~Bytes() { free(at); }
    bool reserve(int64_t want) {
        if (want <= cap) return true;
        int64_t grown = cap ? cap : 256;
        while (grown < want)
            grown *= 2;
        char *p = static_cast<char *>(realloc(at, static_cast<size_t>(grown)));
        if (!p) return false;
        at = p;
        cap = grown;
        return true;
    }
    bool put(const void *src, int64_t len) {
        if (!reserve(n + len)) return false;
        memcpy(at + n, src, static_cast<size_t>(len));
        n += len;
        return true;
    }
};

/// A piece of a rank's access inside one aggregator's round: where in
/// the file, how long, and where in the rank's stream.
struct Part {
    int64_t offset, len, stream;
};

// The exchanges of one round: per peer, the counts of what goes to it
// and comes from it, and their displacements (bytes), for MPI_Alltoallv.
struct Exchange {
    int *send, *sdisp, *recv, *rdisp;
    explicit Exchange(int n) {
        send = static_cast<int *>(calloc(static_cast<size_t>(4 * n), sizeof(int)));
        sdisp = send ? send + n : nullptr;
        recv = send ? send + 2 * n : nullptr;
        rdisp = send ? send + 3 * n : nullptr;
    }
    ~Exchange() { free(send); }
    Exchange(const Exchange &) = delete;
    Exchange &operator=(const Exchange &) = delete;
    // Displacements from the counts; the totals into *sent, *received.
    void lay_out(int n, int64_t *sent, int64_t *received) {
        *sent = *received = 0;
        for (int i = 0; i < n; ++i) {
            sdisp[i] = static_cast<int>(*sent);
            rdisp[i] = static_cast<int>(*received);
            *sent += send[i];
            *received += recv[i];
        }
    }
};

// Every rank's counts of `what` (bytes) for each peer: sends one int per
// peer, gets one from each.
int trade_counts(const File &f, Exchange &x) {
    return MPI_Alltoall(x.send, 1, MPI_INT, x.recv, 1, MPI_INT, f.comm);
}

// The parts of `pieces` in [from, to), clipped, appended to *out (the
// pieces are in file order: a view's filetype never goes back).
bool parts_in(const Pieces &pieces, int64_t from, int64_t to, Bytes *out) {
    // Binary search: the first piece that ends after `from`.
    int64_t lo = 0, hi = pieces.n;
    while (lo < hi) {
        const int64_t mid = (lo + hi) / 2;
        if (pieces.at[mid].offset + pieces.at[mid].len <= from)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (int64_t i = lo; i < pieces.n && pieces.at[i].offset < to; ++i) {
        const Piece &p = pieces.at[i];
        const int64_t a = p.offset > from ? p.offset : from;
        const int64_t b = p.offset + p.len < to ? p.offset + p.len : to;
        if (a >= b) continue;
        const Part part{a, b - a, p.stream + (a - p.offset)};
        if (!out->put(&part, sizeof part)) return false;
    }
    return true;
}

// Whether `parts` (n of them) cover [from, to) without a hole; sorts them.
bool covers(Part *parts, int64_t n, int64_t from, int64_t to) {
    qsort(parts, static_cast<size_t>(n), sizeof(Part), [](const void *a, const void *b) {
        const int64_t x = static_cast<const Part *>(a)->offset, y = static_cast<const Part *>(b)->offset;
        return x < y ? -1 : x > y;
    });
    int64_t reached = from;
    for (int64_t i = 0; i < n; ++i) {
        if (parts[i].offset > reached) return false;
        if (parts[i].offset + parts[i].len > reached) reached = parts[i].offset + parts[i].len;
    }
    return reached >= to;
}

// One round of a two-phase write: every rank's parts of every
// aggregator's window, then the aggregator's one write. *io gets the
// first I/O failure of the caller as an aggregator.
int write_round(File &f, const Plan &p, int64_t round, const Pieces &mine, const Stream &s, char *buffer,
                int *io) {
    Bytes heads, data;
    Exchange hx(f.size), dx(f.size);
    for (int a = 0; a < p.naggr; ++a) {
        int64_t from, to;
        window(p, a, round, &from, &to);
        const int64_t before = heads.n, bytes_before = data.n;
        if (!parts_in(mine, from, to, &heads)) return MPI_ERR_NO_MEM;
        for (int64_t k = before; k < heads.n; k += sizeof(Part)) {
            const Part *part = reinterpret_cast<const Part *>(heads.at + k);
            if (!data.put(s.data + part->stream, part->len)) return MPI_ERR_NO_MEM;
        }
        hx.send[p.aggr[a]] = static_cast<int>(heads.n - before);
        dx.send[p.aggr[a]] = static_cast<int>(data.n - bytes_before);
    }
    if (int e = trade_counts(f, hx)) return e;
    if (int e = trade_counts(f, dx)) return e;
    int64_t hs, hr, ds, dr;
    hx.lay_out(f.size, &hs, &hr);
    dx.lay_out(f.size, &ds, &dr);
    Bytes in_heads, in_data;
    if (!in_heads.reserve(hr) || !in_data.reserve(dr)) return MPI_ERR_NO_MEM;
    if (int e = MPI_Alltoallv(heads.at, hx.send, hx.sdisp, MPI_BYTE, in_heads.at, hx.recv, hx.rdisp, MPI_BYTE,
                              f.comm))
        return e;
    if (int e = MPI_Alltoallv(data.at, dx.send, dx.sdisp, MPI_BYTE, in_data.at, dx.recv, dx.rdisp, MPI_BYTE,
                              f.comm))
        return e;
    const int64_t nparts = hr / static_cast<int64_t>(sizeof(Part));
    if (p.me < 0 || nparts == 0 || *io) return MPI_SUCCESS;
    // The aggregator: its parts in rank order (the sources' order), each
    // at its place in the buffer.
    auto *parts = reinterpret_cast<Part *>(in_heads.at);
    int64_t from = none, to = 0;
    for (int64_t i = 0; i < nparts; ++i) {
        if (parts[i].offset < from) from = parts[i].offset;
        if (parts[i].offset + parts[i].len > to) to = parts[i].offset + parts[i].len;
    }
    int64_t at = 0;
    bool holes = false;
    {
        // covers() sorts: check it on a copy, so that rank order stays.
        Bytes sorted;
        if (!sorted.put(parts, hr)) return MPI_ERR_NO_MEM;
        holes = !covers(reinterpret_cast<Part *>(sorted.at), nparts, from, to);
    }
    if (holes) {
        uint64_t got = 0;
        if ((*io = util::file_read_at(f.fd, buffer, static_cast<uint64_t>(to - from), from, &got)))
            return MPI_SUCCESS;
        memset(buffer + got, 0, static_cast<size_t>(to - from - static_cast<int64_t>(got)));
    }
    for (int64_t i = 0; i < nparts; ++i) {
        memcpy(buffer + (parts[i].offset - from), in_data.at + at, static_cast<size_t>(parts[i].len));
        at += parts[i].len;
    }
    *io = util::file_write_at(f.fd, buffer, static_cast<uint64_t>(to - from), from);
    return MPI_SUCCESS;
}

// One round of a two-phase read: every rank asks each aggregator for its
// parts of the window, the aggregator reads the span they cover once and
// sends back each part with how many of its bytes the file holds. The
// caller's stream gets its parts; *short_at the first stream byte the
// file did not hold (if before it).
int read_round(File &f, const Plan &p, int64_t round, const Pieces &mine, Stream &s, char *buffer,
               int64_t *short_at, int *io) {
    Bytes heads;
    Exchange hx(f.size), vx(f.size), dx(f.size);
    for (int a = 0; a < p.naggr; ++a) {
        int64_t from, to;
        window(p, a, round, &from, &to);
        const int64_t before = heads.n;
        if (!parts_in(mine, from, to, &heads)) return MPI_ERR_NO_MEM;
        hx.send[p.aggr[a]] = static_cast<int>(heads.n - before);
    }
    if (int e = trade_counts(f, hx)) return e;
    int64_t hs, hr;
    hx.lay_out(f.size, &hs, &hr);
    Bytes asked;
    if (!asked.reserve(hr)) return MPI_ERR_NO_MEM;
    if (int e = MPI_Alltoallv(heads.at, hx.send, hx.sdisp, MPI_BYTE, asked.at, hx.recv, hx.rdisp, MPI_BYTE,
                              f.comm))
        return e;
    // The aggregator reads the span, and answers each part: its valid
    // length (int64) and its bytes.
    const auto *want = reinterpret_cast<const Part *>(asked.at);
    const int64_t nwant = hr / static_cast<int64_t>(sizeof(Part));
    int64_t from = none, to = 0, got = 0;
    for (int64_t i = 0; i < nwant; ++i) {
        if (want[i].offset < from) from = want[i].offset;
        if (want[i].offset + want[i].len > to) to = want[i].offset + want[i].len;
    }
    if (nwant > 0 && !*io) {
        uint64_t n = 0;
        *io = util::file_read_at(f.fd, buffer, static_cast<uint64_t>(to - from), from, &n);
        got = static_cast<int64_t>(n);
    }
    Bytes valid, data;
    for (int src = 0, k = 0; src < f.size; ++src) {
        const int64_t nparts = hx.recv[src] / static_cast<int64_t>(sizeof(Part));
        const int64_t vbefore = valid.n, dbefore = data.n;
        for (int64_t i = 0; i < nparts; ++i, ++k) {
            const Part &part = want[k];
            int64_t ok = from + got - part.offset;
            ok = ok < 0 ? 0 : ok > part.len ? part.len : ok;
            if (*io) ok = 0;
            if (!valid.put(&ok, sizeof ok) || !data.reserve(data.n + part.len)) return MPI_ERR_NO_MEM;
            memcpy(data.at + data.n, buffer + (part.offset - from), static_cast<size_t>(ok));
            memset(data.at + data.n + ok, 0, static_cast<size_t>(part.len - ok));
            data.n += part.len;
        }
        vx.send[src] = static_cast<int>(valid.n - vbefore);
        dx.send[src] = static_cast<int>(data.n - dbefore);
    }
    if (int e = trade_counts(f, vx)) return e;
    if (int e = trade_counts(f, dx)) return e;
    int64_t vs, vr, ds, dr;
    vx.lay_out(f.size, &vs, &vr);
    dx.lay_out(f.size, &ds, &dr);
    Bytes in_valid, in_data;
    if (!in_valid.reserve(vr) || !in_data.reserve(dr)) return MPI_ERR_NO_MEM;
    if (int e = MPI_Alltoallv(valid.at, vx.send, vx.sdisp, MPI_BYTE, in_valid.at, vx.recv, vx.rdisp, MPI_BYTE,
                              f.comm))
        return e;
    if (int e = MPI_Alltoallv(data.at, dx.send, dx.sdisp, MPI_BYTE, in_data.at, dx.recv, dx.rdisp, MPI_BYTE,
                              f.comm))
        return e;
    // The caller's parts come back in the order it asked for them.
    const auto *mine_parts = reinterpret_cast<const Part *>(heads.at);
    const auto *oks = reinterpret_cast<const int64_t *>(in_valid.at);
    int64_t at = 0;
    for (int64_t i = 0; i < static_cast<int64_t>(heads.n / sizeof(Part)); ++i) {
        const Part &part = mine_parts[i];
        memcpy(s.data + part.stream, in_data.at + at, static_cast<size_t>(oks[i]));
        at += part.len;
        if (oks[i] < part.len && part.stream + oks[i] < *short_at) *short_at = part.stream + oks[i];
    }
    return MPI_SUCCESS;
}

}  // namespace

int access_at_all(File &f, Dir dir, MPI_Offset offset, void *buf, int count, MPI_Datatype type,
                  int64_t *bytes) {
    *bytes = 0;
    const CbMode mode = dir == Dir::write ? f.hints.cb_write : f.hints.cb_read;
    if (f.atomic || mode == CbMode::disable || f.size == 1) {
        // Alone, with a barrier after, so that the call stays collective
        // in its effect: every rank's access is over when any returns.
        int e = access_at(f, dir, offset, buf, count, type, bytes);
        int worst = e;
        if (int c = MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, f.comm)) return c;
        return e ? e : worst;
    }
    const Datatype *t = datatype_get(type);
    Stream s;
    int e = dir == Dir::write ? stream_out(f.view, buf, count, type, *t, &s)
                              : stream_in(f.view, buf, count, *t, &s);
    Pieces mine;
    if (e == MPI_SUCCESS && map_view(f.view, offset * f.view.et->size, s.bytes, &mine)) e = MPI_ERR_NO_MEM;
    // The range of all the accesses, and whether every rank is ready.
    MPI_Offset range[3] = {mine.n ? -mine.at[0].offset : -none,
                           mine.n ? mine.at[mine.n - 1].offset + mine.at[mine.n - 1].len : 0, e};
    if (int c = MPI_Allreduce(MPI_IN_PLACE, range, 3, MPI_OFFSET, MPI_MAX, f.comm)) return c;
    if (e) return e;
    if (range[2]) return static_cast<int>(range[2]);
    Plan *p = static_cast<Plan *>(malloc(sizeof(Plan)));
    if (!p) return MPI_ERR_NO_MEM;
    choose_aggregators(f, *p);
    p->lo = -range[0];
    p->hi = range[1];
    int64_t err_worst = MPI_SUCCESS;
    if (p->lo < p->hi) {
        p->domain = (p->hi - p->lo + p->naggr - 1) / p->naggr;
        p->step = f.hints.cb_buffer_size < p->domain ? f.hints.cb_buffer_size : p->domain;
        p->rounds = (p->domain + p->step - 1) / p->step;
        p->me = -1;
        for (int i = 0; i < p->naggr; ++i)
            if (p->aggr[i] == f.rank) p->me = i;
        char *buffer = p->me >= 0 ? static_cast<char *>(malloc(static_cast<size_t>(p->step))) : nullptr;
        int io = p->me >= 0 && !buffer ? MPI_ERR_NO_MEM : MPI_SUCCESS;
        int64_t short_at = s.bytes;
        for (int64_t r = 0; r < p->rounds && e == MPI_SUCCESS; ++r)
            e = dir == Dir::write ? write_round(f, *p, r, mine, s, buffer, &io)
                                  : read_round(f, *p, r, mine, s, buffer, &short_at, &io);
        free(buffer);
        // An aggregator's failure is every rank's.
        err_worst = e ? e : io;
        if (e == MPI_SUCCESS && MPI_Allreduce(MPI_IN_PLACE, &err_worst, 1, MPI_INT64_T, MPI_MAX, f.comm))
            err_worst = MPI_ERR_OTHER;
        *bytes = dir == Dir::write ? s.bytes : short_at;
    }
    free(p);  // (a Plan is too large for a small stack)
    if (err_worst) return static_cast<int>(err_worst);
    if (dir == Dir::read) return stream_deliver(f.view, s, *bytes, buf, count, type, *t);
    return MPI_SUCCESS;
}

}  // namespace lwmpi

// ---- the MPI calls ----

namespace {

// One collective access: the checks, then the data (at an explicit
// offset, the individual file pointer, or in rank order from the shared
// one: Place::shared), then the report. With `split`, the status is kept
// for the _end call.
int collective(const char *fn, MPI_File fh, Dir dir, Place place, MPI_Offset offset, const void *buf,
               int count, MPI_Datatype type, const Report &report, bool split = false) {
    Call call(fn);
    File *f;
    if (int e = enter(call, fh, &f)) return e;
    const Datatype *t = nullptr;
    int e = access_check(*f, dir, place, count, type, &t);
    if (e == MPI_SUCCESS && place == Place::at && offset < 0) e = MPI_ERR_ARG;
    if (e == MPI_SUCCESS && report.nonblocking && !report.request) e = MPI_ERR_ARG;
    if (e == MPI_SUCCESS && f->split.active) e = MPI_ERR_OTHER;
    // Every rank learns whether all may go on, so that none waits for
    // one that gave up.
    int worst = e;
    if (int c = MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, f->comm)) return call.fail(c);
    if (e)
        return call.fail(e, f->split.active ? "a split collective is already active on the file" : nullptr);
    if (worst) return call.fail(worst, "another rank's call was refused");
    const MPI_Offset etypes = count * t->size / f->view.et->size;
    if (place == Place::individual) {
        offset = f->position;
        f->position += etypes;
    } else if (place == Place::shared) {
        // Rank order: each rank's data after the lower ranks' (13.4.4).
        MPI_Offset upto = 0, base = 0, total = 0;
        if (int c = MPI_Scan(&etypes, &upto, 1, MPI_OFFSET, MPI_SUM, f->comm)) return call.fail(c);
        total = upto;
        if (int c = MPI_Bcast(&total, 1, MPI_OFFSET, f->size - 1, f->comm)) return call.fail(c);
        int s = f->rank == 0 ? shared_fetch_add(*f, total, &base) : MPI_SUCCESS;
        MPI_Offset shared[2] = {base, s};
        if (int c = MPI_Bcast(shared, 2, MPI_OFFSET, 0, f->comm)) return call.fail(c);
        if (shared[1])
            return call.fail(static_cast<int>(shared[1]), "the shared file pointer cannot be moved");
        offset = shared[0] + upto - etypes;
    }
    int64_t bytes = 0;
    e = access_at_all(*f, dir, offset, const_cast<void *>(buf), count, type, &bytes);
    if (e) return call.fail(e, util::error_detail());
    if (split) {
        f->split.active = true;
        f->split.buf = buf;
        io_status(&f->split.status, bytes);
        return MPI_SUCCESS;
    }
    if (int r = io_report(report, bytes)) return call.fail(r);
    return MPI_SUCCESS;
}

const Report begun{MPI_STATUS_IGNORE, nullptr, false};

// The _end of a split collective: the status its _begin kept (13.4.5).
int split_end(const char *fn, MPI_File fh, const void *buf, MPI_Status *status) {
    Call call(fn);
    File *f;
    if (int e = enter(call, fh, &f)) return e;
    if (!f->split.active) return call.fail(MPI_ERR_OTHER, "no split collective is active on the file");
    if (f->split.buf != buf)
        return call.fail(MPI_ERR_BUFFER, "not the buffer the split collective began with");
    f->split.active = false;
    if (status != MPI_STATUS_IGNORE) *status = f->split.status;
    return MPI_SUCCESS;
}

}  // namespace

int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                         MPI_Status *status) {
    return collective("MPI_File_read_at_all", fh, Dir::read, Place::at, offset, buf, count, datatype,
                      blocking(status));
}

int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status) {
    return collective("MPI_File_write_at_all", fh, Dir::write, Place::at, offset, buf, count, datatype,
                      blocking(status));
}

int MPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                          MPI_Request *request) {
    return collective("MPI_File_iread_at_all", fh, Dir::read, Place::at, offset, buf, count, datatype,
                      nonblocking(request));
}

int MPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Request *request) {
    return collective("MPI_File_iwrite_at_all", fh, Dir::write, Place::at, offset, buf, count, datatype,
                      nonblocking(request));
}

int MPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
    return collective("MPI_File_read_all", fh, Dir::read, Place::individual, 0, buf, count, datatype,
                      blocking(status));
}

int MPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
    return collective("MPI_File_write_all", fh, Dir::write, Place::individual, 0, buf, count, datatype,
                      blocking(status));
}

int MPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) {
    return collective("MPI_File_iread_all", fh, Dir::read, Place::individual, 0, buf, count, datatype,
                      nonblocking(request));
}

int MPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                        MPI_Request *request) {
    return collective("MPI_File_iwrite_all", fh, Dir::write, Place::individual, 0, buf, count, datatype,
                      nonblocking(request));
}

int MPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
    return collective("MPI_File_read_ordered", fh, Dir::read, Place::shared, 0, buf, count, datatype,
                      blocking(status));
}

int MPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Status *status) {
    return collective("MPI_File_write_ordered", fh, Dir::write, Place::shared, 0, buf, count, datatype,
                      blocking(status));
}

// ---- split collectives (section 13.4.5) ----

int MPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype) {
    return collective("MPI_File_read_at_all_begin", fh, Dir::read, Place::at, offset, buf, count, datatype,
                      begun, true);
}

int MPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status) {
    return split_end("MPI_File_read_at_all_end", fh, buf, status);
}

int MPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                MPI_Datatype datatype) {
    return collective("MPI_File_write_at_all_begin", fh, Dir::write, Place::at, offset, buf, count, datatype,
                      begun, true);
}

int MPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status) {
    return split_end("MPI_File_write_at_all_end", fh, buf, status);
}

int MPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype) {
    return collective("MPI_File_read_all_begin", fh, Dir::read, Place::individual, 0, buf, count, datatype,
                      begun, true);
}

int MPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status) {
    return split_end("MPI_File_read_all_end", fh, buf, status);
}

int MPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype) {
    return collective("MPI_File_write_all_begin", fh, Dir::write, Place::individual, 0, buf, count, datatype,
                      begun, true);
}

int MPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status) {
    return split_end("MPI_File_write_all_end", fh, buf, status);
}

int MPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype) {
    return collective("MPI_File_read_ordered_begin", fh, Dir::read, Place::shared, 0, buf, count, datatype,
                      begun, true);
}

int MPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status) {
    return split_end("MPI_File_read_ordered_end", fh, buf, status);
}

int MPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype) {
    return collective("MPI_File_write_ordered_begin", fh, Dir::write, Place::shared, 0, buf, count, datatype,
                      begun, true);
}

int MPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status) {
    return split_end("MPI_File_write_ordered_end", fh, buf, status);
}
