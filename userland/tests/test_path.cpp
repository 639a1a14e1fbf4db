// Host tests of the file client's path resolution (runtime/path.c).
#include <catch2/catch.hpp>

#include <string>

#include <tessera/file_protocol.h>

#include "path.h"

namespace {

// The resolved path, or "error N" for -N.
std::string resolve(const char *cwd, const std::string &path) {
    char out[TS_PATH_MAX + 1];
    const int n = ts__path_resolve(cwd, path.c_str(), out);
    if (n < 0) return "error " + std::to_string(-n);
    CHECK(static_cast<size_t>(n) == std::string(out).size());
    return out;
}

}  // namespace

TEST_CASE("relative paths start at the working folder") {
    CHECK(resolve("", "a.txt") == "a.txt");
    CHECK(resolve("", "d/a.txt") == "d/a.txt");
    CHECK(resolve("d", "a.txt") == "d/a.txt");
    CHECK(resolve("d/e", "f/g") == "d/e/f/g");
    CHECK(resolve("d", ".") == "d");
    CHECK(resolve("", ".") == "");
}

TEST_CASE("absolute paths start at the job's folder") {
    CHECK(resolve("d/e", "/a.txt") == "a.txt");
    CHECK(resolve("d", "/") == "");
    CHECK(resolve("d", "//x///y/") == "x/y");
    CHECK(resolve("", "/etc/passwd") == "etc/passwd");
}

TEST_CASE("dot and empty components go, dot-dot goes back") {
    CHECK(resolve("", "./a/./b/") == "a/b");
    CHECK(resolve("d/e", "..") == "d");
    CHECK(resolve("d/e", "../..") == "");
    CHECK(resolve("d/e", "../x/../y") == "d/y");
    CHECK(resolve("", "a/b/../../c") == "c");
    CHECK(resolve("", "a/..") == "");
    CHECK(resolve("", "..a/b..") == "..a/b..");  // names that only start or end with dots
}

TEST_CASE("nothing leaves the job's folder") {
    CHECK(resolve("", "..") == "error " + std::to_string(TS_EACCES));
    CHECK(resolve("", "../x") == "error " + std::to_string(TS_EACCES));
    CHECK(resolve("d", "../../x") == "error " + std::to_string(TS_EACCES));
    CHECK(resolve("d", "/../x") == "error " + std::to_string(TS_EACCES));
    CHECK(resolve("", "a/../../x") == "error " + std::to_string(TS_EACCES));
}

TEST_CASE("lengths: the whole path and each name") {
    CHECK(resolve("", "") == "error " + std::to_string(TS_ENOENT));
    const std::string name(TS_NAME_MAX, 'n');
    CHECK(resolve("", name) == name);
    CHECK(resolve("", name + "n") == "error " + std::to_string(TS_ENAMETOOLONG));
    // TS_PATH_MAX bytes fit, one more does not, wherever they come from.
    const std::string cwd(200, 'c'), rest(TS_PATH_MAX - 201, 'r');
    CHECK(resolve(cwd.c_str(), rest) == cwd + "/" + rest);
    CHECK(resolve(cwd.c_str(), rest + "r") == "error " + std::to_string(TS_ENAMETOOLONG));
    // A long path that shrinks back under the limit is fine.
    CHECK(resolve(cwd.c_str(), "../" + std::string(250, 'x')) == std::string(250, 'x'));
}
