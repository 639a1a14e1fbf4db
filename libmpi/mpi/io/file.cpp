// Opening, closing and managing files (MPI 3.1 sections 13.2, 13.6 and
// 13.7): the per-rank table of open files and the calls on a whole file.
#include <stdlib.h>
#include <string.h>

#include "comm/comm.hpp"
#include "common/handles.hpp"
#include "common/slot_table.hpp"
#include "env/call.hpp"
#include "env/errors.hpp"
#include "env/info.hpp"
#include "io/file.hpp"
#include <lwmpi/rank_local.hpp>
#include <lwmpi/text.hpp>
#include <mpiutil/mpiutil.hpp>

using namespace lwmpi;

namespace lwmpi {

namespace {

/// Bytes an aggregator moves a step by default (ROMIO's cb_buffer_size):
/// a few file-server requests, small beside a cluster's memory.
constexpr int64_t default_cb_buffer = 1 << 20;

struct Files {
    SlotTable<File, max_files> table;
    MPI_Errhandler null_errhandler;  ///< MPI_FILE_NULL's; 0: MPI_ERRORS_RETURN
    bool registered;                 ///< raise_error knows how to find a file's handler
};
thread_local util::RankLocal<Files> t_files;

bool handler_of(int handle, MPI_Errhandler *out) {
    if (handle == MPI_FILE_NULL) {
        const MPI_Errhandler h = t_files.get().null_errhandler;
        *out = h ? h : MPI_ERRORS_RETURN;
        return true;
    }
    const File *f = file_get(handle);
    if (f) *out = f->errhandler;
    return f != nullptr;
}

bool uses_errhandler(MPI_Errhandler h) {
    const Files &s = t_files.get();
    if (s.null_errhandler == h) return true;
    for (int i = 1; i < s.table.cap; ++i)
        if (const File *f = s.table.at(i); f && f->errhandler == h) return true;
    return false;
}

// The rank's files, known to raise_error from the first call on files on.
Files &files() {
    Files &s = t_files.get();
    if (!s.registered) {
        register_errhandler_holder(ErrhandlerHolder{HandleKind::file, handler_of, uses_errhandler});
        s.registered = true;
    }
    return s;
}

// An amode of section 13.2.1: exactly one access mode; no creation of a
// read-only file; no read-write sequential file.
bool amode_valid(int amode) {
    const int access = amode & (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR);
    if (access != MPI_MODE_RDONLY && access != MPI_MODE_WRONLY && access != MPI_MODE_RDWR) return false;
    if (access == MPI_MODE_RDONLY && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL))) return false;
    if (access == MPI_MODE_RDWR && (amode & MPI_MODE_SEQUENTIAL)) return false;
    constexpr int known = MPI_MODE_CREATE | MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR |
                          MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_EXCL | MPI_MODE_APPEND |
                          MPI_MODE_SEQUENTIAL;
    return (amode & ~known) == 0;
}

// MPIUtil's flags for `amode`; `first` opens (and may create) the file,
// the others open what it made. A write-only file is opened for reading
// too where the host allows (`readable`), since an aggregator of a
// collective write reads the holes its ranks' pieces leave; the access
// checks keep the program to writing.
unsigned flags_of(int amode, bool first, bool readable) {
    unsigned flags = 0;
    if (!(amode & MPI_MODE_WRONLY) || readable) flags |= util::file_read_flag;
    if (!(amode & MPI_MODE_RDONLY)) flags |= util::file_write_flag;
    if (first && (amode & MPI_MODE_CREATE)) flags |= util::file_create_flag;
    if (first && (amode & MPI_MODE_EXCL)) flags |= util::file_exclusive_flag;
    return flags;
}

// Opens the file for `amode` on the caller (see flags_of).
int open_here(const char *path, int amode, bool first, int *fd) {
    int e = util::file_open(path, flags_of(amode, first, true), fd);
    if (e == MPI_ERR_ACCESS && (amode & MPI_MODE_WRONLY))
        e = util::file_open(path, flags_of(amode, first, false), fd);
    return e;
}

// The name a program gives, without ROMIO's file-system prefix ("ufs:"),
// which some programs put in front of it.
const char *path_of(const char *filename) {
    return strncmp(filename, "ufs:", 4) == 0 ? filename + 4 : filename;
}

// Frees what `f` holds on the caller and its table entry.
void drop(File &f) {
    if (f.fd >= 0) util::file_close(f.fd);
    view_release(f.view);
    if (f.shared != MPI_WIN_NULL) MPI_Win_free(&f.shared);
    if (f.comm != MPI_COMM_NULL) MPI_Comm_free(&f.comm);
    release_errhandler(f.errhandler);
    files().table.remove(handle_index(f.handle));
}

// The collective part of MPI_File_open on `f` (its comm made): the file
// opened on every rank, rank 0 first (it alone creates), and the shared
// file pointer's window, whose counter starts at the end of the file
// with MPI_MODE_APPEND (13.2.1), as does the individual pointer. Every
// rank returns the same class.
int open_on_all(File &f, const char *path) {
    int e = MPI_SUCCESS;
    if (f.rank == 0) e = open_here(path, f.amode, true, &f.fd);
    int first = e;
    if (int c = MPI_Bcast(&first, 1, MPI_INT, 0, f.comm)) return c;
    if (first) return e ? e : first;
    if (f.rank != 0) e = open_here(path, f.amode, false, &f.fd);
    int worst = e;
    if (int c = MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, f.comm)) return c;
    if (worst == MPI_SUCCESS) {
        int64_t end = 0;  // rank 0's size of the file, for MPI_MODE_APPEND
        if (f.rank == 0 && (f.amode & MPI_MODE_APPEND)) e = util::file_size(f.fd, &end);
        void *word = nullptr;
        const MPI_Aint bytes = f.rank == 0 ? sizeof(MPI_Offset) : 0;
        const int w = MPI_Win_allocate(bytes, sizeof(MPI_Offset), MPI_INFO_NULL, f.comm, &word, &f.shared);
        if (w == MPI_SUCCESS && word) *static_cast<MPI_Offset *>(word) = end;  // before anyone reads it
        // The errors and rank 0's end, to every rank at once.
        MPI_Offset agreed[2] = {e ? e : w, end};
        if (int c = MPI_Allreduce(MPI_IN_PLACE, agreed, 2, MPI_OFFSET, MPI_MAX, f.comm)) return c;
        worst = static_cast<int>(agreed[0]);
        f.position = agreed[1];
    }
    if (worst && f.fd >= 0) {
        util::file_close(f.fd);
        f.fd = -1;
    }
    return worst;
}

}  // namespace

File *file_get(MPI_File h) {
    const int i = table_index(h, HandleKind::file, 1, max_files);
    return i < 0 ? nullptr : files().table.at(i);
}

int enter(Call &call, MPI_File fh, File **out) {
    if (int e = call.active()) return e;
    files();
    call.on(MPI_FILE_NULL);
    *out = file_get(fh);
    if (!*out) return call.fail(MPI_ERR_FILE);
    call.on(fh);
    return MPI_SUCCESS;
}

int enter_no_file(Call &call) {
    if (int e = call.active()) return e;
    files();
    call.on(MPI_FILE_NULL);
    return MPI_SUCCESS;
}

int shared_set(File &f, MPI_Offset value) {
    if (int e = MPI_Barrier(f.comm)) return e;
    if (f.rank == 0) {
        int e = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, f.shared);
        if (e == MPI_SUCCESS) e = MPI_Put(&value, 1, MPI_OFFSET, 0, 0, 1, MPI_OFFSET, f.shared);
        const int u = e == MPI_SUCCESS ? MPI_Win_unlock(0, f.shared) : e;
        if (u) return u;
    }
    return MPI_Barrier(f.comm);
}

int shared_fetch_add(File &f, MPI_Offset n, MPI_Offset *old) {
    int e = MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, f.shared);
    if (e) return e;
    e = MPI_Fetch_and_op(&n, old, MPI_OFFSET, 0, 0, MPI_SUM, f.shared);
    const int u = MPI_Win_unlock(0, f.shared);
    return e ? e : u;
}

static void take_hints(File &f, MPI_Info info);

int file_set_hints(File &f, MPI_Info info) {
    if (info != MPI_INFO_NULL) take_hints(f, info);
    // Every rank takes rank 0's, so that all go the same way in a
    // collective access (13.2.8 asks for the same values everywhere; a
    // program that gives others must not hang).
    return MPI_Bcast(&f.hints, sizeof f.hints, MPI_BYTE, 0, f.comm);
}

static void take_hints(File &f, MPI_Info info) {
    if (const char *v = info_lookup(info, "cb_nodes")) {
        const long n = strtol(v, nullptr, 10);
        if (n > 0) f.hints.cb_nodes = n < f.size ? static_cast<int>(n) : f.size;
    }
    if (const char *v = info_lookup(info, "cb_buffer_size")) {
        const long long n = strtoll(v, nullptr, 10);
        if (n > 0) f.hints.cb_buffer_size = n;
    }
    const struct {
        const char *key;
        CbMode FileHints::*mode;
    } modes[] = {{"romio_cb_read", &FileHints::cb_read}, {"romio_cb_write", &FileHints::cb_write}};
    for (const auto &m : modes)
        if (const char *v = info_lookup(info, m.key)) {
            if (!strcmp(v, "enable")) f.hints.*m.mode = CbMode::enable;
            if (!strcmp(v, "disable")) f.hints.*m.mode = CbMode::disable;
            if (!strcmp(v, "automatic")) f.hints.*m.mode = CbMode::automatic;
        }
}

void file_finalize() {
    // A program should close its files first (section 13.2.2); what it
    // left open is closed here, rank by rank (not collectively: nothing
    // of MPI_MODE_DELETE_ON_CLOSE), the file's communicator and window
    // going with the others'.
    Files &s = t_files.get();
    for (int i = 1; i < s.table.cap; ++i)
        if (File *f = s.table.at(i)) util::file_close(f->fd);
    s.table.clear();
}

}  // namespace lwmpi

// ---- the MPI calls ----

/// Collective over the intracommunicator `comm`; the same amode and name
/// on every rank (section 13.2.1).
int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh) {
    Call call("MPI_File_open");
    if (int e = enter_no_file(call)) return e;
    const Comm *c = comm_get(comm);
    if (!c || c->inter) return call.fail(MPI_ERR_COMM, "an intracommunicator is required");
    if (fh) *fh = MPI_FILE_NULL;
    // The caller's own checks and its table entry, then every rank learns
    // whether all may go on (one that gave up would leave the others
    // waiting in the collective part).
    const char *path = filename ? path_of(filename) : nullptr;
    int local = MPI_SUCCESS, index = 0;
    const char *why = nullptr;
    if (!fh) {
        local = MPI_ERR_ARG;
    } else if (!path) {
        local = MPI_ERR_BAD_FILE, why = "the file name is null";
    } else if (info != MPI_INFO_NULL && !info_valid(info)) {
        local = MPI_ERR_INFO;
    } else if (strlen(path) >= sizeof File{}.path) {
        local = MPI_ERR_BAD_FILE, why = "the file name is too long";
    } else if (!amode_valid(amode)) {
        local = MPI_ERR_AMODE;
    } else {
        File init{};
        init.fd = -1;
        init.amode = amode;
        init.errhandler = files().null_errhandler ? files().null_errhandler : MPI_ERRORS_RETURN;
        init.hints.cb_buffer_size = default_cb_buffer;
        strcpy(init.path, path);
        view_default(init.view);
        if (files().table.add(1, init, &index)) local = MPI_ERR_NO_MEM, why = "too many open files";
    }
    int agree[3] = {amode, -amode, local};
    int e = MPI_Allreduce(MPI_IN_PLACE, agree, 3, MPI_INT, MPI_MAX, comm);
    if (e == MPI_SUCCESS && !local && agree[2])
        local = agree[2], why = "another rank's arguments were refused";
    if (e == MPI_SUCCESS && !local && agree[0] != -agree[1])
        local = MPI_ERR_NOT_SAME, why = "the ranks gave different amodes";
    if (e || local) {
        if (index) files().table.remove(index);
        return call.fail(e ? e : local, why);
    }
    File &f = *files().table.at(index);
    f.handle = make_handle(HandleKind::file, index);
    // The file's collectives run on its own communicator, whose errors
    // come back to the file's calls.
    e = MPI_Comm_dup(comm, &f.comm);
    if (e == MPI_SUCCESS) e = MPI_Comm_set_errhandler(f.comm, MPI_ERRORS_RETURN);
    if (e == MPI_SUCCESS) {
        MPI_Comm_rank(f.comm, &f.rank);
        MPI_Comm_size(f.comm, &f.size);
        e = open_on_all(f, path);
    }
    if (e) {
        const char *detail = util::error_detail();
        drop(f);
        return call.fail(e, detail);
    }
    if (int h = file_set_hints(f, info)) {
        drop(f);
        return call.fail(h);
    }
    *fh = f.handle;
    return MPI_SUCCESS;
}

/// Collective; with MPI_MODE_DELETE_ON_CLOSE the file is deleted once
/// every rank closed it. A split collective still active is an error
/// (13.4.5), reported after the file is closed on every rank.
int MPI_File_close(MPI_File *fh) {
    Call call("MPI_File_close");
    File *f;
    if (int e = enter(call, fh ? *fh : MPI_FILE_NULL, &f)) return e;
    const bool split = f->split.active;
    int e = util::file_close(f->fd);
    f->fd = -1;
    const char *detail = e ? util::error_detail() : nullptr;
    const int b = MPI_Barrier(f->comm);
    if (f->rank == 0 && (f->amode & MPI_MODE_DELETE_ON_CLOSE) && b == MPI_SUCCESS && !e) {
        e = util::file_delete(f->path);
        detail = e ? util::error_detail() : nullptr;
    }
    drop(*f);
    *fh = MPI_FILE_NULL;
    if (e) return call.fail(e, detail);
    if (b) return call.fail(b);
    return split ? call.fail(MPI_ERR_OTHER, "a split collective was still active on the file") : MPI_SUCCESS;
}

/// Not collective: MPI_ERR_NO_SUCH_FILE when there is no such file.
int MPI_File_delete(const char *filename, MPI_Info info) {
    Call call("MPI_File_delete");
    if (int e = enter_no_file(call)) return e;
    if (!filename) return call.fail(MPI_ERR_BAD_FILE, "the file name is null");
    if (info != MPI_INFO_NULL && !info_valid(info)) return call.fail(MPI_ERR_INFO);
    if (int e = util::file_delete(path_of(filename))) return call.fail(e, util::error_detail());
    return MPI_SUCCESS;
}

namespace {

// MPI_File_set_size and MPI_File_preallocate: collective, the same size
// everywhere; rank 0 resizes (`grow_only`: only when the file is smaller).
int resize(const char *fn, MPI_File fh, MPI_Offset size, bool grow_only) {
    Call call(fn);
    File *f;
    if (int e = enter(call, fh, &f)) return e;
    if (size < 0) return call.fail(MPI_ERR_ARG, "the size must be >= 0");
    if (f->amode & MPI_MODE_SEQUENTIAL) return call.fail(MPI_ERR_UNSUPPORTED_OPERATION);
    if (f->amode & MPI_MODE_RDONLY) return call.fail(MPI_ERR_READ_ONLY);
    MPI_Offset sizes[2] = {size, -size};
    if (int e = MPI_Allreduce(MPI_IN_PLACE, sizes, 2, MPI_OFFSET, MPI_MAX, f->comm)) return call.fail(e);
    if (sizes[0] != -sizes[1]) return call.fail(MPI_ERR_NOT_SAME, "the ranks gave different sizes");
    int e = MPI_SUCCESS;
    if (f->rank == 0) {
        int64_t now = 0;
        if (grow_only) e = util::file_size(f->fd, &now);
        if (e == MPI_SUCCESS && (!grow_only || now < size)) e = util::file_resize(f->fd, size);
    }
    int worst = e;
    if (int c = MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, f->comm)) return call.fail(c);
    if (e) return call.fail(e, util::error_detail());
    return worst ? call.fail(worst, "the file could not be resized") : MPI_SUCCESS;
}

}  // namespace

int MPI_File_set_size(MPI_File fh, MPI_Offset size) { return resize("MPI_File_set_size", fh, size, false); }

int MPI_File_preallocate(MPI_File fh, MPI_Offset size) {
    return resize("MPI_File_preallocate", fh, size, true);
}

int MPI_File_get_size(MPI_File fh, MPI_Offset *size) {
    Call call("MPI_File_get_size");
    File *f;
    if (int e = enter(call, fh, &f)) return e;
    if (!size) return call.fail(MPI_ERR_ARG);
    int64_t bytes;
    if (int e = util::file_size(f->fd, &bytes)) return call.fail(e, util::error_detail());
    *size = bytes;
    return MPI_SUCCESS;
}

/// A new group of the file's ranks (section 13.2.7), which the caller frees.
int MPI_File_get_group(MPI_File fh, MPI_Group *group) {
    Call call("MPI_File_get_group");
    File *f;
    if (int e = enter(call, fh, &f)) return e;
    if (!group) return call.fail(MPI_ERR_ARG);
    if (int e = MPI_Comm_group(f->comm, group)) return call.fail(e);
    return MPI_SUCCESS;
}

int MPI_File_get_amode(MPI_File fh, int *amode) {
    Call call("MPI_File_get_amode");
    File *f;
    if (int e = enter(call, fh, &f)) return e;
    if (!amode) return call.fail(MPI_ERR_ARG);
    *amode = f->amode;
    return MPI_SUCCESS;
}

/// Collective; takes the hints it knows (section 13.2.8).
int MPI_File_set_info(MPI_File fh, MPI_Info info) {
    Call call("MPI_File_set_info");
    File *f;
    if (int e = enter(call, fh, &f)) return e;
    if (info != MPI_INFO_NULL && !info_valid(info)) return call.fail(MPI_ERR_INFO);
    if (int e = file_set_hints(*f, info)) return call.fail(e);
    return MPI_SUCCESS;
}

/// A new info object with the hints in use (the caller frees it).
int MPI_File_get_info(MPI_File fh, MPI_Info *info_used) {
    Call call("MPI_File_get_info");
    File *f;
    if (int e = enter(call, fh, &f)) return e;
    if (!info_used) return call.fail(MPI_ERR_ARG);
    if (info_new(info_used)) return call.fail(MPI_ERR_NO_MEM);
    static const char *const modes[] = {"automatic", "enable", "disable"};
    char nodes[16], bytes[24];
    int aggregators[util::max_ranks];
    TextBuilder(nodes, sizeof nodes).put_int(file_aggregators(*f, aggregators));
    TextBuilder(bytes, sizeof bytes).put_int(f->hints.cb_buffer_size);
    int e = info_put(*info_used, "cb_nodes", nodes);
    if (e == MPI_SUCCESS) e = info_put(*info_used, "cb_buffer_size", bytes);
    if (e == MPI_SUCCESS)
        e = info_put(*info_used, "romio_cb_read", modes[static_cast<int>(f->hints.cb_read)]);
    if (e == MPI_SUCCESS)
        e = info_put(*info_used, "romio_cb_write", modes[static_cast<int>(f->hints.cb_write)]);
    return e ? call.fail(e) : MPI_SUCCESS;
}

/// Collective (section 13.6.1): in atomic mode the accesses of the file's
/// ranks are atomic with respect to one another.
int MPI_File_set_atomicity(MPI_File fh, int flag) {
    Call call("MPI_File_set_atomicity");
    File *f;
    if (int e = enter(call, fh, &f)) return e;
    int flags[2] = {flag != 0, -(flag != 0)};
    if (int e = MPI_Allreduce(MPI_IN_PLACE, flags, 2, MPI_INT, MPI_MAX, f->comm)) return call.fail(e);
    if (flags[0] != -flags[1]) return call.fail(MPI_ERR_NOT_SAME, "the ranks gave different flags");
    f->atomic = flag != 0;
    return MPI_SUCCESS;
}

int MPI_File_get_atomicity(MPI_File fh, int *flag) {
    Call call("MPI_File_get_atomicity");
    File *f;
    if (int e = enter(call, fh, &f)) return e;
    if (!flag) return call.fail(MPI_ERR_ARG);
    *flag = f->atomic;
    return MPI_SUCCESS;
}

/// Collective: what the caller wrote reaches the host's storage (section
/// 13.6.1). LWMPI keeps no file data of its own: a write is in the file
/// server's hands when it returns, so the others see it after a barrier.
int MPI_File_sync(MPI_File fh) {
    Call call("MPI_File_sync");
    File *f;
    if (int e = enter(call, fh, &f)) return e;
    const int e = util::file_sync(f->fd);
    const char *detail = e ? util::error_detail() : nullptr;
    const int b = MPI_Barrier(f->comm);
    if (e) return call.fail(e, detail);
    if (b) return call.fail(b);
    return f->split.active ? call.fail(MPI_ERR_OTHER, "a split collective is active on the file")
                           : MPI_SUCCESS;
}

/// MPI_FILE_NULL's handler is the one files opened later start with.
int MPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler) {
    Call call("MPI_File_set_errhandler");
    if (int e = enter_no_file(call)) return e;
    MPI_Errhandler *slot;
    if (file == MPI_FILE_NULL) {
        slot = &files().null_errhandler;
    } else {
        File *f = file_get(file);
        if (!f) return call.fail(MPI_ERR_FILE);
        call.on(file);
        slot = &f->errhandler;
    }
    if (set_errhandler(slot, errhandler)) return call.fail(MPI_ERR_ARG, "invalid error handler");
    return MPI_SUCCESS;
}

int MPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler) {
    Call call("MPI_File_get_errhandler");
    if (int e = enter_no_file(call)) return e;
    if (!errhandler) return call.fail(MPI_ERR_ARG);
    MPI_Errhandler h;
    if (!handler_of(file, &h)) return call.fail(MPI_ERR_FILE);
    *errhandler = h;
    return MPI_SUCCESS;
}

int MPI_File_call_errhandler(MPI_File fh, int errorcode) {
    Call call("MPI_File_call_errhandler");
    if (int e = enter_no_file(call)) return e;
    MPI_Errhandler h;
    if (!handler_of(fh, &h)) return call.fail(MPI_ERR_FILE);
    call.on(fh);
    call.fail(errorcode, "raised by the program");
    return MPI_SUCCESS;
}
