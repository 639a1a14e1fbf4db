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

/// A piece of a rank's access inside one aggregator's round: where in
/// the file, how long, and where in the rank's stream.
struct Part {
    int64_t offset, len, stream;
};

/// The counts of one exchange of a round: per peer, the bytes that go to
/// it and come from it, and their displacements, for MPI_Alltoallv.
struct Exchange {
    int send[util::max_ranks], sdisp[util::max_ranks];
    int recv[util::max_ranks], rdisp[util::max_ranks];
    /// Nothing to send to any of the n peers yet.
    void clear(int n) { memset(send, 0, sizeof(int) * static_cast<size_t>(n)); }
};

/// Who aggregates and what: aggregator i serves file bytes
/// [lo + i * domain, lo + (i + 1) * domain) ∩ [lo, hi), `step` bytes a
/// round, in `rounds` rounds; and the exchanges' counts (on the heap with
/// it: too large for a small stack).
struct Plan {
    int naggr;
    int aggr[util::max_ranks];
    int64_t lo, hi, domain, step;
    int64_t rounds;
    int me;  ///< the caller's index among the aggregators, or -1
    Exchange x[3];
};

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

// One exchange of a round, the same on every rank whatever happens: the
// counts (x.send, set by the caller; all zero when it is not `ok`), then
// whether every rank is ready (ok, room for what comes, counts an int
// holds), then the bytes of `out` into *in. MPI_SUCCESS; or, on every
// rank alike, MPI_ERR_NO_MEM when one was not ready (nothing moved); or
// the error of a collective call.
int exchange(const File &f, Exchange &x, const Bytes &out, Bytes *in, bool ok) {
    if (!ok)
        for (int i = 0; i < f.size; ++i)
            x.send[i] = 0;
    if (int e = MPI_Alltoall(x.send, 1, MPI_INT, x.recv, 1, MPI_INT, f.comm)) return e;
    int64_t sent = 0, received = 0;
    for (int i = 0; i < f.size; ++i) {
        x.sdisp[i] = static_cast<int>(sent);
        x.rdisp[i] = static_cast<int>(received);
        sent += x.send[i];
        received += x.recv[i];
    }
    int ready = ok && sent <= INT32_MAX && received <= INT32_MAX && in->reserve(received);
    if (int e = MPI_Allreduce(MPI_IN_PLACE, &ready, 1, MPI_INT, MPI_MIN, f.comm)) return e;
    if (!ready) return MPI_ERR_NO_MEM;
    in->n = received;
    return MPI_Alltoallv(out.at, x.send, x.sdisp, MPI_BYTE, in->at, x.recv, x.rdisp, MPI_BYTE, f.comm);
}

// The parts of `pieces` (sorted by offset) in [from, to), clipped,
// appended to *out: false when the heap is full.
bool parts_in(const Pieces &pieces, int64_t from, int64_t to, Bytes *out) {
    for (int64_t i = 0; i < pieces.n && pieces.at[i].offset < to; ++i) {
        const Piece &p = pieces.at[i];
        const int64_t a = p.offset > from ? p.offset : from;
        const int64_t b = p.offset + p.len < to ? p.offset + p.len : to;
        if (a >= b) continue;
        const Part part{a, b - a, p.stream + (a - p.offset)};
        if (!out->put(&part, sizeof part)) return false;
    }
    return true;
}

int by_offset(const void *a, const void *b) {
    const int64_t x = static_cast<const Part *>(a)->offset, y = static_cast<const Part *>(b)->offset;
    return x < y ? -1 : x > y;
}

// Whether `parts` (n of them, sorted by offset) cover [from, to) without
// a hole.
bool covers(const Part *parts, int64_t n, int64_t from, int64_t to) {
    int64_t reached = from;
    for (int64_t i = 0; i < n; ++i) {
        if (parts[i].offset > reached) return false;
        if (parts[i].offset + parts[i].len > reached) reached = parts[i].offset + parts[i].len;
    }
    return reached >= to;
}

// One round of a two-phase write: every rank's parts of every
// aggregator's window, then the aggregator's one write. *io gets the
// first local failure of the caller as an aggregator, which the ranks
// learn at the end.
int write_round(File &f, Plan &p, int64_t round, const Pieces &mine, const Stream &s, char *buffer, int *io) {
    Bytes heads, data;
    Exchange &hx = p.x[0], &dx = p.x[1];
    hx.clear(f.size);
    dx.clear(f.size);
    bool ok = true;
    for (int a = 0; a < p.naggr; ++a) {
        int64_t from, to;
        window(p, a, round, &from, &to);
        const int64_t before = heads.n, bytes_before = data.n;
        ok = ok && parts_in(mine, from, to, &heads);
        for (int64_t k = before; ok && k < heads.n; k += sizeof(Part)) {
            const Part *part = reinterpret_cast<const Part *>(heads.at + k);
            ok = data.put(s.data + part->stream, part->len);
        }
        hx.send[p.aggr[a]] = static_cast<int>(heads.n - before);
        dx.send[p.aggr[a]] = static_cast<int>(data.n - bytes_before);
    }
    Bytes in_heads, in_data;
    if (int e = exchange(f, hx, heads, &in_heads, ok)) return e;
    if (int e = exchange(f, dx, data, &in_data, ok)) return e;
    const int64_t nparts = in_heads.n / static_cast<int64_t>(sizeof(Part));
    if (p.me < 0 || nparts == 0 || *io) return MPI_SUCCESS;
    // The aggregator: its parts in rank order (the sources' order), each
    // at its place in the buffer, after the file's bytes when they leave
    // holes.
    auto *parts = reinterpret_cast<Part *>(in_heads.at);
    int64_t from = none, to = 0;
    for (int64_t i = 0; i < nparts; ++i) {
        if (parts[i].offset < from) from = parts[i].offset;
        if (parts[i].offset + parts[i].len > to) to = parts[i].offset + parts[i].len;
    }
    Bytes sorted;  // a copy: the parts land in rank order
    if (!sorted.put(parts, in_heads.n)) {
        *io = MPI_ERR_NO_MEM;
        return MPI_SUCCESS;
    }
    qsort(sorted.at, static_cast<size_t>(nparts), sizeof(Part), by_offset);
    if (!covers(reinterpret_cast<const Part *>(sorted.at), nparts, from, to)) {
        uint64_t got = 0;
        if ((*io = util::file_read_at(f.fd, buffer, static_cast<uint64_t>(to - from), from, &got)))
            return MPI_SUCCESS;
        memset(buffer + got, 0, static_cast<size_t>(to - from - static_cast<int64_t>(got)));
    }
    int64_t at = 0;
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
int read_round(File &f, Plan &p, int64_t round, const Pieces &mine, Stream &s, char *buffer,
               int64_t *short_at, int *io) {
    Bytes heads;
    Exchange &hx = p.x[0], &vx = p.x[1], &dx = p.x[2];
    hx.clear(f.size);
    bool ok = true;
    for (int a = 0; a < p.naggr; ++a) {
        int64_t from, to;
        window(p, a, round, &from, &to);
        const int64_t before = heads.n;
        ok = ok && parts_in(mine, from, to, &heads);
        hx.send[p.aggr[a]] = static_cast<int>(heads.n - before);
    }
    Bytes asked;
    if (int e = exchange(f, hx, heads, &asked, ok)) return e;
    // The aggregator reads the span, and answers each part: its valid
    // length (int64) and its bytes.
    const auto *want = reinterpret_cast<const Part *>(asked.at);
    const int64_t nwant = asked.n / static_cast<int64_t>(sizeof(Part));
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
    ok = true;
    for (int src = 0, k = 0; src < f.size; ++src) {
        const int64_t nparts = hx.recv[src] / static_cast<int64_t>(sizeof(Part));
        const int64_t vbefore = valid.n, dbefore = data.n;
        for (int64_t i = 0; ok && i < nparts; ++i, ++k) {
            const Part &part = want[k];
            int64_t good = from + got - part.offset;
            good = *io || good < 0 ? 0 : good > part.len ? part.len : good;
            ok = valid.put(&good, sizeof good) && data.reserve(data.n + part.len);
            if (!ok) break;
            memcpy(data.at + data.n, buffer + (part.offset - from), static_cast<size_t>(good));
            memset(data.at + data.n + good, 0, static_cast<size_t>(part.len - good));
            data.n += part.len;
        }
        vx.send[src] = static_cast<int>(valid.n - vbefore);
        dx.send[src] = static_cast<int>(data.n - dbefore);
    }
    Bytes in_valid, in_data;
    if (int e = exchange(f, vx, valid, &in_valid, ok)) return e;
    if (int e = exchange(f, dx, data, &in_data, ok)) return e;
    // The caller's parts come back in the order it asked for them.
    const auto *mine_parts = reinterpret_cast<const Part *>(heads.at);
    const auto *goods = reinterpret_cast<const int64_t *>(in_valid.at);
    int64_t at = 0;
    for (int64_t i = 0; i < static_cast<int64_t>(heads.n / sizeof(Part)); ++i) {
        const Part &part = mine_parts[i];
        memcpy(s.data + part.stream, in_data.at + at, static_cast<size_t>(goods[i]));
        at += part.len;
        if (goods[i] < part.len && part.stream + goods[i] < *short_at) *short_at = part.stream + goods[i];
    }
    return MPI_SUCCESS;
}

// `from`'s pieces sorted by file offset into *out (a view may go back in
// the file from one tile to the next: a resized filetype); the stream
// offsets come along.
bool sorted_by_offset(const Pieces &from, Pieces *out) {
    for (int64_t i = 0; i < from.n; ++i) {
        const Piece &p = from.at[i];
        if (!out->add(p.offset, p.len, p.stream)) return false;
    }
    qsort(out->at, static_cast<size_t>(out->n), sizeof(Piece), [](const void *a, const void *b) {
        const int64_t x = static_cast<const Piece *>(a)->offset, y = static_cast<const Piece *>(b)->offset;
        return x < y ? -1 : x > y;
    });
    return true;
}

}  // namespace

int file_aggregators(const File &f, int *out) {
    const Comm &c = *comm_get(f.comm);
    int n = 0;
    if (f.hints.cb_nodes > 0) {
        for (int i = 0; i < f.hints.cb_nodes; ++i)
            out[n++] = static_cast<int>(static_cast<int64_t>(i) * f.size / f.hints.cb_nodes);
        return n;
    }
    for (int r = 0; r < f.size; ++r) {
        const int cluster = util::cluster_of(c.group.world[r]);
        bool seen = false;
        for (int i = 0; i < n && !seen; ++i)
            seen = util::cluster_of(c.group.world[out[i]]) == cluster;
        if (!seen) out[n++] = r;
    }
    return n;
}

int access_at_all(File &f, Dir dir, MPI_Offset offset, void *buf, int count, MPI_Datatype type,
                  int64_t *bytes) {
    *bytes = 0;
    const CbMode mode = dir == Dir::write ? f.hints.cb_write : f.hints.cb_read;
    if (f.atomic || mode == CbMode::disable || f.size == 1) {
        // Alone, with an agreement after, so that the call stays
        // collective in its effect: every rank's access is over when any
        // returns.
        int e = access_at(f, dir, offset, buf, count, type, bytes);
        int worst = e;
        if (int c = MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, f.comm)) return c;
        return e ? e : worst;
    }
    const Datatype *t = datatype_get(type);
    Stream s;
    int e = dir == Dir::write ? stream_out(f.view, buf, count, type, *t, &s)
                              : stream_in(f.view, buf, count, *t, &s);
    Pieces mapped, mine;
    if (e == MPI_SUCCESS &&
        (map_view(f.view, offset * f.view.et->size, s.bytes, &mapped) || !sorted_by_offset(mapped, &mine)))
        e = MPI_ERR_NO_MEM;
    auto *p = static_cast<Plan *>(malloc(sizeof(Plan)));
    if (e == MPI_SUCCESS && !p) e = MPI_ERR_NO_MEM;
    // The range of all the accesses, and whether every rank is ready.
    int64_t lo = none, hi = 0;
    for (int64_t i = 0; e == MPI_SUCCESS && i < mine.n; ++i) {
        if (mine.at[i].offset < lo) lo = mine.at[i].offset;
        if (mine.at[i].offset + mine.at[i].len > hi) hi = mine.at[i].offset + mine.at[i].len;
    }
    MPI_Offset range[3] = {-lo, hi, e};
    if (int c = MPI_Allreduce(MPI_IN_PLACE, range, 3, MPI_OFFSET, MPI_MAX, f.comm)) {
        free(p);
        return c;
    }
    if (e || range[2]) {
        free(p);
        return e ? e : static_cast<int>(range[2]);
    }
    p->naggr = file_aggregators(f, p->aggr);
    p->lo = -range[0];
    p->hi = range[1];
    int64_t worst = MPI_SUCCESS;
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
        // Every rank makes the same rounds: a round's failure is agreed
        // on by all (exchange()), and ends the loop everywhere.
        for (int64_t r = 0; r < p->rounds && e == MPI_SUCCESS; ++r)
            e = dir == Dir::write ? write_round(f, *p, r, mine, s, buffer, &io)
                                  : read_round(f, *p, r, mine, s, buffer, &short_at, &io);
        free(buffer);
        // An aggregator's failure is every rank's.
        worst = e ? e : io;
        if (int c = MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT64_T, MPI_MAX, f.comm)) worst = c;
        *bytes = dir == Dir::write ? s.bytes : short_at;
    }
    free(p);
    if (worst) return static_cast<int>(worst);
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
    if (place == Place::individual) f->position = offset + bytes / f->view.et->size;
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
