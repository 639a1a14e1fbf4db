// The file server's table of open files and its request handling, with no
// OS calls (the host's files come through a HostFiles), so the host tests
// can check them against a fake host.
#pragma once

#include <stddef.h>

#include <tessera/file_protocol.h>

namespace tessera::files {

/// The host's files as the server reaches them: on the target the kernel's
/// TS_SYS_HOSTFS_* calls (<tessera/kcalls.def> says what each returns).
class HostFiles {
public:
    virtual long open(const char *path, unsigned long len, unsigned flags) = 0;
    virtual long close(int handle) = 0;
    virtual long read(int handle, void *buf, unsigned long len, unsigned long offset) = 0;
    virtual long write(int handle, const void *buf, unsigned long len, unsigned long offset) = 0;
    virtual long size(int handle) = 0;
    virtual long truncate(int handle, unsigned long size) = 0;
    virtual long sync(int handle) = 0;
    virtual long unlink(const char *path, unsigned long len) = 0;
    virtual long rename(const char *from, unsigned long from_len, const char *to, unsigned long to_len) = 0;
    virtual long stat(const char *path, unsigned long len, unsigned long *size) = 0;
    virtual long mkdir(const char *path, unsigned long len) = 0;
    virtual long rmdir(const char *path, unsigned long len) = 0;
    virtual long list(const char *path, unsigned long len, unsigned long first, ts_hostfs_entries *out) = 0;

protected:
    ~HostFiles() = default;
};

/// True when `op`'s request is followed by req.len bytes by portal (a
/// path, or a write's data), which the server takes before serving it.
bool carries_bytes(int op);

/// The open files of every client: each a host handle, its access mode and
/// append flag, and its owner (the client's reply cluster and port), the
/// only one that may use it.
class FileTable {
public:
    /// Open files of all clients at once: as many as the kernel's table
    /// of host handles holds (kernel/hostfs.cpp), a file for each rank of
    /// a full mppa256 job and more.
    static constexpr int capacity = 256;

    explicit FileTable(HostFiles &host) : host_(host) {}

    /// Serves one request. `in` holds the in_len bytes that followed it
    /// (carries_bytes); a READ's data goes into out (room bytes). Returns
    /// the reply; for a READ, reply.result bytes of out go back by portal.
    ts_file_reply serve(const ts_file_request &req, const char *in, size_t in_len, char *out, size_t room);
    /// Files open now.
    int open_files() const;

private:
    struct File {
        bool used = false;
        int cluster = 0, port = 0;  ///< the owner
        int host = -1;              ///< HostFiles' handle
        unsigned flags = 0;         ///< TS_O_* it was opened with
    };

    long open(const ts_file_request &req, const char *path, size_t len);
    long close(const ts_file_request &req);
    long read(const ts_file_request &req, char *out, size_t room);
    long write(const ts_file_request &req, const char *data, size_t len, long long *end);
    long fstat(const ts_file_request &req, long long *size);
    long truncate(const ts_file_request &req);
    long sync(const ts_file_request &req);
    long stat(const char *path, size_t len, long long *size);
    long rename(const char *paths, size_t len);
    long list(const ts_file_request &req, const char *path, size_t len, char *out, size_t room,
              long long *count);
    File *lookup(const ts_file_request &req);

    HostFiles &host_;
    File files_[capacity];
};

}  // namespace tessera::files
