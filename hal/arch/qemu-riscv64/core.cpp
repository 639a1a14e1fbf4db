// Core-level HAL: events, timer, locks, the console and U-mode entry.
#include "hal/hal.hpp"
#include "riscv.hpp"
#include "sbi.hpp"
#include "virt.hpp"

extern "C" char kernel_stacks[];              // build/kernel.ld: one stack per core
extern "C" const uint64_t kernel_stack_size;  // entry.S: the profile's, bytes
extern "C" [[noreturn]] void hal_user_return(hal::TrapFrame *tf);
extern "C" int hal_has_stimecmp();

namespace hal {
namespace {

// QEMU virt devices (hw/riscv/virt.c).
volatile uint8_t *const uart = reinterpret_cast<volatile uint8_t *>(virt::uart_base);
volatile uint32_t *const test_finisher = reinterpret_cast<volatile uint32_t *>(virt::finisher_base);
constexpr int uart_lsr = 5, uart_lsr_thre = 0x20, uart_lsr_dr = 0x01;

// Sstc (RISC-V Sstc 1.0): S-mode programs its own timer in stimecmp, with
// no trip through the firmware; without it, SBI set_timer. Every core finds
// the same answer (init_timer).
bool own_stimecmp;

void program_timer(uint64_t when) {
    if (own_stimecmp)
        asm volatile("csrw stimecmp, %0" ::"r"(when));
    else
        sbi::set_timer(when);
}

}  // namespace

void init_timer() { own_stimecmp = hal_has_stimecmp() != 0; }

int core_id() {
    uint64_t tp;
    asm volatile("mv %0, tp" : "=r"(tp));
    return static_cast<int>(tp);
}

uint64_t time() { return HAL_CSR_READ(time); }
uint64_t timebase() { return manifest().timebase_hz; }

void clear_event() { HAL_CSR_CLEAR(sip, rv::sie_ssie); }

void wait_event() { asm volatile("wfi" ::: "memory"); }

void relax() {
    set_timer(time() + timebase() / 50000);
    wait_event();
    set_timer(0);
}

// `pause` is encoded as FENCE W,0; written as a word so that no assembler
// option is needed.
void spin_hint() { asm volatile(".4byte 0x0100000f" ::: "memory"); }

bool master_takes_arrivals() { return true; }

void set_timer(uint64_t deadline) {
    if (deadline == 0) {
        HAL_CSR_CLEAR(sie, rv::sie_stie);
        program_timer(~0ull);
    } else {
        program_timer(deadline);
        HAL_CSR_SET(sie, rv::sie_stie);
    }
}

void Spinlock::lock() {
    while (__atomic_exchange_n(&word_, 1u, __ATOMIC_ACQUIRE) != 0)
        while (__atomic_load_n(&word_, __ATOMIC_RELAXED) != 0) {}
}

void Spinlock::unlock() { __atomic_store_n(&word_, 0u, __ATOMIC_RELEASE); }

// The console lock sits at the start of the fabric: it is the one thing all
// clusters share besides the NoC.
void console_write(const char *s, size_t n) {
    auto *lock = reinterpret_cast<Spinlock *>(manifest().fabric_base);
    Guard g(*lock);
    for (size_t i = 0; i < n; ++i) {
        if (s[i] == '\n') {
            while (!(uart[uart_lsr] & uart_lsr_thre)) {}
            uart[0] = '\r';
        }
        while (!(uart[uart_lsr] & uart_lsr_thre)) {}
        uart[0] = static_cast<uint8_t>(s[i]);
    }
}

int console_read() { return (uart[uart_lsr] & uart_lsr_dr) ? uart[0] : -1; }

// The virt test finisher (hw/misc/sifive_test.c): 0x5555 exits QEMU with 0,
// 0x3333 | code << 16 exits with `code`.
void poweroff(int status) {
    *test_finisher = status == 0 ? 0x5555u : 0x3333u | (static_cast<uint32_t>(status & 0xffff) << 16);
    halt();
}

void halt() {
    HAL_CSR_WRITE(sie, 0);
    for (;;)
        asm volatile("wfi");
}

Stack kernel_stack(int core) {
    return {kernel_stacks + static_cast<size_t>(core) * kernel_stack_size, kernel_stack_size};
}

void enter_user(TrapFrame *tf, uint64_t space) {
    const Stack stack = kernel_stack(core_id());
    tf->kernel_tp = static_cast<uint64_t>(core_id());
    tf->kernel_sp = reinterpret_cast<uintptr_t>(stack.base + stack.size);
    // Switching spaces flushes the TLB; staying in one keeps it (a page the
    // kernel mapped meanwhile may fault once: see page_fault_is_stale).
    if (HAL_CSR_READ(satp) != space) {
        HAL_CSR_WRITE(satp, space);
        asm volatile("sfence.vma" ::: "memory");
    }
    HAL_CSR_CLEAR(sstatus, rv::sstatus_spp | rv::sstatus_spie);
    HAL_CSR_SET(sstatus, rv::sstatus_fs_initial);
    hal_user_return(tf);
}

}  // namespace hal
