#include "testlib.h"

static const char *name = "ikc";
static int nparts;
static int parts[IKC_MAX_PARTS];

void fail(const char *what, long value) {
    printf("%s FAIL cluster %d: %s (%ld)\n", name, ts_job()->cluster_id, what, value);
    ts_sleep_ns(100000000); /* let the line reach the console */
    ts_job_abort(1);
}

long check(long r, const char *what) {
    if (r < 0) fail(what, r);
    return r;
}

void expect(long got, long want, const char *what) {
    if (got != want) {
        printf("%s: got %ld, want %ld\n", what, got, want);
        fail(what, got);
    }
}

int ikc_parts(int *out, const char *test_name) {
    name = test_name;
    const struct ts_job_info *j = ts_job();
    const int ncompute = j->nclusters - j->nio_clusters;
    nparts = j->np < ncompute ? j->np : ncompute;
    for (int i = 0; i < nparts; ++i)
        parts[i] = out[i] = j->nio_clusters + i;
    return nparts;
}

void parts_barrier(int port) {
    static ts_barrier_t b;
    static int made;
    if (nparts < 2) return;
    if (!made) {
        check(ts_barrier_create(&b, parts, nparts, port), "barrier_create");
        made = 1;
    }
    check(ts_barrier_wait(&b), "barrier_wait");
}
