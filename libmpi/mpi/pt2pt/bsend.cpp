// The attached buffer of MPI_Bsend: blocks handed out first fit, in
// address order, each headed by its length.
#include "bsend.hpp"

#include <mpi.h>
#include <stdlib.h>

#include <lwmpi/rank_local.hpp>
#include <mpiutil/mpiutil.hpp>

namespace lwmpi {

namespace {

struct Block {
    uint64_t offset;  ///< from the buffer's start, of the header
    uint64_t length;  ///< header included
};

// MPI_BSEND_OVERHEAD covers the header and the alignment of each block.
constexpr uint64_t align = 16;
static_assert(align <= MPI_BSEND_OVERHEAD);

/// Messages an attached buffer holds at once: as many as requests, which
/// each also takes until it has left (threads of a rank may have
/// thousands in flight together).
constexpr int max_blocks = util::max_requests;
/// Entries of the block table when it is first needed (then doubled).
constexpr int first_blocks = 16;

// Only a program that attaches a buffer pays for its block table: made by
// the first buffered send, grown as more are in the buffer at once, freed
// when the buffer is detached.
struct Attached {
    char *base;
    uint64_t size;
    Block *blocks;  ///< in use, by offset (heap, `capacity` entries)
    int nblocks;
    int capacity;
};

thread_local util::RankLocal<Attached> t_buffer;

constexpr uint64_t round_up(uint64_t n) { return (n + align - 1) / align * align; }

}  // namespace

int bsend_reserve(uint64_t bytes, void **out) {
    Attached &b = t_buffer.get();
    if (!b.base) return MPI_ERR_BUFFER;
    const uint64_t need = round_up(bytes) + align;
    uint64_t at = round_up(reinterpret_cast<uintptr_t>(b.base)) - reinterpret_cast<uintptr_t>(b.base);
    int i = 0;
    for (; i < b.nblocks && at + need > b.blocks[i].offset; ++i)
        at = b.blocks[i].offset + b.blocks[i].length;
    if (at + need > b.size || b.nblocks == max_blocks) return MPI_ERR_BUFFER;
    if (b.nblocks == b.capacity) {
        const int cap =
            b.capacity ? (2 * b.capacity < max_blocks ? 2 * b.capacity : max_blocks) : first_blocks;
        auto *grown = static_cast<Block *>(realloc(b.blocks, sizeof(Block) * static_cast<size_t>(cap)));
        if (!grown) return MPI_ERR_NO_MEM;
        b.blocks = grown;
        b.capacity = cap;
    }
    for (int j = b.nblocks++; j > i; --j)
        b.blocks[j] = b.blocks[j - 1];
    b.blocks[i] = Block{at, need};
    *out = b.base + at + align;
    return MPI_SUCCESS;
}

void bsend_release(void *block) {
    Attached &b = t_buffer.get();
    const uint64_t offset = static_cast<uint64_t>(static_cast<char *>(block) - b.base) - align;
    int i = 0;
    while (i < b.nblocks && b.blocks[i].offset != offset)
        ++i;
    for (--b.nblocks; i < b.nblocks; ++i)
        b.blocks[i] = b.blocks[i + 1];
}

void bsend_finalize() {
    Attached &b = t_buffer.get();
    free(b.blocks);
    b = Attached{};
}

void *bsend_buffer(uint64_t *size) {
    const Attached &b = t_buffer.get();
    *size = b.size;
    return b.base;
}

void bsend_attach(void *buffer, uint64_t size) {
    Attached &b = t_buffer.get();
    b.base = static_cast<char *>(buffer);
    b.size = size;
    b.nblocks = 0;
}

int bsend_pending() { return t_buffer.get().nblocks; }

bool bsend_owns(const void *p) {
    const Attached &b = t_buffer.get();
    const char *c = static_cast<const char *>(p);
    return b.base && c >= b.base && c < b.base + b.size;
}

}  // namespace lwmpi
