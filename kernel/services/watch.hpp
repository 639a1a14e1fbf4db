// The job monitor's view of the ranks' waits (cluster 0): what LWMPI says
// each rank is blocked in (TS_SYS_MPI_STATE_SEND), the deadlock check, and the
// report of a job that hangs.
#pragma once

#include "kmsg.hpp"

namespace kernel {

/// Makes room for `np` MPI processes (at the job monitor's start): the
/// `world` ranks of MPI_COMM_WORLD, then the I/O rank if the job has one;
/// false when the frames are short (then no deadlock is ever seen).
bool watch_init(int np, int world);
/// Keeps the state in r (KmsgKind::mpi_state; r.tag is the rank).
void watch_note(const Kmsg &r);
/// True when the ranks are deadlocked, as far as their states say: every
/// rank that has not finalized is blocked, at one same moment, and every
/// message sent has arrived (struct ts_mpi_state says why that is enough),
/// and some MPI_COMM_WORLD rank is among the blocked: an I/O rank blocked
/// alone waits for requests, and the job ends when the world's ranks have.
bool watch_deadlocked();
/// Writes, a line each, what every rank is blocked in (or that it
/// finalized, or that nothing is known of it) and the messages sent to it
/// and not yet received.
void watch_report();

}  // namespace kernel
