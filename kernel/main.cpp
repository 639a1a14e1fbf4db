// Start-up of a cluster's kernel.
#include "kernel.hpp"
#include "services/spawn.hpp"

namespace kernel {

hal::Spinlock lock;
hal::Spinlock master_lock;
hal::AddressSpace kernel_space;

namespace {

[[noreturn]] void core_entry(int core) {
    kstack_paint(core);
    kernel_space.activate();
    core_loop(core);
}

}  // namespace
}  // namespace kernel

using namespace kernel;

// The master (core 0): set up memory, bring up the other cores, then run
// the spawn server.
extern "C" void kernel_main(int) {
    kstack_paint(0);
    register_calls();
    master_relock();  // for as long as the master is awake (block_until)
    frames_init();
    trace_init();
    if (!kernel_space.init(frame_alloc, nullptr)) panic("cannot build the kernel address space");
    kernel_space.activate();
    ikc::init();
    hostfs_init();
    services_init();
    for (int core = 1; core < hal::ncores(); ++core)
        if (!hal::start_core(core, core_entry)) panic("a core does not start");
    kprintf("[kernel] cluster %d up: %d cores, %lu KiB free\n", hal::cluster_id(), hal::ncores(),
            frames_free_count() * hal::page_size / 1024);
    spawn_server();
}
