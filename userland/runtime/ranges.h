/* The pages still mapped of the anonymous mappings (mman.c), with no OS
 * calls and no lock (the caller holds one), so that the host tests check
 * them. A mapping is a block of the heap; its pages still mapped are
 * ranges [start, end) of it, one node each, in a list. A block goes back
 * once no range of it is left. */
#ifndef TS_RUNTIME_RANGES_H
#define TS_RUNTIME_RANGES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ts__range {
    uintptr_t start, end;
    void *block;
    struct ts__range *next;
};

/* Puts node r, all of [start, end) of block, at the head of *list. */
void ts__ranges_add(struct ts__range **list, struct ts__range *r, void *block, uintptr_t start,
                    uintptr_t end);

/* Unmaps [start, end): a range inside it goes (its node to free()), one
 * that straddles it keeps its parts outside, and one that holds it with
 * room on both sides is split in two, taking *spare (a malloc'ed node,
 * set to NULL once used). Each block left with no range goes to
 * release_block. 0, or -1 when a split needed a spare and *spare was NULL
 * (then nothing changed). */
int ts__ranges_remove(struct ts__range **list, uintptr_t start, uintptr_t end, struct ts__range **spare,
                      void (*release_block)(void *block));

#ifdef __cplusplus
}
#endif

#endif
