// The kernel of one cluster above its core and ikc: the kernel-call table,
// the console, and the services that run inside the kernel (services/).
// Private to kernel/ (docs/ARCHITECTURE.md, "The layers").
#pragma once

#include "ikc/ikc.hpp"
#include "kernel/kcall_args.hpp"

namespace kernel {

/// Gives the core the call table and what it must do around a sleep
/// (syscall.cpp). Master only, first thing at boot.
void register_calls();

// ---- kernel-resident services -------------------------------------------------

/// Creates what the kernel-resident services need before any program runs
/// (the local name daemon's mailbox). Master only, at boot.
void services_init();
/// One step of the kernel-resident services that answer messages (the
/// local name daemon): takes what arrived, sends what the receivers have
/// room for, never waits, and asks for another serving pass (serve_again)
/// when it moved anything. Run by serve_calls, in kernel context, each time
/// a pass over the posted calls finishes none of them: at least once per
/// serve_calls, and after anything a call did that it might need.
void services_poll();

// ---- the console (console.cpp) and fault reports (fault_report.cpp) -----------

/// Writes n bytes of kernel text as console output of the calling core's
/// user thread (its line buffer, its tag), so that it comes out after
/// everything the thread wrote before; waits until it is sent.
void console_write_kernel(const char *text, size_t n);
/// Writes the report of `info`, a fault that kills p's thread on this core,
/// with a backtrace of the thread's frame records, as that thread's output.
void report_fault(const Process *p, const hal::TrapFrame &tf, hal::TrapInfo info);

// ---- kernel stacks (kstack.cpp) ------------------------------------------------

/// Paints the unused part of `core`'s kernel stack; the core calls it
/// first thing, on that stack.
void kstack_paint(int core);
/// Panics when the calling core's kernel stack ran past its lowest word.
void kstack_check();
/// The most bytes any core's painted kernel stack has held since boot.
size_t kstack_deepest();

// ---- the host's files (hostfs.cpp) ----------------------------------------------

/// An open host file (TS_SYS_HOSTFS_*), the id ARG_ID(file, any) names.
struct HostFile;
/// Decodes a handle of the caller's into its file: 0, -TS_EPERM (not an
/// I/O cluster), -TS_EBADF.
long decode_file(int handle, HostFile *&out);
/// Takes the host files' table and bounce buffer, on an I/O cluster.
/// Master only, at boot.
void hostfs_init();
/// Closes the host files p left open (p has ended).
void hostfs_release(Process *p);

}  // namespace kernel

namespace kernel::kcall {

template <Dir D>
struct Id<Object::file, D> {
    using type = HostFile *;
    static constexpr Pass pass = Pass::id;
    static long decode(const Call &c, int i, HostFile *&out) { return decode_file(id_of(c, i), out); }
};

}  // namespace kernel::kcall

// The arguments and handlers of this layer's calls (kcall_args.hpp), from
// <tessera/kcalls.def>; kernel/syscall.cpp puts every layer's in the table.
namespace kernel {
#define TS_KCALL(...) KC_LAYER_CALLS(kernel, __VA_ARGS__)
#include <tessera/kcalls.def>
#undef TS_KCALL
}  // namespace kernel
