// MPIUtil's files: the OS's POSIX calls (os.hpp) with their errors turned
// into MPI-IO's error classes, and transfers of any size as a loop of
// the OS's (which may move fewer bytes than asked).
#include <errno.h>
#include <mpi.h>

#include <tessera/file_protocol.h>

#include "os.hpp"
#include "rank_state.hpp"
#include <mpiutil/mpiutil.hpp>

namespace lwmpi::util {

static_assert(file_atomic_bytes == TS_FILE_CHUNK);
static_assert(file_read_flag == os::file_read && file_write_flag == os::file_write &&
              file_create_flag == os::file_create && file_exclusive_flag == os::file_exclusive);

namespace {

// The MPI-IO class of -errno `err` (MPI 3.1 section 13.7), with `what`
// and the number as error_detail().
int file_fail(long err, const char *what) {
    int mpi_class = MPI_ERR_IO;
    switch (-err) {
    case ENOENT:
    case ENOTDIR: mpi_class = MPI_ERR_NO_SUCH_FILE; break;
    case EEXIST: mpi_class = MPI_ERR_FILE_EXISTS; break;
    case EACCES:
    case EPERM: mpi_class = MPI_ERR_ACCESS; break;
    case ENAMETOOLONG:
    case EISDIR:
    case EINVAL: mpi_class = MPI_ERR_BAD_FILE; break;
    case ENOSPC: mpi_class = MPI_ERR_NO_SPACE; break;
#ifdef EDQUOT
    case EDQUOT: mpi_class = MPI_ERR_QUOTA; break;
#endif
    case EROFS: mpi_class = MPI_ERR_READ_ONLY; break;
    case EBUSY: mpi_class = MPI_ERR_FILE_IN_USE; break;
    default: break;
    }
    return fail(mpi_class, what, err);
}

}  // namespace

int file_open(const char *path, unsigned flags, int *fd) {
    const int r = os::file_open(path, flags);
    if (r < 0) return file_fail(r, "the file cannot be opened");
    *fd = r;
    return MPI_SUCCESS;
}

int file_close(int fd) {
    const int r = os::file_close(fd);
    return r < 0 ? file_fail(r, "the file cannot be closed") : MPI_SUCCESS;
}

int file_read_at(int fd, void *buf, uint64_t n, int64_t offset, uint64_t *got) {
    auto *p = static_cast<char *>(buf);
    uint64_t done = 0;
    while (done < n) {
        const long r = os::file_pread(fd, p + done, n - done, offset + static_cast<int64_t>(done));
        if (r < 0) return file_fail(r, "the file cannot be read");
        if (r == 0) break;  // its end
        done += static_cast<uint64_t>(r);
    }
    *got = done;
    return MPI_SUCCESS;
}

int file_write_at(int fd, const void *buf, uint64_t n, int64_t offset) {
    const auto *p = static_cast<const char *>(buf);
    uint64_t done = 0;
    while (done < n) {
        const long r = os::file_pwrite(fd, p + done, n - done, offset + static_cast<int64_t>(done));
        if (r < 0) return file_fail(r, "the file cannot be written");
        if (r == 0) return file_fail(-ENOSPC, "the file cannot grow");
        done += static_cast<uint64_t>(r);
    }
    return MPI_SUCCESS;
}

int file_size(int fd, int64_t *size) {
    const int64_t r = os::file_size(fd);
    if (r < 0) return file_fail(r, "the file's size cannot be read");
    *size = r;
    return MPI_SUCCESS;
}

int file_resize(int fd, int64_t size) {
    const int r = os::file_truncate(fd, size);
    return r < 0 ? file_fail(r, "the file cannot be resized") : MPI_SUCCESS;
}

int file_sync(int fd) {
    const int r = os::file_sync(fd);
    return r < 0 ? file_fail(r, "the file cannot be synchronized") : MPI_SUCCESS;
}

int file_delete(const char *path) {
    const int r = os::file_unlink(path);
    return r < 0 ? file_fail(r, "the file cannot be deleted") : MPI_SUCCESS;
}

}  // namespace lwmpi::util
