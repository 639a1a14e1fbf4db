// linux64: bring-up of one cluster process. The launcher (tools/mpirun)
// starts one per cluster as
//   tessera_cluster PAYLOAD FABRIC_FD STATUS_FD LAUNCHER_PID [CPUS]
// PAYLOAD is the cluster's manifest and programs (tools/mkimage.py);
// FABRIC_FD a memfd holding the NoC fabric, shared by every cluster;
// STATUS_FD the pipe that poweroff reports on; CPUS, optional, the host CPU
// each core's thread is bound to, core 0 first, comma-separated: a CPU
// number, or '-' for a core that runs wherever Linux puts it (so do the
// cores the list does not reach). The cluster's window is a
// memfd of its own, mapped at the window base the manifest gives (and the
// fabric at the fabric base), so the manifest's addresses hold as on QEMU.
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

// The thread of a core other than the master.
[[noreturn]] void core_thread(int core) {
    host::become_core(core);
    core_entries[core](core);
    halt();
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
    return hal_clone_thread(reinterpret_cast<void *>(host::core_state(core).kernel_sp), core_thread, core) >
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
    load_payload(argv[1]);
    map_fabric(fabric);
    // Nothing of the process may land in the user area: the MMU mirrors
    // user pages there (mmu.cpp).
    map_at(host::user_area_base, host::user_area_end - host::user_area_base, PROT_NONE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, "cannot reserve the user area");
    host::cores_init();
    if (argc == 6 && !parse_cpus(argv[5]))
        host::fail("CPUS is a comma-separated list of host CPU numbers or '-', at most one per core");
    host::trap_init();
    host::become_core(0);
    kernel_main(0);
}
