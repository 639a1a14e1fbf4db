// The buffer of MPI_Bsend (MPI 3.1 section 3.6): one per rank, attached by
// the program; buffered sends copy their message into it and it is given
// back once they have left.
#pragma once

#include <stdint.h>

namespace lwmpi {

/// A block of `bytes` bytes of the attached buffer in *out;
/// MPI_ERR_BUFFER when no buffer is attached or it has no room.
int bsend_reserve(uint64_t bytes, void **out);
/// Gives back a block from bsend_reserve.
void bsend_release(void *block);
/// Detaches the buffer, if any, and frees the block table (MPI_Finalize:
/// the buffered messages have left).
void bsend_finalize();
/// The attached buffer, nullptr when none, and its size into *size.
void *bsend_buffer(uint64_t *size);
/// Attaches `buffer` of `size` bytes (none is attached).
void bsend_attach(void *buffer, uint64_t size);
/// Buffered messages in the buffer that have not left yet.
int bsend_pending();
/// True when `p` is a block of the attached buffer.
bool bsend_owns(const void *p);

}  // namespace lwmpi
