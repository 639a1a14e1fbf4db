/* The plain kernel-call wrappers of <tessera/runtime.h>: same arguments,
 * same results as the calls in <tessera/syscall.h>, all through the one
 * ecall helper ts__syscall. */
#include "internal.h"

int ts_sleep_ns(unsigned long ns) { return (int)TS__SC1(TS_SYS_SLEEP, ns); }

int ts_thread_join(int tid, int *status)
{
    return (int)TS__SC2(TS_SYS_THREAD_JOIN, tid, status);
}

/* A thread never changes core, so its tid is asked once. */
static __thread int self_tid = -1;

int ts_thread_self(void)
{
    if (self_tid < 0)
        self_tid = (int)TS__SC0(TS_SYS_THREAD_SELF);
    return self_tid;
}

int ts_thread_core(void) { return (int)TS__SC0(TS_SYS_THREAD_CORE); }

int ts_thread_yield(void) { return (int)TS__SC0(TS_SYS_THREAD_YIELD); }

int ts_thread_tag(int tag) { return (int)TS__SC1(TS_SYS_THREAD_TAG, tag); }

int ts_futex_wait(const unsigned *addr, unsigned expected, unsigned long timeout_ns)
{
    return (int)TS__SC3(TS_SYS_FUTEX_WAIT, addr, expected, timeout_ns);
}

int ts_futex_wake(const unsigned *addr, int n) { return (int)TS__SC2(TS_SYS_FUTEX_WAKE, addr, n); }

long ts_kcall_count(int number, int core) { return TS__SC2(TS_SYS_KCALL_COUNT, number, core); }

int ts_mem_info(struct ts_mem_info *info) { return (int)TS__SC1(TS_SYS_MEM_INFO, info); }

void ts_job_abort(int code)
{
    ts_console_flush(); /* the caller's last words */
    TS__SC1(TS_SYS_JOB_ABORT, code);
    for (;;)
        ;
}

int ts_mailbox_create(int port) { return (int)TS__SC1(TS_SYS_MAILBOX_CREATE, port); }

int ts_mailbox_open(int local_port, int cluster, int port)
{
    return (int)TS__SC3(TS_SYS_MAILBOX_OPEN, local_port, cluster, port);
}

long ts_mailbox_read(int id, void *buf, unsigned long size)
{
    return TS__SC3(TS_SYS_MAILBOX_READ, id, buf, size);
}

long ts_mailbox_write(int id, const void *buf, unsigned long size)
{
    return TS__SC3(TS_SYS_MAILBOX_WRITE, id, buf, size);
}

int ts_mailbox_close(int id) { return (int)TS__SC1(TS_SYS_MAILBOX_CLOSE, id); }
int ts_mailbox_unlink(int id) { return (int)TS__SC1(TS_SYS_MAILBOX_UNLINK, id); }

int ts_portal_create(int port) { return (int)TS__SC1(TS_SYS_PORTAL_CREATE, port); }

int ts_portal_allow(int id, int cluster, int port)
{
    return (int)TS__SC3(TS_SYS_PORTAL_ALLOW, id, cluster, port);
}

int ts_portal_open(int local_port, int cluster, int port)
{
    return (int)TS__SC3(TS_SYS_PORTAL_OPEN, local_port, cluster, port);
}

long ts_portal_read(int id, void *buf, unsigned long size)
{
    return TS__SC3(TS_SYS_PORTAL_READ, id, buf, size);
}

long ts_portal_write(int id, const void *buf, unsigned long size)
{
    return TS__SC3(TS_SYS_PORTAL_WRITE, id, buf, size);
}

int ts_portal_close(int id) { return (int)TS__SC1(TS_SYS_PORTAL_CLOSE, id); }
int ts_portal_unlink(int id) { return (int)TS__SC1(TS_SYS_PORTAL_UNLINK, id); }

int ts_sync_create(const int *clusters, int n, int type, int port)
{
    return (int)TS__SC4(TS_SYS_SYNC_CREATE, clusters, n, type, port);
}

int ts_sync_open(const int *clusters, int n, int type, int port)
{
    return (int)TS__SC4(TS_SYS_SYNC_OPEN, clusters, n, type, port);
}

int ts_sync_wait(int id) { return (int)TS__SC1(TS_SYS_SYNC_WAIT, id); }
int ts_sync_signal(int id) { return (int)TS__SC1(TS_SYS_SYNC_SIGNAL, id); }
int ts_sync_close(int id) { return (int)TS__SC1(TS_SYS_SYNC_CLOSE, id); }
int ts_sync_unlink(int id) { return (int)TS__SC1(TS_SYS_SYNC_UNLINK, id); }

long ts_mailbox_aread(int id, void *buf, unsigned long size)
{
    return TS__SC3(TS_SYS_MAILBOX_AREAD, id, buf, size);
}

long ts_mailbox_awrite(int id, const void *buf, unsigned long size)
{
    return TS__SC3(TS_SYS_MAILBOX_AWRITE, id, buf, size);
}

long ts_mailbox_wait(int id) { return TS__SC2(TS_SYS_MAILBOX_WAIT, id, 0); }
long ts_mailbox_test(int id) { return TS__SC2(TS_SYS_MAILBOX_WAIT, id, TS_IKC_NOWAIT); }
long ts_ikc_wait_any(unsigned long seen, unsigned long timeout_ns)
{
    return TS__SC2(TS_SYS_IKC_WAIT_ANY, seen, timeout_ns);
}
int ts_ikc_wake(int core) { return (int)TS__SC1(TS_SYS_IKC_WAKE, core); }

int ts_mailbox_ioctl(int id, int request, void *arg)
{
    return (int)TS__SC3(TS_SYS_MAILBOX_IOCTL, id, request, arg);
}

long ts_portal_aread(int id, void *buf, unsigned long size)
{
    return TS__SC3(TS_SYS_PORTAL_AREAD, id, buf, size);
}

long ts_portal_awrite(int id, const void *buf, unsigned long size)
{
    return TS__SC3(TS_SYS_PORTAL_AWRITE, id, buf, size);
}

long ts_portal_wait(int id) { return TS__SC2(TS_SYS_PORTAL_WAIT, id, 0); }
long ts_portal_test(int id) { return TS__SC2(TS_SYS_PORTAL_WAIT, id, TS_IKC_NOWAIT); }

int ts_portal_ioctl(int id, int request, void *arg)
{
    return (int)TS__SC3(TS_SYS_PORTAL_IOCTL, id, request, arg);
}

int ts_sync_ioctl(int id, int request, void *arg)
{
    return (int)TS__SC3(TS_SYS_SYNC_IOCTL, id, request, arg);
}
