// Page-frame allocator over the part of the cluster's window after the
// image: a bump pointer, plus a free list of returned frames.
#include <string.h>

#include "kernel/core.hpp"

namespace kernel {
namespace {

uintptr_t next_frame;  // first never-used frame
uintptr_t frames_end;
void *free_list;  // returned frames, linked through their first word
size_t free_frames;
size_t fewest_free;  // the low-water mark of free_frames
size_t total_frames;
// frame_alloc and frame_free run on the master and on a core whose thread's
// stack grows (grow_stack, from its page fault or its kernel call).
hal::Spinlock frames_lock;

}  // namespace

void frames_init() {
    next_frame = (hal::image_end() + hal::page_size - 1) & ~(hal::page_size - 1);
    frames_end = hal::window_end();
    free_frames = fewest_free = total_frames = (frames_end - next_frame) / hal::page_size;
}

void *frame_alloc() {
    void *f = nullptr;
    {
        hal::Guard g(frames_lock);
        if (free_list) {
            f = free_list;
            free_list = *static_cast<void **>(f);
        } else if (next_frame < frames_end) {
            f = reinterpret_cast<void *>(next_frame);
            next_frame += hal::page_size;
        } else {
            return nullptr;
        }
        if (--free_frames < fewest_free) fewest_free = free_frames;
    }
    memset(f, 0, hal::page_size);
    return f;
}

void *boot_alloc(size_t bytes) {
    const size_t size = (bytes + hal::page_size - 1) & ~(hal::page_size - 1);
    if (free_list || size > frames_end - next_frame) return nullptr;
    void *p = reinterpret_cast<void *>(next_frame);
    next_frame += size;
    free_frames -= size / hal::page_size;
    fewest_free = free_frames;
    memset(p, 0, size);
    return p;
}

void frame_free(void *frame) {
    hal::Guard g(frames_lock);
    *static_cast<void **>(frame) = free_list;
    free_list = frame;
    ++free_frames;
}

size_t frames_free_count() { return free_frames; }
size_t frames_total_count() { return total_frames; }
size_t frames_peak_count() { return total_frames - fewest_free; }

}  // namespace kernel
