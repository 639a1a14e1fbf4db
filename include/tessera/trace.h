/*
 * The trace of a job (mpirun --trace FILE): what each core of a cluster
 * records, in the kernel, while the job runs with TS_MANIFEST_TRACE.
 *
 * Each core has two rings of fixed size, allocated at boot only when the
 * job is traced: TS_TRACE_RING_MPI holds what the MPI library records
 * (TS_SYS_TRACE_RECORD), TS_TRACE_RING_KERNEL what the kernel records
 * itself (kernel calls, IKC transfers), so that a rank that polls (many
 * kernel calls) cannot crowd out its MPI events. A ring is written only
 * by its own core and never wraps: an event that finds it full is counted
 * as lost. TS_SYS_TRACE_READ copies a ring out (header, then its events);
 * LWMPI's MPI_Finalize writes them into the job folder, and
 * tools/tessera/trace.py makes the trace-event JSON of them.
 *
 * Times are ticks of the platform timer (ts_job_info.timebase_hz per
 * second), shared by every core and cluster of the machine.
 * tools/tessera/abi.py reads this header: only defines and structs.
 */
#ifndef TESSERA_TRACE_H
#define TESSERA_TRACE_H

#include <stdint.h>

#define TS_TRACE_MAGIC   0x52545354u /* "TSTR": a ring's dump */
#define TS_TRACE_VERSION 1

/* Rings of a core (TS_SYS_TRACE_READ's `ring`). */
#define TS_TRACE_RING_MPI    0
#define TS_TRACE_RING_KERNEL 1
#define TS_TRACE_RINGS       2

/* ts_trace_event.kind. MPI events (recorded by LWMPI):
 *   MPI_ENTER  an MPI call begins; b, c: its name without "MPI_", up to
 *              16 bytes, NUL-padded
 *   MPI_LEAVE  it returns; b, c as for ENTER
 *   MPI_SEND   a send starts: a = destination world rank, b = tag,
 *              c = context id (communicator), d = bytes
 *   MPI_RECV   a receive matched a message: a = source world rank,
 *              b = tag, c = context, d = bytes sent
 * TS_SYS_TRACE_RECORD takes kinds 1..TS_TRACE_MPI_LAST. */
#define TS_TRACE_MPI_ENTER 1
#define TS_TRACE_MPI_LEAVE 2
#define TS_TRACE_MPI_SEND  3
#define TS_TRACE_MPI_RECV  4
#define TS_TRACE_MPI_LAST  4
/* Kernel events (recorded by the kernel):
 *   KCALL       a kernel call: time..end, a = number, b = result
 *   IKC_POST    a transfer left: a = destination cluster, b = port,
 *               c = TS_TRACE_MAILBOX or TS_TRACE_PORTAL, d = bytes
 *   IKC_ARRIVE  it reached this cluster's kernel: a = source cluster,
 *               b = port, c, d as for POST
 *   IKC_READ    its reader took it: a, b, c, d as for ARRIVE */
#define TS_TRACE_KCALL      16
#define TS_TRACE_IKC_POST   17
#define TS_TRACE_IKC_ARRIVE 18
#define TS_TRACE_IKC_READ   19

#define TS_TRACE_MAILBOX 0
#define TS_TRACE_PORTAL  1

/* One event (48 bytes). */
struct ts_trace_event {
    uint64_t time; /* ticks */
    uint64_t end;  /* TS_TRACE_KCALL: when it returned; else = time */
    uint16_t kind; /* TS_TRACE_* */
    int16_t rank;  /* the MPI rank of the caller, or -1 */
    int32_t a;
    int64_t b;
    uint64_t c;
    uint64_t d;
};

/* What TS_SYS_TRACE_READ writes before the ring's events (48 bytes). */
struct ts_trace_header {
    uint32_t magic;      /* TS_TRACE_MAGIC */
    uint16_t version;    /* TS_TRACE_VERSION */
    uint16_t event_size; /* sizeof(struct ts_trace_event) */
    uint16_t cluster;    /* the ring's cluster and core */
    uint16_t core;
    uint16_t ring; /* TS_TRACE_RING_* */
    uint16_t reserved;
    uint32_t count;       /* events that follow */
    uint32_t capacity;    /* events the ring holds */
    uint64_t lost;        /* events that found the ring full */
    uint64_t timebase_hz; /* ticks per second */
    uint64_t read_at;     /* when the ring was read, ticks */
};

#endif
