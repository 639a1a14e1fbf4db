// Boot and cluster bring-up on qemu-riscv64.
//
// OpenSBI enters cluster 0's image on one hart (any hart: its lottery picks
// it). That boot hart checks every cluster's image header and starts each
// cluster's master with SBI HSM; each master then starts its own cores.
#include "hal/hal.hpp"
#include "hal/image_check.hpp"
#include "riscv.hpp"
#include "sbi.hpp"

extern "C" char __payload_start[];
extern "C" char __image_end[];
extern "C" char hal_trap_vector[];
extern "C" char _start_core[];
extern "C" [[noreturn]] void hal_jump(uintptr_t entry, uint64_t a0, uint64_t a1);

namespace hal {
namespace {

constexpr int status_bad_image = 125;

const ts_manifest &own_manifest() {
    return *reinterpret_cast<const ts_manifest *>(__payload_start);
}

void (*core_entries[TS_MAX_CORES])(int);

void say(const char *s) {
    size_t n = 0;
    while (s[n]) ++n;
    console_write(s, n);
}

// "[kernel] boot: cluster NN ..." without a printf: the HAL is below the kernel.
void say_cluster(const char *what, unsigned c) {
    char num[3] = {static_cast<char>('0' + c / 10 % 10), static_cast<char>('0' + c % 10), 0};
    say("[kernel] boot: cluster ");
    say(num);
    say(what);
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
    // The boot hart may still be on its way to hart_stop: retry while busy.
    for (int tries = 0; tries < 100000; ++tries) {
        if (sbi::hart_start(hart, reinterpret_cast<uintptr_t>(_start_core), core).error == 0)
            return true;
    }
    return false;
}

void notify_cluster(int cluster) {
    const auto &c = own_manifest().clusters[cluster];
    sbi::send_ipi((1ul << c.ncores) - 1, c.first_hart);
}

}  // namespace hal

using namespace hal;

extern "C" [[noreturn]] void hal_boot(unsigned long hartid) {
    const ts_manifest &m = own_manifest();
    if (m.magic != TS_MANIFEST_MAGIC || m.nclusters == 0 || m.nclusters > TS_MAX_CLUSTERS)
        poweroff(status_bad_image);  // no console lock to trust without a manifest
    say("[kernel] tessera: boot hart starts the cluster masters\n");
    uintptr_t self_entry = 0;
    unsigned self_cluster = 0;
    for (unsigned c = 0; c < m.nclusters; ++c) {
        const auto &desc = m.clusters[c];
        const auto *h = reinterpret_cast<const ts_image_header *>(desc.window_base);
        if (const ImageError e = check_image_header(*h, c, desc); e != ImageError::none) {
            say_cluster(": ", c);
            say(image_error_text(e));
            say(", not starting the machine\n");
            poweroff(status_bad_image);
        }
        if (desc.first_hart == hartid) {
            self_entry = h->entry;
            self_cluster = c;
        } else if (sbi::hart_start(desc.first_hart, h->entry, c).error != 0) {
            say_cluster(": its master hart does not start\n", c);
            poweroff(status_bad_image);
        }
    }
    if (self_entry) hal_jump(self_entry, hartid, self_cluster);
    sbi::hart_stop();
}

// Every core of a cluster arrives here on its own kernel stack, tp = core.
extern "C" [[noreturn]] void hal_core_start(int core) {
    HAL_CSR_WRITE(stvec, reinterpret_cast<uintptr_t>(hal_trap_vector));
    HAL_CSR_SET(sstatus, rv::sstatus_sum);
    HAL_CSR_WRITE(scounteren, 7);  // U-mode may read cycle, time, instret
    HAL_CSR_WRITE(sie, rv::sie_ssie);
    if (core == 0) kernel_main(0);
    core_entries[core](core);
    halt();
}
