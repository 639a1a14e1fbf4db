// The kernel call table and the calls that belong to no subsystem.
#include <string.h>

#include "kernel.hpp"
#include "services/spawn.hpp"

namespace kernel {
namespace {

// ---- served on the calling core ----------------------------------------------

long sys_thread_exit(Call &c) { thread_exit(static_cast<int>(c.a[0])); }

long sys_thread_self(Call &) { return hal::core_id(); }  // tids are core numbers, for now

long sys_thread_core(Call &) { return hal::core_id(); }

// A thread that polls lets the other cores of its host run a moment; the
// trap path then lets a pending kill land.
long sys_thread_yield(Call &) {
    hal::relax();
    return 0;
}

// (int tag): the C caller's int arrives sign-extended (RISC-V LP64 ABI), so
// anything outside -1..INT_MAX is a bad value, not a tag to truncate. The
// threads of a rank's own process carry its rank, which the kernel keeps.
long sys_thread_tag(Call &c) {
    const int64_t tag = static_cast<int64_t>(c.a[0]);
    if (tag < -1 || tag > INT_MAX) return -TS_EINVAL;
    if (current_process()->rank >= 0) return -TS_EPERM;
    threads[hal::core_id()].tag = static_cast<int>(tag);
    return 0;
}

long sys_kcall_count(Call &c) { return kcall_count(c.a[0], c.a[1]); }

// Tries to reach another cluster's window (kcalls.def): only for the
// platform's isolation test, which boots with TS_MANIFEST_PLATFORM_TESTS.
// The page stays mapped: its frame is another cluster's, never ours to
// free, and nothing above the heap's limit is ever unmapped.
long sys_isolation_probe(Call &c) {
    const ts_manifest &m = hal::manifest();
    if (!(m.flags & TS_MANIFEST_PLATFORM_TESTS)) return -TS_EPERM;
    const uint64_t cluster = c.a[0], how = c.a[1];
    if (cluster >= m.nclusters || cluster == static_cast<uint64_t>(hal::cluster_id())) return -TS_EINVAL;
    const uintptr_t page = m.clusters[cluster].window_base;
    if (how == TS_PROBE_KERNEL_READ) {
        if (!kernel_space.map(page, page, hal::perm_r)) return -TS_ENOMEM;
        return reinterpret_cast<const volatile ts_image_header *>(page)->magic;
    }
    if (how != TS_PROBE_USER_MAP) return -TS_EINVAL;
    Process *p = current_process();
    if (p->space.lookup(TS_PROBE_USER_VA, nullptr)) return -TS_EBUSY;
    if (!p->space.map(TS_PROBE_USER_VA, page, hal::perm_r | hal::perm_user)) return -TS_ENOMEM;
    return static_cast<long>(TS_PROBE_USER_VA);
}

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
    info.mpi_flags = (m.flags & TS_MANIFEST_MPI_LOCAL_IKC ? TS_JOB_MPI_LOCAL_IKC : 0) |
                     (m.flags & TS_MANIFEST_MPI_EAGER_ONE_MESSAGE ? TS_JOB_MPI_EAGER_ONE_MESSAGE : 0) |
                     (m.flags & TS_MANIFEST_TRACE ? TS_JOB_MPI_TRACE : 0);
    info.mpi_wait_policy =
        static_cast<int>((m.flags & TS_MANIFEST_MPI_WAIT_MASK) >> TS_MANIFEST_MPI_WAIT_SHIFT);
    info.mpi_eager_max = static_cast<int>(m.mpi_eager_max);
    const Process *p = current_process();
    info.ranks_mode = m.flags & TS_MANIFEST_RANK_PROCESSES ? TS_RANKS_PROCESSES : TS_RANKS_THREADS;
    info.rank = p->rank;
    info.local_index = p->local;
    info.private_base = user_base;
    info.private_size = hal::alias_area_size;
    info.alias_base = p->aliased ? rank_alias_base : 0;
    return copy_to_user(c.a[0], &info, sizeof(info));
}

// Copied straight from the manifest: no copy on the (small) kernel stack.
// The size mkimage wrote is not trusted beyond the manifest's field.
long sys_job_env(Call &c) {
    const ts_manifest &m = hal::manifest();
    static_assert(sizeof(m.env) == TS_ENV_MAX);
    const size_t bytes = m.env_size < sizeof(m.env) ? m.env_size : sizeof(m.env);
    const size_t copied = c.a[1] < bytes ? c.a[1] : bytes;
    if (copied) {
        const long err = copy_to_user(c.a[0], m.env, copied);
        if (err < 0) return err;
    }
    return static_cast<long>(bytes);
}

// On the core's own timer.
long sys_sleep(Call &c) {
    const uint64_t deadline = deadline_in(c.a[0]);
    hal::set_timer(deadline);
    block_until([&] { return hal::time() >= deadline; });
    hal::set_timer(0);
    return 0;
}

/// What an unfinished call holds that must be released when its process
/// is killed (only a portal read: the receiver's allow).
constexpr void (*cancel_of(uint64_t number))(Call &) {
    return number == TS_SYS_PORTAL_READ ? ikc::portal_read_cancel : nullptr;
}

/// A shared call's lock-free first try (CallEntry::fast), if it has one.
constexpr Handler fast_of(uint64_t number) {
    switch (number) {
    case TS_SYS_MAILBOX_WAIT: return ikc::mailbox_wait_fast;
    case TS_SYS_MAILBOX_DRAIN: return ikc::mailbox_drain_fast;
    case TS_SYS_MAILBOX_TRYWRITE: return ikc::mailbox_trywrite_fast;
    default: return nullptr;
    }
}

using namespace ikc;  // the IKC calls' handlers, named as the others: sys_<call>

/// The call table, derived from <tessera/kcalls.def>: call `name` is
/// served by sys_name, on the calling core or on the master.
constexpr CallEntry table[] = {
#define TS_KCALL(NAME, name, number, where, ...) \
    {TS_SYS_##NAME, sys_##name, Where::where, cancel_of(TS_SYS_##NAME), fast_of(TS_SYS_##NAME)},
#include <tessera/kcalls.def>
#undef TS_KCALL
};

/// Call numbers are below this (the fuzzer draws from 0..numbers-1).
constexpr uint64_t numbers = TS_KCALL_NUMBERS;

/// The entry of each number in table[], or -1: a call finds its entry in
/// one step.
struct CallIndex {
    int8_t of[numbers];
    bool ok;  ///< every number below `numbers` and used once
};

constexpr CallIndex index_calls() {
    CallIndex ix{};
    for (int8_t &i : ix.of)
        i = -1;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i) {
        if (table[i].number >= numbers || ix.of[table[i].number] >= 0) return ix;
        ix.of[table[i].number] = static_cast<int8_t>(i);
    }
    ix.ok = true;
    return ix;
}
constexpr CallIndex call_index = index_calls();
static_assert(call_index.ok, "every kernel call of kcalls.def has its own number, below 64");

}  // namespace

const CallEntry *call_lookup(uint64_t number) {
    return number < numbers && call_index.of[number] >= 0 ? &table[call_index.of[number]] : nullptr;
}

bool upper_poll(bool idle) {
    if (ikc::poll()) return true;
    if (idle && ikc::window_poll()) return true;  // a request answered may let a call go on
    if (idle) services_poll();                    // it asks for another pass itself when it moved anything
    return false;
}

void upper_release(Process *p) {
    ikc::release_process(p);
    hostfs_release(p);
}

bool upper_before_sleep() { return ikc::update_doorbells(); }

}  // namespace kernel
