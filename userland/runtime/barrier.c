/* A barrier between clusters, built from two IKC syncs on one logical port:
 * every other cluster signals the first one (ALL_TO_ONE), which waits for
 * them all and then releases them (ONE_TO_ALL). The two syncs share the
 * port without mixing: on the first cluster the port counts signals from
 * the others, on the others signals from the first. */
#include <tessera/runtime.h>

int ts_barrier_create(ts_barrier_t *b, const int *clusters, int n, int port) {
    b->gather = b->release = -1;
    b->is_first = n > 0 && clusters[0] == ts_job()->cluster_id;
    int g = b->is_first ? ts_sync_create(clusters, n, TS_SYNC_ALL_TO_ONE, port)
                        : ts_sync_open(clusters, n, TS_SYNC_ALL_TO_ONE, port);
    if (g < 0) return g;
    int r = b->is_first ? ts_sync_open(clusters, n, TS_SYNC_ONE_TO_ALL, port)
                        : ts_sync_create(clusters, n, TS_SYNC_ONE_TO_ALL, port);
    if (r < 0) {
        b->is_first ? ts_sync_unlink(g) : ts_sync_close(g);
        return r;
    }
    b->gather = g;
    b->release = r;
    return 0;
}

int ts_barrier_wait(ts_barrier_t *b) {
    if (b->is_first) {
        int err = ts_sync_wait(b->gather);
        return err < 0 ? err : ts_sync_signal(b->release);
    }
    int err = ts_sync_signal(b->gather);
    return err < 0 ? err : ts_sync_wait(b->release);
}

int ts_barrier_destroy(ts_barrier_t *b) {
    int e1 = b->is_first ? ts_sync_unlink(b->gather) : ts_sync_close(b->gather);
    int e2 = b->is_first ? ts_sync_close(b->release) : ts_sync_unlink(b->release);
    b->gather = b->release = -1;
    return e1 < 0 ? e1 : e2;
}
