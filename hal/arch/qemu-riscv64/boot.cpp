// Boot and cluster bring-up on qemu-riscv64.
//
// Under Tessera's firmware (firmware/) the firmware itself checks every
// image and starts each cluster's master at _start_core; each master then
// starts its own cores with SBI HSM. Under OpenSBI (mkimage --firmware
// opensbi) OpenSBI enters cluster 0's image on one hart (any hart: its
// lottery picks it); that boot hart checks every cluster's image header
// and starts each cluster's master (hal_boot below).
#include "hal/hal.hpp"
#include "hal/image_check.hpp"
#include "riscv.hpp"
#include "sbi.hpp"
#include "virt.hpp"

extern "C" char __payload_start[];
extern "C" char __image_end[];
extern "C" char hal_trap_vector[];
extern "C" char _start_core[];
extern "C" [[noreturn]] void hal_jump(uintptr_t entry, uint64_t a0, uint64_t a1);

namespace hal {
/// Finds out whether this core programs stimecmp itself (core.cpp).
void init_timer();
}  // namespace hal

namespace hal {
namespace {

constexpr int status_bad_image = 125;

const ts_manifest &own_manifest() { return *reinterpret_cast<const ts_manifest *>(__payload_start); }

void (*core_entries[TS_MAX_CORES])(int);

// Set by the first hart to enter _start_boot. Under load QEMU's OpenSBI has
// been seen to let a second hart enter there too: it must not boot again.
uint32_t boot_claimed;

// Starts a hart with SBI HSM. A hart that is still on its way to its own
// hart_stop (a hart that lost the boot race) is not startable yet: retry for
// up to a second of platform time before giving up.
bool start_hart(unsigned long hart, uintptr_t entry, unsigned long opaque) {
    const uint64_t deadline = HAL_CSR_READ(time) + own_manifest().timebase_hz;
    do {
        if (sbi::hart_start(hart, entry, opaque).error == 0) return true;
    } while (HAL_CSR_READ(time) < deadline);
    return false;
}

void say(const char *s) {
    size_t n = 0;
    while (s[n])
        ++n;
    console_write(s, n);
}

// "[kernel] boot: cluster NN ..." without a printf: the HAL is below the kernel.
void say_numbered(const char *thing, unsigned n, const char *what) {
    char num[12];
    char *p = num + sizeof(num) - 1;
    *p = 0;
    do {
        *--p = static_cast<char>('0' + n % 10);
        n /= 10;
    } while (n);
    say("[kernel] boot: ");
    say(thing);
    say(p);
    say(what);
}

void say_cluster(const char *what, unsigned c) { say_numbered("cluster ", c, what); }
void say_hart(const char *what, unsigned long hart) {
    say_numbered("hart ", static_cast<unsigned>(hart), what);
}

}  // namespace

const ts_manifest &manifest() { return own_manifest(); }
int cluster_id() { return static_cast<int>(own_manifest().cluster_id); }
int ncores() { return static_cast<int>(own_manifest().clusters[cluster_id()].ncores); }
uintptr_t image_end() { return reinterpret_cast<uintptr_t>(__image_end); }
uintptr_t window_end() {
    const auto &c = own_manifest().clusters[cluster_id()];
    return c.window_base + c.window_size;
}

bool start_core(int core, void (*entry)(int)) {
    if (core <= 0 || core >= ncores()) return false;
    core_entries[core] = entry;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    const unsigned long hart = own_manifest().clusters[cluster_id()].first_hart + core;
    return start_hart(hart, reinterpret_cast<uintptr_t>(_start_core), 0);
}

void notify_cluster(int cluster) {
    const auto &c = own_manifest().clusters[cluster];
    for (unsigned core = 0; core < c.ncores; ++core)
        virt::raise_ssip(c.first_hart + core);
}

void notify_core(int cluster, int core) {
    virt::raise_ssip(own_manifest().clusters[cluster].first_hart + static_cast<unsigned long>(core));
}

}  // namespace hal

using namespace hal;

// The entry of the image of the cluster that `hart` belongs to, or 0.
static uintptr_t entry_of(const ts_manifest &m, unsigned long hart) {
    for (unsigned c = 0; c < m.nclusters; ++c) {
        const auto &desc = m.clusters[c];
        if (hart >= desc.first_hart && hart < desc.first_hart + desc.ncores)
            return reinterpret_cast<const ts_image_header *>(desc.window_base)->entry;
    }
    return 0;
}

extern "C" [[noreturn]] void hal_boot(unsigned long hartid) {
    const ts_manifest &m = own_manifest();
    if (m.magic != TS_MANIFEST_MAGIC || m.nclusters == 0 || m.nclusters > TS_MAX_CLUSTERS)
        poweroff(status_bad_image);  // no console lock to trust without a manifest
    // OpenSBI 1.1's hart_start marks a hart START_PENDING before it stores
    // the start address: a hart that wakes in between leaves OpenSBI at the
    // firmware's default address, which is here. It was being started, so
    // send it to its cluster's entry, where it would have gone.
    if (__atomic_exchange_n(&boot_claimed, 1u, __ATOMIC_ACQ_REL) != 0) {
        say_hart(": came to the boot entry from hart_start; sent to its cluster\n", hartid);
        if (const uintptr_t entry = entry_of(m, hartid)) hal_jump(entry, hartid, 0);
        sbi::hart_stop();
    }
    say("[kernel] tessera: boot hart starts the cluster masters\n");
    for (unsigned c = 0; c < m.nclusters; ++c) {
        const auto &desc = m.clusters[c];
        const auto *h = reinterpret_cast<const ts_image_header *>(desc.window_base);
        if (const ImageError e = check_image_header(*h, c, desc); e != ImageError::none) {
            say_cluster(": ", c);
            say(image_error_text(e));
            say(", not starting the machine\n");
            poweroff(status_bad_image);
        }
        if (desc.first_hart != hartid && !start_hart(desc.first_hart, h->entry, 0)) {
            say_cluster(": its master hart does not start\n", c);
            poweroff(status_bad_image);
        }
    }
    // The boot hart becomes what it is in its own cluster: a master goes to
    // its cluster's entry; any other core waits for its master to start it.
    for (unsigned c = 0; c < m.nclusters; ++c)
        if (m.clusters[c].first_hart == hartid) hal_jump(entry_of(m, hartid), hartid, 0);
    sbi::hart_stop();
}

// Every core of a cluster arrives here on its own kernel stack, tp = core.
extern "C" [[noreturn]] void hal_core_start(int core) {
    HAL_CSR_WRITE(stvec, reinterpret_cast<uintptr_t>(hal_trap_vector));
    HAL_CSR_SET(sstatus, rv::sstatus_sum);
    HAL_CSR_WRITE(scounteren, 7);  // U-mode may read cycle, time, instret
    init_timer();
    HAL_CSR_WRITE(sie, rv::sie_ssie);
    if (core == 0 && cluster_id() == 0 && (manifest().flags & TS_MANIFEST_PLATFORM_TESTS)) sbi::self_check();
    if (core == 0) kernel_main(0);
    core_entries[core](core);
    halt();
}
