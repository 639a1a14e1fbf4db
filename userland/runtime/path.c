/* Path resolution (path.h). */
#include "path.h"

#include <string.h>

#include <tessera/file_protocol.h>

/* Appends the components of `path` to out[0..len): the new length, or
 * -TS_E*. */
static int append(char *out, int len, const char *path) {
    const char *c = path;
    while (*c) {
        while (*c == '/')
            ++c;
        const char *end = c;
        while (*end && *end != '/')
            ++end;
        const size_t n = (size_t)(end - c);
        if (n > TS_NAME_MAX) return -TS_ENAMETOOLONG;
        if (n == 2 && c[0] == '.' && c[1] == '.') {
            if (len == 0) return -TS_EACCES;
            while (len > 0 && out[len - 1] != '/')
                --len;
            if (len > 0) --len; /* the slash before the dropped component */
        } else if (n > 0 && !(n == 1 && c[0] == '.')) {
            const int at = len > 0 ? len + 1 : 0;
            if ((size_t)at + n > TS_PATH_MAX) return -TS_ENAMETOOLONG;
            if (len > 0) out[len] = '/';
            memcpy(out + at, c, n);
            len = at + (int)n;
        }
        c = end;
    }
    return len;
}

int ts__path_resolve(const char *cwd, const char *path, char *out) {
    if (!path[0]) return -TS_ENOENT;
    int len = 0;
    if (path[0] != '/') len = append(out, 0, cwd);
    if (len >= 0) len = append(out, len, path);
    out[len >= 0 ? len : 0] = 0;
    return len;
}
