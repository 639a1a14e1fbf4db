// The SBI self-check (sbi.hpp): each check makes one call and compares the
// answer with what the SBI spec 1.0 says, or, where the spec leaves it to
// the firmware, with what Tessera's firmware promises (firmware/sbi.cpp);
// those run only under Tessera's firmware.
#include "hal/hal.hpp"
#include "riscv.hpp"
#include "sbi.hpp"

extern "C" char _start_core[];
extern "C" int hal_has_stimecmp();

namespace hal::sbi {
namespace {

struct Tally {
    unsigned checks = 0, failed = 0;
};

// One console line, written with one console_write so that the other
// clusters' lines, which come at the same time, cannot split it.
class Line {
public:
    Line &operator<<(const char *s) {
        while (*s && n_ < sizeof(buf_))
            buf_[n_++] = *s++;
        return *this;
    }
    Line &hex(uint64_t v) {
        char digits[19] = "0x";
        int n = 1;
        while (n < 16 && (v >> (4 * n)))
            ++n;
        for (int i = 0; i < n; ++i)
            digits[2 + i] = "0123456789abcdef"[(v >> (4 * (n - 1 - i))) & 15];
        digits[2 + n] = 0;
        return *this << digits;
    }
    Line &signed_hex(long v) { return v < 0 ? (*this << "-").hex(static_cast<uint64_t>(-v)) : hex(v); }
    Line &dec(unsigned v) {
        char digits[12];
        char *p = digits + sizeof(digits) - 1;
        *p = 0;
        do {
            *--p = static_cast<char>('0' + v % 10);
        } while (v /= 10);
        return *this << p;
    }
    ~Line() { console_write(buf_, n_); }

private:
    char buf_[200];
    size_t n_ = 0;
};

void fail(Tally &t, const char *what) {
    ++t.failed;
    Line() << "[kernel] sbi check: FAILED: " << what << "\n";
}

// One check: the call returned `got`; it should have error `error` and, when
// value_too, value `value`.
void expect(Tally &t, const char *what, Ret got, long error, long value, bool value_too = true) {
    ++t.checks;
    if (got.error == error && (!value_too || got.value == value)) return;
    ++t.failed;
    Line l;
    l << "[kernel] sbi check: FAILED: " << what << ": error ";
    l.signed_hex(got.error) << " value ";
    l.signed_hex(got.value) << ", want error ";
    l.signed_hex(error);
    if (value_too) {
        l << " value ";
        l.signed_hex(value);
    }
    l << "\n";
}

// Waits up to a millisecond for sip.STIP to be `want`.
bool stip_becomes(bool want) {
    const uint64_t until = time() + timebase() / 1000;
    do {
        if (((HAL_CSR_READ(sip) & rv::sie_stie) != 0) == want) return true;
    } while (time() < until);
    return false;
}

unsigned long machine_harts(const ts_manifest &m) {
    unsigned long n = 0;
    for (unsigned c = 0; c < m.nclusters; ++c)
        if (m.clusters[c].first_hart + m.clusters[c].ncores > n)
            n = m.clusters[c].first_hart + m.clusters[c].ncores;
    return n;
}

}  // namespace

void self_check() {
    const ts_manifest &m = manifest();
    const ts_cluster_desc &me = m.clusters[cluster_id()];
    const unsigned long self = me.first_hart + static_cast<unsigned long>(core_id());
    const auto start = reinterpret_cast<uintptr_t>(_start_core);
    Tally t;
    const Ret version = call(ext_base, 0);
    expect(t, "get_spec_version", version, success, 0, false);
    ++t.checks;
    if (((version.value >> 24) & 0x7f) < 1) fail(t, "spec version below 1.0");
    const Ret impl = call(ext_base, 1);
    expect(t, "get_impl_id", impl, success, 0, false);
    const bool ours = impl.value == impl_tessera;
    expect(t, "probe_extension(BASE)", call(ext_base, 3, ext_base), success, 1);
    expect(t, "probe_extension(TIME)", call(ext_base, 3, ext_time), success, 1);
    expect(t, "probe_extension(HSM)", call(ext_base, 3, ext_hsm), success, 1);
    expect(t, "probe_extension(unknown)", call(ext_base, 3, 0x0A0B0C0D), success, 0);
    expect(t, "base: unknown function", call(ext_base, 99), err_not_supported, 0, false);
    expect(t, "hart_get_status(self)", call(ext_hsm, 2, self), success, 0);  // STARTED
    if (me.ncores > 1)  // the other cores start after this check
        expect(t, "hart_get_status(a core not started)", call(ext_hsm, 2, self + 1), success, 1);
    expect(t, "hart_get_status(no such hart)", call(ext_hsm, 2, machine_harts(m)), err_invalid_param, 0,
           false);
    expect(t, "hart_start(self)", hart_start(self, start, 0), err_already_available, 0, false);
    // TIME: a deadline in the past raises S-mode's timer interrupt at once,
    // one far in the future clears it.
    set_timer(0);
    ++t.checks;
    if (!stip_becomes(true)) fail(t, "set_timer(0) does not raise sip.STIP");
    set_timer(~0ull);
    ++t.checks;
    if (!stip_becomes(false)) fail(t, "set_timer(~0) leaves sip.STIP raised");
    if (ours) {
        // What Tessera's firmware refuses: starting a core outside its
        // cluster's window or a hart of another cluster, and the calls
        // the HAL does not make.
        if (me.ncores > 1)
            expect(t, "hart_start(core 1, outside the window)", hart_start(self + 1, m.fabric_base, 0),
                   err_invalid_address, 0, false);
        const unsigned other = cluster_id() + 1 < static_cast<int>(m.nclusters) ? cluster_id() + 1 : 0;
        if (other != static_cast<unsigned>(cluster_id()))
            expect(t, "hart_start(another cluster's hart)",
                   hart_start(m.clusters[other].first_hart, m.clusters[other].window_base, 0),
                   err_invalid_param, 0, false);
        expect(t, "IPI send_ipi", call(ext_ipi, 0, 1, self), err_not_supported, 0, false);
        expect(t, "legacy console_putchar", call(ext_legacy_putchar, 0, '!'), err_not_supported, 0, false);
        expect(t, "HSM hart_suspend", call(ext_hsm, 3), err_not_supported, 0, false);
    }
    Line l;
    l << "[kernel] sbi check: firmware impl ";
    l.hex(static_cast<uint64_t>(impl.value))
        << (ours ? " (Tessera's)" : " (not Tessera's: its own refusals unchecked)");
    l << ", spec ";
    l.hex(static_cast<uint64_t>(version.value)) << ": ";
    l.dec(t.checks) << " checks, ";
    l.dec(t.failed) << " failed; S-mode timer: " << (hal_has_stimecmp() ? "stimecmp\n" : "SBI set_timer\n");
}

}  // namespace hal::sbi
