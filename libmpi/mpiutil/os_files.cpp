// os.hpp's files: the C library's POSIX calls, the same on the target
// (the runtime's file client, over the file server) and in the host
// tests (the host's own files, in the tests' working folder), so both
// builds compile this one file.
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os.hpp"

namespace lwmpi::os {

int file_open(const char *path, unsigned flags) {
    int f = (flags & file_read) && (flags & file_write) ? O_RDWR : flags & file_write ? O_WRONLY : O_RDONLY;
    if (flags & file_create) f |= O_CREAT;
    if (flags & file_exclusive) f |= O_EXCL;
    const int fd = ::open(path, f, 0666);
    return fd < 0 ? -errno : fd;
}
int file_close(int fd) { return ::close(fd) < 0 ? -errno : 0; }
long file_pread(int fd, void *buf, size_t n, int64_t offset) {
    const ssize_t r = ::pread(fd, buf, n, static_cast<off_t>(offset));
    return r < 0 ? -errno : r;
}
long file_pwrite(int fd, const void *buf, size_t n, int64_t offset) {
    const ssize_t r = ::pwrite(fd, buf, n, static_cast<off_t>(offset));
    return r < 0 ? -errno : r;
}
int64_t file_size(int fd) {
    struct stat st;
    return ::fstat(fd, &st) < 0 ? -errno : static_cast<int64_t>(st.st_size);
}
int file_truncate(int fd, int64_t size) { return ::ftruncate(fd, static_cast<off_t>(size)) < 0 ? -errno : 0; }
int file_sync(int fd) { return ::fsync(fd) < 0 ? -errno : 0; }
int file_unlink(const char *path) { return ::unlink(path) < 0 ? -errno : 0; }

}  // namespace lwmpi::os
