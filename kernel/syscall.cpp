// The kernel call table and the calls that belong to no subsystem.
#include <string.h>

#include "ikc/ikc.hpp"
#include "kernel/kernel.hpp"
#include "services/spawn/spawn.hpp"

namespace kernel {
namespace {

constexpr size_t max_write = 64 * 1024;

long sys_write(uint64_t buf, uint64_t len, uint64_t, uint64_t) {
    if (len > max_write) return -TS_EINVAL;
    if (long err = check_user(buf, len, false)) return err;
    hal::console_write(reinterpret_cast<const char *>(buf), len);
    return static_cast<long>(len);
}

long sys_thread_exit(uint64_t status, uint64_t, uint64_t, uint64_t) {
    thread_exit(static_cast<int>(status));
}

long sys_job_info(uint64_t ptr, uint64_t, uint64_t, uint64_t) {
    const ts_manifest &m = hal::manifest();
    ts_job_info info{};
    info.cluster_id = hal::cluster_id();
    info.nclusters = static_cast<int>(m.nclusters);
    info.nio_clusters = static_cast<int>(m.nio_clusters);
    info.ncores = hal::ncores();
    info.np = static_cast<int>(m.np);
    info.map_policy = static_cast<int>(m.map_policy);
    info.slots_per_cluster = static_cast<int>(m.slots_per_cluster);
    info.mailbox_payload = static_cast<int>(ikc::mailbox_payload());
    info.portal_chunk = static_cast<int>(m.portal_chunk);
    info.argc = static_cast<int>(m.argc);
    info.timebase_hz = m.timebase_hz;
    static_assert(sizeof(info.args) == sizeof(m.args));
    memcpy(info.args, m.args, sizeof(info.args));
    return copy_to_user(ptr, &info, sizeof(info));
}

long sys_job_abort(uint64_t code, uint64_t, uint64_t, uint64_t) { job_abort(static_cast<int>(code)); }

long sys_sleep(uint64_t ns, uint64_t, uint64_t, uint64_t) {
    const uint64_t ticks = ns / 1000 * (hal::timebase() / 1000) / 1000;
    const uint64_t deadline = hal::time() + (ticks ? ticks : 1);
    hal::set_timer(deadline);
    block_until([&] { return hal::time() >= deadline; });
    hal::set_timer(0);
    return 0;
}

struct Entry {
    uint64_t number;
    Syscall handler;
};

constexpr Entry table[] = {
    {TS_SYS_WRITE, sys_write},
    {TS_SYS_THREAD_EXIT, sys_thread_exit},
    {TS_SYS_THREAD_CREATE, sys_thread_create},
    {TS_SYS_THREAD_JOIN, sys_thread_join},
    {TS_SYS_THREAD_SELF, sys_thread_self},
    {TS_SYS_BRK, sys_brk},
    {TS_SYS_JOB_INFO, sys_job_info},
    {TS_SYS_JOB_ABORT, sys_job_abort},
    {TS_SYS_SLEEP, sys_sleep},
    {TS_SYS_MAILBOX_CREATE, ikc::sys_id<ikc::mailbox_create>},
    {TS_SYS_MAILBOX_OPEN, ikc::sys_three<ikc::mailbox_open>},
    {TS_SYS_MAILBOX_READ, ikc::sys_receive<ikc::mailbox_read>},
    {TS_SYS_MAILBOX_WRITE, ikc::sys_send<ikc::mailbox_write>},
    {TS_SYS_MAILBOX_CLOSE, ikc::sys_id<ikc::mailbox_close>},
    {TS_SYS_MAILBOX_UNLINK, ikc::sys_id<ikc::mailbox_unlink>},
    {TS_SYS_PORTAL_CREATE, ikc::sys_id<ikc::portal_create>},
    {TS_SYS_PORTAL_ALLOW, ikc::sys_three<ikc::portal_allow>},
    {TS_SYS_PORTAL_OPEN, ikc::sys_three<ikc::portal_open>},
    {TS_SYS_PORTAL_READ, ikc::sys_receive<ikc::portal_read>},
    {TS_SYS_PORTAL_WRITE, ikc::sys_send<ikc::portal_write>},
    {TS_SYS_PORTAL_CLOSE, ikc::sys_id<ikc::portal_close>},
    {TS_SYS_PORTAL_UNLINK, ikc::sys_id<ikc::portal_unlink>},
    {TS_SYS_SYNC_CREATE, ikc::sys_sync_make<ikc::sync_create>},
    {TS_SYS_SYNC_OPEN, ikc::sys_sync_make<ikc::sync_open>},
    {TS_SYS_SYNC_WAIT, ikc::sys_id<ikc::sync_wait>},
    {TS_SYS_SYNC_SIGNAL, ikc::sys_id<ikc::sync_signal>},
    {TS_SYS_SYNC_CLOSE, ikc::sys_id<ikc::sync_close>},
    {TS_SYS_SYNC_UNLINK, ikc::sys_id<ikc::sync_unlink>},
};

}  // namespace

Syscall syscall_lookup(uint64_t number) {
    for (const Entry &e : table)
        if (e.number == number) return e.handler;
    return nullptr;
}

}  // namespace kernel
