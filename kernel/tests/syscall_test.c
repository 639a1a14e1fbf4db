/* On-target test: the kernel checks every argument of a kernel call and
 * answers bad ones with an error code, without harm. Prints one line per
 * failed check and "syscall checks: N failed"; exits with N. Run alone
 * (np 1): it uses cores and ports freely. */
#include <stdio.h>
#include <string.h>

#include <tessera/arch.h>
#include <tessera/runtime.h>

static int failed;

#define EXPECT(expr, want)                                                     \
    do {                                                                       \
        long got_ = (long)(expr);                                              \
        if (got_ != (long)(want)) {                                            \
            printf("FAIL %s: got %ld, want %ld\n", #expr, got_, (long)(want)); \
            ++failed;                                                          \
        }                                                                      \
    } while (0)

static long raw(long number, long a0, long a1, long a2) { return ts_arch_kcall(number, a0, a1, a2, 0); }

static void spin(void *arg) {
    (void)arg;
    for (;;)
        ts_sleep_ns(1000000);
}

/* Sends 100 bytes to port 22 of our own cluster in two writes of 50. */
static void portal_sender(void *arg) {
    static char data[100];
    for (int i = 0; i < 100; ++i)
        data[i] = (char)(i + 1);
    int out = ts_portal_open(23, ts_job()->cluster_id, 22);
    ts_portal_write(out, data, 50, 0);
    ts_portal_write(out, data + 50, 50, 0);
    ts_portal_close(out);
    ts_thread_exit((int)(long)arg);
}

int main(void) {
    static char page_end_buf[8192] __attribute__((aligned(4096)));
    const struct ts_job_info *job = ts_job();

    /* pointers: null, kernel memory, other clusters, overflow, straddling */
    EXPECT(raw(TS_SYS_WRITE, 0, 5, 0), -TS_EFAULT);
    EXPECT(raw(TS_SYS_WRITE, 0x80200000l, 5, 0), -TS_EFAULT);
    EXPECT(raw(TS_SYS_WRITE, (long)page_end_buf, -1l, 0), -TS_EINVAL);
    EXPECT(raw(TS_SYS_JOB_INFO, 0x80300000l, 0, 0), -TS_EFAULT);
    EXPECT(raw(TS_SYS_JOB_INFO, (long)"read-only", 0, 0), -TS_EFAULT);
    EXPECT(raw(TS_SYS_JOB_INFO, 0x6ffffff0l, 0, 0), -TS_EFAULT);
    EXPECT(raw(999, 0, 0, 0), -TS_ENOSYS);

    /* thread tags: -1 and up, an int as the C ABI passes it; none at all
     * in a rank's own process (--ranks processes), which the kernel names
     * by the rank it keeps */
    const long tag_set = job->ranks_mode == TS_RANKS_PROCESSES && job->rank >= 0 ? -TS_EPERM : 0;
    EXPECT(ts_thread_tag(-2), -TS_EINVAL);
    EXPECT(raw(TS_SYS_THREAD_TAG, 1l << 32, 0, 0), -TS_EINVAL);
    EXPECT(ts_thread_tag(7), tag_set);
    EXPECT(ts_thread_tag(-1), tag_set);

    /* the host's files: an I/O cluster's only (this is a compute cluster) */
    EXPECT(ts_hostfs_open("input.txt", 9, 0), -TS_EPERM);
    EXPECT(ts_hostfs_read(0, page_end_buf, 8, 0), -TS_EPERM);
    EXPECT(ts_hostfs_write(0, page_end_buf, 8, 0), -TS_EPERM);
    EXPECT(ts_hostfs_size(0), -TS_EPERM);
    EXPECT(ts_hostfs_truncate(0, 0), -TS_EPERM);
    EXPECT(ts_hostfs_sync(0), -TS_EPERM);
    EXPECT(ts_hostfs_close(0), -TS_EPERM);
    EXPECT(ts_hostfs_unlink("input.txt", 9), -TS_EPERM);
    EXPECT(ts_hostfs_rename("input.txt", 9, "other.txt", 9), -TS_EPERM);
    unsigned long size = 0;
    static struct ts_hostfs_entries entries;
    EXPECT(ts_hostfs_stat("data", 4, &size), -TS_EPERM);
    EXPECT(ts_hostfs_mkdir("data", 4), -TS_EPERM);
    EXPECT(ts_hostfs_rmdir("data", 4), -TS_EPERM);
    EXPECT(ts_hostfs_list("data", 4, 0, &entries), -TS_EPERM);
    /* ... whose arguments are checked first */
    EXPECT(ts_hostfs_stat("data", 4, (unsigned long *)"read-only"), -TS_EFAULT);
    EXPECT(ts_hostfs_list("data", 4, 0, (struct ts_hostfs_entries *)0x80200000l), -TS_EFAULT);
    EXPECT(ts_hostfs_mkdir((const char *)0x80200000l, 4), -TS_EFAULT);

    /* ids, ports, clusters, sizes */
    int in = ts_mailbox_create(20);
    EXPECT(in >= 0, 1);
    EXPECT(ts_mailbox_create(20), -TS_EBUSY);
    EXPECT(ts_mailbox_create(TS_PORTS), -TS_EINVAL);
    EXPECT(ts_mailbox_create(-1), -TS_EINVAL);
    EXPECT(ts_mailbox_open(20, job->nclusters, 1), -TS_EINVAL);
    EXPECT(ts_mailbox_read(in + 1000, page_end_buf, 8), -TS_EBADF);
    EXPECT(ts_mailbox_read(in, (void *)0x10, 8), -TS_EFAULT);
    int out = ts_mailbox_open(21, job->cluster_id, 20);
    EXPECT(out >= 0, 1);
    EXPECT(ts_mailbox_write(out, page_end_buf, (unsigned long)job->mailbox_payload + 1), -TS_EINVAL);
    EXPECT(ts_mailbox_read(out, page_end_buf, 8), -TS_EBADF); /* an output is not readable */
    EXPECT(ts_mailbox_write(in, page_end_buf, 8), -TS_EBADF); /* an input is not writable */
    EXPECT(ts_mailbox_write(out, "ping", 5), 5);
    memset(page_end_buf, 0, 8);
    EXPECT(ts_mailbox_read(in, page_end_buf, 8), 5);
    EXPECT(strcmp(page_end_buf, "ping"), 0);
    EXPECT(ts_mailbox_close(out), 0);
    EXPECT(ts_mailbox_close(out), -TS_EBADF);
    EXPECT(ts_mailbox_unlink(in), 0);

    int portal = ts_portal_create(20);
    EXPECT(portal >= 0, 1);
    EXPECT(ts_portal_read(portal, page_end_buf, 16, 0), -TS_EINVAL); /* no allow yet */
    EXPECT(ts_portal_allow(portal, job->nclusters + 3, 1, 0), -TS_EINVAL);
    EXPECT(ts_portal_unlink(portal), 0);

    /* the kernels' port 0 is not for programs */
    EXPECT(ts_mailbox_create(TS_PORT_KERNEL), -TS_EINVAL);
    EXPECT(ts_mailbox_open(21, 0, TS_PORT_KERNEL), -TS_EINVAL);
    EXPECT(ts_mailbox_open(TS_PORT_KERNEL, 0, 5), -TS_EINVAL);
    EXPECT(ts_portal_create(TS_PORT_KERNEL), -TS_EINVAL);

    /* a portal read completes whatever the sender's pieces */
    portal = ts_portal_create(22);
    EXPECT(ts_portal_allow(portal, job->cluster_id, 23, 0), 0);
    int sender = ts_thread_create(portal_sender, (void *)7l);
    EXPECT(sender > 0, 1);
    memset(page_end_buf, 0, 100);
    EXPECT(ts_portal_read(portal, page_end_buf, 100, 0), 100);
    EXPECT(page_end_buf[0] == 1 && page_end_buf[49] == 50 && page_end_buf[99] == 100, 1);
    int status = 0;
    EXPECT(ts_thread_join(sender, &status), 0);
    EXPECT(status, 7);
    EXPECT(ts_portal_unlink(portal), 0);

    int clusters[2] = {0, job->cluster_id};
    EXPECT(ts_sync_create(clusters, 2, 7, 5), -TS_EINVAL); /* bad type */
    EXPECT(ts_sync_create(clusters, 1, TS_SYNC_ALL_TO_ONE, 5), -TS_EINVAL);
    EXPECT(ts_sync_create(clusters, 2, TS_SYNC_ALL_TO_ONE, 5), -TS_EINVAL); /* we are not the one */
    EXPECT(ts_sync_create((const int *)0x10, 2, TS_SYNC_ONE_TO_ALL, 5), -TS_EFAULT);

    /* threads and memory */
    EXPECT(ts_thread_join(0, 0), -TS_EINVAL);
    EXPECT(ts_thread_join(ts_thread_self(), 0), -TS_EINVAL);
    int started = 0;
    while (ts_thread_create(spin, 0) >= 0)
        ++started;
    EXPECT(started, job->ncores - 2); /* every free core, then EAGAIN */
    EXPECT(ts_thread_create(spin, 0), -TS_EAGAIN);
    EXPECT(raw(TS_SYS_THREAD_CREATE, 0x80200000l, 0, 0), -TS_EFAULT);
    EXPECT(raw(TS_SYS_BRK, 0x7fffffffl, 0, 0), -TS_ENOMEM);
    long end = raw(TS_SYS_BRK, 0, 0, 0);
    long grown = raw(TS_SYS_BRK, end + (8l << 20), 0, 0);
    EXPECT(grown, end + (8l << 20));
    memset((void *)end, 0x5a, 8l << 20);
    EXPECT(job->window_size >= (8ul << 20), 1);
    EXPECT(raw(TS_SYS_BRK, end + (long)job->window_size, 0, 0), -TS_ENOMEM); /* more than the window */
    EXPECT(raw(TS_SYS_BRK, end, 0, 0), end);

    printf("syscall checks: %d failed\n", failed);
    ts_job_abort(failed); /* ends the spinning threads too */
}
