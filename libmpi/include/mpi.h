/*
 * LWMPI: the MPI C API of Tessera (a subset of MPI 3.1).
 *
 * Usable from C (C99 or later) and C++. Every handle is a plain `int`:
 * the top byte says what kind of object it names ('C' communicator,
 * 'D' datatype, 'E' error handler) and the low 24 bits index that kind's
 * table; the null handle of every kind is 0. Handles are therefore
 * compile-time constants that can be compared, switched on and stored in
 * static initializers.
 *
 * MPI processes are threads (one per MPI rank, several per compute
 * cluster); every MPI call acts on the calling rank only. The ranks of a
 * cluster share the program's global variables: declare per-rank globals
 * _Thread_local (C11) or thread_local (C++).
 */
#ifndef LWMPI_MPI_H
#define LWMPI_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the standard followed (MPI 3.1). */
#define MPI_VERSION    3
#define MPI_SUBVERSION 1

/* ---- Handle and scalar types ---------------------------------------- */

typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Errhandler;
typedef intptr_t MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;

/* ---- Communicators (kind 'C' = 0x43) -------------------------------- */

#define MPI_COMM_NULL  ((MPI_Comm)0)
#define MPI_COMM_WORLD ((MPI_Comm)0x43000001)
#define MPI_COMM_SELF  ((MPI_Comm)0x43000002)

/* ---- Predefined datatypes (kind 'D' = 0x44), MPI 3.1 section 3.2.2 -- */

#define MPI_DATATYPE_NULL      ((MPI_Datatype)0)
#define MPI_CHAR               ((MPI_Datatype)0x44000001)
#define MPI_SIGNED_CHAR        ((MPI_Datatype)0x44000002)
#define MPI_UNSIGNED_CHAR      ((MPI_Datatype)0x44000003)
#define MPI_BYTE               ((MPI_Datatype)0x44000004)
#define MPI_SHORT              ((MPI_Datatype)0x44000005)
#define MPI_UNSIGNED_SHORT     ((MPI_Datatype)0x44000006)
#define MPI_INT                ((MPI_Datatype)0x44000007)
#define MPI_UNSIGNED           ((MPI_Datatype)0x44000008)
#define MPI_LONG               ((MPI_Datatype)0x44000009)
#define MPI_UNSIGNED_LONG      ((MPI_Datatype)0x4400000a)
#define MPI_LONG_LONG_INT      ((MPI_Datatype)0x4400000b)
#define MPI_LONG_LONG          MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)0x4400000c)
#define MPI_FLOAT              ((MPI_Datatype)0x4400000d)
#define MPI_DOUBLE             ((MPI_Datatype)0x4400000e)
#define MPI_LONG_DOUBLE        ((MPI_Datatype)0x4400000f)
#define MPI_C_BOOL             ((MPI_Datatype)0x44000010)
#define MPI_INT8_T             ((MPI_Datatype)0x44000011)
#define MPI_INT16_T            ((MPI_Datatype)0x44000012)
#define MPI_INT32_T            ((MPI_Datatype)0x44000013)
#define MPI_INT64_T            ((MPI_Datatype)0x44000014)
#define MPI_UINT8_T            ((MPI_Datatype)0x44000015)
#define MPI_UINT16_T           ((MPI_Datatype)0x44000016)
#define MPI_UINT32_T           ((MPI_Datatype)0x44000017)
#define MPI_UINT64_T           ((MPI_Datatype)0x44000018)
#define MPI_WCHAR              ((MPI_Datatype)0x44000019)
#define MPI_PACKED             ((MPI_Datatype)0x4400001a)
#define MPI_AINT               ((MPI_Datatype)0x4400001b)
#define MPI_OFFSET             ((MPI_Datatype)0x4400001c)
#define MPI_COUNT              ((MPI_Datatype)0x4400001d)

/* ---- Error handlers (kind 'E' = 0x45), MPI 3.1 section 8.3 ---------- */

#define MPI_ERRHANDLER_NULL  ((MPI_Errhandler)0)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)0x45000001)
#define MPI_ERRORS_RETURN    ((MPI_Errhandler)0x45000002)

/* ---- Special values ------------------------------------------------- */

#define MPI_ANY_SOURCE (-1)
#define MPI_PROC_NULL  (-2)
#define MPI_ANY_TAG    (-1)
#define MPI_UNDEFINED  (-32766)
/* Largest tag value (the MPI_TAG_UB attribute of MPI_COMM_WORLD). */
#define LWMPI_TAG_UB   0x3fffffff
#define MPI_BOTTOM     ((void *)0)

#define MPI_MAX_ERROR_STRING   128
#define MPI_MAX_PROCESSOR_NAME 64

/* Thread support levels (MPI 3.1 section 12.4.3). */
#define MPI_THREAD_SINGLE     0
#define MPI_THREAD_FUNNELED   1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE   3

/* ---- Status (MPI 3.1 section 3.2.5) --------------------------------- */

typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int _cancelled;  /* private */
    long long _count; /* private: bytes received */
} MPI_Status;

#define MPI_STATUS_IGNORE   ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)

/* ---- Error classes (MPI 3.1 section 8.4, table 8.1) -----------------
 * In LWMPI every error code is its own error class. */

#define MPI_SUCCESS                   0
#define MPI_ERR_BUFFER                1
#define MPI_ERR_COUNT                 2
#define MPI_ERR_TYPE                  3
#define MPI_ERR_TAG                   4
#define MPI_ERR_COMM                  5
#define MPI_ERR_RANK                  6
#define MPI_ERR_REQUEST               7
#define MPI_ERR_ROOT                  8
#define MPI_ERR_GROUP                 9
#define MPI_ERR_OP                    10
#define MPI_ERR_TOPOLOGY              11
#define MPI_ERR_DIMS                  12
#define MPI_ERR_ARG                   13
#define MPI_ERR_UNKNOWN               14
#define MPI_ERR_TRUNCATE              15
#define MPI_ERR_OTHER                 16
#define MPI_ERR_INTERN                17
#define MPI_ERR_IN_STATUS             18
#define MPI_ERR_PENDING               19
#define MPI_ERR_KEYVAL                20
#define MPI_ERR_NO_MEM                21
#define MPI_ERR_BASE                  22
#define MPI_ERR_INFO_KEY              23
#define MPI_ERR_INFO_VALUE            24
#define MPI_ERR_INFO_NOKEY            25
#define MPI_ERR_SPAWN                 26
#define MPI_ERR_PORT                  27
#define MPI_ERR_SERVICE               28
#define MPI_ERR_NAME                  29
#define MPI_ERR_WIN                   30
#define MPI_ERR_SIZE                  31
#define MPI_ERR_DISP                  32
#define MPI_ERR_INFO                  33
#define MPI_ERR_LOCKTYPE              34
#define MPI_ERR_ASSERT                35
#define MPI_ERR_RMA_CONFLICT          36
#define MPI_ERR_RMA_SYNC              37
#define MPI_ERR_RMA_RANGE             38
#define MPI_ERR_RMA_ATTACH            39
#define MPI_ERR_RMA_SHARED            40
#define MPI_ERR_RMA_FLAVOR            41
#define MPI_ERR_FILE                  42
#define MPI_ERR_NOT_SAME              43
#define MPI_ERR_AMODE                 44
#define MPI_ERR_UNSUPPORTED_DATAREP   45
#define MPI_ERR_UNSUPPORTED_OPERATION 46
#define MPI_ERR_NO_SUCH_FILE          47
#define MPI_ERR_FILE_EXISTS           48
#define MPI_ERR_BAD_FILE              49
#define MPI_ERR_ACCESS                50
#define MPI_ERR_NO_SPACE              51
#define MPI_ERR_QUOTA                 52
#define MPI_ERR_READ_ONLY             53
#define MPI_ERR_FILE_IN_USE           54
#define MPI_ERR_DUP_DATAREP           55
#define MPI_ERR_CONVERSION            56
#define MPI_ERR_IO                    57
#define MPI_ERR_LASTCODE              57

/* ---- Environment (MPI 3.1 chapter 8) -------------------------------- */

/* Starts MPI for the calling rank: links its name, opens its mailbox and
 * portal. argc/argv may be NULL and are not changed. Calling it twice is
 * MPI_ERR_OTHER. (section 8.7) */
int MPI_Init(int *argc, char ***argv);
/* As MPI_Init; *provided is MPI_THREAD_SINGLE, whatever `required` asks
 * for; MPI_ERR_ARG when provided is NULL. (section 12.4.3) */
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
/* Barrier over MPI_COMM_WORLD, then releases the rank's name and IKC
 * resources. (section 8.7) A rank that ends (returns from main, calls
 * exit) after MPI_Init without MPI_Finalize ends the whole job: it prints
 * "MPI error: rank N exited with status S without calling MPI_Finalize"
 * and the job exits with S, or 1 if S is 0. */
int MPI_Finalize(void);
/* *flag = 1 once MPI_Init has completed. Callable at any time. */
int MPI_Initialized(int *flag);
/* *flag = 1 once MPI_Finalize has completed. Callable at any time. */
int MPI_Finalized(int *flag);
/* Ends the whole job after the calling rank's buffered output. The job's
 * exit status is errorcode & 0xff, or 1 when that is 0 but errorcode is
 * not (e.g. 256); 0 only for errorcode 0. Does not return. (section 8.7) */
int MPI_Abort(MPI_Comm comm, int errorcode);
/* MPI_VERSION and MPI_SUBVERSION. Callable at any time. (section 8.1.1) */
int MPI_Get_version(int *version, int *subversion);
/* "cluster<id>", the compute cluster that hosts the rank. (section 8.1.2) */
int MPI_Get_processor_name(char *name, int *resultlen);
/* Seconds since an arbitrary origin, from the `time` CSR. (section 8.6) */
double MPI_Wtime(void);
/* Seconds between two ticks of MPI_Wtime. (section 8.6) */
double MPI_Wtick(void);

/* ---- Errors (MPI 3.1 sections 8.3-8.4) ------------------------------ */

/* MPI_ERRORS_ARE_FATAL (the default) prints, after the rank's buffered
 * output, "MPI error: rank <rank>: <function>: <string> (<details>)" and
 * ends the job with the error class as exit status; MPI_ERRORS_RETURN
 * returns the error class to the caller. */
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);
/* Text of an error code (at most MPI_MAX_ERROR_STRING bytes with the NUL);
 * MPI_ERR_ARG for an unknown code. */
int MPI_Error_string(int errorcode, char *string, int *resultlen);
/* The class of an error code; MPI_ERR_ARG for an unknown code. */
int MPI_Error_class(int errorcode, int *errorclass);

/* ---- Communicators and datatypes ------------------------------------ */

/* Errors of every call below that takes a communicator go to its error
 * handler; an invalid communicator (MPI_ERR_COMM) to MPI_COMM_WORLD's.
 * Calls before MPI_Init or after MPI_Finalize raise MPI_ERR_OTHER. */

/* The caller's rank in comm (0..size-1); MPI_ERR_ARG for a NULL rank.
 * (section 6.4.1) */
int MPI_Comm_rank(MPI_Comm comm, int *rank);
/* The number of ranks in comm; MPI_ERR_ARG for a NULL size. (6.4.1) */
int MPI_Comm_size(MPI_Comm comm, int *size);
/* Bytes of one element of `datatype`; MPI_ERR_TYPE. (section 4.1.5) */
int MPI_Type_size(MPI_Datatype datatype, int *size);

/* ---- Point-to-point (MPI 3.1 chapter 3) ----------------------------- */

/* Blocking send of count elements (section 3.2.1). In this version every
 * send is synchronous (it returns once the receiver has the data), so
 * MPI_Send is MPI_Ssend (3.4). It waits, without a time limit, for a
 * destination that has not called MPI_Init yet. A send that could never
 * complete raises MPI_ERR_OTHER at once: to the caller itself, or to a
 * rank that is sending to the caller at the same time (head to head).
 * Errors: MPI_ERR_COMM, MPI_ERR_COUNT (count < 0), MPI_ERR_TYPE,
 * MPI_ERR_BUFFER (NULL with count > 0), MPI_ERR_RANK (not 0..size-1 or
 * MPI_PROC_NULL), MPI_ERR_TAG (not 0..LWMPI_TAG_UB), MPI_ERR_OTHER (as
 * above, IKC failure), MPI_ERR_INTERN. */
int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest,
             int tag, MPI_Comm comm);
int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest,
              int tag, MPI_Comm comm);
/* Blocking receive (section 3.2.4) of the oldest matching message
 * (source or MPI_ANY_SOURCE, tag or MPI_ANY_TAG; non-overtaking, 3.5).
 * A message longer than the buffer fills the buffer and raises
 * MPI_ERR_TRUNCATE (status then counts what was stored). Errors as
 * MPI_Send, with MPI_ANY_SOURCE and MPI_ANY_TAG allowed; a receive from
 * the caller itself (MPI_COMM_SELF included) is MPI_ERR_OTHER at once. status may be
 * MPI_STATUS_IGNORE; its MPI_ERROR field is not set. */
int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source,
             int tag, MPI_Comm comm, MPI_Status *status);
/* Elements of `datatype` received; MPI_UNDEFINED when the bytes received
 * are not a whole number of elements. (section 3.2.5) */
int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count);

/* ---- Collectives (MPI 3.1 chapter 5) -------------------------------- */

/* Returns once every rank of comm has called it (section 5.3). */
int MPI_Barrier(MPI_Comm comm);

#ifdef __cplusplus
}
#endif

#endif /* LWMPI_MPI_H */
