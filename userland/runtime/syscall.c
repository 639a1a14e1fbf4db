/* The kernel-call wrappers of <tessera/runtime.h>: the plain ones, derived
 * from <tessera/kcalls.def>, and those wrapped by hand (`own` there) that
 * need nothing of the rest of the runtime. All go through the one ecall
 * helper ts__syscall. */
#include "internal.h"

#define TS_KCALL_WRAPPER_plain(NAME, ret, name, params, ...) \
    ret ts_##name params { return (ret)TS__SC(TS_SYS_##NAME, ##__VA_ARGS__); }
#define TS_KCALL_WRAPPER_own(NAME, ret, name, params, ...)
#define TS_KCALL(NAME, name, number, layer, where, fast, cancel, wrapper, ret, params, shapes, ...) \
    TS_KCALL_WRAPPER_##wrapper(NAME, ret, name, params, ##__VA_ARGS__)
#include <tessera/kcalls.def>
#undef TS_KCALL

int ts_sleep_ns(unsigned long ns) { return (int)TS__SC(TS_SYS_SLEEP, ns); }

/* A thread never changes core, so its tid is asked once. */
static __thread int self_tid = -1;

int ts_thread_self(void) {
    if (self_tid < 0) self_tid = (int)TS__SC(TS_SYS_THREAD_SELF);
    return self_tid;
}

void ts_job_abort(int code) {
    ts_console_flush(); /* the caller's last words */
    TS__SC(TS_SYS_JOB_ABORT, code);
    for (;;)
        ;
}

long ts_mailbox_wait(int id) { return TS__SC(TS_SYS_MAILBOX_WAIT, id, 0); }
long ts_mailbox_test(int id) { return TS__SC(TS_SYS_MAILBOX_WAIT, id, TS_IKC_NOWAIT); }
long ts_portal_wait(int id) { return TS__SC(TS_SYS_PORTAL_WAIT, id, 0); }
long ts_portal_test(int id) { return TS__SC(TS_SYS_PORTAL_WAIT, id, TS_IKC_NOWAIT); }
long ts_portal_cancel(int id) { return TS__SC(TS_SYS_PORTAL_WAIT, id, TS_IKC_CANCEL); }
