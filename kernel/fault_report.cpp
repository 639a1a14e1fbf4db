// The report of a fault that kills a user process: what, where, and the
// chain of calls that led there, as the thread's own console output, so
// that it comes after every line the thread wrote before it.
//
//   tessera: rank 1 (cluster 1 thread 2): process app killed: load page fault at pc=0x400004c0 addr=0x0
//   tessera: rank 1 (cluster 1 thread 2): backtrace: 0x400004c0 0x40000522 0x4000014c (ra 0x400004b2)
//
// The backtrace is the faulting pc (always there), then the return address
// of each frame record found by following the thread's frame pointers
// (programs and LWMPI are built with -fno-omit-frame-pointer); it stops at
// the first record outside the thread's mapped stack. A function that
// saved no record (a leaf) is missing from that chain, so the line ends
// with where a leaf's return address would be (RISC-V: the ra register;
// x86-64: the word at the top of the stack): the leaf's caller, or in a
// function that is no leaf, something else, which mpirun leaves out when
// it is not the address of another function. mpirun turns the addresses into
// function, file and line from the program's symbols
// (tools/tessera/symbols.py).
#include "kernel.hpp"

namespace kernel {
namespace {

/// Frames in a backtrace, the faulting pc included.
constexpr int backtrace_max = 8;

// What the address of a page fault was, for the report.
const char *fault_place(const Process *p, uint64_t addr) {
    if (p->aliased && addr >= rank_alias_base && addr < rank_alias_base + TS_MAX_CORES * hal::alias_area_size)
        return " (in the alias area of the cluster's ranks)";
    if (addr >= user_stack_area) return " (outside the user area)";
    if (addr >= user_stack_area - TS_MAX_CORES * user_stack_span &&
        (user_stack_area - addr - 1) % user_stack_span >= user_stack_max)
        return " (stack overflow into the guard area)";
    unsigned perms = 0;
    if (p->space.lookup(addr, &perms))
        return (perms & hal::perm_x) ? " (text)" : " (page without that right)";
    return "";
}

// Fills pcs with the trapped thread's pc and the return addresses of its
// frame records; returns how many. Each record must lie in the mapped part
// of the thread's stack, above the one before, so that a frame pointer
// that is no frame pointer (code built without them) ends the walk.
int user_backtrace(const Process *p, const hal::TrapFrame &tf, uint64_t (&pcs)[backtrace_max]) {
    const int core = hal::core_id();
    const uint64_t top = stack_top(core), bottom = p->stack_bottom[core];
    int n = 0;
    pcs[n++] = hal::trap_pc(tf);
    uint64_t low = bottom;
    for (uint64_t fp = hal::frame_pointer(tf); n < backtrace_max;) {
        const uint64_t record = fp + static_cast<uint64_t>(hal::frame_record_offset);
        uint64_t link[2];  // {the caller's frame pointer, the return address}
        if (record % sizeof(uint64_t) || record < low || record > top - sizeof(link)) break;
        if (copy_from_user(link, record, sizeof(link)) < 0 || link[1] == 0) break;
        pcs[n++] = link[1];
        low = record + sizeof(link);
        fp = link[0];
    }
    return n;
}

// Where the faulting function would have its return address if it is a
// leaf that saved no frame record (0: unknown).
uint64_t leaf_return(const hal::TrapFrame &tf) {
    uint64_t ra = hal::link_register(tf);
    if (!ra && hal::leaf_return_slot(tf) && copy_from_user(&ra, hal::leaf_return_slot(tf), sizeof(ra)) < 0)
        ra = 0;
    return ra;
}

}  // namespace

void report_fault(const Process *p, const hal::TrapFrame &tf, hal::TrapInfo info) {
    char who[thread_name_max];
    thread_name(who, hal::cluster_id(), hal::core_id(), threads[hal::core_id()].tag);
    char text[160 + thread_name_max * 2 + backtrace_max * 20];
    size_t n = ksnprintf(text, sizeof(text), "tessera: %s: process %s killed: %s at pc=0x%lx addr=0x%lx%s\n",
                         who, p->name, hal::cause_name(info.cause), hal::trap_pc(tf), info.tval,
                         hal::is_page_fault(info.cause) ? fault_place(p, info.tval) : "");
    uint64_t pcs[backtrace_max];
    const int frames = user_backtrace(p, tf, pcs);
    n += ksnprintf(text + n, sizeof(text) - n, "tessera: %s: backtrace:", who);
    for (int i = 0; i < frames; ++i)
        n += ksnprintf(text + n, sizeof(text) - n, " 0x%lx", pcs[i]);
    if (const uint64_t ra = leaf_return(tf)) n += ksnprintf(text + n, sizeof(text) - n, " (ra 0x%lx)", ra);
    n += ksnprintf(text + n, sizeof(text) - n, "\n");
    console_write_kernel(text, n);
}

}  // namespace kernel
