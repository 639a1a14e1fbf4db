/* The requests of IKC windows (TS_SYS_WINDOW_ACCESS) as one call each. */
#include <tessera/runtime.h>

/* A request of `kind` for window `target` of `cluster` at addr, made
 * through window `key`; *result (if not null) gets an atomic's old value. */
static long access(int key, struct ts_window_op op, unsigned long *result) {
    const long r = ts_window_access(key, &op);
    if (r == 0 && result) *result = op.result;
    return r;
}

long ts_window_write(int key, int cluster, int target, unsigned long addr, const void *buf, unsigned long n) {
    struct ts_window_op op = {TS_WINDOW_WRITE, cluster, target, 0, addr, (void *)buf, n, 0, 0, 0};
    return access(key, op, 0);
}

long ts_window_read(int key, int cluster, int target, unsigned long addr, void *buf, unsigned long n) {
    struct ts_window_op op = {TS_WINDOW_READ, cluster, target, 0, addr, buf, n, 0, 0, 0};
    return access(key, op, 0);
}

long ts_window_flush(int key, int cluster, int target) {
    struct ts_window_op op = {TS_WINDOW_FLUSH, cluster, target, 0, 0, 0, 0, 0, 0, 0};
    return access(key, op, 0);
}

long ts_window_atomic(int key, int cluster, int target, unsigned long addr, unsigned kind,
                      unsigned long operand, unsigned long compare, unsigned long *old) {
    struct ts_window_op op = {kind, cluster, target, 0, addr, 0, 0, operand, compare, 0};
    return access(key, op, old);
}
