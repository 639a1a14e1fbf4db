// The file server: a user program on I/O cluster 0 that serves the ranks'
// files (<tessera/file_protocol.h>) on mailbox and portal port
// TS_PORT_FILESERVER, forever, one request at a time, over the kernel's
// TS_SYS_HOSTFS_* calls (the files of the job's folder on the host).
// Silent unless it cannot start.
#include <stdio.h>
#include <tessera/runtime.h>

#include "file_table.hpp"

using tessera::files::FileTable;

namespace {

// The host's files through the kernel.
class KernelHostFiles final : public tessera::files::HostFiles {
public:
    long open(const char *path, unsigned long len, unsigned flags) override {
        return ts_hostfs_open(path, len, flags);
    }
    long close(int handle) override { return ts_hostfs_close(handle); }
    long read(int handle, void *buf, unsigned long len, unsigned long offset) override {
        return ts_hostfs_read(handle, buf, len, offset);
    }
    long write(int handle, const void *buf, unsigned long len, unsigned long offset) override {
        return ts_hostfs_write(handle, buf, len, offset);
    }
    long size(int handle) override { return ts_hostfs_size(handle); }
    long truncate(int handle, unsigned long size) override { return ts_hostfs_truncate(handle, size); }
    long sync(int handle) override { return ts_hostfs_sync(handle); }
    long unlink(const char *path, unsigned long len) override { return ts_hostfs_unlink(path, len); }
    long rename(const char *from, unsigned long from_len, const char *to, unsigned long to_len) override {
        return ts_hostfs_rename(from, from_len, to, to_len);
    }
    long stat(const char *path, unsigned long len, unsigned long *size) override {
        return ts_hostfs_stat(path, len, size);
    }
    long mkdir(const char *path, unsigned long len) override { return ts_hostfs_mkdir(path, len); }
    long rmdir(const char *path, unsigned long len) override { return ts_hostfs_rmdir(path, len); }
    long list(const char *path, unsigned long len, unsigned long first, ts_hostfs_entries *out) override {
        return ts_hostfs_list(path, len, first, out);
    }
};

// A WRITE's data in, or a READ's or a LIST's bytes out: no request does
// both, so one chunk serves them all (it is most of the server's memory).
char data[TS_FILE_CHUNK];
// The paths a request carries in: a RENAME's two and the NUL between them.
char paths[2 * TS_PATH_MAX + 1];

// Where the bytes that follow req go.
char *in_buffer(const ts_file_request &req) { return req.op == TS_FILE_WRITE ? data : paths; }
size_t in_room(const ts_file_request &req) { return req.op == TS_FILE_WRITE ? sizeof data : sizeof paths; }

bool valid_client(const ts_file_request &req, int nclusters) {
    return req.reply_cluster >= 0 && req.reply_cluster < nclusters && req.reply_port > 0 &&
           req.reply_port < TS_PORTS && req.seq != 0;
}

// Takes the bytes that follow the request on our portal into
// in_buffer(req): how many came (what does not fit is dropped, and the
// request fails as one whose bytes did not all come), or an error.
long take_bytes(int portal, const ts_file_request &req) {
    if (req.len == 0) return 0;
    const long err = ts_portal_allow(portal, req.reply_cluster, req.reply_port, req.seq);
    if (err < 0) return err;
    const unsigned long keep = req.len < in_room(req) ? req.len : in_room(req);
    return ts_portal_read(portal, in_buffer(req), keep, req.len);
}

// The reply by mailbox; then a READ's or a LIST's bytes by portal, which the client
// allows once it has the reply.
void reply(const ts_file_request &req, const ts_file_reply &rep) {
    const int out = ts_mailbox_open(TS_PORT_FILESERVER, req.reply_cluster, req.reply_port);
    if (out < 0) return;
    ts_mailbox_write(out, &rep, sizeof rep);
    ts_mailbox_close(out);
    if (!ts_file_replies_with_bytes(req.op) || rep.result <= 0) return;
    const int portal = ts_portal_open(TS_PORT_FILESERVER, req.reply_cluster, req.reply_port);
    if (portal < 0) return;
    ts_portal_write(portal, data, static_cast<unsigned long>(rep.result), req.seq);
    ts_portal_close(portal);
}

}  // namespace

int main() {
    const int nclusters = ts_job()->nclusters;
    static KernelHostFiles host;
    static FileTable table(host);
    const int in = ts_mailbox_create(TS_PORT_FILESERVER);
    const int portal = ts_portal_create(TS_PORT_FILESERVER);
    if (in < 0 || portal < 0) {
        fprintf(stderr, "fileserver: cannot create mailbox and portal port %d (errors %d, %d)\n",
                TS_PORT_FILESERVER, in, portal);
        return 1;
    }
    for (;;) {
        ts_file_request req;
        const long n = ts_mailbox_read(in, &req, sizeof req);
        if (n != static_cast<long>(sizeof req) || !valid_client(req, nclusters)) continue;
        long got = 0;
        if (tessera::files::carries_bytes(req.op)) {
            got = take_bytes(portal, req);
            if (got < 0) continue;  // the client went away
        }
        reply(req, table.serve(req, in_buffer(req), static_cast<size_t>(got), data, sizeof data));
    }
}
