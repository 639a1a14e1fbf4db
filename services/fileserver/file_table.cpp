#include "file_table.hpp"

#include <stdint.h>
#include <string.h>

namespace tessera::files {

bool carries_bytes(int op) {
    return op == TS_FILE_OPEN || op == TS_FILE_STAT || op == TS_FILE_UNLINK || op == TS_FILE_WRITE ||
           op == TS_FILE_RENAME || op == TS_FILE_MKDIR || op == TS_FILE_RMDIR || op == TS_FILE_LIST;
}

int FileTable::open_files() const {
    int n = 0;
    for (const File &f : files_)
        n += f.used ? 1 : 0;
    return n;
}

FileTable::File *FileTable::lookup(const ts_file_request &req) {
    if (req.handle < 0 || req.handle >= capacity) return nullptr;
    File &f = files_[req.handle];
    return f.used && f.cluster == req.reply_cluster && f.port == req.reply_port ? &f : nullptr;
}

long FileTable::open(const ts_file_request &req, const char *path, size_t len) {
    if (const int err = ts_path_check(path, len)) return err;
    const unsigned known = TS_O_ACCMODE | TS_O_CREAT | TS_O_EXCL | TS_O_TRUNC | TS_O_APPEND;
    if (req.flags & ~known || (req.flags & TS_O_ACCMODE) == TS_O_ACCMODE) return -TS_EINVAL;
    for (int i = 0; i < capacity; ++i) {
        File &f = files_[i];
        if (f.used) continue;
        const long h = host_.open(path, len, req.flags);
        if (h < 0) return h;
        f = File{true, req.reply_cluster, req.reply_port, static_cast<int>(h), req.flags};
        return i;
    }
    return -TS_ENFILE;
}

long FileTable::close(const ts_file_request &req) {
    File *f = lookup(req);
    if (!f) return -TS_EBADF;
    const long r = host_.close(f->host);
    *f = File{};
    return r;
}

long FileTable::read(const ts_file_request &req, char *out, size_t room) {
    File *f = lookup(req);
    if (!f || (f->flags & TS_O_ACCMODE) == TS_O_WRONLY) return -TS_EBADF;
    if (req.len > room) return -TS_EINVAL;
    return host_.read(f->host, out, req.len, req.offset);
}

// With TS_O_APPEND every write goes at the end, wherever the client is.
long FileTable::write(const ts_file_request &req, const char *data, size_t len, long long *end) {
    File *f = lookup(req);
    if (!f || (f->flags & TS_O_ACCMODE) == TS_O_RDONLY) return -TS_EBADF;
    unsigned long offset = req.offset;
    if (f->flags & TS_O_APPEND) {
        const long size = host_.size(f->host);
        if (size < 0) return size;
        offset = static_cast<unsigned long>(size);
    }
    const long n = host_.write(f->host, data, len, offset);
    if (n >= 0) *end = static_cast<long long>(offset) + n;
    return n;
}

long FileTable::fstat(const ts_file_request &req, long long *size) {
    File *f = lookup(req);
    if (!f) return -TS_EBADF;
    const long n = host_.size(f->host);
    if (n < 0) return n;
    *size = n;
    return 0;
}

// POSIX lets ftruncate answer EBADF or EINVAL for a file not open for
// writing; Linux answers EINVAL, so do we. A size past what the host's
// offsets hold (off_t) is EINVAL too.
long FileTable::truncate(const ts_file_request &req) {
    File *f = lookup(req);
    if (!f) return -TS_EBADF;
    if ((f->flags & TS_O_ACCMODE) == TS_O_RDONLY || req.offset > static_cast<uint64_t>(INT64_MAX))
        return -TS_EINVAL;
    return host_.truncate(f->host, req.offset);
}

long FileTable::sync(const ts_file_request &req) {
    File *f = lookup(req);
    return f ? host_.sync(f->host) : -TS_EBADF;
}

long FileTable::stat(const char *path, size_t len, long long *size) {
    if (const int err = ts_path_check(path, len)) return err;
    unsigned long n = 0;
    const long type = host_.stat(path, len, &n);
    if (type >= 0) *size = static_cast<long long>(n);
    return type;
}

// One host listing (TS_HOSTFS_LIST_BYTES at most), cut after the last
// whole entry that fits the client's room.
long FileTable::list(const ts_file_request &req, const char *path, size_t len, char *out, size_t room,
                     long long *count) {
    if (const int err = ts_path_check(path, len)) return err;
    if (req.room < TS_LIST_ENTRY_MAX || req.room > TS_FILE_CHUNK) return -TS_EINVAL;
    ts_hostfs_entries entries;
    const long n = host_.list(path, len, req.offset, &entries);
    if (n < 0) return n;
    const size_t fits = req.room < room ? req.room : room;
    size_t used = 0;
    *count = 0;
    for (size_t at = 0; at < static_cast<size_t>(n);) {
        size_t end = at + 1;
        while (end < static_cast<size_t>(n) && entries.bytes[end])
            ++end;
        if (end == static_cast<size_t>(n) || end + 1 - at > fits - used) break;  // cut, or no room
        memcpy(out + used, entries.bytes + at, end + 1 - at);
        used += end + 1 - at;
        ++*count;
        at = end + 1;
    }
    return static_cast<long>(used);
}

namespace {

// A path checked, then handed to the host.
template <class F>
long with_path(const char *path, size_t len, F f) {
    if (const int err = ts_path_check(path, len)) return err;
    return f();
}

}  // namespace

// "from" NUL "to": both checked.
long FileTable::rename(const char *paths, size_t len) {
    size_t from_len = 0;
    while (from_len < len && paths[from_len])
        ++from_len;
    if (from_len == len) return -TS_EINVAL;  // no NUL between them
    const char *to = paths + from_len + 1;
    const size_t to_len = len - from_len - 1;
    if (const int err = ts_path_check(paths, from_len)) return err;
    if (const int err = ts_path_check(to, to_len)) return err;
    return host_.rename(paths, from_len, to, to_len);
}

ts_file_reply FileTable::serve(const ts_file_request &req, const char *in, size_t in_len, char *out,
                               size_t room) {
    ts_file_reply rep{};
    rep.op = TS_FILE_REPLY;
    rep.seq = req.seq;
    long long value = 0;
    long r;
    if (carries_bytes(req.op) && (req.len > TS_FILE_CHUNK || in_len != req.len)) {
        r = -TS_EINVAL;  // more than a request may carry, or not all of it came
    } else {
        switch (req.op) {
        case TS_FILE_OPEN: r = open(req, in, in_len); break;
        case TS_FILE_CLOSE: r = close(req); break;
        case TS_FILE_READ: r = read(req, out, room); break;
        case TS_FILE_WRITE: r = write(req, in, in_len, &value); break;
        case TS_FILE_FSTAT: r = fstat(req, &value); break;
        case TS_FILE_STAT: r = stat(in, in_len, &value); break;
        case TS_FILE_UNLINK: r = with_path(in, in_len, [&] { return host_.unlink(in, in_len); }); break;
        case TS_FILE_RENAME: r = rename(in, in_len); break;
        case TS_FILE_MKDIR: r = with_path(in, in_len, [&] { return host_.mkdir(in, in_len); }); break;
        case TS_FILE_RMDIR: r = with_path(in, in_len, [&] { return host_.rmdir(in, in_len); }); break;
        case TS_FILE_LIST: r = list(req, in, in_len, out, room, &value); break;
        case TS_FILE_TRUNCATE: r = truncate(req); break;
        case TS_FILE_SYNC: r = sync(req); break;
        default: r = -TS_EINVAL;
        }
    }
    rep.result = r;
    rep.value = value;
    return rep;
}

}  // namespace tessera::files
