// MPIUtil's one-sided transport (docs/lwmpi.md, "One-sided communication"): how
// LibMPI's RMA windows reach another rank's memory. Each rank has one IKC
// window (os::window_*), made at its first rma_self(), through which it
// exposes the memory of all its MPI windows; another rank writes, reads
// and updates that memory at the owner's own addresses, the owner's
// kernel doing the work with no action by the owner. Ranks of one cluster
// that share memory (threads, or processes with aliases) skip the kernel:
// they copy through the global form of the target's address (os.hpp,
// "Aliasing"), the same memory the kernel would write, so there is one
// copy of a window's memory (MPI_WIN_UNIFIED).
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace lwmpi::util {

/// What a rank tells the others about its memory (plain data, exchanged
/// as bytes when a window is made).
struct RmaPeer {
    int32_t cluster;  ///< its cluster id
    int32_t key;      ///< its IKC window's key
    int32_t shared;   ///< 1: the ranks of its cluster reach its memory by load and store
    int32_t pad;
    uint64_t area_base, area_size, area_shift;  ///< its os::Aliasing
};

/// The caller's RmaPeer; makes its IKC window the first time. MPI_SUCCESS
/// or MPI_ERR_OTHER (error_detail()).
int rma_self(RmaPeer *out);

/// Exposes [base, base + size) of the caller's memory to the others (size
/// 0: nothing). Regions may overlap or repeat (two MPI windows over one
/// buffer): they are merged and counted. MPI_ERR_OTHER when the kernel
/// refuses (too many regions; error_detail()).
int rma_expose(void *base, size_t size);
/// Undoes one rma_expose(base, size).
void rma_withdraw(void *base, size_t size);

/// Whether `p` is reached by load and store from the caller (same
/// cluster, shared memory).
bool rma_direct(const RmaPeer &p);
/// The caller's pointer to address `addr` of direct peer `p`.
void *rma_pointer(const RmaPeer &p, uint64_t addr);

/// How rma_put and rma_get reach the target's memory.
enum class Path : uint8_t {
    any,     ///< directly when rma_direct(p), else through the kernel
    kernel,  ///< through the kernel always (memory only it can check: a dynamic window's)
    memory,  ///< directly always (memory shared but not exposed: MPI_Win_allocate_shared's)
};

/// Copies n bytes from buf to address `addr` of `p` (kernel: complete
/// locally, landed by the next rma_flush, rma_get or rma_atomic to p).
/// Errors: MPI_ERR_RMA_RANGE (not exposed), MPI_ERR_OTHER.
int rma_put(const RmaPeer &p, uint64_t addr, const void *buf, size_t n, Path path = Path::any);
int rma_get(const RmaPeer &p, uint64_t addr, void *buf, size_t n, Path path = Path::any);
/// Every earlier put to p has landed. MPI_ERR_RMA_RANGE when one hit
/// memory p does not expose.
int rma_flush(const RmaPeer &p);
/// The remote atomics (TS_WINDOW_CAS, _FADD, _SWAP).
enum class Atomic : uint8_t {
    cas,   ///< stores operand if the word equals compare
    fadd,  ///< adds operand (modulo 2^64)
    swap,  ///< stores operand
};
/// Atomic `kind` on the aligned 64-bit word at `addr` of p; *old (may be
/// null) gets its old value.
int rma_atomic(const RmaPeer &p, uint64_t addr, Atomic kind, uint64_t operand, uint64_t compare,
               uint64_t *old = nullptr);

/// A wait for a word of another rank's to change, after `tries` looks
/// that found it unchanged: yields the core for the first few, then
/// sleeps (1 us doubling to 256 us), so that on a machine whose cores
/// share one host thread (QEMU) the rank that will change the word gets
/// to run.
void rma_backoff(int tries);

/// The global form of the caller's pointer p (os::global): where the
/// ranks of its cluster reach that memory.
void *rma_global(const void *p);

/// Frees the caller's IKC window (MPI_Finalize).
void rma_finalize();

}  // namespace lwmpi::util
