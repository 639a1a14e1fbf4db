/* The file client: POSIX files (descriptors 3 and up) and folders over the
 * file server on I/O cluster 0 (<tessera/file_protocol.h>). open, unlink,
 * rename, stat, access, mkdir, rmdir, chdir, getcwd and <dirent.h>'s
 * opendir, readdir, rewinddir and closedir are the C library's here; read,
 * write, pread, pwrite, close, lseek, fstat, ftruncate, fsync, fdatasync
 * and isatty come through glue/fd.c, which keeps 0..2 for the console.
 *
 * The job's folder is the program's root: every path is resolved against
 * the process's working folder (path.c) before it goes to the server.
 *
 * The table of descriptors is the process's (its threads share it, as
 * POSIX says), and so is the connection to the server: a reply mailbox and
 * an input portal on the first free port of TS_PORT_FILE_CLIENT_HIGH..63,
 * then TS_PORT_FILE_CLIENT_LOW..31, made at the first open. One lock
 * serialises the process's requests: each is a mailbox message, the bytes
 * it carries by portal, and the reply. Errors set errno as the C library
 * numbers them. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tessera/file_protocol.h>

#include "internal.h"
#include "path.h"

#define FILES_MAX 32 /* open files per process: descriptors 3..34 */

struct file {
    int used;
    int handle;     /* the server's */
    unsigned flags; /* TS_O_* */
    int64_t offset; /* the file position */
    void *stream;   /* its stdio stream, if the C library noted one */
};

static ts_mutex_t lock = TS_MUTEX_INIT;
static struct file files[FILES_MAX];
static int port = -1; /* the connection's port, once made */
static int reply_mailbox, in_portal, out_mailbox, out_portal;
static uint32_t last_seq;
static char cwd[TS_PATH_MAX + 1]; /* the working folder, path.h's form ("": the root) */
static int flush_at_exit;         /* ts__libc_flush_files is an exit handler */

/* -TS_E* as the C library's errno (the numbers differ for some). */
static int errno_of(long err) {
    switch (err) {
    case -TS_ENAMETOOLONG: return ENAMETOOLONG;
    case -TS_ENOSYS: return ENOSYS;
    case -TS_ETIMEDOUT: return ETIMEDOUT;
    case -TS_ECANCELED: return ECANCELED;
    case -TS_EPERM: return EPERM;
    case -TS_ENOENT: return ENOENT;
    case -TS_EIO: return EIO;
    case -TS_EBADF: return EBADF;
    case -TS_EAGAIN: return EAGAIN;
    case -TS_ENOMEM: return ENOMEM;
    case -TS_EACCES: return EACCES;
    case -TS_EFAULT: return EFAULT;
    case -TS_EBUSY: return EBUSY;
    case -TS_EEXIST: return EEXIST;
    case -TS_EISDIR: return EISDIR;
    case -TS_EINVAL: return EINVAL;
    case -TS_ENFILE: return ENFILE;
    case -TS_EMFILE: return EMFILE;
    case -TS_ENOSPC: return ENOSPC;
    case -TS_ENOTDIR: return ENOTDIR;
    case -TS_ENOTEMPTY: return ENOTEMPTY;
    default: return err < 0 && err > -4096 ? (int)-err : EIO; /* others share Linux's numbers */
    }
}

/* -1 with errno for a -TS_E* error. */
static long fail(long err) {
    errno = errno_of(err);
    return -1;
}

/* NULL with errno for a -TS_E* error. */
static void *fail_null(long err) {
    fail(err);
    return NULL;
}

/* Undoes what try_port made. */
static void disconnect(void) {
    if (out_portal >= 0) ts_portal_close(out_portal);
    if (out_mailbox >= 0) ts_mailbox_close(out_mailbox);
    if (in_portal >= 0) ts_portal_unlink(in_portal);
    if (reply_mailbox >= 0) ts_mailbox_unlink(reply_mailbox);
}

/* Makes the connection on port p: 0, -TS_EBUSY when p is taken, or
 * another error. */
static int try_port(int p) {
    out_portal = out_mailbox = in_portal = -1;
    reply_mailbox = ts_mailbox_create(p);
    if (reply_mailbox < 0) return reply_mailbox;
    long err = in_portal = ts_portal_create(p);
    if (err >= 0) err = out_mailbox = ts_mailbox_open(p, TS_FILESERVER_CLUSTER, TS_PORT_FILESERVER);
    if (err >= 0) err = out_portal = ts_portal_open(p, TS_FILESERVER_CLUSTER, TS_PORT_FILESERVER);
    if (err < 0) {
        disconnect();
        return (int)err;
    }
    port = p;
    return 0;
}

/* Under the lock: 0 once connected, or an error. */
static int connect(void) {
    if (port >= 0) return 0;
    static const int ranges[][2] = {{TS_PORT_FILE_CLIENT_HIGH, TS_PORTS - 1},
                                    {TS_PORT_FILE_CLIENT_LOW, TS_PORT_NAME_REPLY_BASE - 1}};
    for (unsigned r = 0; r < sizeof ranges / sizeof ranges[0]; ++r)
        for (int p = ranges[r][0]; p <= ranges[r][1]; ++p) {
            int err = try_port(p);
            if (err != -TS_EBUSY) return err;
        }
    return -TS_EMFILE; /* every port taken */
}

/* Under the lock, connected: one request (its len already set), the bytes
 * it carries (`out`, req->len of them, for carrying ops), its reply, and
 * a READ's or a LIST's bytes into `in` (req->len, or req->room, of room).
 * The reply's result (>= 0, or -TS_E*), its value in *value if value is
 * not NULL. */
static long call(struct ts_file_request *req, const void *out, void *in, int64_t *value) {
    if (++last_seq == 0) ++last_seq; /* 0 is no tag */
    req->seq = last_seq;
    req->reply_cluster = ts_job()->cluster_id;
    req->reply_port = port;
    long r = ts_mailbox_write(out_mailbox, req, sizeof *req);
    if (r < 0) return r;
    if (out && req->len > 0) {
        r = ts_portal_write(out_portal, out, req->len, req->seq);
        if (r < 0) return r;
    }
    struct ts_file_reply rep;
    do {
        r = ts_mailbox_read(reply_mailbox, &rep, sizeof rep);
        if (r < 0) return r;
    } while (r != (long)sizeof rep || rep.op != TS_FILE_REPLY || rep.seq != req->seq);
    if (value) *value = rep.value;
    if (ts_file_replies_with_bytes(req->op) && rep.result > 0) {
        if (rep.result > (int64_t)(req->op == TS_FILE_LIST ? req->room : req->len)) return -TS_EIO;
        r = ts_portal_allow(in_portal, TS_FILESERVER_CLUSTER, TS_PORT_FILESERVER, req->seq);
        if (r >= 0) r = ts_portal_read(in_portal, in, (unsigned long)rep.result, (unsigned long)rep.result);
        if (r < 0) return r;
    }
    return rep.result;
}

/* Under the lock: path resolved against the working folder into out, as
 * the server takes it ("." for the root): its length, or -TS_E*. */
static int resolve(const char *path, char out[TS_PATH_MAX + 1]) {
    if (!path) return -TS_EFAULT;
    int len = ts__path_resolve(cwd, path, out);
    if (len == 0) {
        out[0] = '.';
        out[len = 1] = 0;
    }
    return len;
}

/* Under the lock: a request about a resolved path (OPEN, STAT, UNLINK,
 * MKDIR, RMDIR, LIST) of len bytes; a LIST's bytes go into `in`. */
static long resolved_call(struct ts_file_request *req, const char *resolved, int len, void *in,
                          int64_t *value) {
    int err = connect();
    if (err < 0) return err;
    req->len = (uint64_t)len;
    return call(req, resolved, in, value);
}

/* Under the lock: a request about a path, resolved and checked here
 * first, so that a bad one costs no message. */
static long path_call(int op, const char *path, unsigned flags, int64_t *value) {
    char resolved[TS_PATH_MAX + 1];
    int len = resolve(path, resolved);
    if (len < 0) return len;
    struct ts_file_request req = {.op = op, .flags = flags};
    return resolved_call(&req, resolved, len, NULL, value);
}

/* The open file of descriptor fd, or NULL. */
static struct file *file_of(int fd) {
    int i = fd - 3;
    return i >= 0 && i < FILES_MAX && files[i].used ? &files[i] : NULL;
}

/* The C library's open flags as TS_O_*; -1 for what the server cannot do. */
static long ts_flags(int flags) {
    unsigned f;
    switch (flags & O_ACCMODE) {
    case O_RDONLY: f = TS_O_RDONLY; break;
    case O_WRONLY: f = TS_O_WRONLY; break;
    case O_RDWR: f = TS_O_RDWR; break;
    default: return -1;
    }
    if (flags & O_CREAT) f |= TS_O_CREAT;
    if (flags & O_EXCL) f |= TS_O_EXCL;
    if (flags & O_TRUNC) f |= TS_O_TRUNC;
    if (flags & O_APPEND) f |= TS_O_APPEND;
    return f;
}

int open(const char *path, int flags, ...) {
    long f = ts_flags(flags);
    if (f < 0) return (int)fail(-TS_EINVAL);
    ts_mutex_lock(&lock);
    int i = 0;
    while (i < FILES_MAX && files[i].used)
        ++i;
    long r = i == FILES_MAX ? -TS_EMFILE : path_call(TS_FILE_OPEN, path, (unsigned)f, NULL);
    if (r >= 0) files[i] = (struct file){1, (int)r, (unsigned)f, 0, NULL};
    if (r >= 0 && !flush_at_exit) flush_at_exit = atexit(ts__libc_flush_files) == 0;
    ts_mutex_unlock(&lock);
    return r < 0 ? (int)fail(r) : i + 3;
}

int unlink(const char *path) {
    ts_mutex_lock(&lock);
    long r = path_call(TS_FILE_UNLINK, path, 0, NULL);
    ts_mutex_unlock(&lock);
    return r < 0 ? (int)fail(r) : 0;
}

int rename(const char *from, const char *to) {
    /* Both paths in one transfer: "from" NUL "to". */
    char paths[2 * (TS_PATH_MAX + 1)];
    ts_mutex_lock(&lock);
    long from_len = resolve(from, paths), to_len = 0, r = from_len;
    if (r >= 0) r = to_len = resolve(to, paths + from_len + 1);
    if (r >= 0) r = connect();
    if (r == 0) {
        struct ts_file_request req = {.op = TS_FILE_RENAME, .len = (uint64_t)(from_len + 1 + to_len)};
        r = call(&req, paths, NULL, NULL);
    }
    ts_mutex_unlock(&lock);
    return r < 0 ? (int)fail(r) : 0;
}

/* What stat and fstat say of a file (TS_FILE_TYPE_*) of `size` bytes: a
 * regular file or a folder the job may read and write. st_blksize is the
 * size of the buffer stdio gives each stream: 16 KiB, far less than a
 * request's TS_FILE_CHUNK, since ranks open many streams in little memory
 * and stdio passes larger transfers straight through. */
static void fill_stat(struct stat *st, long type, int64_t size) {
    memset(st, 0, sizeof *st);
    st->st_mode = type == TS_FILE_TYPE_DIR    ? S_IFDIR | 0755
                  : type == TS_FILE_TYPE_FILE ? S_IFREG | 0644
                                              : 0644;
    st->st_nlink = 1;
    st->st_size = (off_t)size;
    st->st_blksize = 16 * 1024;
}

int stat(const char *path, struct stat *st) {
    if (!st) return (int)fail(-TS_EFAULT);
    int64_t size = 0;
    ts_mutex_lock(&lock);
    long r = path_call(TS_FILE_STAT, path, 0, &size);
    ts_mutex_unlock(&lock);
    if (r < 0) return (int)fail(r);
    fill_stat(st, r, size);
    return 0;
}

/* Every file of the job's folder is the job's to read and write: a file
 * that exists passes any mode. */
int access(const char *path, int mode) {
    struct stat st;
    if (mode & ~(R_OK | W_OK | X_OK)) return (int)fail(-TS_EINVAL);
    return stat(path, &st);
}

/* Under the lock: the size of f's file, or -TS_E*. */
static long size_of(struct file *f, int64_t *size) {
    struct ts_file_request req = {.op = TS_FILE_FSTAT, .handle = f->handle};
    return call(&req, NULL, NULL, size);
}

/* Moves len bytes between buf and fd's file (op TS_FILE_READ or
 * TS_FILE_WRITE), a chunk per request, at offset `at`, or at the file
 * position when `at` is negative, which then moves past them: the bytes
 * moved, or -TS_E* (in errno) when none moved. */
static long transfer(int fd, int op, char *buf, size_t len, int64_t at) {
    const int write = op == TS_FILE_WRITE;
    ts_mutex_lock(&lock);
    struct file *f = file_of(fd);
    if (!f || (f->flags & TS_O_ACCMODE) == (write ? TS_O_RDONLY : TS_O_WRONLY)) {
        ts_mutex_unlock(&lock);
        return fail(-TS_EBADF);
    }
    long r = 0;
    size_t done = 0;
    int64_t pos = at < 0 ? f->offset : at;
    while (done < len) {
        size_t piece = len - done < TS_FILE_CHUNK ? len - done : TS_FILE_CHUNK;
        struct ts_file_request req = {.op = op, .handle = f->handle, .offset = (uint64_t)pos, .len = piece};
        int64_t end = 0;
        r = write ? call(&req, buf + done, NULL, &end) : call(&req, NULL, buf + done, NULL);
        if (r <= 0) break;
        /* A write ends where the server says (the end, with O_APPEND). */
        pos = write ? end : pos + r;
        done += (size_t)r;
        if ((size_t)r < piece) break; /* the end of the file, or no room */
    }
    if (at < 0) f->offset = pos;
    ts_mutex_unlock(&lock);
    return r < 0 && done == 0 ? fail(r) : (long)done;
}

long ts__file_read(int fd, void *buf, size_t len) { return transfer(fd, TS_FILE_READ, buf, len, -1); }

long ts__file_write(int fd, const void *buf, size_t len) {
    return transfer(fd, TS_FILE_WRITE, (char *)(uintptr_t)buf, len, -1);
}

long ts__file_pread(int fd, void *buf, size_t len, int64_t offset) {
    if (offset < 0) return fail(-TS_EINVAL);
    return transfer(fd, TS_FILE_READ, buf, len, offset);
}

long ts__file_pwrite(int fd, const void *buf, size_t len, int64_t offset) {
    if (offset < 0) return fail(-TS_EINVAL);
    return transfer(fd, TS_FILE_WRITE, (char *)(uintptr_t)buf, len, offset);
}

/* One request about fd's open file that carries nothing: 0, or -1 with
 * errno. */
static int file_call(int fd, int op, uint64_t offset) {
    ts_mutex_lock(&lock);
    struct file *f = file_of(fd);
    long r = -TS_EBADF;
    if (f) {
        struct ts_file_request req = {.op = op, .handle = f->handle, .offset = offset};
        r = call(&req, NULL, NULL, NULL);
    }
    ts_mutex_unlock(&lock);
    return r < 0 ? (int)fail(r) : 0;
}

int ts__file_truncate(int fd, int64_t size) {
    return size < 0 ? (int)fail(-TS_EINVAL) : file_call(fd, TS_FILE_TRUNCATE, (uint64_t)size);
}

int ts__file_sync(int fd) { return file_call(fd, TS_FILE_SYNC, 0); }

int ts__file_close(int fd) {
    ts_mutex_lock(&lock);
    struct file *f = file_of(fd);
    long r = -TS_EBADF;
    if (f) {
        struct ts_file_request req = {.op = TS_FILE_CLOSE, .handle = f->handle};
        r = call(&req, NULL, NULL, NULL);
        f->used = 0; /* gone whatever the server says */
    }
    ts_mutex_unlock(&lock);
    return r < 0 ? (int)fail(r) : 0;
}

long ts__file_lseek(int fd, long offset, int whence) {
    ts_mutex_lock(&lock);
    struct file *f = file_of(fd);
    long r = f ? 0 : -TS_EBADF;
    int64_t base = 0;
    if (r == 0) {
        switch (whence) {
        case SEEK_SET: break;
        case SEEK_CUR: base = f->offset; break;
        case SEEK_END: r = size_of(f, &base); break;
        default: r = -TS_EINVAL;
        }
    }
    if (r == 0 && base + offset < 0) r = -TS_EINVAL;
    if (r == 0) r = f->offset = base + offset;
    ts_mutex_unlock(&lock);
    return r < 0 ? fail(r) : r;
}

int ts__file_fstat(int fd, struct stat *st) {
    if (!st) return (int)fail(-TS_EFAULT);
    ts_mutex_lock(&lock);
    struct file *f = file_of(fd);
    int64_t size = 0;
    long r = f ? size_of(f, &size) : -TS_EBADF;
    ts_mutex_unlock(&lock);
    if (r < 0) return (int)fail(r);
    fill_stat(st, TS_FILE_TYPE_FILE, size);
    return 0;
}

int ts__file_isatty(int fd) {
    ts_mutex_lock(&lock);
    int open = file_of(fd) != NULL;
    ts_mutex_unlock(&lock);
    errno = open ? ENOTTY : EBADF;
    return 0;
}

void ts__file_set_stream(int fd, void *stream) {
    ts_mutex_lock(&lock);
    struct file *f = file_of(fd);
    if (f) f->stream = stream;
    ts_mutex_unlock(&lock);
}

void ts__file_streams(void (*fn)(void *stream)) {
    void *streams[FILES_MAX];
    int n = 0;
    ts_mutex_lock(&lock);
    for (int i = 0; i < FILES_MAX; ++i)
        if (files[i].used && files[i].stream) streams[n++] = files[i].stream;
    ts_mutex_unlock(&lock);
    for (int i = 0; i < n; ++i)
        fn(streams[i]);
}

/* ---- folders ---------------------------------------------------------------- */

/* POSIX mkdir: the new folder is the job's to read and write, whatever
 * the mode. 0, or -1 with errno EEXIST, ENOENT, ENOTDIR, EACCES (outside
 * the job's folder), ENAMETOOLONG, EFAULT. */
int mkdir(const char *path, mode_t mode) {
    (void)mode;
    ts_mutex_lock(&lock);
    long r = path_call(TS_FILE_MKDIR, path, 0, NULL);
    ts_mutex_unlock(&lock);
    return r < 0 ? (int)fail(r) : 0;
}

/* POSIX rmdir: 0, or -1 with errno ENOTEMPTY, ENOENT, ENOTDIR, EBUSY (the
 * job's folder itself), EACCES, ENAMETOOLONG, EFAULT. */
int rmdir(const char *path) {
    char resolved[TS_PATH_MAX + 1];
    struct ts_file_request req = {.op = TS_FILE_RMDIR};
    ts_mutex_lock(&lock);
    long r = resolve(path, resolved);
    if (r >= 0)
        r = strcmp(resolved, ".") == 0 ? -TS_EBUSY : resolved_call(&req, resolved, (int)r, NULL, NULL);
    ts_mutex_unlock(&lock);
    return r < 0 ? (int)fail(r) : 0;
}

/* Under the lock: 0 when path names a folder (its resolved form in out),
 * else -TS_ENOTDIR or the server's error. */
static long folder(const char *path, char out[TS_PATH_MAX + 1]) {
    int64_t size;
    struct ts_file_request req = {.op = TS_FILE_STAT};
    long r = resolve(path, out);
    if (r >= 0) r = resolved_call(&req, out, (int)r, NULL, &size);
    return r < 0 ? r : r == TS_FILE_TYPE_DIR ? 0 : -TS_ENOTDIR;
}

/* POSIX chdir: 0, or -1 with errno ENOENT, ENOTDIR, EACCES, ENAMETOOLONG,
 * EFAULT. The working folder is the process's: its threads share it. */
int chdir(const char *path) {
    char resolved[TS_PATH_MAX + 1];
    ts_mutex_lock(&lock);
    long r = folder(path, resolved);
    /* The root resolves to ".", which is "" in path.h's form. */
    if (r == 0) strcpy(cwd, strcmp(resolved, ".") == 0 ? "" : resolved);
    ts_mutex_unlock(&lock);
    return r < 0 ? (int)fail(r) : 0;
}

/* POSIX getcwd: the working folder as an absolute path from the job's
 * folder ("/" itself, "/results/run1"). buf, or with a null buf (as glibc
 * does) a malloc'ed copy of `size` bytes, or just enough when size is 0.
 * NULL with errno EINVAL (size 0 with a buf), ERANGE (no room), ENOMEM. */
char *getcwd(char *buf, size_t size) {
    ts_mutex_lock(&lock);
    char path[TS_PATH_MAX + 2] = "/";
    strcat(path, cwd);
    ts_mutex_unlock(&lock);
    size_t need = strlen(path) + 1;
    if (buf && size == 0) return fail_null(-TS_EINVAL);
    if (size && size < need) {
        errno = ERANGE;
        return NULL;
    }
    if (!buf && !(buf = malloc(size ? size : need))) return NULL;
    return memcpy(buf, path, need);
}

/* An open folder: the entries of one LIST at a time, and where the next
 * LIST starts. */
struct ts_dir {
    char path[TS_PATH_MAX + 1]; /* resolved when it was opened */
    uint64_t next;              /* the index of the first entry not yet fetched */
    uint64_t returned;          /* entries readdir has returned */
    size_t at, used;            /* entries[at..used) are still to be read */
    char entries[1024];
    struct dirent entry; /* what readdir returns */
};

/* POSIX opendir: the folder's entries, "." and ".." left out, read as
 * the server lists them, a piece at a time. NULL with errno ENOENT,
 * ENOTDIR, EACCES, ENAMETOOLONG, EFAULT, ENOMEM. */
DIR *opendir(const char *path) {
    DIR *d = malloc(sizeof *d);
    if (!d) return NULL;
    ts_mutex_lock(&lock);
    long r = folder(path, d->path);
    ts_mutex_unlock(&lock);
    if (r < 0) {
        free(d);
        return fail_null(r);
    }
    d->next = d->returned = d->at = d->used = 0;
    return d;
}

/* POSIX readdir: the next entry (d_name, and d_type DT_DIR, DT_REG or
 * DT_UNKNOWN), or NULL at the end (errno unchanged) or on an error (errno
 * EBADF for a null dir, or the server's: ENOENT when the folder went). */
struct dirent *readdir(DIR *d) {
    if (!d) return fail_null(-TS_EBADF);
    if (d->at == d->used) {
        int64_t count = 0;
        struct ts_file_request req = {.op = TS_FILE_LIST, .offset = d->next, .room = sizeof d->entries};
        ts_mutex_lock(&lock);
        long r = resolved_call(&req, d->path, (int)strlen(d->path), d->entries, &count);
        ts_mutex_unlock(&lock);
        if (r < 0) return fail_null(r);
        if (r == 0) return NULL; /* the end */
        d->at = 0;
        d->used = (size_t)r;
        d->next += (uint64_t)count;
    }
    const char *e = d->entries + d->at;
    /* The server sends whole entries; a name is never let past d_name. */
    size_t left = d->used - d->at - 1;
    size_t len = strnlen(e + 1, left < TS_NAME_MAX ? left : TS_NAME_MAX);
    d->entry.d_ino = (ino_t)++d->returned;
    d->entry.d_type = e[0] == TS_FILE_TYPE_DIR ? DT_DIR : e[0] == TS_FILE_TYPE_FILE ? DT_REG : DT_UNKNOWN;
    memcpy(d->entry.d_name, e + 1, len);
    d->entry.d_name[len] = 0;
    d->at += len + 2;
    return &d->entry;
}

/* POSIX rewinddir: readdir starts over, and sees the folder as it is now. */
void rewinddir(DIR *d) {
    if (d) d->next = d->returned = d->at = d->used = 0;
}

/* POSIX closedir: 0, or -1 with errno EBADF for a null dir. */
int closedir(DIR *d) {
    if (!d) return (int)fail(-TS_EBADF);
    free(d);
    return 0;
}
