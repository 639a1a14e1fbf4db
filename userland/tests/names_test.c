/*
 * names_test: the name client against the name server, from every MPI
 * process at once (several threads of one cluster with compact mapping,
 * several clusters with scatter). Each process works on names of its own.
 * With scatter mapping (one process per cluster, free cores), two threads
 * in a row on the same core also use the client: the first one's reply
 * mailbox must have gone back when it ended.
 * Prints "names ok rank R" or "names FAIL rank R: ..." and exits 1.
 */
#include <stdio.h>
#include <string.h>
#include <tessera/names.h>
#include <tessera/runtime.h>

static int failures;

static void expect(const char *what, int got, int want) {
    if (got != want) {
        printf("names FAIL rank %d: %s: got %d, want %d\n", ts_rank(), what, got, want);
        ++failures;
    }
}

struct lookup_call {
    const char *name;
    int result;
};

static void lookup_thread(void *arg) {
    struct lookup_call *c = arg;
    c->result = ts_name_lookup(c->name);
}

/* Two threads one after the other: both on the lowest free core. */
static void check_thread_reuse(const char *unknown) {
    int tid[2];
    for (int i = 0; i < 2; ++i) {
        struct lookup_call c = {unknown, 1};
        tid[i] = ts_thread_create(lookup_thread, &c);
        expect("thread create", tid[i] > 0, 1);
        if (tid[i] <= 0) return;
        expect("thread join", ts_thread_join(tid[i], 0), 0);
        expect("lookup from a thread", c.result, -TS_ENOENT);
    }
    expect("both threads on one core", tid[0] == tid[1], 1);
}

int main(void) {
    const struct ts_job_info *job = ts_job();
    int me = job->cluster_id, rank = ts_rank();
    char name[80], other[80], longest[TS_NAME_MAX + 1], too_long[TS_NAME_MAX + 2];

    snprintf(name, sizeof name, "names_test.r%d", rank);
    snprintf(other, sizeof other, "names_test.r%d.never", rank);
    memset(longest, 'a' + rank % 26, TS_NAME_MAX);
    longest[TS_NAME_MAX] = '\0';
    memset(too_long, 'b', TS_NAME_MAX + 1);
    too_long[TS_NAME_MAX + 1] = '\0';

    expect("link", ts_name_link(name, me), 0);
    expect("link again", ts_name_link(name, me), -TS_EEXIST);
    expect("lookup", ts_name_lookup(name), me);
    expect("lookup unknown", ts_name_lookup(other), -TS_ENOENT);
    expect("unlink unknown", ts_name_unlink(other), -TS_ENOENT);
    expect("link too long", ts_name_link(too_long, me), -TS_ENAMETOOLONG);
    expect("link empty", ts_name_link("", me), -TS_EINVAL);
    expect("link bad cluster", ts_name_link(other, job->nclusters), -TS_EINVAL);
    expect("link negative cluster", ts_name_link(other, -1), -TS_EINVAL);
    expect("lookup after bad links", ts_name_lookup(other), -TS_ENOENT);

    /* Longest names of different ranks differ in every byte (up to 26). */
    if (rank < 26) {
        expect("link longest", ts_name_link(longest, 0), 0);
        expect("lookup longest", ts_name_lookup(longest), 0);
        expect("unlink longest", ts_name_unlink(longest), 0);
    }

    expect("unlink", ts_name_unlink(name), 0);
    expect("unlink again", ts_name_unlink(name), -TS_ENOENT);
    expect("lookup after unlink", ts_name_lookup(name), -TS_ENOENT);
    expect("link after unlink", ts_name_link(name, me), 0);
    expect("final unlink", ts_name_unlink(name), 0);
    if (job->map_policy == TS_MAP_SCATTER) check_thread_reuse(other);

    if (failures) return 1;
    printf("names ok rank %d\n", rank);
    return 0;
}
