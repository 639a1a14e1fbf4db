// Independent data access (MPI 3.1 sections 13.4.2-13.4.4): explicit
// offsets, the individual and the shared file pointer, blocking and not.
//
// An access packs the memory's data into the file's representation (a
// stream), maps the stream's range of the view onto pieces of the file
// (view.cpp) and moves each piece with one request to the file server.
// A non-blocking access is carried out before its call returns: its
// request is complete at once, which MPI allows.
#include <string.h>

#include "datatype/datatype.hpp"
#include "env/call.hpp"
#include "env/errors.hpp"
#include "io/file.hpp"
#include "pt2pt/request.hpp"
#include <mpiutil/mpiutil.hpp>

using namespace lwmpi;

namespace lwmpi {

namespace {

// Holds the file's atomic-mode lock (the shared pointer window's lock
// on rank 0) while it lives, in atomic mode: exclusive for an access of
// several file-server requests, shared for one (which the server serves
// whole, but which must not fall inside another's several).
class AtomicSection {
public:
    AtomicSection(File &f, bool one_request) : f_(f), held_(false) {
        if (f.atomic)
            error_ = MPI_Win_lock(one_request ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE, 0, 0, f.shared);
        held_ = f.atomic && error_ == MPI_SUCCESS;
    }
    ~AtomicSection() {
        if (held_) MPI_Win_unlock(0, f_.shared);
    }
    AtomicSection(const AtomicSection &) = delete;
    AtomicSection &operator=(const AtomicSection &) = delete;
    int error() const { return error_; }

private:
    File &f_;
    bool held_;
    int error_ = MPI_SUCCESS;
};

}  // namespace

int access_check(const File &f, Dir dir, Place place, int count, MPI_Datatype type, const Datatype **t) {
    if (dir == Dir::write && (f.amode & MPI_MODE_RDONLY)) return MPI_ERR_READ_ONLY;
    if (dir == Dir::read && (f.amode & MPI_MODE_WRONLY)) return MPI_ERR_ACCESS;
    if (place != Place::shared && (f.amode & MPI_MODE_SEQUENTIAL)) return MPI_ERR_UNSUPPORTED_OPERATION;
    if (count < 0) return MPI_ERR_COUNT;
    if (int e = check_datatype(type)) return e;
    *t = datatype_get(type);
    // The data must be whole etypes (section 13.4.1).
    if ((*t)->size % f.view.et->size != 0) return MPI_ERR_TYPE;
    if (!view_takes(f.view, **t)) return MPI_ERR_UNSUPPORTED_DATAREP;
    return MPI_SUCCESS;
}

int access_at(File &f, Dir dir, MPI_Offset offset, void *buf, int count, MPI_Datatype type, int64_t *bytes) {
    *bytes = 0;
    const Datatype *t = datatype_get(type);
    Stream s;
    int e = dir == Dir::write ? stream_out(f.view, buf, count, type, *t, &s)
                              : stream_in(f.view, buf, count, *t, &s);
    if (e) return e;
    Pieces pieces;
    if (map_view(f.view, offset * f.view.et->size, s.bytes, &pieces)) return MPI_ERR_NO_MEM;
    const bool one_request = pieces.n == 0 || (pieces.n == 1 && static_cast<uint64_t>(pieces.at[0].len) <=
                                                                    util::file_atomic_bytes);
    AtomicSection atomic(f, one_request);
    if (atomic.error()) return atomic.error();
    int64_t done = 0;
    for (int64_t i = 0; i < pieces.n; ++i) {
        const Piece &p = pieces.at[i];
        if (dir == Dir::write) {
            if ((e = util::file_write_at(f.fd, s.data + p.stream, static_cast<uint64_t>(p.len), p.offset)))
                break;
            done += p.len;
        } else {
            uint64_t got = 0;
            if ((e = util::file_read_at(f.fd, s.data + p.stream, static_cast<uint64_t>(p.len), p.offset,
                                        &got)))
                break;
            done += static_cast<int64_t>(got);
            if (static_cast<int64_t>(got) < p.len) break;  // the end of the file
        }
    }
    if (dir == Dir::read && e == MPI_SUCCESS) e = stream_deliver(f.view, s, done, buf, count, type, *t);
    *bytes = done;
    return e;
}

int io_report(const Report &r, int64_t bytes) {
    if (!r.nonblocking) {
        io_status(r.status, bytes);
        return MPI_SUCCESS;
    }
    if (int e = request_new_done(MPI_COMM_SELF, r.request)) return e;
    io_status(&request_get(*r.request)->status, bytes);
    return MPI_SUCCESS;
}

void io_status(MPI_Status *status, int64_t bytes) {
    if (status == MPI_STATUS_IGNORE) return;
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    status->MPI_ERROR = MPI_SUCCESS;
    status->_cancelled = 0;
    status->_count = bytes;
    status->_offered = bytes;
}

}  // namespace lwmpi

namespace {

// One independent access of any place: the checks, then the data, then
// the file pointer it used moved past it (in etypes of the view); the
// bytes moved go to the report.
int independent(const char *fn, MPI_File fh, Dir dir, Place place, MPI_Offset offset, const void *buf,
                int count, MPI_Datatype type, const Report &report) {
    Call call(fn);
    File *f;
    if (int e = enter(call, fh, &f)) return e;
    const Datatype *t;
    if (int e = access_check(*f, dir, place, count, type, &t)) return call.fail(e);
    if (place == Place::at && offset < 0) return call.fail(MPI_ERR_ARG, "the offset must be >= 0");
    if (report.nonblocking && !report.request) return call.fail(MPI_ERR_ARG, "the request is null");
    const MPI_Offset etypes = count * t->size / f->view.et->size;
    if (place == Place::individual) {
        offset = f->position;
    } else if (place == Place::shared) {
        if (int e = shared_fetch_add(*f, etypes, &offset))
            return call.fail(e, "the shared file pointer cannot be moved");
    }
    int64_t bytes = 0;
    if (int e = access_at(*f, dir, offset, const_cast<void *>(buf), count, type, &bytes))
        return call.fail(e, util::error_detail());
    // The individual pointer moves past what was accessed (a read that
    // met the end of the file, only that far), as ROMIO's.
    if (place == Place::individual) f->position = offset + bytes / f->view.et->size;
    if (int e = io_report(report, bytes)) return call.fail(e);
    return MPI_SUCCESS;
}

}  // namespace

// ---- explicit offsets (section 13.4.2) ----

int MPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                     MPI_Status *status) {
    return independent("MPI_File_read_at", fh, Dir::read, Place::at, offset, buf, count, datatype,
                       blocking(status));
}

int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                      MPI_Status *status) {
    return independent("MPI_File_write_at", fh, Dir::write, Place::at, offset, buf, count, datatype,
                       blocking(status));
}

int MPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                      MPI_Request *request) {
    return independent("MPI_File_iread_at", fh, Dir::read, Place::at, offset, buf, count, datatype,
                       nonblocking(request));
}

int MPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                       MPI_Request *request) {
    return independent("MPI_File_iwrite_at", fh, Dir::write, Place::at, offset, buf, count, datatype,
                       nonblocking(request));
}

// ---- the individual file pointer (section 13.4.3) ----

int MPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
    return independent("MPI_File_read", fh, Dir::read, Place::individual, 0, buf, count, datatype,
                       blocking(status));
}

int MPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
    return independent("MPI_File_write", fh, Dir::write, Place::individual, 0, buf, count, datatype,
                       blocking(status));
}

int MPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) {
    return independent("MPI_File_iread", fh, Dir::read, Place::individual, 0, buf, count, datatype,
                       nonblocking(request));
}

int MPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request) {
    return independent("MPI_File_iwrite", fh, Dir::write, Place::individual, 0, buf, count, datatype,
                       nonblocking(request));
}

namespace {

// Where `whence` and `offset` put a file pointer now at `now` (etypes):
// MPI_SUCCESS, or MPI_ERR_ARG for a bad whence or a place before the
// view's start. MPI_SEEK_END counts from the end of the file's data in
// the view (section 13.4.3).
int seek_target(File &f, MPI_Offset now, MPI_Offset offset, int whence, MPI_Offset *out) {
    MPI_Offset base = 0;
    switch (whence) {
    case MPI_SEEK_SET: break;
    case MPI_SEEK_CUR: base = now; break;
    case MPI_SEEK_END: {
        int64_t size = 0;
        if (int e = util::file_size(f.fd, &size)) return e;
        base = view_etypes_before(f.view, size);
        break;
    }
    default: return MPI_ERR_ARG;
    }
    if (base + offset < 0) return MPI_ERR_ARG;
    *out = base + offset;
    return MPI_SUCCESS;
}

}  // namespace

int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) {
    Call call("MPI_File_seek");
    File *f;
    if (int e = enter(call, fh, &f)) return e;
    if (f->amode & MPI_MODE_SEQUENTIAL) return call.fail(MPI_ERR_UNSUPPORTED_OPERATION);
    if (int e = seek_target(*f, f->position, offset, whence, &f->position))
        return call.fail(e, "a bad whence, or a place before the start of the view");
    return MPI_SUCCESS;
}

int MPI_File_get_position(MPI_File fh, MPI_Offset *offset) {
    Call call("MPI_File_get_position");
    File *f;
    if (int e = enter(call, fh, &f)) return e;
    if (!offset) return call.fail(MPI_ERR_ARG);
    *offset = f->position;
    return MPI_SUCCESS;
}

/// The file byte that view offset `offset` (etypes) falls on (section
/// 13.4.3).
int MPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp) {
    Call call("MPI_File_get_byte_offset");
    File *f;
    if (int e = enter(call, fh, &f)) return e;
    if (!disp || offset < 0) return call.fail(MPI_ERR_ARG);
    Pieces one;
    if (map_view(f->view, offset * f->view.et->size, 1, &one)) return call.fail(MPI_ERR_NO_MEM);
    *disp = one.at[0].offset;
    return MPI_SUCCESS;
}

// ---- the shared file pointer (section 13.4.4) ----

int MPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
    return independent("MPI_File_read_shared", fh, Dir::read, Place::shared, 0, buf, count, datatype,
                       blocking(status));
}

int MPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status) {
    return independent("MPI_File_write_shared", fh, Dir::write, Place::shared, 0, buf, count, datatype,
                       blocking(status));
}

int MPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) {
    return independent("MPI_File_iread_shared", fh, Dir::read, Place::shared, 0, buf, count, datatype,
                       nonblocking(request));
}

int MPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Request *request) {
    return independent("MPI_File_iwrite_shared", fh, Dir::write, Place::shared, 0, buf, count, datatype,
                       nonblocking(request));
}

/// Collective: every rank gives the same place.
int MPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) {
    Call call("MPI_File_seek_shared");
    File *f;
    if (int e = enter(call, fh, &f)) return e;
    MPI_Offset now = 0, target = 0;
    int e = shared_fetch_add(*f, 0, &now);
    if (e == MPI_SUCCESS) e = seek_target(*f, now, offset, whence, &target);
    MPI_Offset both[3] = {e, target, -target};
    if (int c = MPI_Allreduce(MPI_IN_PLACE, both, 3, MPI_OFFSET, MPI_MAX, f->comm)) return call.fail(c);
    if (e) return call.fail(e, "a bad whence, or a place before the start of the view");
    if (both[0]) return call.fail(static_cast<int>(both[0]), "another rank's place was refused");
    if (both[1] != -both[2]) return call.fail(MPI_ERR_NOT_SAME, "the ranks gave different places");
    if (int s = shared_set(*f, target)) return call.fail(s);
    return MPI_SUCCESS;
}

int MPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset) {
    Call call("MPI_File_get_position_shared");
    File *f;
    if (int e = enter(call, fh, &f)) return e;
    if (!offset) return call.fail(MPI_ERR_ARG);
    if (int e = shared_fetch_add(*f, 0, offset)) return call.fail(e);
    return MPI_SUCCESS;
}
