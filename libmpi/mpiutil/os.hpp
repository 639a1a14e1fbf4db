// The operating-system services MPIUtil uses, in one narrow interface.
//
// On the target, os_tessera.cpp forwards each call to the Tessera user
// runtime (<tessera/runtime.h>) and the name client (<tessera/names.h>),
// with the same arguments and the same negative -TS_E* error returns. The
// host unit tests link a simulated fabric instead (tests/fake_os.cpp), so
// the real LWMPI code runs with threads as ranks.
#pragma once

#include <stddef.h>
#include <stdint.h>

struct ts_job_info;
struct ts_ring;

namespace lwmpi::os {

/// The job and cluster of the caller (never null).
const ts_job_info *job();
/// The core of its cluster that runs the caller (0 is the master).
int core();
/// The caller's MPI_COMM_WORLD rank, or -1 in a non-MPI program.
int rank();
/// The caller's index among the MPI processes of its cluster, or -1.
int local_index();

/// Memory shared by the MPI processes of the caller's cluster and only
/// them (they are threads of one process): `size` bytes, zero at the
/// start of the job; the same pointer on every call. nullptr when size
/// exceeds what the platform gives.
void *cluster_shared(size_t size);

/// Ticks of job()->timebase_hz since an arbitrary origin.
unsigned long time();
void sleep_ns(unsigned long ns);
/// Lets the other cores of the host run a moment (ts_thread_yield).
void yield();

/// Writes `n` bytes to the console in one piece.
void console_write(const char *s, size_t n);
/// Writes out the caller's buffered stdio output; true when that output
/// ends in the middle of a line (ts_console_flush).
bool console_flush();
/// Ends the whole job with exit status `code`.
[[noreturn]] void abort_job(int code);

// IKC, as in <tessera/syscall.h>: ids >= 0, errors are -TS_E*.
int mailbox_create(int port);
int mailbox_open(int local_port, int cluster, int port);
/// Asynchronous write: 0 once started; mailbox_test() returns what
/// ts_mailbox_write would have once it is done, -TS_EAGAIN while it runs.
/// (MPIUtil reads its mailbox through a ring: mailbox_ring below.)
long mailbox_awrite(int id, const void *buf, size_t size);
long mailbox_test(int id);
/// A write that never waits: size, or -TS_EAGAIN when the receiver has no
/// room yet (nothing was written).
long mailbox_trywrite(int id, const void *buf, size_t size);
/// Arrivals of input mailbox `id` go into `ring` from now on (nslots
/// slots, TS_RING_BYTES of memory): 0, TS_RING_PULL (take them with
/// mailbox_drain() when the ring is empty) or -TS_E*.
long mailbox_ring(int id, ts_ring *ring, unsigned nslots);
/// Moves what arrived for `id` into its ring: messages moved, or -TS_E*.
long mailbox_drain(int id);
/// Messages waiting for input mailbox `id` (TS_IKC_IOCTL_STATS's parked).
long mailbox_parked(int id);
int mailbox_close(int id);
int mailbox_unlink(int id);

int portal_create(int port);
/// Lets (cluster, port) write its transfer tagged `tag` to input portal id.
int portal_allow(int id, int cluster, int port, uint32_t tag);
int portal_open(int local_port, int cluster, int port);
/// Asynchronous reads and writes only, as for mailboxes. A read takes a
/// transfer of `transfer` bytes (0: size), keeps the first `size` in buf
/// and drops the rest; a write waits for its receiver's allow of `tag`.
long portal_aread(int id, void *buf, size_t size, size_t transfer);
long portal_awrite(int id, const void *buf, size_t size, uint32_t tag);
long portal_wait(int id);
long portal_test(int id);
/// As portal_test, but a write that has moved no byte yet is cancelled:
/// -TS_ECANCELED (ts_portal_cancel).
long portal_cancel(int id);
/// Sleeps while the caller's count of events is `seen`, at most
/// timeout_ns (0: no timeout): that count (>= 0), or -TS_E*. Events: an
/// asynchronous operation the caller started (any of these) finished, an
/// ikc_wake() for it, a message put in its ring while the ring's `wake`
/// was set.
long ikc_wait_any(unsigned long seen, unsigned long timeout_ns);
/// An event for the MPI process of the caller's cluster on core `core`:
/// 0, or -TS_E*.
int ikc_wake(int core);
int portal_close(int id);
int portal_unlink(int id);

// Names through the local name daemon (<tessera/names.h>): 0 on
// success, -TS_E* otherwise (-TS_ENOENT: not registered yet).
int name_register(const char *name, int port);
/// A resolution in two steps (ts_name_resolve_start, _test): test gives
/// -TS_EAGAIN until the daemon's answer is in; the ends of its write and
/// read are events of ikc_wait_any().
int name_resolve_start(const char *name);
int name_resolve_test(int *cluster, int *port);
int name_unregister(const char *name);

}  // namespace lwmpi::os

namespace lwmpi::util {

/// The one call the OS makes into MPIUtil (ts_rank_exit_hook): the calling
/// thread ends with `status`. When it is a rank between init() and
/// finalize(), reports it and ends the job with `status` (1 if that is 0),
/// since the other ranks would wait for it forever. True when the thread
/// is a rank that called init() (the runtime leaves the others to itself).
bool rank_exit(int status);

}  // namespace lwmpi::util
