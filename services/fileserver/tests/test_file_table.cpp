// Host tests of the file server's table and request handling, against a
// host of files in memory.
#include <catch2/catch.hpp>

#include <string.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "file_table.hpp"

using tessera::files::FileTable;
using tessera::files::HostFiles;

namespace {

// Files as strings, folders as names (the root is "."); handles index
// `open`. Opens and folders follow POSIX.
class MemoryHost final : public HostFiles {
public:
    std::map<std::string, std::string> files;
    std::set<std::string> folders{"."};
    std::vector<std::string> open_names;  // by handle; "" when closed
    std::set<std::string> synced;         // files a sync reached
    int max_open = 1000;

    long open(const char *path, unsigned long len, unsigned flags) override {
        const std::string name(path, len);
        const bool exists = files.count(name) > 0;
        if (!exists && !(flags & TS_O_CREAT)) return -TS_ENOENT;
        if (exists && flags & TS_O_CREAT && flags & TS_O_EXCL) return -TS_EEXIST;
        if (live() >= max_open) return -TS_ENFILE;
        if (!exists || ((flags & TS_O_TRUNC) && (flags & TS_O_ACCMODE) != TS_O_RDONLY)) files[name] = "";
        open_names.push_back(name);
        return static_cast<long>(open_names.size() - 1);
    }
    long close(int h) override {
        if (!valid(h)) return -TS_EBADF;
        open_names[h].clear();
        return 0;
    }
    long read(int h, void *buf, unsigned long len, unsigned long offset) override {
        if (!valid(h)) return -TS_EBADF;
        const std::string &f = files[open_names[h]];
        if (offset >= f.size()) return 0;
        const unsigned long n = std::min<unsigned long>(len, f.size() - offset);
        memcpy(buf, f.data() + offset, n);
        return static_cast<long>(n);
    }
    long write(int h, const void *buf, unsigned long len, unsigned long offset) override {
        if (!valid(h)) return -TS_EBADF;
        std::string &f = files[open_names[h]];
        if (f.size() < offset + len) f.resize(offset + len);
        memcpy(f.data() + offset, buf, len);
        return static_cast<long>(len);
    }
    long size(int h) override {
        return valid(h) ? static_cast<long>(files[open_names[h]].size()) : -TS_EBADF;
    }
    long truncate(int h, unsigned long size) override {
        if (!valid(h)) return -TS_EBADF;
        files[open_names[h]].resize(size);
        return 0;
    }
    long sync(int h) override {
        if (!valid(h)) return -TS_EBADF;
        synced.insert(open_names[h]);
        return 0;
    }
    long unlink(const char *path, unsigned long len) override {
        return files.erase(std::string(path, len)) ? 0 : -TS_ENOENT;
    }
    long rename(const char *from, unsigned long from_len, const char *to, unsigned long to_len) override {
        auto it = files.find(std::string(from, from_len));
        if (it == files.end()) return -TS_ENOENT;
        std::string data = it->second;
        files.erase(it);
        files[std::string(to, to_len)] = data;
        return 0;
    }
    long stat(const char *path, unsigned long len, unsigned long *size) override {
        const std::string name(path, len);
        if (folders.count(name)) {
            *size = 0;
            return TS_FILE_TYPE_DIR;
        }
        if (!files.count(name)) return -TS_ENOENT;
        *size = files[name].size();
        return TS_FILE_TYPE_FILE;
    }
    long mkdir(const char *path, unsigned long len) override {
        const std::string name(path, len);
        if (folders.count(name) || files.count(name)) return -TS_EEXIST;
        const std::string parent = parent_of(name);
        if (files.count(parent)) return -TS_ENOTDIR;
        if (!folders.count(parent)) return -TS_ENOENT;
        folders.insert(name);
        return 0;
    }
    long rmdir(const char *path, unsigned long len) override {
        const std::string name(path, len);
        if (files.count(name)) return -TS_ENOTDIR;
        if (!folders.count(name)) return -TS_ENOENT;
        if (!children(name).empty()) return -TS_ENOTEMPTY;
        folders.erase(name);
        return 0;
    }
    long list(const char *path, unsigned long len, unsigned long first, ts_hostfs_entries *out) override {
        const std::string name(path, len);
        if (files.count(name)) return -TS_ENOTDIR;
        if (!folders.count(name)) return -TS_ENOENT;
        size_t used = 0;
        unsigned long index = 0;
        for (const auto &[child, type] : children(name)) {
            if (index++ < first) continue;
            if (used + child.size() + 2 > sizeof out->bytes) break;
            out->bytes[used] = type;
            memcpy(out->bytes + used + 1, child.c_str(), child.size() + 1);
            used += child.size() + 2;
        }
        return static_cast<long>(used);
    }
    int live() const {
        int n = 0;
        for (const std::string &s : open_names)
            n += s.empty() ? 0 : 1;
        return n;
    }

private:
    static std::string parent_of(const std::string &name) {
        const size_t slash = name.rfind('/');
        return slash == std::string::npos ? "." : name.substr(0, slash);
    }
    // The entries of folder `name` and their types, by name.
    std::map<std::string, char> children(const std::string &name) const {
        std::map<std::string, char> out;
        for (const auto &f : files)
            if (parent_of(f.first) == name) out[f.first.substr(f.first.rfind('/') + 1)] = TS_FILE_TYPE_FILE;
        for (const std::string &d : folders)
            if (d != "." && parent_of(d) == name) out[d.substr(d.rfind('/') + 1)] = TS_FILE_TYPE_DIR;
        return out;
    }
    bool valid(int h) const {
        return h >= 0 && h < static_cast<int>(open_names.size()) && !open_names[h].empty();
    }
};

// A client: its reply address, and requests as the file client makes them.
struct Client {
    FileTable &table;
    int cluster = 2, port = 49;
    uint32_t seq = 0;
    std::vector<char> reply_bytes = std::vector<char>(TS_FILE_CHUNK);  // a chunk: off the stack
    char *out = reply_bytes.data();

    ts_file_request request(int op, int handle = 0, uint64_t offset = 0, uint64_t len = 0,
                            unsigned flags = 0) {
        ts_file_request req{};
        req.op = op;
        req.seq = ++seq;
        req.reply_cluster = cluster;
        req.reply_port = port;
        req.handle = handle;
        req.flags = flags;
        req.offset = offset;
        req.len = len;
        return req;
    }
    ts_file_reply send(const ts_file_request &req, const std::string &bytes = "") {
        ts_file_reply rep = table.serve(req, bytes.data(), bytes.size(), out, reply_bytes.size());
        CHECK(rep.op == TS_FILE_REPLY);
        CHECK(rep.seq == req.seq);
        return rep;
    }
    long open(const std::string &path, unsigned flags) {
        return send(request(TS_FILE_OPEN, 0, 0, path.size(), flags), path).result;
    }
    long write(int h, const std::string &data, uint64_t offset, int64_t *end = nullptr) {
        ts_file_reply rep = send(request(TS_FILE_WRITE, h, offset, data.size()), data);
        if (end) *end = rep.value;
        return rep.result;
    }
    std::string read(int h, uint64_t offset, uint64_t len, long *result = nullptr) {
        ts_file_reply rep = send(request(TS_FILE_READ, h, offset, len));
        if (result) *result = rep.result;
        return rep.result > 0 ? std::string(out, rep.result) : std::string();
    }
    long close(int h) { return send(request(TS_FILE_CLOSE, h)).result; }
    long path_op(int op, const std::string &path, int64_t *value = nullptr) {
        ts_file_reply rep = send(request(op, 0, 0, path.size()), path);
        if (value) *value = rep.value;
        return rep.result;
    }
    // One LIST from entry `first`, `room` bytes at most: its result, and
    // the entries ("d:name" or "f:name") appended to `names`.
    long list(const std::string &path, uint64_t first, uint64_t room, std::vector<std::string> &names,
              int64_t *count = nullptr) {
        ts_file_request req = request(TS_FILE_LIST, 0, first, path.size());
        req.room = room;
        ts_file_reply rep = send(req, path);
        if (count) *count = rep.value;
        int64_t seen = 0;
        for (long at = 0; at < rep.result; ++seen) {
            const std::string name(out + at + 1);
            names.push_back(std::string(1, out[at]) + ":" + name);
            at += static_cast<long>(name.size()) + 2;
        }
        if (rep.result > 0) CHECK(seen == rep.value);
        return rep.result;
    }
    // The whole folder, in LISTs of `room` bytes.
    std::vector<std::string> list_all(const std::string &path, uint64_t room) {
        std::vector<std::string> names;
        int64_t count = 0;
        while (list(path, names.size(), room, names, &count) > 0)
            REQUIRE(count > 0);
        return names;
    }
};

}  // namespace

TEST_CASE("paths: only relative ones inside the job's folder") {
    CHECK(ts_path_check("in.txt", 6) == 0);
    CHECK(ts_path_check("data/in.txt", 11) == 0);
    CHECK(ts_path_check("./a..b/..c", 10) == 0);
    CHECK(ts_path_check("", 0) == -TS_ENOENT);
    CHECK(ts_path_check("/etc/passwd", 11) == -TS_EACCES);
    CHECK(ts_path_check("..", 2) == -TS_EACCES);
    CHECK(ts_path_check("../x", 4) == -TS_EACCES);
    CHECK(ts_path_check("a/../../x", 9) == -TS_EACCES);
    CHECK(ts_path_check("a/..", 4) == -TS_EACCES);
    CHECK(ts_path_check("a\0b", 3) == -TS_EINVAL);
    std::string longest(TS_PATH_MAX, 'a');
    CHECK(ts_path_check(longest.data(), longest.size()) == 0);
    longest += 'a';
    CHECK(ts_path_check(longest.data(), longest.size()) == -TS_ENAMETOOLONG);
}

TEST_CASE("open, write, read back, close") {
    MemoryHost host;
    FileTable table(host);
    Client c{table};
    const long h = c.open("out.txt", TS_O_WRONLY | TS_O_CREAT | TS_O_TRUNC);
    REQUIRE(h >= 0);
    int64_t end = 0;
    CHECK(c.write(h, "hello ", 0, &end) == 6);
    CHECK(end == 6);
    CHECK(c.write(h, "world", 6, &end) == 5);
    CHECK(end == 11);
    CHECK(host.files["out.txt"] == "hello world");
    long r = 0;
    c.read(h, 0, 5, &r);
    CHECK(r == -TS_EBADF);  // opened write-only
    CHECK(c.close(h) == 0);
    CHECK(c.close(h) == -TS_EBADF);
    CHECK(table.open_files() == 0);
    CHECK(host.live() == 0);

    const long in = c.open("out.txt", TS_O_RDONLY);
    REQUIRE(in >= 0);
    CHECK(c.read(in, 0, 100) == "hello world");
    CHECK(c.read(in, 6, 3) == "wor");
    c.read(in, 11, 10, &r);
    CHECK(r == 0);                            // the end
    CHECK(c.write(in, "x", 0) == -TS_EBADF);  // opened read-only
    ts_file_reply rep = c.send(c.request(TS_FILE_FSTAT, in));
    CHECK(rep.result == 0);
    CHECK(rep.value == 11);
    CHECK(c.close(in) == 0);
}

TEST_CASE("append writes at the end") {
    MemoryHost host;
    host.files["log"] = "abc";
    FileTable table(host);
    Client c{table};
    const long h = c.open("log", TS_O_WRONLY | TS_O_APPEND);
    REQUIRE(h >= 0);
    int64_t end = 0;
    CHECK(c.write(h, "de", 0, &end) == 2);
    CHECK(end == 5);
    CHECK(host.files["log"] == "abcde");
}

TEST_CASE("errors: missing files, bad paths, flags and handles") {
    MemoryHost host;
    FileTable table(host);
    Client c{table};
    CHECK(c.open("missing", TS_O_RDONLY) == -TS_ENOENT);
    CHECK(c.open("/etc/passwd", TS_O_RDONLY) == -TS_EACCES);
    CHECK(c.open("../secret", TS_O_RDONLY) == -TS_EACCES);
    CHECK(c.open("x", TS_O_ACCMODE) == -TS_EINVAL);
    CHECK(c.open("x", TS_O_RDONLY | 0x10000000u) == -TS_EINVAL);
    CHECK(c.path_op(TS_FILE_STAT, "missing") == -TS_ENOENT);
    CHECK(c.path_op(TS_FILE_UNLINK, "missing") == -TS_ENOENT);
    CHECK(c.path_op(TS_FILE_UNLINK, "../x") == -TS_EACCES);
    CHECK(c.close(-1) == -TS_EBADF);
    CHECK(c.close(FileTable::capacity) == -TS_EBADF);
    CHECK(c.send(c.request(TS_FILE_FSTAT, 3)).result == -TS_EBADF);
    CHECK(c.send(c.request(99)).result == -TS_EINVAL);
    // A request whose bytes did not all come, or claims too many.
    CHECK(c.send(c.request(TS_FILE_OPEN, 0, 0, 5), "abc").result == -TS_EINVAL);
    CHECK(c.send(c.request(TS_FILE_WRITE, 0, 0, TS_FILE_CHUNK + 1), "").result == -TS_EINVAL);
    host.files["f"] = "1";
    CHECK(c.open("f", TS_O_WRONLY | TS_O_CREAT | TS_O_EXCL) == -TS_EEXIST);
    const long h = c.open("f", TS_O_RDONLY);
    REQUIRE(h >= 0);
    CHECK(c.read(h, 0, TS_FILE_CHUNK + 1).empty());  // more than out holds
    CHECK(table.open_files() == 1);
}

TEST_CASE("a handle is its owner's only") {
    MemoryHost host;
    host.files["f"] = "data";
    FileTable table(host);
    Client a{table};
    Client b{table};
    b.port = 50;
    const long h = a.open("f", TS_O_RDONLY);
    REQUIRE(h >= 0);
    long r = 0;
    b.read(h, 0, 4, &r);
    CHECK(r == -TS_EBADF);
    CHECK(b.close(h) == -TS_EBADF);
    CHECK(a.read(h, 0, 4) == "data");
}

TEST_CASE("stat and unlink") {
    MemoryHost host;
    host.files["dir/f"] = std::string(1000, 'x');
    FileTable table(host);
    Client c{table};
    int64_t size = 0;
    CHECK(c.path_op(TS_FILE_STAT, "dir/f", &size) == TS_FILE_TYPE_FILE);
    CHECK(size == 1000);
    CHECK(host.live() == 0);  // stat closes what it opened
    CHECK(c.path_op(TS_FILE_UNLINK, "dir/f") == 0);
    CHECK(host.files.count("dir/f") == 0);
}

TEST_CASE("rename: two checked paths") {
    MemoryHost host;
    host.files["tmp"] = "result";
    host.files["old"] = "replaced";
    FileTable table(host);
    Client c{table};
    const std::string both("tmp\0old", 7);
    CHECK(c.path_op(TS_FILE_RENAME, both) == 0);
    CHECK(host.files.count("tmp") == 0);
    CHECK(host.files["old"] == "result");
    CHECK(c.path_op(TS_FILE_RENAME, std::string("tmp\0x", 5)) == -TS_ENOENT);
    CHECK(c.path_op(TS_FILE_RENAME, std::string("old\0../x", 8)) == -TS_EACCES);
    CHECK(c.path_op(TS_FILE_RENAME, std::string("/etc/x\0y", 8)) == -TS_EACCES);
    CHECK(c.path_op(TS_FILE_RENAME, std::string("old\0", 4)) == -TS_ENOENT);  // an empty "to"
    CHECK(c.path_op(TS_FILE_RENAME, "old") == -TS_EINVAL);                    // no "to" at all
    CHECK(host.files["old"] == "result");
}

TEST_CASE("the table fills up and frees") {
    MemoryHost host;
    host.files["f"] = "";
    FileTable table(host);
    Client c{table};
    std::vector<long> handles;
    for (int i = 0; i < FileTable::capacity; ++i) {
        handles.push_back(c.open("f", TS_O_RDONLY));
        REQUIRE(handles.back() >= 0);
    }
    CHECK(c.open("f", TS_O_RDONLY) == -TS_ENFILE);
    CHECK(host.live() == FileTable::capacity);  // nothing left open on the host for it
    CHECK(c.close(handles[7]) == 0);
    CHECK(c.open("f", TS_O_RDONLY) == handles[7]);
    // The host refusing: its error comes back.
    host.max_open = host.live();
    CHECK(c.close(handles[0]) == 0);
    host.max_open = 0;
    CHECK(c.open("f", TS_O_RDONLY) == -TS_ENFILE);
    CHECK(table.open_files() == FileTable::capacity - 1);
}

TEST_CASE("a large file in chunks") {
    MemoryHost host;
    FileTable table(host);
    Client c{table};
    const long h = c.open("big", TS_O_RDWR | TS_O_CREAT);
    REQUIRE(h >= 0);
    std::string chunk(TS_FILE_CHUNK, 0);
    for (int k = 0; k < 16; ++k) {
        for (size_t i = 0; i < chunk.size(); ++i)
            chunk[i] = static_cast<char>((k * TS_FILE_CHUNK + i) * 7);
        CHECK(c.write(h, chunk, static_cast<uint64_t>(k) * TS_FILE_CHUNK) == TS_FILE_CHUNK);
    }
    CHECK(host.files["big"].size() == 16u * TS_FILE_CHUNK);
    const std::string back = c.read(h, 5 * TS_FILE_CHUNK + 3, TS_FILE_CHUNK);
    REQUIRE(back.size() == TS_FILE_CHUNK);
    for (size_t i = 0; i < back.size(); ++i)
        if (back[i] != static_cast<char>((5 * TS_FILE_CHUNK + 3 + i) * 7)) FAIL("byte " << i);
}

TEST_CASE("folders: made, seen by stat, removed when empty") {
    MemoryHost host;
    host.files["f"] = "x";
    FileTable table(host);
    Client c{table};
    CHECK(c.path_op(TS_FILE_MKDIR, "d") == 0);
    CHECK(host.folders.count("d") == 1);
    int64_t size = -1;
    CHECK(c.path_op(TS_FILE_STAT, "d", &size) == TS_FILE_TYPE_DIR);
    CHECK(c.path_op(TS_FILE_STAT, ".") == TS_FILE_TYPE_DIR);
    CHECK(c.path_op(TS_FILE_MKDIR, "d/e") == 0);
    CHECK(c.path_op(TS_FILE_RMDIR, "d") == -TS_ENOTEMPTY);
    CHECK(c.path_op(TS_FILE_RMDIR, "d/e") == 0);
    const long h = c.open("d/file", TS_O_WRONLY | TS_O_CREAT);
    REQUIRE(h >= 0);
    CHECK(c.close(h) == 0);
    CHECK(c.path_op(TS_FILE_RMDIR, "d") == -TS_ENOTEMPTY);
    CHECK(c.path_op(TS_FILE_UNLINK, "d/file") == 0);
    CHECK(c.path_op(TS_FILE_RMDIR, "d") == 0);
    CHECK(host.folders.count("d") == 0);
}

TEST_CASE("folders: errors") {
    MemoryHost host;
    host.files["f"] = "x";
    host.folders.insert("d");
    FileTable table(host);
    Client c{table};
    CHECK(c.path_op(TS_FILE_MKDIR, "d") == -TS_EEXIST);
    CHECK(c.path_op(TS_FILE_MKDIR, "f") == -TS_EEXIST);
    CHECK(c.path_op(TS_FILE_MKDIR, "no/e") == -TS_ENOENT);
    CHECK(c.path_op(TS_FILE_MKDIR, "f/e") == -TS_ENOTDIR);
    CHECK(c.path_op(TS_FILE_MKDIR, "../e") == -TS_EACCES);
    CHECK(c.path_op(TS_FILE_MKDIR, "/e") == -TS_EACCES);
    CHECK(c.path_op(TS_FILE_MKDIR, "") == -TS_ENOENT);
    CHECK(c.path_op(TS_FILE_RMDIR, "no") == -TS_ENOENT);
    CHECK(c.path_op(TS_FILE_RMDIR, "f") == -TS_ENOTDIR);
    CHECK(c.path_op(TS_FILE_RMDIR, "d/..") == -TS_EACCES);
    CHECK(c.path_op(TS_FILE_STAT, "no") == -TS_ENOENT);
    std::vector<std::string> names;
    CHECK(c.list("f", 0, 1024, names) == -TS_ENOTDIR);
    CHECK(c.list("no", 0, 1024, names) == -TS_ENOENT);
    CHECK(c.list("../x", 0, 1024, names) == -TS_EACCES);
    CHECK(c.list(".", 0, TS_LIST_ENTRY_MAX - 1, names) == -TS_EINVAL);  // no room for a long name
    CHECK(c.list(".", 0, TS_FILE_CHUNK + 1, names) == -TS_EINVAL);
    CHECK(names.empty());
    CHECK(host.folders == std::set<std::string>{".", "d"});
}

TEST_CASE("listing: every entry once, in pieces of any room") {
    MemoryHost host;
    std::set<std::string> expect;
    for (int i = 0; i < 150; ++i) {
        const std::string name = "file_" + std::to_string(i);
        host.files["many/" + name] = "";
        expect.insert("f:" + name);
    }
    host.folders.insert("many");
    for (int i = 0; i < 30; ++i) {
        host.folders.insert("many/sub_" + std::to_string(i));
        expect.insert("d:sub_" + std::to_string(i));
    }
    host.files["many/sub_3/deeper"] = "not listed";
    FileTable table(host);
    Client c{table};
    for (uint64_t room :
         {uint64_t{TS_LIST_ENTRY_MAX}, uint64_t{300}, uint64_t{4096}, uint64_t{TS_FILE_CHUNK}}) {
        const std::vector<std::string> names = c.list_all("many", room);
        CHECK(names.size() == expect.size());
        CHECK(std::set<std::string>(names.begin(), names.end()) == expect);
    }
    std::vector<std::string> names;
    CHECK(c.list("many", 180, 1024, names) == 0);  // past the last entry
    CHECK(c.list("many", 1000, 1024, names) == 0);
    CHECK(names.empty());
}

TEST_CASE("listing: long names, whole entries only") {
    MemoryHost host;
    host.folders.insert("d");
    const std::string a(TS_NAME_MAX, 'a'), b(200, 'b');
    host.files["d/" + a] = "";
    host.files["d/" + b] = "";
    host.folders.insert("d/" + std::string(100, 'c'));
    FileTable table(host);
    Client c{table};
    std::vector<std::string> names;
    int64_t count = 0;
    CHECK(c.list("d", 0, TS_LIST_ENTRY_MAX, names, &count) == TS_LIST_ENTRY_MAX);  // one, exactly
    CHECK(count == 1);
    CHECK(names == std::vector<std::string>{"f:" + a});
    CHECK(c.list_all("d", TS_LIST_ENTRY_MAX).size() == 3);
}

TEST_CASE("truncate: cut and extended with zeros, by a writer only") {
    MemoryHost host;
    host.files["f"] = "0123456789";
    FileTable table(host);
    Client c{table};
    const long h = c.open("f", TS_O_RDWR);
    REQUIRE(h >= 0);
    CHECK(c.send(c.request(TS_FILE_TRUNCATE, h, 4)).result == 0);
    CHECK(host.files["f"] == "0123");
    CHECK(c.send(c.request(TS_FILE_TRUNCATE, h, 6)).result == 0);
    CHECK(host.files["f"] == std::string("0123\0\0", 6));
    CHECK(c.send(c.request(TS_FILE_TRUNCATE, h, 0)).result == 0);
    CHECK(host.files["f"].empty());
    // More than an off_t holds.
    CHECK(c.send(c.request(TS_FILE_TRUNCATE, h, uint64_t{1} << 63)).result == -TS_EINVAL);

    host.files["ro"] = "keep";
    const long ro = c.open("ro", TS_O_RDONLY);
    REQUIRE(ro >= 0);
    CHECK(c.send(c.request(TS_FILE_TRUNCATE, ro, 1)).result == -TS_EINVAL);  // not open for writing
    CHECK(host.files["ro"] == "keep");
    const long wo = c.open("ro", TS_O_WRONLY);
    REQUIRE(wo >= 0);
    CHECK(c.send(c.request(TS_FILE_TRUNCATE, wo, 2)).result == 0);
    CHECK(host.files["ro"] == "ke");

    CHECK(c.send(c.request(TS_FILE_TRUNCATE, -1, 0)).result == -TS_EBADF);
    CHECK(c.send(c.request(TS_FILE_TRUNCATE, FileTable::capacity, 0)).result == -TS_EBADF);
    CHECK(c.close(h) == 0);
    CHECK(c.send(c.request(TS_FILE_TRUNCATE, h, 0)).result == -TS_EBADF);  // closed
}

TEST_CASE("sync: any open file of its owner") {
    MemoryHost host;
    host.files["f"] = "data";
    FileTable table(host);
    Client a{table};
    Client b{table};
    b.port = 50;
    const long h = a.open("f", TS_O_RDONLY);
    REQUIRE(h >= 0);
    CHECK(b.send(b.request(TS_FILE_SYNC, h)).result == -TS_EBADF);  // not the owner
    CHECK(host.synced.empty());
    CHECK(a.send(a.request(TS_FILE_SYNC, h)).result == 0);
    CHECK(host.synced == std::set<std::string>{"f"});
    CHECK(a.send(a.request(TS_FILE_SYNC, 77)).result == -TS_EBADF);
}

TEST_CASE("truncate: only the owner's handle") {
    MemoryHost host;
    host.files["f"] = "data";
    FileTable table(host);
    Client a{table};
    Client b{table};
    b.cluster = 3;
    const long h = a.open("f", TS_O_RDWR);
    REQUIRE(h >= 0);
    CHECK(b.send(b.request(TS_FILE_TRUNCATE, h, 0)).result == -TS_EBADF);
    CHECK(host.files["f"] == "data");
}
