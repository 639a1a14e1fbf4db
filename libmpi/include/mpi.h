/*
 * LWMPI: the MPI C API of Tessera (a subset of MPI 3.1).
 *
 * Usable from C (C99 or later) and C++. Every handle is a plain `int`:
 * the top byte says what kind of object it names ('C' communicator,
 * 'D' datatype, 'E' error handler, 'F' file, 'G' group, 'I' info, 'K'
 * attribute key, 'O' operation, 'R' request, 'W' window) and the low 24
 * bits index that kind's table; the null handle of every kind is 0 but
 * MPI_FILE_NULL's, which carries an error handler (MPI 3.1 section 13.7). Handles are therefore
 * compile-time constants that can be compared, switched on and stored in
 * static initializers.
 *
 * Every MPI call acts on the calling MPI process (rank) only. Several
 * ranks share a compute cluster: as processes of their own (mpirun
 * --ranks processes), each with its own global and static variables, heap
 * and stack; or as threads of one process (--ranks threads), which share
 * the program's global variables: there, declare per-rank globals
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
typedef int MPI_Group;
typedef int MPI_Op;
typedef int MPI_Request;
typedef int MPI_Message;
typedef int MPI_Info;
typedef int MPI_Win;
typedef int MPI_File;
typedef intptr_t MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;

/* ---- Communicators (kind 'C' = 0x43) -------------------------------- */

#define MPI_COMM_NULL  ((MPI_Comm)0)
#define MPI_COMM_WORLD ((MPI_Comm)0x43000001)
#define MPI_COMM_SELF  ((MPI_Comm)0x43000002)
/* Tessera's extension (MPPA-MPI's local communicator; docs/lwmpi.md, "The
 * I/O rank"): every MPI_COMM_WORLD rank, keeping its rank, then the job's
 * I/O rank (mpirun --io-rank) if it has one, as the last rank. In the I/O
 * rank, MPI_COMM_WORLD holds the I/O rank alone. Predefined like
 * MPI_COMM_WORLD: valid from MPI_Init to MPI_Finalize, never freed. */
#define MPIX_COMM_LOCAL ((MPI_Comm)0x43000003)

/* MPI_Comm_split_type's split types (MPI 3.1 section 6.4.2): ranks that
 * share memory are the ranks of one compute cluster. */
#define MPI_COMM_TYPE_SHARED 1

/* ---- Info objects (kind 'I' = 0x49), MPI 3.1 chapter 9 ------------- */

#define MPI_INFO_NULL ((MPI_Info)0)
/* What mpirun told the rank (section 10.5.5): "maxprocs" (the size of
 * MPI_COMM_WORLD) and, when MPI_Init was given argc and argv, "command"
 * (argv[0]) and "argv" (the other arguments, separated by spaces). */
#define MPI_INFO_ENV ((MPI_Info)0x49000001)
/* Keys are 1..MPI_MAX_INFO_KEY-1 characters, values at most
 * MPI_MAX_INFO_VAL-1, so either fits with its NUL in a buffer of that
 * many bytes. */
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024

/* ---- Predefined datatypes (kind 'D' = 0x44), MPI 3.1 section 3.2.2 -- */

#define MPI_DATATYPE_NULL         ((MPI_Datatype)0)
#define MPI_CHAR                  ((MPI_Datatype)0x44000001)
#define MPI_SIGNED_CHAR           ((MPI_Datatype)0x44000002)
#define MPI_UNSIGNED_CHAR         ((MPI_Datatype)0x44000003)
#define MPI_BYTE                  ((MPI_Datatype)0x44000004)
#define MPI_SHORT                 ((MPI_Datatype)0x44000005)
#define MPI_UNSIGNED_SHORT        ((MPI_Datatype)0x44000006)
#define MPI_INT                   ((MPI_Datatype)0x44000007)
#define MPI_UNSIGNED              ((MPI_Datatype)0x44000008)
#define MPI_LONG                  ((MPI_Datatype)0x44000009)
#define MPI_UNSIGNED_LONG         ((MPI_Datatype)0x4400000a)
#define MPI_LONG_LONG_INT         ((MPI_Datatype)0x4400000b)
#define MPI_LONG_LONG             MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG    ((MPI_Datatype)0x4400000c)
#define MPI_FLOAT                 ((MPI_Datatype)0x4400000d)
#define MPI_DOUBLE                ((MPI_Datatype)0x4400000e)
#define MPI_LONG_DOUBLE           ((MPI_Datatype)0x4400000f)
#define MPI_C_BOOL                ((MPI_Datatype)0x44000010)
#define MPI_INT8_T                ((MPI_Datatype)0x44000011)
#define MPI_INT16_T               ((MPI_Datatype)0x44000012)
#define MPI_INT32_T               ((MPI_Datatype)0x44000013)
#define MPI_INT64_T               ((MPI_Datatype)0x44000014)
#define MPI_UINT8_T               ((MPI_Datatype)0x44000015)
#define MPI_UINT16_T              ((MPI_Datatype)0x44000016)
#define MPI_UINT32_T              ((MPI_Datatype)0x44000017)
#define MPI_UINT64_T              ((MPI_Datatype)0x44000018)
#define MPI_WCHAR                 ((MPI_Datatype)0x44000019)
#define MPI_PACKED                ((MPI_Datatype)0x4400001a)
#define MPI_AINT                  ((MPI_Datatype)0x4400001b)
#define MPI_OFFSET                ((MPI_Datatype)0x4400001c)
#define MPI_COUNT                 ((MPI_Datatype)0x4400001d)
#define MPI_C_FLOAT_COMPLEX       ((MPI_Datatype)0x4400001e)
#define MPI_C_COMPLEX             MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX      ((MPI_Datatype)0x4400001f)
#define MPI_C_LONG_DOUBLE_COMPLEX ((MPI_Datatype)0x44000020)
/* Pair types for MPI_MINLOC and MPI_MAXLOC (section 5.9.4): a value and an
 * int index, laid out as the C struct {value; int index;}. */
#define MPI_FLOAT_INT       ((MPI_Datatype)0x44000021)
#define MPI_DOUBLE_INT      ((MPI_Datatype)0x44000022)
#define MPI_LONG_INT        ((MPI_Datatype)0x44000023)
#define MPI_2INT            ((MPI_Datatype)0x44000024)
#define MPI_SHORT_INT       ((MPI_Datatype)0x44000025)
#define MPI_LONG_DOUBLE_INT ((MPI_Datatype)0x44000026)
/* MPI-1's bound markers (removed in MPI 3.0; see "Deprecated" below): no
 * data, size and extent 0; in a type constructor, the lowest MPI_LB and
 * the highest MPI_UB set the new type's lb and ub, which then stick in
 * the types built from it, as those of MPI_Type_create_resized do. */
#define MPI_LB ((MPI_Datatype)0x44000027)
#define MPI_UB ((MPI_Datatype)0x44000028)
/* Fortran's types (section 3.2.2 and Annex A.1.1), which C programs written
 * for MPICH and Open MPI pass too. LWMPI has no Fortran bindings: each is
 * a type of its own (MPI_Type_get_name gives its name) laid out as the C
 * type of its size: CHARACTER a char, INTEGER and LOGICAL an int, REAL a
 * float, DOUBLE PRECISION a double, the COMPLEX types two of those. The
 * reductions treat them by their Fortran group (section 5.9.2): LOGICAL
 * takes the logical operations only. MPI_2REAL, MPI_2DOUBLE_PRECISION and
 * MPI_2INTEGER are MPI_MINLOC's and MPI_MAXLOC's pairs whose index has the
 * value's type (section 5.9.4). */
#define MPI_CHARACTER         ((MPI_Datatype)0x44000029)
#define MPI_LOGICAL           ((MPI_Datatype)0x4400002a)
#define MPI_INTEGER           ((MPI_Datatype)0x4400002b)
#define MPI_REAL              ((MPI_Datatype)0x4400002c)
#define MPI_DOUBLE_PRECISION  ((MPI_Datatype)0x4400002d)
#define MPI_COMPLEX           ((MPI_Datatype)0x4400002e)
#define MPI_DOUBLE_COMPLEX    ((MPI_Datatype)0x4400002f)
#define MPI_2REAL             ((MPI_Datatype)0x44000030)
#define MPI_2DOUBLE_PRECISION ((MPI_Datatype)0x44000031)
#define MPI_2INTEGER          ((MPI_Datatype)0x44000032)
#define MPI_INTEGER1          ((MPI_Datatype)0x44000033)
#define MPI_INTEGER2          ((MPI_Datatype)0x44000034)
#define MPI_INTEGER4          ((MPI_Datatype)0x44000035)
#define MPI_INTEGER8          ((MPI_Datatype)0x44000036)
#define MPI_REAL4             ((MPI_Datatype)0x44000037)
#define MPI_REAL8             ((MPI_Datatype)0x44000038)
#define MPI_COMPLEX8          ((MPI_Datatype)0x44000039)
#define MPI_COMPLEX16         ((MPI_Datatype)0x4400003a)
/* Half precision has no C type on Tessera's ABIs: MPI_DATATYPE_NULL, as
 * MPICH defines the optional types it lacks (Annex A.1.1). */
#define MPI_REAL2    MPI_DATATYPE_NULL
#define MPI_COMPLEX4 MPI_DATATYPE_NULL
/* C++'s types (section 3.2.2), available in C as the standard asks: bool
 * and std::complex of float, double and long double, laid out as C's
 * _Bool and _Complex types. */
#define MPI_CXX_BOOL                ((MPI_Datatype)0x4400003b)
#define MPI_CXX_FLOAT_COMPLEX       ((MPI_Datatype)0x4400003c)
#define MPI_CXX_DOUBLE_COMPLEX      ((MPI_Datatype)0x4400003d)
#define MPI_CXX_LONG_DOUBLE_COMPLEX ((MPI_Datatype)0x4400003e)
/* Sixteen-byte Fortran types (section 3.2.2's optional ones): a two's
 * complement __int128, and IEEE binary128 (riscv64's long double,
 * x86-64's __float128) with its complex pair. */
#define MPI_INTEGER16 ((MPI_Datatype)0x4400003f)
#define MPI_REAL16    ((MPI_Datatype)0x44000040)
#define MPI_COMPLEX32 ((MPI_Datatype)0x44000041)
/* Handles of datatypes made by MPI_Type_* start above the predefined ones. */

/* ---- Error handlers (kind 'E' = 0x45), MPI 3.1 section 8.3 ---------- */

#define MPI_ERRHANDLER_NULL  ((MPI_Errhandler)0)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)0x45000001)
#define MPI_ERRORS_RETURN    ((MPI_Errhandler)0x45000002)
/* MPI 4.0's MPI_ERRORS_ABORT: as MPI_ERRORS_ARE_FATAL (in LWMPI the job is
 * the only group of processes a communicator can hold). */
#define MPI_ERRORS_ABORT ((MPI_Errhandler)0x45000003)

/* ---- Groups (kind 'G' = 0x47), MPI 3.1 section 6.3 ------------------ */

#define MPI_GROUP_NULL  ((MPI_Group)0)
#define MPI_GROUP_EMPTY ((MPI_Group)0x47000001)

/* ---- Reduction operations (kind 'O' = 0x4f), MPI 3.1 section 5.9.2 -- */

#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_MAX     ((MPI_Op)0x4f000001)
#define MPI_MIN     ((MPI_Op)0x4f000002)
#define MPI_SUM     ((MPI_Op)0x4f000003)
#define MPI_PROD    ((MPI_Op)0x4f000004)
#define MPI_LAND    ((MPI_Op)0x4f000005)
#define MPI_BAND    ((MPI_Op)0x4f000006)
#define MPI_LOR     ((MPI_Op)0x4f000007)
#define MPI_BOR     ((MPI_Op)0x4f000008)
#define MPI_LXOR    ((MPI_Op)0x4f000009)
#define MPI_BXOR    ((MPI_Op)0x4f00000a)
#define MPI_MINLOC  ((MPI_Op)0x4f00000b)
#define MPI_MAXLOC  ((MPI_Op)0x4f00000c)
#define MPI_REPLACE ((MPI_Op)0x4f00000d)
#define MPI_NO_OP   ((MPI_Op)0x4f00000e)

/* ---- Requests (kind 'R' = 0x52), MPI 3.1 section 3.7 ---------------- */

#define MPI_REQUEST_NULL ((MPI_Request)0)

/* ---- Matched messages (kind 'M' = 0x4d), MPI 3.1 section 3.8.2 ------ */

#define MPI_MESSAGE_NULL    ((MPI_Message)0)
#define MPI_MESSAGE_NO_PROC ((MPI_Message)0x4dffffff)

/* ---- Windows (kind 'W' = 0x57), MPI 3.1 chapter 11 ----------------- */

#define MPI_WIN_NULL ((MPI_Win)0)

/* ---- Special values ------------------------------------------------- */

#define MPI_ANY_SOURCE (-1)
#define MPI_PROC_NULL  (-2)
#define MPI_ANY_TAG    (-1)
#define MPI_UNDEFINED  (-32766)
#define MPI_ROOT       (-3)
/* Largest tag value (the MPI_TAG_UB attribute of MPI_COMM_WORLD). */
#define LWMPI_TAG_UB 0x3fffffff
#define MPI_BOTTOM   ((void *)0)
/* In place of a send buffer in collectives (section 5.2.1). */
#define MPI_IN_PLACE ((void *)1)
/* Weights of a distributed graph (section 7.5.4): an unweighted graph, and
 * an empty list of weights (degree 0). */
#define MPI_UNWEIGHTED    ((int *)2)
#define MPI_WEIGHTS_EMPTY ((int *)3)
/* Bytes MPI_Bsend needs in the attached buffer on top of the message. */
#define MPI_BSEND_OVERHEAD 64

/* Results of MPI_Comm_compare and MPI_Group_compare (sections 6.3.1, 6.4.1). */
#define MPI_IDENT     0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR   2
#define MPI_UNEQUAL   3

/* MPI_Topo_test (section 7.5.5). */
#define MPI_GRAPH      1
#define MPI_CART       2
#define MPI_DIST_GRAPH 3

/* Predefined attribute keys of every communicator (sections 8.1.2,
 * 10.5.1, 10.5.3, 8.5): each value is a pointer to an int. Keys the
 * program makes are handles of kind 'K' = 0x4b. */
#define MPI_TAG_UB          1
#define MPI_HOST            2
#define MPI_IO              3
#define MPI_WTIME_IS_GLOBAL 4
#define MPI_UNIVERSE_SIZE   5 /* the size of MPI_COMM_WORLD: no process can be spawned */
#define MPI_LASTUSEDCODE    6 /* the largest error code in use (MPI_Add_error_class/code) */
#define MPI_APPNUM          7 /* the rank's application in an MPMD launch, from 0 */
#define MPI_KEYVAL_INVALID  0

/* Type constructor kinds (MPI_Type_get_envelope, section 4.1.13). The
 * F90 and *_INTEGER ones name Fortran calls, which LWMPI has not. */
#define MPI_COMBINER_NAMED            1
#define MPI_COMBINER_DUP              2
#define MPI_COMBINER_CONTIGUOUS       3
#define MPI_COMBINER_VECTOR           4
#define MPI_COMBINER_HVECTOR          5
#define MPI_COMBINER_INDEXED          6
#define MPI_COMBINER_HINDEXED         7
#define MPI_COMBINER_INDEXED_BLOCK    8
#define MPI_COMBINER_HINDEXED_BLOCK   9
#define MPI_COMBINER_STRUCT           10
#define MPI_COMBINER_SUBARRAY         11
#define MPI_COMBINER_DARRAY           12
#define MPI_COMBINER_F90_REAL         13
#define MPI_COMBINER_F90_COMPLEX      14
#define MPI_COMBINER_F90_INTEGER      15
#define MPI_COMBINER_RESIZED          16
#define MPI_COMBINER_HVECTOR_INTEGER  17
#define MPI_COMBINER_HINDEXED_INTEGER 18
#define MPI_COMBINER_STRUCT_INTEGER   19

/* Array storage orders and distributions of MPI_Type_create_subarray and
 * MPI_Type_create_darray (sections 4.1.3, 4.1.4). */
#define MPI_ORDER_C              0
#define MPI_ORDER_FORTRAN        1
#define MPI_DISTRIBUTE_BLOCK     0
#define MPI_DISTRIBUTE_CYCLIC    1
#define MPI_DISTRIBUTE_NONE      2
#define MPI_DISTRIBUTE_DFLT_DARG (-1)

/* Type classes of MPI_Type_match_size (section 17.1.9). */
#define MPI_TYPECLASS_REAL    1
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3

#define MPI_MAX_OBJECT_NAME            64
#define MPI_MAX_LIBRARY_VERSION_STRING 64

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
    int _cancelled;     /* private */
    long long _count;   /* private: bytes received */
    long long _offered; /* private: bytes the sender sent */
} MPI_Status;

/* User functions (sections 5.9.5 and 8.3.1). */
typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *errorcode, ...);
/* Attribute callbacks (section 6.7.2, 6.7.4): a copy callback sets *flag
 * to 1 and *(void **)attribute_val_out to keep the attribute in the copy;
 * a return other than MPI_SUCCESS makes the call that ran it fail with
 * that code. */
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval, void *attribute_val,
                                          void *extra_state);
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype, int type_keyval, void *attribute_val,
                                          void *extra_state);

typedef void MPI_Win_errhandler_function(MPI_Win *win, int *errorcode, ...);
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval, void *extra_state,
                                       void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval, void *attribute_val, void *extra_state);

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

/* Every function below returns MPI_SUCCESS or an error class, after the
 * error handler of the communicator concerned (MPI_COMM_WORLD's when none
 * is concerned or it is invalid) has run: MPI_ERRORS_ARE_FATAL (the
 * default) and MPI_ERRORS_ABORT print, after the rank's buffered output,
 * "MPI error: rank <rank>: <function>: <string> (<details>)" and end the
 * job with the error class as exit status; MPI_ERRORS_RETURN returns the
 * class. Calls other than those marked "callable at any time" raise
 * MPI_ERR_OTHER before MPI_Init and after MPI_Finalize. Pointers to
 * results must not be NULL (MPI_ERR_ARG). */

/* ---- Environment (MPI 3.1 chapter 8, section 12.4.3) ---------------- */

/* Starts MPI for the calling rank: registers its name with the local name
 * daemon, opens its mailbox and portal. argc/argv may be NULL and are not
 * changed. Calling it twice is MPI_ERR_OTHER. (section 8.7) */
int MPI_Init(int *argc, char ***argv);
/* As MPI_Init; *provided, whatever `required` asks for, is
 * MPI_THREAD_SERIALIZED when each rank is a process of its own (any of its
 * threads may call MPI, one at a time), MPI_THREAD_FUNNELED when ranks are
 * threads of one process (only the thread that is the MPI process may call
 * MPI). (section 12.4.3) */
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
/* What MPI_Init_thread gives, after it or MPI_Init. (12.4.3) */
int MPI_Query_thread(int *provided);
/* *flag = 1 on the thread that called MPI_Init. (12.4.3) */
int MPI_Is_thread_main(int *flag);
/* Completes the rank's pending communication, synchronises MPI_COMM_WORLD,
 * then releases the rank's name and IKC resources. (section 8.7) A rank
 * that ends (returns from main, calls exit) after MPI_Init without
 * MPI_Finalize ends the whole job: it prints "MPI error: rank N exited
 * with status S without calling MPI_Finalize" and the job exits with S,
 * or 1 if S is 0. */
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
/* "LWMPI <version> (Tessera), MPI 3.1". Callable at any time. (8.1.1) */
int MPI_Get_library_version(char *version, int *resultlen);
/* "cluster<C>.core<K>": the compute cluster and the core that run the
 * rank. (section 8.1.2) */
int MPI_Get_processor_name(char *name, int *resultlen);
/* Seconds since an arbitrary origin, from the `time` CSR; the same clock
 * on every cluster (MPI_WTIME_IS_GLOBAL is 1). Callable at any time.
 * (section 8.6) */
double MPI_Wtime(void);
/* Seconds between two ticks of MPI_Wtime. Callable at any time. (8.6) */
double MPI_Wtick(void);
/* Memory for the caller (section 8.2): *(void **)baseptr gets `size`
 * bytes of the rank's heap (no info key is used: any memory serves
 * LWMPI's messages and windows). MPI_ERR_ARG (negative size, null
 * baseptr), MPI_ERR_INFO, MPI_ERR_NO_MEM, raised on MPI_COMM_WORLD.
 * MPI_Free_mem gives back what MPI_Alloc_mem gave (NULL: nothing). */
int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);
int MPI_Free_mem(void *base);

/* ---- Errors (MPI 3.1 sections 8.3-8.5) ------------------------------ */

/* Error handlers may be set and read before MPI_Init too. */
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);
/* A handler that calls `function` with the communicator and the error
 * code; if it returns, the MPI call returns the code. (section 8.3.1) */
int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *function, MPI_Errhandler *errhandler);
/* Invokes comm's error handler with `errorcode`; returns MPI_SUCCESS
 * when the handler returns. (section 8.3.4) */
int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode);
/* Frees the caller's reference to a handler and sets *errhandler to
 * MPI_ERRHANDLER_NULL; communicators that use a user handler keep it until
 * they drop it (section 8.3.4). At most 8 user handlers per rank. */
int MPI_Errhandler_free(MPI_Errhandler *errhandler);
/* Text of an error code (at most MPI_MAX_ERROR_STRING bytes with the NUL);
 * MPI_ERR_ARG for an unknown code. Callable at any time. */
int MPI_Error_string(int errorcode, char *string, int *resultlen);
/* The class of an error code; MPI_ERR_ARG for an unknown code. Callable at
 * any time. */
int MPI_Error_class(int errorcode, int *errorclass);
/* Error classes and codes of the program (section 8.5): each new one is
 * MPI_LASTUSEDCODE + 1 and becomes MPI_LASTUSEDCODE (at most 4096 per
 * rank, then or when memory runs out: MPI_ERR_NO_MEM). MPI_Add_error_code: MPI_ERR_ARG unless
 * errorclass is a class. MPI_Add_error_string gives an added class or
 * code its text (cut to MPI_MAX_ERROR_STRING - 1 characters; "" until
 * then); MPI_ERR_ARG for any other code. */
int MPI_Add_error_class(int *errorclass);
int MPI_Add_error_code(int errorclass, int *errorcode);
int MPI_Add_error_string(int errorcode, const char *string);

/* ---- Point-to-point (MPI 3.1 chapter 3) ----------------------------- */

/* Common errors: MPI_ERR_COMM, MPI_ERR_COUNT (count < 0), MPI_ERR_TYPE
 * (invalid or uncommitted datatype), MPI_ERR_BUFFER (NULL with count > 0),
 * MPI_ERR_RANK (not a rank of the communicator, MPI_PROC_NULL, or for
 * receives MPI_ANY_SOURCE), MPI_ERR_TAG (not 0..LWMPI_TAG_UB, or for
 * receives MPI_ANY_TAG), MPI_ERR_REQUEST, MPI_ERR_TRUNCATE (a message
 * longer than the receive buffer: the buffer is filled and the status
 * counts what was stored), MPI_ERR_OTHER (IKC failure).
 *
 * Matching follows the envelope (source, tag, communicator) and messages
 * between a pair of ranks do not overtake each other (section 3.5).
 * Standard-mode sends of up to the eager threshold return once the data
 * is on its way (buffered at the receiver, with flow control); larger
 * ones and all synchronous-mode sends complete once the receive started.
 * MPI_Rsend is MPI_Send (legal: section 3.4). MPI_Bsend copies into the
 * buffer given to MPI_Buffer_attach, or fails with MPI_ERR_BUFFER when it
 * has no room. A send to oneself is allowed (non-blocking receive first,
 * or eager size). */
int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status);
int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request);
int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request);
int MPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request);
int MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request);
int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request);
/* Send, then receive, in either order the peers need (section 3.10). */
int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                 MPI_Status *status);
int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm, MPI_Status *status);
/* The buffer MPI_Bsend copies into (section 3.6); one per rank.
 * MPI_ERR_BUFFER when one is attached already or size < 0; detach waits
 * until the messages in it have left and gives it back. */
int MPI_Buffer_attach(void *buffer, int size);
int MPI_Buffer_detach(void *buffer_addr, int *size);
/* Completion (section 3.7.3, 3.7.5). A completed request is freed and
 * set to MPI_REQUEST_NULL (a persistent one becomes inactive). Errors of
 * the multiple-completion calls are MPI_ERR_IN_STATUS, with each
 * request's class in its status's MPI_ERROR. */
int MPI_Wait(MPI_Request *request, MPI_Status *status);
int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]);
int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]);
int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status);
int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status);
int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[]);
int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[]);
/* Marks the request for freeing; the operation still completes. (3.7.3) */
int MPI_Request_free(MPI_Request *request);
/* Whether a matching message has arrived, without receiving it. (3.8.1) */
int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
/* Matched probe (3.8.2): the message found is taken off the matching and
 * received only by MPI_Mrecv or MPI_Imrecv of its handle (for
 * MPI_PROC_NULL, MPI_MESSAGE_NO_PROC), whichever thread calls them. */
int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status);
int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status);
int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status);
int MPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request);
/* Persistent requests (section 3.9): inactive until MPI_Start. */
int MPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                  MPI_Request *request);
int MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request);
int MPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request);
int MPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request);
int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                  MPI_Request *request);
int MPI_Start(MPI_Request *request);
int MPI_Startall(int count, MPI_Request requests[]);
/* Elements of `datatype` received; MPI_UNDEFINED when the bytes received
 * are not a whole number of elements. (section 3.2.5) */
int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count);
/* Basic elements received (section 4.1.11); MPI_UNDEFINED as above. */
int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count);
int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);
/* Sets the status so that MPI_Get_elements gives `count` (and
 * MPI_Get_count what that many basic elements make); for the query
 * function of a generalized request (section 12.3). */
int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count);
int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count);
/* Cancellation (sections 3.8.4, 12.3). MPI_Cancel marks an active
 * request; a wait or test still completes it, and then MPI_Test_cancelled
 * tells whether it was cancelled. A receive not yet matched by a message
 * is cancelled; a send never is (it completes normally: the standard
 * allows it), whatever its protocol; a generalized request calls its
 * cancel function. */
int MPI_Cancel(MPI_Request *request);
int MPI_Test_cancelled(const MPI_Status *status, int *flag);
int MPI_Status_set_cancelled(MPI_Status *status, int flag);
/* Like MPI_Test, but a complete request is neither freed nor made
 * inactive: a later wait or test finishes it. (section 3.7.3) */
int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status);

/* Generalized requests (section 12.2): an operation the program carries
 * out itself, completed by MPI_Grequest_complete, usable in every wait
 * and test. When a wait or test completes it, query_fn fills its status
 * (a status of its own when the caller ignores it) and free_fn runs;
 * MPI_Request_get_status calls query_fn only. A request freed before it
 * completes calls free_fn at MPI_Grequest_complete. A non-zero return of
 * a function is the error of the call that ran it. MPI_Cancel calls
 * cancel_fn with complete = whether MPI_Grequest_complete was called. */
typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);
int MPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                       MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request);
int MPI_Grequest_complete(MPI_Request request);

/* ---- Datatypes (MPI 3.1 chapter 4) ---------------------------------- */

/* Derived datatypes: MPI_ERR_COUNT for negative counts, MPI_ERR_TYPE for
 * invalid old types, MPI_ERR_ARG for NULL arrays; a new type must be
 * committed before it is used in communication. At most 4096 derived
 * datatypes per rank (MPI_ERR_NO_MEM beyond), counting the freed ones
 * that a type still alive was made from. */
int MPI_Type_size(MPI_Datatype datatype, int *size);
int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size);
int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent);
int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent);
int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent);
int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent);
int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype);
int MPI_Type_indexed(int count, const int blocklengths[], const int displacements[], MPI_Datatype oldtype,
                     MPI_Datatype *newtype);
int MPI_Type_create_hindexed(int count, const int blocklengths[], const MPI_Aint displacements[],
                             MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_indexed_block(int count, int blocklength, const int displacements[], MPI_Datatype oldtype,
                                  MPI_Datatype *newtype);
int MPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_struct(int count, const int blocklengths[], const MPI_Aint displacements[],
                           const MPI_Datatype types[], MPI_Datatype *newtype);
int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype);
int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype);
/* A subarray of an array of oldtype (section 4.1.3): its extent is the
 * whole array's. MPI_ERR_ARG for sizes, subsizes, starts or order out of
 * range; at most 32 dimensions. */
int MPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                             const int array_of_starts[], int order, MPI_Datatype oldtype,
                             MPI_Datatype *newtype);
/* The part of a distributed array of oldtype that process `rank` of a
 * grid of `size` processes (psizes, row-major) owns (section 4.1.4). */
int MPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                           const int array_of_distribs[], const int array_of_dargs[],
                           const int array_of_psizes[], int order, MPI_Datatype oldtype,
                           MPI_Datatype *newtype);
/* How a type was made (section 4.1.13). get_contents: MPI_ERR_TYPE for a
 * predefined type, MPI_ERR_ARG when the arrays are too short; the derived
 * types it returns must be freed by the caller. */
int MPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes,
                          int *combiner);
int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                          int array_of_integers[], MPI_Aint array_of_addresses[],
                          MPI_Datatype array_of_datatypes[]);
/* Names (section 6.8): predefined types start with their standard name,
 * derived ones with "". */
int MPI_Type_set_name(MPI_Datatype datatype, const char *type_name);
int MPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen);
/* The predefined C type of a type class and size in bytes: for
 * MPI_TYPECLASS_INTEGER MPI_INT8_T..MPI_INT64_T, REAL MPI_FLOAT,
 * MPI_DOUBLE, MPI_LONG_DOUBLE, COMPLEX MPI_C_*_COMPLEX; MPI_ERR_ARG when
 * none has that size. (section 17.1.9) */
int MPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype);
/* Fortran 90's parameterized types from C (section 17.1.9): the type of
 * decimal precision p and exponent range r (MPI_UNDEFINED: any, but not
 * both), as Fortran's SELECTED_REAL_KIND and SELECTED_INT_KIND choose
 * them: REAL*4 or *8, COMPLEX*8 or *16, INTEGER*1, *2, *4 or *8. Its
 * combiner is MPI_COMBINER_F90_REAL (COMPLEX, INTEGER) with (p, r) (or
 * (r)) as its contents; the same arguments give the same handle, which
 * is not to be freed. MPI_ERR_ARG when no type is that precise. */
int MPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype);
int MPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype);
int MPI_Type_create_f90_integer(int r, MPI_Datatype *newtype);
int MPI_Type_commit(MPI_Datatype *datatype);
/* Frees a derived type (sets it to MPI_DATATYPE_NULL); predefined types:
 * MPI_ERR_TYPE. Pending communication that uses it is not affected. */
int MPI_Type_free(MPI_Datatype *datatype);
int MPI_Get_address(const void *location, MPI_Aint *address);
/* Address arithmetic (section 4.1.5): base + disp, and addr1 - addr2, as
 * addresses (wrapping as unsigned). Callable at any time. */
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp);
MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);
/* Packing (section 4.2): MPI_ERR_TRUNCATE when outbuf has no room. */
int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position,
             MPI_Comm comm);
int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
               MPI_Datatype datatype, MPI_Comm comm);
int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size);
/* Attributes of datatypes (section 6.7.4), as those of communicators:
 * MPI_Type_dup copies them, MPI_Type_free deletes them; errors go to
 * MPI_COMM_WORLD's handler. No predefined keys. */
int MPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                           MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                           void *extra_state);
int MPI_Type_free_keyval(int *type_keyval);
int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val);
int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag);
int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval);
/* Packing in the portable "external32" representation (section 13.5.2):
 * big-endian, the sizes of table 13.2 (MPI_LONG and MPI_UNSIGNED_LONG are
 * 4 bytes: a value that does not fit loses its high bytes; MPI_LONG_DOUBLE
 * is 16 bytes of IEEE quadruple precision). Another datarep:
 * MPI_ERR_UNSUPPORTED_DATAREP; no room: MPI_ERR_TRUNCATE. */
int MPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                      void *outbuf, MPI_Aint outsize, MPI_Aint *position);
int MPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position,
                        void *outbuf, int outcount, MPI_Datatype datatype);
int MPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size);

/* ---- Collectives (MPI 3.1 chapter 5) -------------------------------- */

/* Every rank of comm calls them in the same order with matching
 * arguments. MPI_IN_PLACE where section 5 allows it. Errors also
 * MPI_ERR_ROOT (root not a rank of comm) and MPI_ERR_OP (invalid
 * operation, or not defined for the datatype: section 5.9.2's table, and
 * as in MPICH MPI_CHAR as a C integer type and the logical operations on
 * MPI_AINT, MPI_OFFSET and MPI_COUNT). The algorithms follow the
 * clusters: ranks of one cluster combine first, then one rank per cluster
 * talks over the NoC. Reductions with a non-commutative user operation
 * combine in rank order. */
int MPI_Barrier(MPI_Comm comm);
int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm);
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm);
int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                  MPI_Comm comm);
int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm);
int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm);
int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm);
int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                  const MPI_Datatype recvtypes[], MPI_Comm comm);
/* Non-blocking collectives (section 5.12): the same arguments, checks and
 * results as the blocking ones, and a request that completes through
 * MPI_Wait, MPI_Test and the like once this rank's part is done. They move
 * on whenever the rank calls MPI (any wait, test or probe). Several may be
 * outstanding on one communicator; every rank starts the collectives of a
 * communicator, blocking or not, in the same order. The buffers (and
 * count, displacement and type arrays) must stay as they are until then.
 * On intracommunicators only: an intercommunicator raises MPI_ERR_COMM. */
int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request);
int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request);
int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request);
int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request);
int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request);
int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                   MPI_Comm comm, MPI_Request *request);
int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                   const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request);
int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request *request);
int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Request *request);
int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Request *request);
int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm, MPI_Request *request);
int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
              MPI_Request *request);
int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Request *request);
/* Operations (section 5.9.5): at most 16 user operations per rank. */
int MPI_Op_create(MPI_User_function *function, int commute, MPI_Op *op);
int MPI_Op_free(MPI_Op *op);
int MPI_Op_commutative(MPI_Op op, int *commute);
/* inoutbuf[i] = inbuf[i] op inoutbuf[i] (section 5.9.7). */
int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op);

/* ---- Groups (MPI 3.1 section 6.3) ----------------------------------- */

/* Errors: MPI_ERR_GROUP for invalid groups, MPI_ERR_RANK for ranks out
 * of range or repeated, MPI_ERR_ARG for bad ranges or NULL arrays. At most
 * 4096 groups per rank (MPI_ERR_NO_MEM beyond); MPI_GROUP_EMPTY may be freed
 * like any group (its handle becomes MPI_GROUP_NULL). */
int MPI_Group_size(MPI_Group group, int *size);
/* The caller's rank in the group, or MPI_UNDEFINED. */
int MPI_Group_rank(MPI_Group group, int *rank);
int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]);
int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result);
int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
int MPI_Group_free(MPI_Group *group);

/* ---- Communicators (MPI 3.1 sections 6.4, 6.8) ---------------------- */

/* The caller's rank in comm (0..size-1) and comm's size. (6.4.1) */
int MPI_Comm_rank(MPI_Comm comm, int *rank);
int MPI_Comm_size(MPI_Comm comm, int *size);
int MPI_Comm_group(MPI_Comm comm, MPI_Group *group);
int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result);
/* New communicators are collective over comm and each gets its own
 * contexts, so their messages never match another communicator's. At
 * most 4096 communicators per rank, MPI_COMM_WORLD and MPI_COMM_SELF
 * included, an intercommunicator counting twice (MPI_ERR_NO_MEM beyond).
 * Given an intercommunicator, dup, create and split make
 * intercommunicators: create's group and split's color choose the local
 * group on each side, MPI_COMM_NULL where either side is empty. (6.4.2) */
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm);
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
/* Collective over the members of group only, not all of comm (an
 * intracommunicator); tag (0..LWMPI_TAG_UB) keeps calls for different
 * groups apart. A caller outside group gets MPI_COMM_NULL. (6.4.2) */
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm);
/* MPI_Comm_dup as a non-blocking collective (5.12): *newcomm is set, and
 * valid, once the request completes. Intracommunicators only
 * (MPI_ERR_COMM). A communicator made by a blocking call on a subset of
 * comm's ranks while an idup of comm is pending may share its context
 * with the result: complete the idup first. (6.4.2) */
int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request);
/* MPI_Comm_split by split_type: MPI_COMM_TYPE_SHARED groups the ranks of
 * comm that run on one compute cluster (they share its memory), ordered
 * by key then rank; MPI_UNDEFINED gives MPI_COMM_NULL. Another type:
 * MPI_ERR_ARG. info: any info object or MPI_INFO_NULL (no hint is used;
 * MPI_ERR_INFO for an invalid one). (6.4.2) */
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm);
/* MPI_Comm_dup, with info's hints (MPI_INFO_NULL: none). (6.4.2) */
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm);
/* Hints (6.4.4): LWMPI uses none, so it keeps none; get_info gives a new,
 * empty info object. MPI_ERR_INFO for an invalid info. */
int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info);
int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used);
/* Frees a communicator made by the calls above, after deleting its
 * attributes (a delete callback's failure is the call's, and the
 * communicator stays); MPI_COMM_WORLD and MPI_COMM_SELF: MPI_ERR_COMM.
 * (6.4.3) */
int MPI_Comm_free(MPI_Comm *comm);
int MPI_Comm_set_name(MPI_Comm comm, const char *comm_name);
int MPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen);
/* Attribute caching (section 6.7). Keyvals: at most 63 per rank
 * (MPI_ERR_NO_MEM), each for communicators or for datatypes; one of the
 * wrong kind, freed, or MPI_KEYVAL_INVALID: MPI_ERR_KEYVAL. A freed keyval
 * lives on for the attributes it still keys (section 6.7.2): by the handle
 * value the program kept, their values can still be read
 * (MPI_Comm_get_attr) and deleted (MPI_Comm_delete_attr), not set, and
 * freeing it again does nothing more; once its last attribute is gone it
 * is no keyval (MPI_ERR_KEYVAL). MPI_Comm_dup copies the
 * attributes through their copy callbacks, MPI_Comm_free and
 * MPI_Comm_delete_attr delete them through their delete callbacks, and so
 * does MPI_Comm_set_attr with the value it replaces; a callback's failure
 * is the call's. MPI_Finalize deletes the attributes of MPI_COMM_SELF,
 * then those of MPI_COMM_WORLD, each last set first (8.7.1). Deleting an
 * attribute that is not set does nothing. The predefined keys (above) can
 * only be read, on any communicator: *(int **)attribute_val. */
int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                           MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                           void *extra_state);
int MPI_Comm_free_keyval(int *comm_keyval);
int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val);
int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag);
int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval);
/* The predefined callbacks: copy nothing (*flag = 0), copy the value,
 * delete nothing. The MPI_TYPE_ ones are the same functions. */
int MPI_COMM_NULL_COPY_FN(MPI_Comm oldcomm, int comm_keyval, void *extra_state, void *attribute_val_in,
                          void *attribute_val_out, int *flag);
int MPI_COMM_DUP_FN(MPI_Comm oldcomm, int comm_keyval, void *extra_state, void *attribute_val_in,
                    void *attribute_val_out, int *flag);
int MPI_COMM_NULL_DELETE_FN(MPI_Comm comm, int comm_keyval, void *attribute_val, void *extra_state);
#define MPI_TYPE_NULL_COPY_FN   MPI_COMM_NULL_COPY_FN
#define MPI_TYPE_DUP_FN         MPI_COMM_DUP_FN
#define MPI_TYPE_NULL_DELETE_FN MPI_COMM_NULL_DELETE_FN

/* ---- Intercommunicators (MPI 3.1 section 6.6) ----------------------- */

/* An intercommunicator joins two disjoint groups: point-to-point calls and
 * collectives name ranks of the remote group; MPI_Comm_size, _rank and
 * _group give the local one. Every blocking collective but Scan and
 * Exscan works on it (5.2.2): at a rooted one, the root passes MPI_ROOT,
 * the rest of its group MPI_PROC_NULL, the other group the root's rank;
 * MPI_IN_PLACE is refused (MPI_ERR_BUFFER). Calls defined on
 * intracommunicators only (Scan, Exscan, topologies, split_type,
 * create_group) raise MPI_ERR_COMM. */
/* Collective over both local_comm's: local_leader's rank in local_comm and
 * remote_leader's in peer_comm (both significant at the leaders only)
 * reach each other over peer_comm with tag. Overlapping groups:
 * MPI_ERR_COMM. (6.6.2) */
int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader,
                         int tag, MPI_Comm *newintercomm);
/* An intracommunicator over both groups: the group that passed high = 0
 * first; when both passed the same, the group holding the lower
 * MPI_COMM_WORLD rank first. (6.6.2) */
int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm);
int MPI_Comm_test_inter(MPI_Comm comm, int *flag);
/* Size and group of the remote group; an intracommunicator: MPI_ERR_COMM. */
int MPI_Comm_remote_size(MPI_Comm comm, int *size);
int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group);

/* Topology of comm: MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH or MPI_UNDEFINED;
 * MPI_Comm_dup keeps it, the other constructors do not. (7.5.5) */
int MPI_Topo_test(MPI_Comm comm, int *status);

/* ---- Info objects (MPI 3.1 chapter 9) ------------------------------- */

/* Ordered (key, value) string pairs: get_nthkey numbers the keys in the
 * order they were first set. Errors (on MPI_COMM_WORLD's handler):
 * MPI_ERR_INFO (invalid object), MPI_ERR_INFO_KEY (empty key, or
 * MPI_MAX_INFO_KEY characters or more), MPI_ERR_INFO_VALUE (value of
 * MPI_MAX_INFO_VAL characters or more), MPI_ERR_INFO_NOKEY (delete of a
 * missing key), MPI_ERR_ARG (get_nthkey: n not 0..nkeys-1). At most 4094
 * objects at once per rank besides MPI_INFO_ENV (MPI_ERR_NO_MEM), each
 * with as many keys as memory holds. MPI_INFO_ENV cannot be freed
 * (MPI_ERR_INFO). */
int MPI_Info_create(MPI_Info *info);
int MPI_Info_set(MPI_Info info, const char *key, const char *value);
int MPI_Info_delete(MPI_Info info, const char *key);
/* value gets at most valuelen characters and a NUL; *flag = 0 when the
 * key is missing. */
int MPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag);
int MPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag);
int MPI_Info_get_nkeys(MPI_Info info, int *nkeys);
int MPI_Info_get_nthkey(MPI_Info info, int n, char *key);
int MPI_Info_dup(MPI_Info info, MPI_Info *newinfo);
/* Sets *info to MPI_INFO_NULL. */
int MPI_Info_free(MPI_Info *info);

/* ---- Cartesian topologies (MPI 3.1 section 7.5) --------------------- */

/* Errors: MPI_ERR_DIMS (bad ndims or dims), MPI_ERR_TOPOLOGY (comm has no
 * Cartesian topology), MPI_ERR_ARG (more nodes than ranks, bad
 * coordinates). At most 8 dimensions; with 0, MPI_Cart_create gives rank 0
 * a zero-dimensional topology of one rank, MPI_Dims_create accepts only
 * nnodes 1, and no dims, periods or coords array is read or written (they
 * may be NULL). */
int MPI_Dims_create(int nnodes, int ndims, int dims[]);
int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *comm_cart);
int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]);
int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank);
int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest);
int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]);
int MPI_Cartdim_get(MPI_Comm comm, int *ndims);
/* The subgrids that keep the dimensions with remain_dims[i] true, each
 * a communicator with that Cartesian topology (zero-dimensional, of one
 * rank, when none is kept). (7.5.7) */
int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm);
/* The rank MPI_Cart_create would give the caller: LWMPI keeps the ranks
 * in order, so its rank if below the grid's size, else MPI_UNDEFINED.
 * (7.5.8) */
int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank);

/* ---- Graph topologies (MPI 3.1 sections 7.5.3-7.5.5, 7.5.8) ---------- */

/* Node i is rank i of comm_old (the ranks from nnodes on get
 * MPI_COMM_NULL; all of them when nnodes is 0); its neighbours are
 * edges[index[i-1] .. index[i]-1] (index[-1] = 0). Self-loops and
 * repeated edges are allowed. Errors: MPI_ERR_ARG (nnodes < 0 or above
 * comm's size, index decreasing), MPI_ERR_TOPOLOGY (an edge that is no
 * node, or a communicator without a graph topology in the queries),
 * MPI_ERR_RANK (a rank that is no node). */
int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                     MPI_Comm *comm_graph);
int MPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges);
/* The first maxindex entries of index and maxedges of edges. */
int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]);
int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors);
/* rank's neighbours in the order of edges (at most maxneighbors). */
int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]);
/* As MPI_Cart_map: the caller's rank if below nnodes, else MPI_UNDEFINED. */
int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank);

/* ---- Distributed graph topologies (MPI 3.1 section 7.5.4) ----------- */

/* Every rank of comm_old is in the new communicator, in order. Weights
 * are non-negative, or MPI_UNWEIGHTED (on every rank then), or
 * MPI_WEIGHTS_EMPTY or NULL for an empty list; the graph is weighted unless
 * MPI_UNWEIGHTED was given. info: any info object or MPI_INFO_NULL
 * (MPI_ERR_INFO for an invalid one). Errors: MPI_ERR_ARG (negative degree or
 * weight, missing list), MPI_ERR_RANK (a neighbour that is no rank of
 * comm_old), MPI_ERR_TOPOLOGY (queries on a communicator without a
 * distributed graph topology). */

/* Each rank gives its own sources and destinations, in the order the
 * neighbourhood collectives then use. */
int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree, const int destinations[],
                                   const int destweights[], MPI_Info info, int reorder,
                                   MPI_Comm *comm_dist_graph);
/* Each rank gives any edges: degrees[i] edges from sources[i], to the
 * next degrees[i] entries of destinations. A rank's neighbours come in
 * the order of the ranks that gave the edges, then of their lists. At
 * most 65536 edges given by one rank. */
int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info, int reorder,
                          MPI_Comm *comm_dist_graph);
int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted);
/* At most maxindegree sources and maxoutdegree destinations; weights
 * only for a weighted graph, into arrays that are not MPI_UNWEIGHTED. */
int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                             int maxoutdegree, int destinations[], int destweights[]);

/* ---- Neighbourhood collectives (MPI 3.1 section 7.6) ---------------- */

/* On a communicator with a topology (MPI_ERR_TOPOLOGY otherwise), every
 * rank calls them in the same order. Block i of the receive buffer comes
 * from the i-th source, block j of the send buffer goes to the j-th
 * destination: Cartesian, for each dimension the neighbour at -1 then at
 * +1 (MPI_PROC_NULL past a non-periodic edge: its block is not sent, and
 * not touched in the receive buffer); graph, MPI_Graph_neighbors on both
 * sides; distributed graph, MPI_Dist_graph_neighbors. With a neighbour
 * twice (a periodic dimension of size 1 or 2), the block sent towards -1
 * lands in the +1 block and the other way round. No MPI_IN_PLACE. */
int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                           MPI_Datatype recvtype, MPI_Comm comm);
/* Displacements in bytes, one datatype per block. */
int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);

/* ---- One-sided communication (MPI 3.1 chapter 11) -------------------
 * A window is memory that each rank of a communicator exposes to the
 * others' MPI_Put, MPI_Get and accumulates. Every rank reaches every
 * other's memory through its own IKC window, served by the target's
 * kernel without any call by the target (docs/lwmpi.md, "One-sided
 * communication");
 * ranks of one cluster that share memory copy directly. There is one copy
 * of the memory: the memory model is MPI_WIN_UNIFIED (section 11.4).
 *
 * Accumulates (MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op,
 * MPI_Compare_and_swap) are atomic per element against each other
 * (section 11.7.1): the origin applies the operation itself while it holds
 * the target window's accumulate lock. Their op is a predefined one,
 * MPI_REPLACE or MPI_NO_OP, and both datatypes are made of one predefined
 * type. A target datatype lies in the target's memory from base +
 * target_disp * disp_unit (a dynamic window: target_disp is the address
 * MPI_Get_address gave the target).
 *
 * Errors: MPI_ERR_WIN (invalid window), MPI_ERR_RANK, MPI_ERR_COUNT,
 * MPI_ERR_TYPE, MPI_ERR_OP, MPI_ERR_DISP (negative displacement or
 * disp_unit <= 0), MPI_ERR_SIZE (negative size), MPI_ERR_RMA_RANGE (past
 * the target's window, or memory a dynamic window has not attached),
 * MPI_ERR_RMA_SYNC (a call outside the epoch it needs, section 11.5),
 * MPI_ERR_LOCKTYPE, MPI_ERR_ASSERT (an assert bit the call does not know),
 * MPI_ERR_RMA_ATTACH, MPI_ERR_RMA_SHARED (MPI_Win_allocate_shared over
 * ranks that share no memory), MPI_ERR_RMA_FLAVOR (a call the window's
 * flavor does not allow). They are raised on the window's error handler
 * (MPI_ERRORS_ARE_FATAL unless set). At most 64 windows per rank. */

/* Assertions (section 11.5.5), ORed. */
#define MPI_MODE_NOCHECK   1
#define MPI_MODE_NOSTORE   2
#define MPI_MODE_NOPUT     4
#define MPI_MODE_NOPRECEDE 8
#define MPI_MODE_NOSUCCEED 16
/* Lock types (section 11.5.3). */
#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED    235
/* Values of MPI_WIN_CREATE_FLAVOR and MPI_WIN_MODEL (section 11.2.6). */
#define MPI_WIN_FLAVOR_CREATE   1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC  3
#define MPI_WIN_FLAVOR_SHARED   4
#define MPI_WIN_SEPARATE        1
#define MPI_WIN_UNIFIED         2
/* Predefined window attributes (section 11.2.6): MPI_WIN_BASE's value is
 * the base address itself (void *), the others point to an MPI_Aint
 * (MPI_WIN_SIZE) or an int. */
#define MPI_WIN_BASE          8
#define MPI_WIN_SIZE          9
#define MPI_WIN_DISP_UNIT     10
#define MPI_WIN_CREATE_FLAVOR 11
#define MPI_WIN_MODEL         12

/* Window creation (section 11.2), collective over comm. MPI_Win_create
 * exposes [base, base + size) bytes; MPI_Win_allocate allocates them
 * (*(void **)baseptr); MPI_Win_allocate_shared too, as one block over the
 * ranks of comm, which must share memory (one cluster), rank after rank;
 * MPI_Win_shared_query gives rank `rank`'s part (MPI_PROC_NULL: the first
 * part of non-zero size). MPI_Win_create_dynamic exposes nothing until
 * MPI_Win_attach (at most 14 regions a rank over all its windows). */
int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win);
int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win);
int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                            MPI_Win *win);
int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr);
int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win);
int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size);
int MPI_Win_detach(MPI_Win win, const void *base);
/* Collective; the window must be in no epoch (MPI_ERR_RMA_SYNC). */
int MPI_Win_free(MPI_Win *win);
int MPI_Win_get_group(MPI_Win win, MPI_Group *group);
/* No hint is used: MPI_Win_get_info gives an empty info object. */
int MPI_Win_set_info(MPI_Win win, MPI_Info info);
int MPI_Win_get_info(MPI_Win win, MPI_Info *info_used);
int MPI_Win_set_name(MPI_Win win, const char *win_name);
int MPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen);
/* Attributes (section 6.7.3), as those of communicators; keyvals of
 * windows are keyvals of their own kind. */
int MPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                          MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                          void *extra_state);
int MPI_Win_free_keyval(int *win_keyval);
int MPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val);
int MPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag);
int MPI_Win_delete_attr(MPI_Win win, int win_keyval);
#define MPI_WIN_NULL_COPY_FN   MPI_COMM_NULL_COPY_FN
#define MPI_WIN_DUP_FN         MPI_COMM_DUP_FN
#define MPI_WIN_NULL_DELETE_FN MPI_COMM_NULL_DELETE_FN
/* Error handlers of windows (section 8.3.2), as those of communicators. */
int MPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn, MPI_Errhandler *errhandler);
int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler);
int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler);
int MPI_Win_call_errhandler(MPI_Win win, int errorcode);

/* Communication (section 11.3), in an access epoch to target_rank
 * (MPI_PROC_NULL: nothing). A put's origin buffer may be reused when the
 * call returns; a get's data is there at the epoch's end (LWMPI: when
 * the call returns). */
int MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win);
int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win);
int MPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                   MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                   MPI_Win win);
/* result = the target's old data, then target = origin op target. */
int MPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                       void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
                       MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                       MPI_Win win);
/* One element of a predefined datatype. */
int MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank,
                     MPI_Aint target_disp, MPI_Op op, MPI_Win win);
/* One element of a predefined integer (or MPI_BYTE...) type: the target
 * gets origin if it equals compare; result gets its old value. */
int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                         MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win);
/* Request-based forms (section 11.3.5), in a passive target epoch: the
 * request completes with the operation (in LWMPI as soon as it is made),
 * through MPI_Wait, MPI_Test and the like. */
int MPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
             MPI_Request *request);
int MPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
             MPI_Request *request);
int MPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                    MPI_Win win, MPI_Request *request);
int MPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
                        MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                        MPI_Win win, MPI_Request *request);

/* Active target synchronization (section 11.5.1, 11.5.2). A fence ends
 * the epoch before it (unless MPI_MODE_NOPRECEDE) and opens one (unless
 * MPI_MODE_NOSUCCEED); collective. MPI_Win_post exposes the caller's
 * window to the origins of `group` until MPI_Win_wait (MPI_Win_test:
 * *flag 1 once they all completed); MPI_Win_start waits for the posts of
 * the targets of `group`, MPI_Win_complete ends the access epoch. */
int MPI_Win_fence(int assert, MPI_Win win);
int MPI_Win_post(MPI_Group group, int assert, MPI_Win win);
int MPI_Win_start(MPI_Group group, int assert, MPI_Win win);
int MPI_Win_complete(MPI_Win win);
int MPI_Win_wait(MPI_Win win);
int MPI_Win_test(MPI_Win win, int *flag);
/* Passive target synchronization (section 11.5.3, 11.5.4): a
 * reader-writer lock per target window; MPI_Win_lock_all takes the
 * shared lock of every rank. Flushes complete the caller's operations
 * at the target (and locally); MPI_Win_sync orders the caller's loads and
 * stores with the window's other accesses. */
int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win);
int MPI_Win_unlock(int rank, MPI_Win win);
int MPI_Win_lock_all(int assert, MPI_Win win);
int MPI_Win_unlock_all(MPI_Win win);
int MPI_Win_flush(int rank, MPI_Win win);
int MPI_Win_flush_all(MPI_Win win);
int MPI_Win_flush_local(int rank, MPI_Win win);
int MPI_Win_flush_local_all(MPI_Win win);
int MPI_Win_sync(MPI_Win win);

/* ---- Files (kind 'F' = 0x46), MPI-IO: MPI 3.1 chapter 13 -----------
 * Files are those of the job's folder, the same ones the C library's
 * open() sees (docs/mpi-io.md). A file is opened collectively over a
 * communicator; every rank reaches it through the file server. Errors on
 * a file go to its error handler, MPI_ERRORS_RETURN unless changed;
 * MPI_File_open's and MPI_File_delete's go to MPI_FILE_NULL's (13.7). */

#define MPI_FILE_NULL ((MPI_File)0x46000000)

/* Access modes (section 13.2.1), or'ed together. */
#define MPI_MODE_CREATE          1
#define MPI_MODE_RDONLY          2
#define MPI_MODE_WRONLY          4
#define MPI_MODE_RDWR            8
#define MPI_MODE_DELETE_ON_CLOSE 16
#define MPI_MODE_UNIQUE_OPEN     32
#define MPI_MODE_EXCL            64
#define MPI_MODE_APPEND          128
#define MPI_MODE_SEQUENTIAL      256

/* MPI_File_seek's whence (section 13.4.3). */
#define MPI_SEEK_SET 600
#define MPI_SEEK_CUR 602
#define MPI_SEEK_END 604

/* MPI_File_set_view's disp with MPI_MODE_SEQUENTIAL: the shared file
 * pointer's place (section 13.3). */
#define MPI_DISPLACEMENT_CURRENT ((MPI_Offset)-54278278)
#define MPI_MAX_DATAREP_STRING   128

typedef void MPI_File_errhandler_function(MPI_File *file, int *errorcode, ...);
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;
/* User data representations (section 13.5.3): a conversion function
 * converts `count` elements of `datatype` between the user's buffer and
 * the file's representation at filebuf, starting `position` elements into
 * the access; the extent function gives a type's extent in the file. */
typedef int MPI_Datarep_conversion_function(void *userbuf, MPI_Datatype datatype, int count, void *filebuf,
                                            MPI_Offset position, void *extra_state);
typedef int MPI_Datarep_extent_function(MPI_Datatype datatype, MPI_Aint *file_extent, void *extra_state);
#define MPI_CONVERSION_FN_NULL ((MPI_Datarep_conversion_function *)0)

/* File manipulation (section 13.2). MPI_File_open is collective over
 * comm (an intracommunicator), with the same amode everywhere:
 * MPI_ERR_AMODE for a bad amode, MPI_ERR_NO_SUCH_FILE, MPI_ERR_FILE_EXISTS
 * (MPI_MODE_EXCL), MPI_ERR_ACCESS, MPI_ERR_BAD_FILE (a name the job may
 * not use). Info hints: "cb_nodes" (aggregators of collective access),
 * "cb_buffer_size" (bytes an aggregator moves per step), "romio_cb_read"
 * and "romio_cb_write" ("enable", "disable", "automatic"). */
int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh);
int MPI_File_close(MPI_File *fh);
int MPI_File_delete(const char *filename, MPI_Info info);
int MPI_File_set_size(MPI_File fh, MPI_Offset size);
int MPI_File_preallocate(MPI_File fh, MPI_Offset size);
int MPI_File_get_size(MPI_File fh, MPI_Offset *size);
int MPI_File_get_group(MPI_File fh, MPI_Group *group);
int MPI_File_get_amode(MPI_File fh, int *amode);
int MPI_File_set_info(MPI_File fh, MPI_Info info);
int MPI_File_get_info(MPI_File fh, MPI_Info *info_used);

/* File views (section 13.3) and data representations (13.5): "native",
 * "internal" (the same as native here) and "external32", and those of
 * MPI_Register_datarep. */
int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char *datarep, MPI_Info info);
int MPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                      char *datarep);
int MPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent);
int MPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                         MPI_Datarep_conversion_function *write_conversion_fn,
                         MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state);

/* Data access (section 13.4): explicit offsets (in etypes of the view),
 * the individual file pointer, the shared file pointer; _all: collective;
 * MPI_File_i*: non-blocking; _begin/_end: split collective. */
int MPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                     MPI_Status *status);
int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                         MPI_Status *status);
int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                      MPI_Status *status);
int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status);
int MPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                      MPI_Request *request);
int MPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                       MPI_Request *request);
int MPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                          MPI_Request *request);
int MPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Request *request);
int MPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
int MPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
int MPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
int MPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
int MPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
int MPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
int MPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
int MPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence);
int MPI_File_get_position(MPI_File fh, MPI_Offset *offset);
int MPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp);
int MPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
int MPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
int MPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
int MPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Request *request);
int MPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
int MPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Status *status);
int MPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence);
int MPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset);
int MPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype);
int MPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status);
int MPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                MPI_Datatype datatype);
int MPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status);
int MPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);
int MPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status);
int MPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype);
int MPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status);
int MPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);
int MPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status);
int MPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype);
int MPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status);

/* ROMIO's names for the requests of MPI-IO, which programs written for
 * MPI-2's first implementations still use: plain requests here. */
#define MPIO_Request      MPI_Request
#define MPIO_REQUEST_NULL MPI_REQUEST_NULL
#define MPIO_Wait         MPI_Wait
#define MPIO_Test         MPI_Test

/* Consistency and semantics (section 13.6). */
int MPI_File_set_atomicity(MPI_File fh, int flag);
int MPI_File_get_atomicity(MPI_File fh, int *flag);
int MPI_File_sync(MPI_File fh);

/* Error handling (section 13.7). */
int MPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn, MPI_Errhandler *errhandler);
int MPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler);
int MPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler);
int MPI_File_call_errhandler(MPI_File fh, int errorcode);

/* ---- Deprecated: MPI-1 names removed in MPI 3.0 (section 17.2) ------
 * Old programs still call them, and Open MPI and MPICH still offer them:
 * each is the modern call named in its comment (whose name its error
 * reports give). Compiled without warnings, as there; define
 * MPI_ENABLE_DEPRECATION_WARNINGS before including mpi.h to be warned. */

#if defined(MPI_ENABLE_DEPRECATION_WARNINGS) && defined(__GNUC__)
#define LWMPI_DEPRECATED(replacement) __attribute__((deprecated("removed in MPI 3.0: use " replacement)))
#else
#define LWMPI_DEPRECATED(replacement)
#endif

typedef MPI_Comm_errhandler_function MPI_Handler_function;
typedef MPI_Comm_copy_attr_function MPI_Copy_function;
typedef MPI_Comm_delete_attr_function MPI_Delete_function;
#define MPI_NULL_COPY_FN   MPI_COMM_NULL_COPY_FN
#define MPI_DUP_FN         MPI_COMM_DUP_FN
#define MPI_NULL_DELETE_FN MPI_COMM_NULL_DELETE_FN

/* MPI_Get_address */
LWMPI_DEPRECATED("MPI_Get_address") int MPI_Address(void *location, MPI_Aint *address);
/* MPI_Type_get_extent: the extent, the lower bound, lb + extent */
LWMPI_DEPRECATED("MPI_Type_get_extent") int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent);
LWMPI_DEPRECATED("MPI_Type_get_extent") int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement);
LWMPI_DEPRECATED("MPI_Type_get_extent") int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement);
/* MPI_Type_create_hvector, MPI_Type_create_hindexed, MPI_Type_create_struct */
LWMPI_DEPRECATED("MPI_Type_create_hvector")
int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype);
LWMPI_DEPRECATED("MPI_Type_create_hindexed")
int MPI_Type_hindexed(int count, const int blocklengths[], const MPI_Aint displacements[],
                      MPI_Datatype oldtype, MPI_Datatype *newtype);
LWMPI_DEPRECATED("MPI_Type_create_struct")
int MPI_Type_struct(int count, const int blocklengths[], const MPI_Aint displacements[],
                    const MPI_Datatype types[], MPI_Datatype *newtype);
/* MPI_Comm_create_errhandler, MPI_Comm_set_errhandler, MPI_Comm_get_errhandler */
LWMPI_DEPRECATED("MPI_Comm_create_errhandler")
int MPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler);
LWMPI_DEPRECATED("MPI_Comm_set_errhandler") int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler);
LWMPI_DEPRECATED("MPI_Comm_get_errhandler") int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler);
/* MPI_Comm_create_keyval, MPI_Comm_free_keyval */
LWMPI_DEPRECATED("MPI_Comm_create_keyval")
int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                      void *extra_state);
LWMPI_DEPRECATED("MPI_Comm_free_keyval") int MPI_Keyval_free(int *keyval);
/* MPI_Comm_set_attr, MPI_Comm_get_attr, MPI_Comm_delete_attr */
LWMPI_DEPRECATED("MPI_Comm_set_attr") int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val);
LWMPI_DEPRECATED("MPI_Comm_get_attr")
int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag);
LWMPI_DEPRECATED("MPI_Comm_delete_attr") int MPI_Attr_delete(MPI_Comm comm, int keyval);

/* ---- Handles for Fortran (MPI 3.1 sections 17.2.4, 17.2.5) ----------
 * LWMPI has no Fortran bindings, but libraries written in C for Fortran
 * programs, and C programs written for other MPIs, pass handles and
 * statuses as Fortran integers. A handle is an int in both languages:
 * c2f gives the handle itself; f2c gives it back when it is a handle of
 * its kind (its top byte, above) or that kind's null handle, else the
 * kind's null handle. Callable at any time. */

typedef int MPI_Fint;

MPI_Fint MPI_Comm_c2f(MPI_Comm comm);
MPI_Comm MPI_Comm_f2c(MPI_Fint comm);
MPI_Fint MPI_Type_c2f(MPI_Datatype datatype);
MPI_Datatype MPI_Type_f2c(MPI_Fint datatype);
MPI_Fint MPI_Group_c2f(MPI_Group group);
MPI_Group MPI_Group_f2c(MPI_Fint group);
MPI_Fint MPI_Request_c2f(MPI_Request request);
MPI_Request MPI_Request_f2c(MPI_Fint request);
MPI_Fint MPI_File_c2f(MPI_File file);
MPI_File MPI_File_f2c(MPI_Fint file);
MPI_Fint MPI_Win_c2f(MPI_Win win);
MPI_Win MPI_Win_f2c(MPI_Fint win);
MPI_Fint MPI_Op_c2f(MPI_Op op);
MPI_Op MPI_Op_f2c(MPI_Fint op);
MPI_Fint MPI_Info_c2f(MPI_Info info);
MPI_Info MPI_Info_f2c(MPI_Fint info);
MPI_Fint MPI_Errhandler_c2f(MPI_Errhandler errhandler);
MPI_Errhandler MPI_Errhandler_f2c(MPI_Fint errhandler);
MPI_Fint MPI_Message_c2f(MPI_Message message);
MPI_Message MPI_Message_f2c(MPI_Fint message);

/* A Fortran status: MPI_F_STATUS_SIZE integers, the first three
 * MPI_SOURCE, MPI_TAG and MPI_ERROR (Fortran's indices 1, 2, 3), the
 * others what MPI_Get_count, MPI_Get_elements and MPI_Test_cancelled
 * read. MPI_Status_c2f and MPI_Status_f2c copy one into the other;
 * MPI_ERR_ARG when either is NULL or MPI_STATUS_IGNORE, or f_status is
 * MPI_F_STATUS_IGNORE or MPI_F_STATUSES_IGNORE. (section 17.2.5) */
#define MPI_F_STATUS_SIZE 8
int MPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status);
int MPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status);
/* The Fortran MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE, as C sees them
 * (variables, not constant expressions, as section 17.2.5 says). */
extern MPI_Fint *const MPI_F_STATUS_IGNORE;
extern MPI_Fint *const MPI_F_STATUSES_IGNORE;

/* ---- Profiling interface (MPI 3.1 chapter 14) -----------------------
 * Every function of this file (but the callbacks MPI_COMM_NULL_COPY_FN,
 * MPI_COMM_DUP_FN and MPI_COMM_NULL_DELETE_FN) is also PMPI_<name>, with
 * the same arguments. A program may define its own MPI_<name>, which
 * calls PMPI_<name>, to count or time calls: it replaces LWMPI's at link
 * time. LWMPI's own calls (the collective inside MPI_Comm_split) go to
 * PMPI_ directly, never to the program's function (docs/lwmpi.md,
 * "Profiling MPI calls"). The declarations are generated from this file
 * when LWMPI is built. */

/* Turns a profiling library's work on or off (section 14.2.4); level and
 * what follows mean what that library says. LWMPI itself does nothing and
 * returns MPI_SUCCESS. Callable at any time. */
int MPI_Pcontrol(const int level, ...);

#include <lwmpi_pmpi.h>

#ifdef __cplusplus
}
#endif

#endif /* LWMPI_MPI_H */
