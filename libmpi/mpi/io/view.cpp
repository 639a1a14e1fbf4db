// File views and data representations (MPI 3.1 sections 13.3 and 13.5).
//
// A view's data is a stream of bytes: the filetype's data bytes, tile
// after tile from the view's displacement. An access moves a contiguous
// range of that stream, so mapping it onto the file is walking the
// filetype's blocks (map_view).
//
// A representation other than "native" ("external32", or one of
// MPI_Register_datarep) converts the data between memory and the file.
// LWMPI lays out the file with the memory's sizes: a representation is
// accepted for a view and an access when each basic type takes as many
// bytes in the file as in memory (for external32, every type of table
// 13.2 but MPI_LONG and MPI_UNSIGNED_LONG, which are 8 bytes in memory and
// 4 in external32); another is refused with MPI_ERR_UNSUPPORTED_DATAREP.
#include <stdlib.h>
#include <string.h>

#include "datatype/datatype.hpp"
#include "datatype/external32.hpp"
#include "env/call.hpp"
#include "env/errors.hpp"
#include "env/info.hpp"
#include "io/file.hpp"
#include <lwmpi/rank_local.hpp>
#include <lwmpi/text.hpp>

using namespace lwmpi;

namespace lwmpi {

/// A data representation: external32, or one registered by the program.
struct Datarep {
    char name[MPI_MAX_DATAREP_STRING];
    bool external32;
    MPI_Datarep_conversion_function *read;
    MPI_Datarep_conversion_function *write;
    MPI_Datarep_extent_function *extent;
    void *extra_state;
};

namespace {

/// Representations a rank may register (MPI_ERR_NO_MEM beyond).
constexpr int max_datareps = 16;

struct Datareps {
    Datarep user[max_datareps];
    int n;
};
thread_local util::RankLocal<Datareps> t_datareps;

constexpr Datarep external32_rep{"external32", true, nullptr, nullptr, nullptr, nullptr};

// The representation named `name`: *out nullptr for native; false when
// there is none of that name.
bool find_datarep(const char *name, const Datarep **out) {
    if (!strcmp(name, "native") || !strcmp(name, "internal")) {
        *out = nullptr;
        return true;
    }
    if (!strcmp(name, "external32")) {
        *out = &external32_rep;
        return true;
    }
    const Datareps &d = t_datareps.get();
    for (int i = 0; i < d.n; ++i)
        if (!strcmp(d.user[i].name, name)) {
            *out = &d.user[i];
            return true;
        }
    return false;
}

// True when every basic element of `t` takes as many bytes in `rep` as in
// memory (see above).
bool same_sizes(const Datarep &rep, const Datatype &t) {
    for (int64_t i = 0; i < t.nruns; ++i) {
        const Run &r = t.runs[i];
        if (rep.external32) {
            if (external32_size(r.type) != r.size) return false;
        } else if (rep.extent) {
            MPI_Aint extent = 0;
            if (rep.extent(r.type, &extent, rep.extra_state) != MPI_SUCCESS || extent != r.size) return false;
        }
    }
    return true;
}

}  // namespace

Pieces::~Pieces() { free(at); }

bool Pieces::add(int64_t offset, int64_t len, int64_t stream) {
    if (len <= 0) return true;
    if (n > 0 && at[n - 1].offset + at[n - 1].len == offset && at[n - 1].stream + at[n - 1].len == stream) {
        at[n - 1].len += len;
        return true;
    }
    if (n == cap) {
        const int64_t grown = cap ? 2 * cap : 16;
        auto *p = static_cast<Piece *>(realloc(at, sizeof(Piece) * static_cast<size_t>(grown)));
        if (!p) return false;
        at = p;
        cap = grown;
    }
    at[n++] = Piece{offset, len, stream};
    return true;
}

Stream::~Stream() {
    if (owned) free(data);
}

void view_default(FileView &v) {
    v = FileView{};
    v.etype = v.filetype = MPI_BYTE;
    v.et = v.ft = datatype_get(MPI_BYTE);
    strcpy(v.datarep, "native");
}

bool view_takes(const FileView &v, const Datatype &t) { return !v.rep || same_sizes(*v.rep, t); }

void view_release(FileView &v) {
    datatype_release(v.etype);
    datatype_release(v.filetype);
}

MPI_Offset view_etypes_before(const FileView &v, int64_t end) {
    const Datatype &ft = *v.ft;
    if (end <= v.disp) return 0;
    const int64_t span = end - v.disp;
    // Tiles whose data lies wholly before the end, then the few that
    // start before it and reach past it (their data may span more than
    // an extent).
    const int64_t true_ub = ft.true_lb + ft.true_extent;
    int64_t tile = span >= true_ub ? (span - true_ub) / ft.extent + 1 : 0;
    int64_t bytes = tile * ft.size;
    for (; tile * ft.extent + ft.true_lb < span; ++tile)
        for_each_piece(ft, 1, [&](int64_t disp, int64_t len) {
            const int64_t at = tile * ft.extent + disp;
            if (at < span) bytes += at + len <= span ? len : span - at;
            return 0;
        });
    return bytes / v.et->size;
}

int map_view(const FileView &v, int64_t pos, int64_t n, Pieces *out) {
    const Datatype &ft = *v.ft;
    const int64_t start = out->n ? out->at[out->n - 1].stream + out->at[out->n - 1].len : 0;
    if (n <= 0) return MPI_SUCCESS;
    // A contiguous filetype tiles the file without gaps: one piece.
    if (ft.contiguous && ft.extent == ft.size) {
        return out->add(v.disp + ft.true_lb + pos, n, start) ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    }
    int64_t tile = pos / ft.size;
    int64_t skip = pos % ft.size;  // data bytes of the tile before pos
    int64_t done = 0;
    while (done < n) {
        const int64_t base = v.disp + tile * ft.extent;
        const int e = for_each_piece(ft, 1, [&](int64_t disp, int64_t len) {
            if (done >= n) return 1;  // enough
            if (skip >= len) {
                skip -= len;
                return 0;
            }
            const int64_t at = base + disp + skip;
            len -= skip;
            skip = 0;
            if (len > n - done) len = n - done;
            if (!out->add(at, len, start + done)) return -1;
            done += len;
            return 0;
        });
        if (e < 0) return MPI_ERR_NO_MEM;
        ++tile;
    }
    return MPI_SUCCESS;
}

int stream_out(const FileView &v, const void *buf, int count, MPI_Datatype type, const Datatype &t,
               Stream *s) {
    s->bytes = count * t.size;
    if (!v.rep && t.contiguous) {
        s->data = const_cast<char *>(static_cast<const char *>(buf)) + t.true_lb;
        return MPI_SUCCESS;
    }
    s->data = static_cast<char *>(malloc(static_cast<size_t>(s->bytes ? s->bytes : 1)));
    if (!s->data) return MPI_ERR_NO_MEM;
    s->owned = true;
    if (v.rep && v.rep->write) {
        const int e = v.rep->write(const_cast<void *>(buf), type, count, s->data, 0, v.rep->extra_state);
        return e == MPI_SUCCESS ? MPI_SUCCESS : MPI_ERR_CONVERSION;
    }
    pack(buf, count, t, s->data);
    if (v.rep && v.rep->external32) {
        char *converted = static_cast<char *>(malloc(static_cast<size_t>(s->bytes ? s->bytes : 1)));
        if (!converted) return MPI_ERR_NO_MEM;
        to_external32(t, count, s->data, converted);
        free(s->data);
        s->data = converted;
    }
    return MPI_SUCCESS;
}

int stream_in(const FileView &v, void *buf, int count, const Datatype &t, Stream *s) {
    s->bytes = count * t.size;
    if (!v.rep && t.contiguous) {
        s->data = static_cast<char *>(buf) + t.true_lb;
        return MPI_SUCCESS;
    }
    s->data = static_cast<char *>(malloc(static_cast<size_t>(s->bytes ? s->bytes : 1)));
    if (!s->data) return MPI_ERR_NO_MEM;
    s->owned = true;
    return MPI_SUCCESS;
}

int stream_deliver(const FileView &v, const Stream &s, int64_t got, void *buf, int count, MPI_Datatype type,
                   const Datatype &t) {
    if (!s.owned || got <= 0) return MPI_SUCCESS;  // read in place, or nothing
    if (v.rep && v.rep->read) {
        // A user conversion converts whole elements only.
        const int whole = t.size ? static_cast<int>(got / t.size) : count;
        const int e = v.rep->read(buf, type, whole, s.data, 0, v.rep->extra_state);
        return e == MPI_SUCCESS ? MPI_SUCCESS : MPI_ERR_CONVERSION;
    }
    if (v.rep && v.rep->external32) {
        // Whole elements convert; a partial last one arrives as it is.
        const int64_t whole = t.size ? got / t.size : 0;
        char *native = static_cast<char *>(malloc(static_cast<size_t>(got)));
        if (!native) return MPI_ERR_NO_MEM;
        from_external32(t, whole, s.data, native);
        memcpy(native + whole * t.size, s.data + whole * t.size, static_cast<size_t>(got - whole * t.size));
        unpack(native, static_cast<uint64_t>(got), buf, count, t);
        free(native);
        return MPI_SUCCESS;
    }
    unpack(s.data, static_cast<uint64_t>(got), buf, count, t);
    return MPI_SUCCESS;
}

}  // namespace lwmpi

// ---- the MPI calls ----

namespace {

// Whether `t` may be a view's etype or filetype (section 13.3): no
// negative displacement, displacements that never go back, and no
// overlap when the file is open for writing.
bool layout_valid(const Datatype &t, bool writable) {
    if (t.true_lb < 0 || t.lb < 0) return false;
    int64_t last = 0, end = 0;
    return for_each_piece(t, 1, [&](int64_t disp, int64_t len) {
               if (disp < last || (writable && disp < end)) return 1;
               last = disp;
               if (disp + len > end) end = disp + len;
               return 0;
           }) == 0;
}

// The checks of MPI_File_set_view (section 13.3) but the collective ones:
// the types (committed; the filetype made of whole etypes), disp and the
// representation.
int check_view(const File &f, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char *datarep,
               const Datatype **et, const Datatype **ft, const Datarep **rep, TextBuilder &why) {
    if (check_datatype(etype) || check_datatype(filetype)) {
        why.put("the etype and the filetype must be valid, committed datatypes");
        return MPI_ERR_TYPE;
    }
    *et = datatype_get(etype);
    *ft = datatype_get(filetype);
    if ((*et)->size <= 0 || (*ft)->size <= 0 || (*ft)->size % (*et)->size != 0) {
        why.put("the filetype must be made of whole etypes, of at least one byte");
        return MPI_ERR_TYPE;
    }
    const bool writable = !(f.amode & MPI_MODE_RDONLY);
    if (!layout_valid(**et, writable) || !layout_valid(**ft, writable) || (*ft)->extent <= 0) {
        why.put(
            "the etype and the filetype must have no negative displacement, never go back, and "
            "not overlap in a file open for writing");
        return MPI_ERR_IO;  // ROMIO's class for it, which programs test
    }
    if (disp == MPI_DISPLACEMENT_CURRENT ? !(f.amode & MPI_MODE_SEQUENTIAL) : disp < 0) {
        why.put("disp must be >= 0 (MPI_DISPLACEMENT_CURRENT only with MPI_MODE_SEQUENTIAL)");
        return MPI_ERR_ARG;
    }
    if (!datarep || !find_datarep(datarep, rep)) {
        why.put("no data representation has that name");
        return MPI_ERR_UNSUPPORTED_DATAREP;
    }
    if (*rep && (!same_sizes(**rep, **et) || !same_sizes(**rep, **ft))) {
        why.put("a type of the view takes another size in that representation than in memory");
        return MPI_ERR_UNSUPPORTED_DATAREP;
    }
    return MPI_SUCCESS;
}

}  // namespace

/// Collective over the file's ranks; resets both file pointers to 0
/// (section 13.3). A split collective must not be active.
int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char *datarep, MPI_Info info) {
    Call call("MPI_File_set_view");
    File *f;
    if (int e = enter(call, fh, &f)) return e;
    char detail[128];
    TextBuilder why(detail, sizeof detail);
    const Datatype *et, *ft;
    const Datarep *rep;
    int e = check_view(*f, disp, etype, filetype, datarep, &et, &ft, &rep, why);
    if (e == MPI_SUCCESS && info != MPI_INFO_NULL && !info_valid(info)) e = MPI_ERR_INFO;
    if (e == MPI_SUCCESS && f->split.active) {
        why.put("a split collective is active on the file");
        e = MPI_ERR_OTHER;
    }
    // Every rank learns whether all succeeded, so that none is left with
    // the old view while the others have the new one.
    int worst = e;
    if (int c = MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, f->comm)) return call.fail(c);
    if (e) return call.fail(e, detail);
    if (worst) return call.fail(worst, "another rank's view was refused");
    // A failure from here on is reported after the collective steps, so
    // that no rank leaves the others waiting.
    int late = MPI_SUCCESS;
    if (disp == MPI_DISPLACEMENT_CURRENT) {
        MPI_Offset now = 0;
        Pieces here;  // the file byte the shared file pointer is at
        late = shared_fetch_add(*f, 0, &now);
        if (late == MPI_SUCCESS && map_view(f->view, now * f->view.et->size, 1, &here)) late = MPI_ERR_NO_MEM;
        disp = late ? f->view.disp : here.at[0].offset;
    }
    view_release(f->view);
    f->view.disp = disp;
    f->view.etype = etype;
    f->view.filetype = filetype;
    f->view.et = datatype_hold(etype);
    f->view.ft = datatype_hold(filetype);
    f->view.rep = rep;
    strncpy(f->view.datarep, datarep, MPI_MAX_DATAREP_STRING - 1);
    f->view.datarep[MPI_MAX_DATAREP_STRING - 1] = 0;
    f->position = 0;
    if (int s = shared_set(*f, 0)) return call.fail(s, "the shared file pointer cannot be reset");
    if (int h = file_set_hints(*f, info)) return call.fail(h);
    return late ? call.fail(late, "the shared file pointer's place cannot be found") : MPI_SUCCESS;
}

/// The view: disp, the etype and filetype (new handles of derived ones,
/// which the caller frees; section 13.3), and the representation's name.
int MPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                      char *datarep) {
    Call call("MPI_File_get_view");
    File *f;
    if (int e = enter(call, fh, &f)) return e;
    if (!disp || !etype || !filetype || !datarep) return call.fail(MPI_ERR_ARG);
    *disp = f->view.disp;
    *etype = f->view.etype;
    *filetype = f->view.filetype;
    datatype_share(f->view.etype);
    datatype_share(f->view.filetype);
    strcpy(datarep, f->view.datarep);
    return MPI_SUCCESS;
}

/// The extent of `datatype` in the file's representation (section
/// 13.5.1): here always its extent in memory (see above).
int MPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent) {
    Call call("MPI_File_get_type_extent");
    File *f;
    if (int e = enter(call, fh, &f)) return e;
    const Datatype *t = datatype_get(datatype);
    if (!t) return call.fail(MPI_ERR_TYPE);
    if (!extent) return call.fail(MPI_ERR_ARG);
    *extent = t->extent;
    return MPI_SUCCESS;
}

/// Registers a representation (section 13.5.3): MPI_ERR_DUP_DATAREP when
/// the name is taken, MPI_ERR_ARG for an empty or too long one.
int MPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                         MPI_Datarep_conversion_function *write_conversion_fn,
                         MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state) {
    Call call("MPI_Register_datarep");
    if (int e = enter_no_file(call)) return e;
    if (!datarep || !*datarep || strlen(datarep) >= MPI_MAX_DATAREP_STRING)
        return call.fail(MPI_ERR_ARG, "the name must be 1 to MPI_MAX_DATAREP_STRING - 1 characters");
    if (!dtype_file_extent_fn) return call.fail(MPI_ERR_ARG, "an extent function is required");
    const Datarep *existing;
    if (find_datarep(datarep, &existing)) return call.fail(MPI_ERR_DUP_DATAREP);
    Datareps &d = t_datareps.get();
    if (d.n == max_datareps) return call.fail(MPI_ERR_NO_MEM, "too many data representations");
    Datarep &r = d.user[d.n++];
    strcpy(r.name, datarep);
    r.external32 = false;
    r.read = read_conversion_fn;
    r.write = write_conversion_fn;
    r.extent = dtype_file_extent_fn;
    r.extra_state = extra_state;
    return MPI_SUCCESS;
}
