// linux64: bring-up of one cluster process. The launcher (tools/mpirun)
// starts one per cluster as
//   tessera_cluster PAYLOAD FABRIC_FD STATUS_FD LAUNCHER_PID [CPUS]
// PAYLOAD is the cluster's manifest and programs (tools/mkimage.py);
// FABRIC_FD a memfd holding the NoC fabric, shared by every cluster;
// STATUS_FD the pipe that poweroff reports on; CPUS, optional, the host CPU
// each core's process is bound to, core 0 first, comma-separated: a CPU
// number, or '-' for a core that runs wherever Linux puts it (so do the
// cores the list does not reach). The cluster's window is a
// memfd of its own, mapped at the window base the manifest gives (and the
// fabric at the fabric base), so the manifest's addresses hold as on QEMU.
//
// Each core other than the master is a process of its own, a child of the
// master's (clone(2) without CLONE_VM), so that each can show a user
// address space of its own at the same addresses (mmu.cpp). What the
// kernel shares is shared memory at the same address in all of them: the
// window and the fabric (memfds), the kernel's own writable segment
// (.data, .bss: its globals, the cores' kernel and signal stacks and
// states), which the master moves into a memfd of its own before it starts
// a core, and the master's stack. The user area and the alias slots are
// reserved in each, for its own mirrors.
#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include "linux.hpp"

namespace hal {
namespace {

using host::sys;

const ts_manifest *the_manifest;
uintptr_t payload_end;
int status_pipe = -1;
int window_memfd = -1;
void (*core_entries[TS_MAX_CORES])(int);

// A decimal argument, or -1.
long number(const char *s) {
    long v = 0;
    if (!*s) return -1;
    for (; *s; ++s) {
        if (*s < '0' || *s > '9' || v > (1l << 40)) return -1;
        v = v * 10 + (*s - '0');
    }
    return v;
}

// Reads CPUS into each core's host_cpu; false when it is malformed.
bool parse_cpus(const char *s) {
    for (int core = 0; *s; ++core) {
        if (core >= ncores()) return false;
        const char *end = s;
        while (*end && *end != ',')
            ++end;
        char entry[8] = {};
        if (end - s >= static_cast<long>(sizeof entry)) return false;
        for (long i = 0; i < end - s; ++i)
            entry[i] = s[i];
        if (entry[0] != '-' || entry[1]) {
            const long cpu = number(entry);
            if (cpu < 0 || cpu >= host::max_host_cpus) return false;
            host::core_state(core).host_cpu = static_cast<int>(cpu);
        }
        s = *end ? end + 1 : end;
    }
    return true;
}

// mmap at exactly `addr`, never over something already there.
void map_at(uintptr_t addr, size_t size, int prot, int flags, int fd, const char *what) {
    const long r = sys(SYS_mmap, static_cast<long>(addr), static_cast<long>(size), prot,
                       flags | MAP_FIXED_NOREPLACE, fd, 0);
    if (r != static_cast<long>(addr)) host::fail(what);
}

// The auxiliary vector's value for `type` (0: none): it follows argv's
// and the environment's null pointers on the initial stack.
uint64_t auxv_value(char **argv, long argc, uint64_t type) {
    char **p = argv + argc + 1;
    while (*p)
        ++p;
    for (auto *a = reinterpret_cast<const uint64_t *>(p + 1); a[0] != AT_NULL; a += 2)
        if (a[0] == type) return a[1];
    return 0;
}

// Moves the executable's writable segments (found in its program headers)
// into a memfd mapped MAP_SHARED at the same addresses, contents kept, so
// that the cores' processes share them. Runs before anything else of the
// cluster, on the initial stack, with no other thread: nothing changes the
// segments between the copy and the mapping that replaces them.
void share_writable_segments(char **argv, long argc) {
    const auto *ph = reinterpret_cast<const Elf64_Phdr *>(auxv_value(argv, argc, AT_PHDR));
    const uint64_t n = auxv_value(argv, argc, AT_PHNUM);
    if (!ph || n == 0 || auxv_value(argv, argc, AT_PHENT) != sizeof(Elf64_Phdr))
        host::fail("cannot find the cluster executable's program headers");
    const long fd = sys(SYS_memfd_create, reinterpret_cast<long>("tessera-kernel-data"), MFD_CLOEXEC);
    if (fd < 0) host::fail("cannot create the kernel's shared memory");
    uint64_t size = 0;
    for (uint64_t i = 0; i < n; ++i) {
        if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_W) || ph[i].p_memsz == 0) continue;
        const uintptr_t from = ph[i].p_vaddr & ~(page_size - 1);
        const uintptr_t to = (ph[i].p_vaddr + ph[i].p_memsz + page_size - 1) & ~(page_size - 1);
        // Its pages must be its own (the linker puts segments of other
        // rights on other pages): they become shared, writable data.
        for (uint64_t j = 0; j < n; ++j)
            if (j != i && ph[j].p_type == PT_LOAD && ph[j].p_memsz != 0 && ph[j].p_vaddr < to &&
                ph[j].p_vaddr + ph[j].p_memsz > from)
                host::fail("a writable segment shares a page with another segment");
        if (sys(SYS_ftruncate, fd, static_cast<long>(size + (to - from))) != 0)
            host::fail("cannot size the kernel's shared memory");
        // Only pages that hold something: the rest of the memfd reads as zeros.
        for (uintptr_t page = from; page < to; page += page_size) {
            const auto *words = reinterpret_cast<const volatile uint64_t *>(page);
            uint64_t any = 0;
            for (size_t w = 0; w < page_size / sizeof(uint64_t) && !any; ++w)
                any = words[w];
            if (any && sys(SYS_pwrite64, fd, static_cast<long>(page), page_size,
                           static_cast<long>(size + (page - from))) != static_cast<long>(page_size))
                host::fail("cannot copy the kernel's data into its shared memory");
        }
        if (sys(SYS_mmap, static_cast<long>(from), static_cast<long>(to - from), PROT_READ | PROT_WRITE,
                MAP_SHARED | MAP_FIXED, fd, static_cast<long>(size)) != static_cast<long>(from))
            host::fail("cannot map the kernel's shared memory");
        size += to - from;
    }
    if (size == 0) host::fail("the cluster executable has no writable segment");
    sys(SYS_close, fd);
}

// The master's kernel stack: shared, as the cores' are (the kernel may
// hand a pointer to a local to another core), with a guard page below it.
constexpr size_t master_stack_size = 1 << 20;

uint64_t master_stack_top() {
    const long base = sys(SYS_mmap, 0, static_cast<long>(master_stack_size + page_size),
                          PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (base < 0 || sys(SYS_mprotect, base, page_size, PROT_NONE) != 0)
        host::fail("cannot map the master's stack");
    return static_cast<uint64_t>(base) + page_size + master_stack_size;
}

// Reads the payload file into the window, after checking its manifest.
void load_payload(const char *path) {
    const long fd = sys(SYS_open, reinterpret_cast<long>(path), O_RDONLY | O_CLOEXEC);
    if (fd < 0) host::fail("cannot open the payload file");
    struct stat st {};
    ts_manifest head;
    if (sys(SYS_fstat, fd, reinterpret_cast<long>(&st)) != 0 ||
        sys(SYS_pread64, fd, reinterpret_cast<long>(&head), sizeof(head), 0) != sizeof(head))
        host::fail("the payload file is too short for a manifest");
    if (head.magic != TS_MANIFEST_MAGIC || head.nclusters == 0 || head.nclusters > TS_MAX_CLUSTERS ||
        head.cluster_id >= head.nclusters)
        host::fail("the payload file holds no valid manifest");
    if (head.timebase_hz != 1000000000u) host::fail("the payload was not built for linux64 (timebase)");
    const ts_cluster_desc &c = head.clusters[head.cluster_id];
    if (c.ncores == 0 || c.ncores > TS_MAX_CORES) host::fail("the manifest gives a bad core count");
    if (static_cast<uint64_t>(st.st_size) > c.window_size)
        host::fail("the payload is larger than the cluster's window");
    window_memfd =
        static_cast<int>(sys(SYS_memfd_create, reinterpret_cast<long>("tessera-window"), MFD_CLOEXEC));
    if (window_memfd < 0 || sys(SYS_ftruncate, window_memfd, static_cast<long>(c.window_size)) != 0)
        host::fail("cannot create the cluster's memory window");
    map_at(c.window_base, c.window_size, PROT_READ | PROT_WRITE, MAP_SHARED, window_memfd,
           "cannot map the memory window at its base (address taken)");
    char *window = reinterpret_cast<char *>(c.window_base);
    for (long off = 0; off < st.st_size;) {
        const long n = sys(SYS_pread64, fd, reinterpret_cast<long>(window + off), st.st_size - off, off);
        if (n <= 0) host::fail("cannot read the payload file");
        off += n;
    }
    sys(SYS_close, fd);
    the_manifest = reinterpret_cast<const ts_manifest *>(window);
    payload_end = c.window_base + static_cast<uintptr_t>(st.st_size);
}

void map_fabric(long fd) {
    const ts_manifest &m = *the_manifest;
    struct stat st {};
    if (sys(SYS_fstat, fd, reinterpret_cast<long>(&st)) != 0 ||
        static_cast<uint64_t>(st.st_size) < m.fabric_size)
        host::fail("the fabric fd is not a fabric of the manifest's size");
    map_at(m.fabric_base, m.fabric_size, PROT_READ | PROT_WRITE, MAP_SHARED, static_cast<int>(fd),
           "cannot map the fabric at its base (address taken)");
    sys(SYS_close, fd);
}

// The process of a core other than the master. It dies with the master;
// the master learns of its end (trap.cpp).
[[noreturn]] void core_process(int core) {
    sys(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL);
    if (sys(SYS_getppid) != host::master_pid()) sys(SYS_exit_group, 125);  // the master is gone
    host::become_core(core);
    core_entries[core](core);
    halt();
}

[[noreturn]] void master(void *) {
    host::become_core(0);
    kernel_main(0);
}

}  // namespace

namespace host {
int status_fd() { return status_pipe; }
int window_fd() { return window_memfd; }
uintptr_t window_base() { return the_manifest->clusters[the_manifest->cluster_id].window_base; }
}  // namespace host

const ts_manifest &manifest() { return *the_manifest; }
int cluster_id() { return static_cast<int>(the_manifest->cluster_id); }
int ncores() { return static_cast<int>(the_manifest->clusters[cluster_id()].ncores); }
uintptr_t image_end() { return payload_end; }
uintptr_t window_end() {
    const auto &c = the_manifest->clusters[cluster_id()];
    return c.window_base + c.window_size;
}

bool start_core(int core, void (*entry)(int)) {
    if (core <= 0 || core >= ncores()) return false;
    core_entries[core] = entry;
    host::drop_mirrors();  // the child would inherit the master's mirrors, but not know of them
    return hal_clone_process(reinterpret_cast<void *>(host::core_state(core).kernel_sp), core_process, core) >
           0;
}

}  // namespace hal

using namespace hal;

extern "C" [[noreturn]] void hal_linux_start(long argc, char **argv) {
    if (argc != 5 && argc != 6)
        host::fail(
            "usage: tessera_cluster PAYLOAD FABRIC_FD STATUS_FD LAUNCHER_PID [CPUS] "
            "(started by tools/mpirun --platform linux64)");
    const long fabric = number(argv[2]), status = number(argv[3]), launcher = number(argv[4]);
    if (fabric < 0 || status < 0 || launcher <= 0)
        host::fail("FABRIC_FD, STATUS_FD and LAUNCHER_PID are numbers");
    // Die with the launcher, even if it was killed before this line ran.
    sys(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL);
    if (sys(SYS_getppid) != launcher) host::fail("the launcher is gone");
    status_pipe = static_cast<int>(status);
    share_writable_segments(argv, argc);
    load_payload(argv[1]);
    map_fabric(fabric);
    // Nothing of the process may land in the user area or the alias slots:
    // the MMU mirrors user pages there (mmu.cpp). Private mappings: each
    // core's process has its own.
    map_at(host::user_area_base, host::user_area_end - host::user_area_base, PROT_NONE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, "cannot reserve the user area");
    map_at(host::alias_slots_base, host::alias_slots_end - host::alias_slots_base, PROT_NONE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, "cannot reserve the alias slots");
    host::cores_init();
    if (argc == 6 && !parse_cpus(argv[5]))
        host::fail("CPUS is a comma-separated list of host CPU numbers or '-', at most one per core");
    host::trap_init();
    hal_call_on_stack(master_stack_top(), master, nullptr);
}
