// MPI-IO (MPI 3.1 chapter 13; docs/mpi-io.md): the per-rank table behind
// MPI_File handles and what the rooms of io/ share. Every rank opens the
// file itself through MPIUtil (the file server's files); the collective
// parts run over the file's own dup of its communicator, with the public
// MPI calls, as any MPI program would, so that MPI-IO needs nothing of
// the messaging layers but their interface.
//
// file.cpp opens, closes and manages files; view.cpp keeps views and
// data representations and maps a view onto the file; access.cpp does
// independent data access, collective.cpp the collective one.
#pragma once

#include <mpi.h>
#include <stdint.h>

namespace lwmpi {

class Call;
struct Datatype;
struct Datarep;

/// Files a rank may have open at once (MPI_ERR_NO_MEM beyond); index 0 is
/// MPI_FILE_NULL's.
inline constexpr int max_files = 64;

/// A file view (section 13.3): the file as seen from byte `disp` on,
/// filetype tiled over it, in units of etype.
struct FileView {
    MPI_Offset disp;
    MPI_Datatype etype;  ///< held (datatype_hold) while the view lasts
    MPI_Datatype filetype;
    const Datatype *et;
    const Datatype *ft;
    const Datarep *rep;  ///< nullptr: "native" (or "internal")
    char datarep[MPI_MAX_DATAREP_STRING];
};

/// Collective buffering (ROMIO's hints, section 13.2.8): how many ranks
/// aggregate a collective access and how many bytes each moves a step.
enum class CbMode : uint8_t { automatic, enable, disable };
struct FileHints {
    int cb_nodes;            ///< aggregators; 0: one per cluster the file's ranks use
    int64_t cb_buffer_size;  ///< bytes
    CbMode cb_read;
    CbMode cb_write;
};

/// A split collective begun and not yet ended (section 13.4.5).
struct SplitCall {
    bool active;
    const void *buf;  ///< the buffer it was begun with
    MPI_Status status;
};

struct File {
    MPI_File handle;
    MPI_Comm comm;  ///< the file's own dup of the communicator it was opened on
    int rank;
    int size;
    int amode;
    int fd;  ///< MPIUtil's descriptor of the caller's opening
    FileView view;
    MPI_Offset position;  ///< the individual file pointer, in etypes of the view
    bool atomic;          ///< MPI_File_set_atomicity
    FileHints hints;
    MPI_Errhandler errhandler;  ///< MPI_ERRORS_RETURN unless changed (13.7)
    /// The shared file pointer (in etypes) lives in rank 0's part of this
    /// window; its exclusive lock on rank 0 also serializes the accesses
    /// of atomic mode.
    MPI_Win shared;
    SplitCall split;
    char path[256];  ///< for MPI_MODE_DELETE_ON_CLOSE
};

/// The open file named by `h`, or nullptr (MPI_FILE_NULL included).
File *file_get(MPI_File h);

/// The prologue of a call on file `fh` (env/call.hpp): require_active(),
/// then the file into *out and the call's errors go to it; MPI_ERR_FILE
/// (on MPI_FILE_NULL) when it is not an open file.
int enter(Call &call, MPI_File fh, File **out);

/// The prologue of a call about no open file (MPI_File_open,
/// MPI_File_delete): its errors go to MPI_FILE_NULL's handler.
int enter_no_file(Call &call);

/// Sets the shared file pointer of `f` to `value` etypes, collectively
/// (every rank's earlier accesses through it are over before, and the
/// value is in place when any rank returns).
int shared_set(File &f, MPI_Offset value);

/// Takes the hints of section 13.2.8 that `info` gives (MPI_INFO_NULL:
/// none; the others are ignored, as the standard allows), then rank 0's
/// hints on every rank. Collective: MPI_SUCCESS or the broadcast's error.
int file_set_hints(File &f, MPI_Info info);

/// Closes the descriptors of every file the rank left open (MPI_Finalize;
/// not collective, so MPI_MODE_DELETE_ON_CLOSE is not honoured there).
void file_finalize();

// ---- views and representations (view.cpp) ----

/// The default view of a new file: disp 0, etype and filetype MPI_BYTE,
/// "native".
void view_default(FileView &v);
/// Releases what the view holds.
void view_release(FileView &v);

/// One contiguous piece of the file that an access touches: `len` bytes
/// at file byte `offset`, carrying the access's data from byte `stream`.
struct Piece {
    int64_t offset;
    int64_t len;
    int64_t stream;
};

/// A growable list of pieces (heap), in the order of the access's data.
struct Pieces {
    Piece *at = nullptr;
    int64_t n = 0;
    int64_t cap = 0;
    Pieces() = default;
    Pieces(const Pieces &) = delete;
    Pieces &operator=(const Pieces &) = delete;
    ~Pieces();
    /// Appends a piece, merged with the last when they touch: false when
    /// the heap is full.
    bool add(int64_t offset, int64_t len, int64_t stream);
};

/// Whether data of type `t` can move under view `v`'s representation
/// (each basic type as many bytes in the file as in memory).
bool view_takes(const FileView &v, const Datatype &t);

/// Etypes of view `v` that lie wholly before file byte `end` (the view's
/// size of a file of `end` bytes, MPI_SEEK_END's base).
MPI_Offset view_etypes_before(const FileView &v, int64_t end);

/// The pieces of the file that bytes [pos, pos + n) of view `v`'s data
/// lie in (pos, n: bytes of the view's data, from its start), appended to
/// *out: MPI_SUCCESS or MPI_ERR_NO_MEM.
int map_view(const FileView &v, int64_t pos, int64_t n, Pieces *out);

/// The data of an access in the file's representation, contiguous.
struct Stream {
    char *data = nullptr;
    int64_t bytes = 0;
    bool owned = false;  ///< data is a temporary of the heap
    Stream() = default;
    Stream(const Stream &) = delete;
    Stream &operator=(const Stream &) = delete;
    ~Stream();
};

/// `count` elements of `t` from `buf` in view `v`'s representation, for a
/// write: MPI_SUCCESS, MPI_ERR_NO_MEM, MPI_ERR_CONVERSION (a user
/// conversion function failed).
int stream_out(const FileView &v, const void *buf, int count, MPI_Datatype type, const Datatype &t,
               Stream *s);
/// Room for `count` elements of `t` in the file's representation, for a
/// read (buf itself when no conversion is needed).
int stream_in(const FileView &v, void *buf, int count, const Datatype &t, Stream *s);
/// The first `got` bytes read into `s` converted into `count` elements of
/// `t` at `buf` (a last partial element as far as it goes).
int stream_deliver(const FileView &v, const Stream &s, int64_t got, void *buf, int count, MPI_Datatype type,
                   const Datatype &t);

// ---- data access (access.cpp, collective.cpp) ----

enum class Dir : uint8_t { read, write };

/// Where an access starts.
enum class Place : uint8_t {
    at,          ///< an explicit offset
    individual,  ///< the individual file pointer, which moves past it
    shared,      ///< the shared file pointer, which moves past it
};

/// Checks an access of `count` elements of `type` in direction `dir` at
/// `place` (the file's mode, the type): MPI_SUCCESS or the class to raise,
/// the type into *t.
int access_check(const File &f, Dir dir, Place place, int count, MPI_Datatype type, const Datatype **t);

/// The independent access (section 13.4.2-13.4.4) of `count` elements of
/// `type` at view offset `offset` (etypes): *bytes gets how many bytes of
/// data moved (a read stops at the end of the file).
int access_at(File &f, Dir dir, MPI_Offset offset, void *buf, int count, MPI_Datatype type, int64_t *bytes);

/// The collective access of the ranks of `f` (each with its own offset,
/// count and type), aggregated through a few ranks (two-phase collective
/// buffering) unless the hints say otherwise.
int access_at_all(File &f, Dir dir, MPI_Offset offset, void *buf, int count, MPI_Datatype type,
                  int64_t *bytes);

/// The ranks of `f` that aggregate its collective accesses into out[]
/// (room for util::max_ranks): cb_nodes of them spread over the ranks if
/// the hint is set, else the first rank of each cluster its ranks use.
/// Returns how many.
int file_aggregators(const File &f, int *out);

/// Moves the shared file pointer by `n` etypes: its old place into *old.
int shared_fetch_add(File &f, MPI_Offset n, MPI_Offset *old);

/// A status reporting `bytes` bytes of data (MPI_Get_count's), if wanted.
void io_status(MPI_Status *status, int64_t bytes);

/// Where an access reports how many bytes it moved: a status (blocking
/// calls) or a new request, complete already (non-blocking ones).
struct Report {
    MPI_Status *status;
    MPI_Request *request;
    bool nonblocking;
};
inline Report blocking(MPI_Status *status) { return Report{status, nullptr, false}; }
inline Report nonblocking(MPI_Request *request) { return Report{MPI_STATUS_IGNORE, request, true}; }
/// Reports `bytes` there: MPI_SUCCESS, or MPI_ERR_NO_MEM when no request
/// can be made.
int io_report(const Report &r, int64_t bytes);

}  // namespace lwmpi
