// The kernel call table and the calls that belong to no subsystem.
#include <string.h>

#include "ikc/ikc.hpp"
#include "kernel/kernel.hpp"
#include "services/spawn/spawn.hpp"

namespace kernel {
namespace {

// ---- served on the calling core ----------------------------------------------

long sys_thread_exit(Call &c) { thread_exit(static_cast<int>(c.a[0])); }

long sys_thread_self(Call &) { return hal::core_id(); }  // tids are core numbers, for now

long sys_thread_core(Call &) { return hal::core_id(); }

long sys_thread_yield(Call &) { return 0; }  // the trap path lets a pending kill land

// (int tag): the C caller's int arrives sign-extended (RISC-V LP64 ABI), so
// anything outside -1..INT_MAX is a bad value, not a tag to truncate.
long sys_thread_tag(Call &c) {
    const int64_t tag = static_cast<int64_t>(c.a[0]);
    if (tag < -1 || tag > INT_MAX) return -TS_EINVAL;
    threads[hal::core_id()].tag = static_cast<int>(tag);
    return 0;
}

long sys_kcall_count(Call &c) { return kcall_count(c.a[0], c.a[1]); }

long sys_job_info(Call &c) {
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
    info.hw_mailboxes = hal::noc::mailboxes(hal::cluster_id());
    info.hw_portals = hal::noc::portals(hal::cluster_id());
    info.virtual_per_hw = m.virtual_per_hw;
    info.ikc_buffers = m.ikc_buffers;
    info.mpi_flags = m.flags & TS_MANIFEST_MPI_LOCAL_IKC ? TS_JOB_MPI_LOCAL_IKC : 0;
    info.mpi_eager_max = static_cast<int>(m.mpi_eager_max);
    return copy_to_user(c.a[0], &info, sizeof(info));
}

// On the core's own timer.
long sys_sleep(Call &c) {
    const uint64_t deadline = deadline_in(c.a[0]);
    hal::set_timer(deadline);
    block_until([&] { return hal::time() >= deadline; });
    hal::set_timer(0);
    return 0;
}

/// The call table: which calls are local and which go to the master.
constexpr CallEntry table[] = {
    {TS_SYS_WRITE, sys_write, Where::master},
    {TS_SYS_THREAD_EXIT, sys_thread_exit, Where::local},
    {TS_SYS_THREAD_CREATE, sys_thread_create, Where::master},
    {TS_SYS_THREAD_JOIN, sys_thread_join, Where::master},
    {TS_SYS_THREAD_SELF, sys_thread_self, Where::local},
    {TS_SYS_BRK, sys_brk, Where::master},
    {TS_SYS_JOB_INFO, sys_job_info, Where::local},
    {TS_SYS_JOB_ABORT, sys_job_abort, Where::master},
    {TS_SYS_SLEEP, sys_sleep, Where::local},
    {TS_SYS_THREAD_YIELD, sys_thread_yield, Where::local},
    {TS_SYS_THREAD_TAG, sys_thread_tag, Where::local},
    {TS_SYS_THREAD_CORE, sys_thread_core, Where::local},
    {TS_SYS_FUTEX_WAIT, sys_futex_wait, Where::master},
    {TS_SYS_FUTEX_WAKE, sys_futex_wake, Where::master},
    {TS_SYS_KCALL_COUNT, sys_kcall_count, Where::local},
    {TS_SYS_MEM_INFO, sys_mem_info, Where::master},
    {TS_SYS_MAILBOX_CREATE, ikc::sys_id<ikc::mailbox_create>, Where::master},
    {TS_SYS_MAILBOX_OPEN, ikc::sys_three<ikc::mailbox_open>, Where::master},
    {TS_SYS_MAILBOX_READ, ikc::sys_mailbox_read, Where::master},
    {TS_SYS_MAILBOX_WRITE, ikc::sys_mailbox_write, Where::master},
    {TS_SYS_MAILBOX_CLOSE, ikc::sys_id<ikc::mailbox_close>, Where::master},
    {TS_SYS_MAILBOX_UNLINK, ikc::sys_id<ikc::mailbox_unlink>, Where::master},
    {TS_SYS_MAILBOX_AREAD, ikc::sys_mailbox_aread, Where::master},
    {TS_SYS_MAILBOX_AWRITE, ikc::sys_mailbox_awrite, Where::master},
    {TS_SYS_MAILBOX_WAIT, ikc::sys_mailbox_wait, Where::master},
    {TS_SYS_MAILBOX_IOCTL, ikc::sys_mailbox_ioctl, Where::master},
    {TS_SYS_IKC_WAIT_ANY, ikc::sys_wait_any, Where::master},
    {TS_SYS_IKC_WAKE, ikc::sys_wake, Where::master},
    {TS_SYS_PORTAL_CREATE, ikc::sys_id<ikc::portal_create>, Where::master},
    {TS_SYS_PORTAL_ALLOW, ikc::sys_three<ikc::portal_allow>, Where::master},
    {TS_SYS_PORTAL_OPEN, ikc::sys_three<ikc::portal_open>, Where::master},
    {TS_SYS_PORTAL_READ, ikc::sys_portal_read, Where::master, ikc::portal_read_cancel},
    {TS_SYS_PORTAL_WRITE, ikc::sys_portal_write, Where::master},
    {TS_SYS_PORTAL_CLOSE, ikc::sys_id<ikc::portal_close>, Where::master},
    {TS_SYS_PORTAL_UNLINK, ikc::sys_id<ikc::portal_unlink>, Where::master},
    {TS_SYS_PORTAL_AREAD, ikc::sys_portal_aread, Where::master},
    {TS_SYS_PORTAL_AWRITE, ikc::sys_portal_awrite, Where::master},
    {TS_SYS_PORTAL_WAIT, ikc::sys_portal_wait, Where::master},
    {TS_SYS_PORTAL_IOCTL, ikc::sys_portal_ioctl, Where::master},
    {TS_SYS_SYNC_CREATE, ikc::sys_sync_make<ikc::sync_create>, Where::master},
    {TS_SYS_SYNC_OPEN, ikc::sys_sync_make<ikc::sync_open>, Where::master},
    {TS_SYS_SYNC_WAIT, ikc::sys_sync_wait, Where::master},
    {TS_SYS_SYNC_SIGNAL, ikc::sys_id<ikc::sync_signal>, Where::master},
    {TS_SYS_SYNC_CLOSE, ikc::sys_id<ikc::sync_close>, Where::master},
    {TS_SYS_SYNC_UNLINK, ikc::sys_id<ikc::sync_unlink>, Where::master},
    {TS_SYS_SYNC_IOCTL, ikc::sys_sync_ioctl, Where::master},
};

}  // namespace

uint64_t deadline_in(uint64_t ns) {
    const unsigned __int128 ticks = static_cast<unsigned __int128>(ns) * hal::timebase() / 1000000000u;
    const uint64_t now = hal::time();
    if (ticks >= UINT64_MAX - 1 - now) return UINT64_MAX - 1;
    return now + (ticks ? static_cast<uint64_t>(ticks) : 1);
}

const CallEntry *call_lookup(uint64_t number) {
    for (const CallEntry &e : table)
        if (e.number == number) return &e;
    return nullptr;
}

}  // namespace kernel
