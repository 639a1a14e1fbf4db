/*
 * Files (docs/services.md, "Files"). The ABI between the
 * file client (userland/runtime/files.c), the file server (a user program on
 * I/O cluster 0, services/fileserver/) and the kernel calls that reach the
 * host's files from an I/O cluster (TS_SYS_HOSTFS_*, <tessera/kcalls.def>).
 *
 * A request goes by mailbox to the server (cluster TS_FILESERVER_CLUSTER,
 * port TS_PORT_FILESERVER); the bytes it carries (a path, or the data of a
 * WRITE) follow it by portal, to the server's input portal on the same
 * port, tagged with the request's seq. The reply goes to the mailbox the
 * request names; the bytes of a READ follow it by portal to the client's
 * input portal on that same port number, tagged with the seq, which the
 * client allows once it has the reply and knows how many there are. So a
 * large read or write moves in portal chunks, TS_FILE_CHUNK bytes per
 * request at most.
 *
 * Each request is atomic with respect to every other: the server serves
 * one at a time, and the kernel's host calls for one (however many
 * pieces its bytes take) run before the next request's. So a READ never
 * sees part of an overlapping WRITE, whoever sent it: what MPI-IO's
 * atomic mode relies on for one contiguous range of at most
 * TS_FILE_CHUNK bytes (a larger read or write is several requests).
 *
 * The file position lives in the client: the server reads and writes at
 * the offset the request gives (except with TS_O_APPEND, at the end).
 * So does a folder's place in a listing: LIST is READ's counterpart for
 * folders, the entries from the index the request gives, and the
 * client's working folder, against which it resolves relative paths
 * before they reach the server.
 */
#ifndef TESSERA_FILE_PROTOCOL_H
#define TESSERA_FILE_PROTOCOL_H

#include <stdint.h>
#include <tessera/syscall.h>

#define TS_FILESERVER_CLUSTER 0

/* A path is 1..TS_PATH_MAX bytes, without its NUL. */
#define TS_PATH_MAX 255
/* Bytes one READ or WRITE request moves at most: large, since a request
 * costs a mailbox message and a portal round trip whatever its size
 * (bench/README.md, "File streaming"); the file server holds one chunk. */
#define TS_FILE_CHUNK (1024 * 1024)

/* Open flags (TS_FILE_OPEN, TS_SYS_HOSTFS_OPEN): Linux's numbers. */
#define TS_O_ACCMODE 3
#define TS_O_RDONLY  0
#define TS_O_WRONLY  1
#define TS_O_RDWR    2
#define TS_O_CREAT   0100
#define TS_O_EXCL    0200
#define TS_O_TRUNC   01000
#define TS_O_APPEND  02000

/* What a path names (STAT's and LIST's type): a regular file, a folder,
 * or anything else the host holds. */
#define TS_FILE_TYPE_FILE  'f'
#define TS_FILE_TYPE_DIR   'd'
#define TS_FILE_TYPE_OTHER '?'

/* A LIST's bytes: entries back to back, each its type (TS_FILE_TYPE_*),
 * its name (1..TS_NAME_MAX bytes, neither "." nor "..", no '/') and a
 * NUL; only whole entries, in the host's order, which stays the same while
 * the folder does not change. */
#define TS_NAME_MAX       255
#define TS_LIST_ENTRY_MAX (TS_NAME_MAX + 2)

enum ts_file_op {
    TS_FILE_OPEN = 1,      /* path by portal, flags -> a handle */
    TS_FILE_CLOSE = 2,     /* handle -> 0 */
    TS_FILE_READ = 3,      /* handle, offset, len -> bytes (that many follow by portal) */
    TS_FILE_WRITE = 4,     /* handle, offset, len bytes by portal -> bytes; value: the offset after them */
    TS_FILE_FSTAT = 5,     /* handle -> 0; value: the file's size */
    TS_FILE_STAT = 6,      /* path by portal -> its TS_FILE_TYPE_*; value: its size */
    TS_FILE_UNLINK = 7,    /* path by portal -> 0 */
    TS_FILE_RENAME = 8,    /* "from" NUL "to" by portal -> 0 */
    TS_FILE_MKDIR = 9,     /* path by portal -> 0: a new, empty folder */
    TS_FILE_RMDIR = 10,    /* path by portal -> 0: removes an empty folder */
    TS_FILE_LIST = 11,     /* path by portal, offset: the first entry's index, room
                            * -> bytes of entries (that many follow by portal, at most
                            * room; 0: no entry from there on); value: entries in them */
    TS_FILE_TRUNCATE = 12, /* handle, offset: the new size -> 0 (the file cut or
                            * extended with zeros to that many bytes) */
    TS_FILE_SYNC = 13,     /* handle -> 0 once the host has the file's data on its
                            * storage (fsync), as far as the platform can ask */
    TS_FILE_REPLY = 16,    /* every reply */
};

struct ts_file_request {
    int32_t op;            /* enum ts_file_op */
    uint32_t seq;          /* echoed in the reply; the portal transfers' tag (never 0) */
    int32_t reply_cluster; /* where the reply goes (mailbox), and READ's bytes (portal) */
    int32_t reply_port;
    int32_t handle;  /* CLOSE, READ, WRITE, FSTAT, TRUNCATE, SYNC: what OPEN returned */
    uint32_t flags;  /* OPEN: TS_O_* */
    uint64_t offset; /* READ, WRITE: where; LIST: the first entry; TRUNCATE: the new size */
    uint64_t len;    /* bytes that follow by portal (OPEN, STAT, UNLINK: the path's, without NUL;
                      * RENAME: both paths' and the NUL between them;
                      * WRITE: the data's), or READ: bytes wanted; at most TS_FILE_CHUNK */
    uint64_t room;   /* LIST: bytes of entries wanted, TS_LIST_ENTRY_MAX..TS_FILE_CHUNK */
};

struct ts_file_reply {
    int32_t op;     /* TS_FILE_REPLY */
    uint32_t seq;   /* the request's */
    int64_t result; /* >= 0, or -TS_E* */
    int64_t value;  /* see enum ts_file_op */
};

/* 1 when op's reply is followed by reply.result bytes by portal. */
static inline int ts_file_replies_with_bytes(int op) { return op == TS_FILE_READ || op == TS_FILE_LIST; }

/* 0 when path[0..len) is a path the job may use: 1..TS_PATH_MAX bytes,
 * relative (no leading '/'), no NUL inside, no ".." component; else
 * -TS_ENOENT (empty), -TS_ENAMETOOLONG, -TS_EACCES (absolute, or a ".."
 * component: outside the job's folder) or -TS_EINVAL (a NUL). It calls no
 * C library function: the kernel has none. */
static inline int ts_path_check(const char *path, unsigned long len) {
    if (len == 0) return -TS_ENOENT;
    if (len > TS_PATH_MAX) return -TS_ENAMETOOLONG;
    if (path[0] == '/') return -TS_EACCES;
    unsigned long start = 0; /* of the current component */
    for (unsigned long i = 0; i <= len; ++i) {
        if (i < len && path[i] == 0) return -TS_EINVAL;
        if (i == len || path[i] == '/') {
            if (i - start == 2 && path[start] == '.' && path[start + 1] == '.') return -TS_EACCES;
            start = i + 1;
        }
    }
    return 0;
}

#ifdef __cplusplus
static_assert(TS_HOSTFS_LIST_BYTES >= TS_LIST_ENTRY_MAX, "a host listing holds the longest entry");
static_assert(sizeof(struct ts_file_request) <= 96 - 8, "a request fits one mailbox message");
static_assert(sizeof(struct ts_file_reply) <= 96 - 8, "a reply fits one mailbox message");
#else
_Static_assert(TS_HOSTFS_LIST_BYTES >= TS_LIST_ENTRY_MAX, "a host listing holds the longest entry");
_Static_assert(sizeof(struct ts_file_request) <= 96 - 8, "a request fits one mailbox message");
_Static_assert(sizeof(struct ts_file_reply) <= 96 - 8, "a reply fits one mailbox message");
#endif

#endif
