// The kernel call table and the calls that belong to no subsystem.
#include <string.h>

#include "kernel.hpp"
#include "services/spawn.hpp"

namespace kernel {

// ---- served on the calling core ----------------------------------------------

long sys_thread_exit(const thread_exit_args &a, Call &) { thread_exit(a.status); }

long sys_process_exit(const process_exit_args &a, Call &) { thread_exit(a.status, ThreadEnd::process); }

long sys_thread_self(const thread_self_args &, Call &) {
    return hal::core_id();
}  // tids are core numbers, for now

long sys_thread_core(const thread_core_args &, Call &) { return hal::core_id(); }

// A thread that polls lets the other cores of its host run a moment; the
// trap path then lets a pending kill land.
long sys_thread_yield(const thread_yield_args &, Call &) {
    hal::relax();
    return 0;
}

// The threads of a rank's own process carry its rank, which the kernel keeps.
long sys_thread_tag(const thread_tag_args &a, Call &) {
    if (current_process()->rank >= 0) return -TS_EPERM;
    threads[hal::core_id()].tag = a.tag;
    return 0;
}

long sys_kcall_count(const kcall_count_args &a, Call &) {
    return kcall_count(static_cast<uint64_t>(a.number), static_cast<uint64_t>(a.core));
}

// Tries to reach another cluster's window (kcalls.def): only for the
// platform's isolation test, which boots with TS_MANIFEST_PLATFORM_TESTS.
// The page stays mapped: its frame is another cluster's, never ours to
// free, and nothing above the heap's limit is ever unmapped.
long sys_isolation_probe(const isolation_probe_args &a, Call &) {
    const ts_manifest &m = hal::manifest();
    if (!(m.flags & TS_MANIFEST_PLATFORM_TESTS)) return -TS_EPERM;
    if (a.cluster == hal::cluster_id()) return -TS_EINVAL;
    const uintptr_t page = m.clusters[a.cluster].window_base;
    const int how = a.how;
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

namespace {

// The part of the job info that depends on the caller's program (the
// manifest's program `program`, -1 for none): its argv and MPI_APPNUM.
// The offset mkimage wrote is not trusted beyond the manifest's args.
void program_info(const ts_manifest &m, int program, ts_job_info &info) {
    info.appnum = -1;
    if (program < 0 || static_cast<unsigned>(program) >= m.nprograms || program >= TS_MAX_PROGRAMS) return;
    const ts_program_desc &prog = m.programs[program];
    static_assert(sizeof(info.args) == sizeof(m.args));
    const size_t from = prog.args_offset < sizeof(m.args) ? prog.args_offset : sizeof(m.args);
    memcpy(info.args, m.args + from, sizeof(m.args) - from);
    info.argc = static_cast<int>(prog.argc);
    if (prog.is_mpi) info.appnum = static_cast<int>(prog.appnum);
}

}  // namespace

long sys_job_info(const job_info_args &a, Call &) {
    const ts_manifest &m = hal::manifest();
    ts_job_info &info = *a.info;
    info = ts_job_info{};
    info.cluster_id = hal::cluster_id();
    info.nclusters = static_cast<int>(m.nclusters);
    info.nio_clusters = static_cast<int>(m.nio_clusters);
    info.ncores = hal::ncores();
    info.np = static_cast<int>(m.np);
    info.map_policy = static_cast<int>(m.map_policy);
    info.slots_per_cluster = static_cast<int>(m.slots_per_cluster);
    info.mailbox_payload = static_cast<int>(ikc::mailbox_payload());
    info.portal_chunk = static_cast<int>(m.portal_chunk);
    info.timebase_hz = m.timebase_hz;
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
    // Local rank 0's shared area, through its alias (process_spawn_ranks).
    info.shared_base = p->aliased ? rank_alias_base + (cluster_shared_va - user_base) : 0;
    program_info(m, p->program, info);
    info.has_io_rank = m.flags & TS_MANIFEST_IO_RANK ? 1 : 0;
    info.window_size = m.clusters[hal::cluster_id()].window_size;
    return 0;
}

// Copied straight from the manifest: no copy on the (small) kernel stack.
// The size mkimage wrote is not trusted beyond the manifest's field.
long sys_job_env(const job_env_args &a, Call &) {
    const ts_manifest &m = hal::manifest();
    static_assert(sizeof(m.env) == TS_ENV_MAX);
    const size_t bytes = m.env_size < sizeof(m.env) ? m.env_size : sizeof(m.env);
    memcpy(a.buf.data, m.env, a.buf.size < bytes ? a.buf.size : bytes);
    return static_cast<long>(bytes);
}

// On the core's own timer.
long sys_sleep(const sleep_args &a, Call &) {
    const uint64_t deadline = deadline_in(a.ns);
    hal::set_timer(deadline);
    block_until([&] { return hal::time() >= deadline; });
    hal::set_timer(0);
    return 0;
}

namespace {

#define KC_NS_core   ::kernel
#define KC_NS_ikc    ::kernel::ikc
#define KC_NS_kernel ::kernel
/// Call `name` of `layer`'s namespace: its handler, or its fast try or
/// cancel when kcalls.def says it has one, run through its decoder.
#define KC_RUN(layer, name, suffix) \
    kcall::decoded<KC_NS_##layer::name##_args, KC_NS_##layer::sys_##name##suffix>
#define KC_OPTIONAL_yes(layer, name, suffix) KC_RUN(layer, name, suffix)
#define KC_OPTIONAL_no(layer, name, suffix)  nullptr

/// Call numbers are below this (the fuzzer draws from 0..numbers-1).
constexpr uint64_t numbers = TS_KCALL_NUMBERS;

/// The call table, indexed by number, from <tessera/kcalls.def>: call
/// `name` is served by sys_name through its decoder, on the calling core
/// or on the master; `ok` says every number was used once.
struct CallTable {
    CallEntry of[numbers];
    bool ok;
};

constexpr CallTable make_table() {
    constexpr CallEntry entries[] = {
#define TS_KCALL(NAME, name, number, layer, where, fast, cancel, ...)                                \
    {TS_SYS_##NAME, KC_RUN(layer, name, ), Where::where, KC_OPTIONAL_##cancel(layer, name, _cancel), \
     KC_OPTIONAL_##fast(layer, name, _fast)},
#include <tessera/kcalls.def>
#undef TS_KCALL
    };
    CallTable t{};
    for (const CallEntry &e : entries) {
        if (e.number >= numbers || t.of[e.number].handler) return t;
        t.of[e.number] = e;
    }
    t.ok = true;
    return t;
}
constexpr CallTable table = make_table();
static_assert(table.ok, "every kernel call of kcalls.def has its own number, below TS_KCALL_NUMBERS");

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

}  // namespace

void register_calls() { register_upper(Upper{table.of, upper_poll, upper_release, ikc::update_doorbells}); }

}  // namespace kernel
