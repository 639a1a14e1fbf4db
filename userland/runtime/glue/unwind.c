/* The one question GCC's unwinder (libgcc_eh, as built for glibc) asks the
 * C library when a C++ exception is thrown: which loaded object holds this
 * code address, and where is its .eh_frame_hdr? A Tessera program is one
 * static image, so the answer is that image and the table user.ld keeps. */
#include <stddef.h>

/* glibc's struct dl_find_object (<dlfcn.h>, glibc 2.35) on RISC-V and
 * x86-64, the layout libgcc_eh was compiled against. */
struct dl_find_object {
    unsigned long long dlfo_flags;
    void *dlfo_map_start;
    void *dlfo_map_end;
    void *dlfo_link_map;
    void *dlfo_eh_frame;
    unsigned long long dlfo_reserved[7];
};

extern char __executable_start[], _end[];
extern char __ts_eh_frame_hdr_start[], __ts_eh_frame_hdr_end[];

/* 0 and *result filled for an address inside the image; -1 otherwise
 * (the unwinder then finds no frame and std::terminate runs). */
int _dl_find_object(void *pc, struct dl_find_object *result) {
    char *at = pc;
    if (at < __executable_start || at >= _end) return -1;
    *result = (struct dl_find_object){
        .dlfo_map_start = __executable_start,
        .dlfo_map_end = _end,
        .dlfo_eh_frame = __ts_eh_frame_hdr_end > __ts_eh_frame_hdr_start ? __ts_eh_frame_hdr_start : NULL,
    };
    return 0;
}
