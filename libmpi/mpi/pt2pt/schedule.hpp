// Schedules: a collective operation written down as rounds of steps, so
// that it can run in the background (the non-blocking collectives of MPI
// 3.1 section 5.12) or to the end at once.
//
// A round's point-to-point steps (sends and receives on the
// communicator's collective context, all with the schedule's tag) start
// together; once every one of them is over, the round's local steps (copy,
// reduce with an operation) run in the order they were added; then the
// next round starts. A schedule is built whole before it starts, and its
// buffers (the caller's, and temporary ones it owns) stay put until it
// ends. A running schedule is background work of LibMPI's requests
// (request.hpp): every progress pass (progress_requests()) moves it on, so
// a non-blocking collective advances while its caller waits for, tests or
// probes anything.
#pragma once

#include <mpi.h>
#include <stdint.h>

#include "request.hpp"

namespace lwmpi {

struct Comm;
struct Datatype;

/// What a step does.
enum class StepKind : uint8_t { send, recv, copy, reduce, call };

/// One step of a schedule.
struct Step {
    StepKind kind;
    const void *in;             ///< send: the buffer; copy, reduce: the source
    void *out;                  ///< recv: the buffer; copy: the target; reduce: inout; call: the argument
    int count;                  ///< of `type`
    MPI_Datatype type;          ///< held by the schedule
    int peer;                   ///< send, recv: a rank of the communicator
    int out_count;              ///< copy: room in `out`, of out_type
    MPI_Datatype out_type;      ///< copy; held by the schedule
    MPI_Op op;                  ///< reduce: inout = in op inout
    const Datatype *t, *out_t;  ///< type and out_type, valid while held
    int (*fn)(void *arg);       ///< call: the function
    MPI_Comm comm;              ///< send, recv: whose collective context carries it
};

/// A collective operation as rounds of steps. Building records the first
/// failure (no memory) and ignores what follows; start() reports it.
class Schedule : public Background {
public:
    /// A new empty schedule for a collective on `c` whose messages carry
    /// `tag` on c's collective context; nullptr when there is no memory.
    static Schedule *create(const Comm &c, int tag);
    /// Frees a schedule that never started or has ended (its temporary
    /// buffers, its hold on the datatypes).
    static void destroy(Schedule *s);

    // ---- building ----
    void send(int peer, const void *buf, int count, MPI_Datatype type);
    void recv(int peer, void *buf, int count, MPI_Datatype type);
    /// Copies `count` elements of `type` at `src` into `dst`, which has
    /// room for out_count of out_type (MPI_ERR_TRUNCATE otherwise).
    void copy(const void *src, int count, MPI_Datatype type, void *dst, int out_count, MPI_Datatype out_type);
    /// inout = in op inout (reduce_local).
    void reduce(const void *in, void *inout, int count, MPI_Datatype type, MPI_Op op);
    /// Calls fn(arg) as a local step; a non-zero result (an error class)
    /// fails the schedule. For work that only the end of the collective
    /// can do (MPI_Comm_idup makes its communicator then).
    void call(int (*fn)(void *arg), void *arg);
    /// The sends and receives added from now on travel on `c`'s collective
    /// context, with the schedule's tag, and name ranks of `c` (at first
    /// they travel on the schedule's communicator). A schedule on an
    /// intercommunicator works inside its group this way, on the local
    /// intracommunicator, where no other schedule runs (comm.hpp).
    void messages_on(const Comm &c);
    /// Ends the current round (nothing when it is empty).
    void round();
    /// A temporary buffer for `count` elements of `type` in its layout (a
    /// buffer argument: its data starts at true_lb), freed with the
    /// schedule; nullptr (and the schedule failed) when there is no memory.
    void *temp(int count, MPI_Datatype type);

    /// Steps and rounds so far (for tests).
    int steps() const { return nsteps_; }
    int rounds() const { return nrounds_ + (round_begin() < nsteps_ ? 1 : 0); }
    const Step &step(int i) const { return steps_[i]; }

    // ---- running ----
    /// Starts the first round and joins the rank's running schedules. The
    /// failure of building, or of starting a message, as an error class.
    int start();
    /// Moves the schedule on as far as its completed messages let it,
    /// without a progress pass; true when it has ended (error() final).
    bool advance();
    /// MPI_SUCCESS, or the first failure.
    int error() const { return error_; }
    /// Runs the schedule to its end, with progress: start(), then waits.
    int run();

private:
    int round_begin() const { return nrounds_ ? ends_[nrounds_ - 1] : 0; }
    bool add(const Step &s);
    bool start_round();
    bool finish_round();
    void run_locals(int begin, int end);
    void leave();

    MPI_Comm on_;  ///< where the messages added now travel
    int tag_;
    int error_;
    Step *steps_;
    int nsteps_, cap_steps_;
    int *ends_;  ///< ends_[k]: index past round k's last step
    int nrounds_, cap_rounds_;
    void **temps_;
    int ntemps_, cap_temps_;
    // While running:
    int current_;        ///< the round under way
    MPI_Request *live_;  ///< its messages (MPI_REQUEST_NULL once over)
    int nlive_, cap_live_;
    bool running_, ended_;
};

/// The tag of the next schedule on `c` (section 5.12: every rank starts
/// the collectives of a communicator in the same order, so the n-th one
/// gets the same tag everywhere, and no message of one can match another,
/// nor a blocking collective's, whose tags are below first_schedule_tag).
int next_schedule_tag(Comm &c);

/// Tags of schedules: first_schedule_tag + sequence number modulo
/// schedule_tags.
inline constexpr int first_schedule_tag = 0x100;
inline constexpr int schedule_tags = 1 << 24;

}  // namespace lwmpi
