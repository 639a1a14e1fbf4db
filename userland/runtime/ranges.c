/* The pages still mapped of the anonymous mappings (ranges.h). */
#include "ranges.h"

#include <stdlib.h>

void ts__ranges_add(struct ts__range **list, struct ts__range *r, void *block, uintptr_t start,
                    uintptr_t end) {
    *r = (struct ts__range){start, end, block, *list};
    *list = r;
}

/* Whether a range of block is left in list. */
static int in_use(const struct ts__range *list, const void *block) {
    for (; list; list = list->next)
        if (list->block == block) return 1;
    return 0;
}

int ts__ranges_remove(struct ts__range **list, uintptr_t start, uintptr_t end, struct ts__range **spare,
                      void (*release_block)(void *block)) {
    /* A range that holds the hole with room on both sides: ranges never
     * overlap, so it is the only one the hole touches. */
    for (struct ts__range *r = *list; r; r = r->next)
        if (r->start < start && r->end > end) {
            if (!*spare) return -1;
            ts__ranges_add(&r->next, *spare, r->block, end, r->end);
            *spare = NULL;
            r->end = start;
            return 0;
        }
    struct ts__range **link = list;
    while (*link) {
        struct ts__range *r = *link;
        if (r->end <= start || r->start >= end) {
            link = &r->next;
        } else if (r->start < start) {
            r->end = start;
            link = &r->next;
        } else if (r->end > end) {
            r->start = end;
            link = &r->next;
        } else {
            *link = r->next;
            void *block = r->block;
            free(r);
            if (!in_use(*list, block)) release_block(block);
        }
    }
    return 0;
}
