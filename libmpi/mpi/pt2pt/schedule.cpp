// Schedules: building them, and moving them on over LibMPI's requests.
#include "schedule.hpp"

#include <stdlib.h>

#include "comm/comm.hpp"
#include "datatype/datatype.hpp"
#include "datatype/op.hpp"
#include "request.hpp"
#include <mpiutil/mpiutil.hpp>

namespace lwmpi {

namespace {

// Makes room for `need` elements in *arr (capacity *cap); false when there
// is no memory (*arr unchanged).
template <typename T>
bool reserve(T **arr, int *cap, int need) {
    if (need <= *cap) return true;
    int n = *cap ? *cap * 2 : 8;
    while (n < need)
        n *= 2;
    T *p = static_cast<T *>(realloc(*arr, sizeof(T) * static_cast<size_t>(n)));
    if (!p) return false;
    *arr = p;
    *cap = n;
    return true;
}

bool is_message(const Step &s) { return s.kind == StepKind::send || s.kind == StepKind::recv; }

}  // namespace

Schedule *Schedule::create(const Comm &c, int tag) {
    // Plain data, all zero to begin with (no pointer owned yet).
    auto *s = static_cast<Schedule *>(calloc(1, sizeof(Schedule)));
    if (!s) return nullptr;
    s->move_on = [](Background &b) { return static_cast<Schedule &>(b).advance(); };
    s->result = [](const Background &b) { return static_cast<const Schedule &>(b).error(); };
    s->release = [](Background &b) { destroy(&static_cast<Schedule &>(b)); };
    s->on_ = c.handle;
    s->tag_ = tag;
    s->error_ = MPI_SUCCESS;
    return s;
}

void Schedule::destroy(Schedule *s) {
    if (!s) return;
    // Only a failed run() leaves a running schedule here: its messages are
    // given up with it (freed once over, as MPI_Request_free does).
    if (s->running_) {
        for (int i = 0; i < s->nlive_; ++i) {
            if (s->live_[i] == MPI_REQUEST_NULL) continue;
            Request &r = *request_get(s->live_[i]);
            if (request_check(r))
                request_finish(&s->live_[i], MPI_STATUS_IGNORE);
            else
                request_free_later(r);
        }
        s->leave();
    }
    for (int i = 0; i < s->nsteps_; ++i) {
        datatype_release(s->steps_[i].type);
        if (s->steps_[i].kind == StepKind::copy) datatype_release(s->steps_[i].out_type);
        if (s->steps_[i].kind == StepKind::reduce) op_release(s->steps_[i].op);
    }
    for (int i = 0; i < s->ntemps_; ++i)
        free(s->temps_[i]);
    free(s->temps_);
    free(s->steps_);
    free(s->ends_);
    free(s->live_);
    free(s);
}

bool Schedule::add(const Step &s) {
    if (error_) return false;
    if (!reserve(&steps_, &cap_steps_, nsteps_ + 1)) {
        error_ = MPI_ERR_NO_MEM;
        return false;
    }
    // A pending operation holds its datatypes (the caller may free them).
    Step &t = steps_[nsteps_++] = s;
    t.comm = is_message(s) ? on_ : MPI_COMM_NULL;
    t.t = datatype_hold(s.type);
    t.out_t = s.kind == StepKind::copy ? datatype_hold(s.out_type) : nullptr;
    if (s.kind == StepKind::reduce) op_hold(s.op);
    return true;
}

void Schedule::send(int peer, const void *buf, int count, MPI_Datatype type) {
    add(Step{StepKind::send, buf, nullptr, count, type, peer, 0, MPI_DATATYPE_NULL, MPI_OP_NULL, nullptr,
             nullptr, nullptr, MPI_COMM_NULL});
}

void Schedule::recv(int peer, void *buf, int count, MPI_Datatype type) {
    add(Step{StepKind::recv, nullptr, buf, count, type, peer, 0, MPI_DATATYPE_NULL, MPI_OP_NULL, nullptr,
             nullptr, nullptr, MPI_COMM_NULL});
}

void Schedule::copy(const void *src, int count, MPI_Datatype type, void *dst, int out_count,
                    MPI_Datatype out_type) {
    add(Step{StepKind::copy, src, dst, count, type, -1, out_count, out_type, MPI_OP_NULL, nullptr, nullptr,
             nullptr, MPI_COMM_NULL});
}

void Schedule::reduce(const void *in, void *inout, int count, MPI_Datatype type, MPI_Op op) {
    add(Step{StepKind::reduce, in, inout, count, type, -1, 0, MPI_DATATYPE_NULL, op, nullptr, nullptr,
             nullptr, MPI_COMM_NULL});
}

void Schedule::call(int (*fn)(void *arg), void *arg) {
    add(Step{StepKind::call, nullptr, arg, 0, MPI_DATATYPE_NULL, -1, 0, MPI_DATATYPE_NULL, MPI_OP_NULL,
             nullptr, nullptr, fn, MPI_COMM_NULL});
}

void Schedule::messages_on(const Comm &c) { on_ = c.handle; }

void Schedule::round() {
    if (error_ || round_begin() == nsteps_) return;
    if (!reserve(&ends_, &cap_rounds_, nrounds_ + 1)) {
        error_ = MPI_ERR_NO_MEM;
        return;
    }
    ends_[nrounds_++] = nsteps_;
}

void *Schedule::temp(int count, MPI_Datatype type) {
    const Datatype &t = *datatype_get(type);
    const MPI_Aint span = count > 0 ? (count - 1) * t.extent + t.true_extent : 0;
    void *mem = error_ ? nullptr : malloc(span > 0 ? static_cast<size_t>(span) : 1);
    if (mem && !reserve(&temps_, &cap_temps_, ntemps_ + 1)) {
        free(mem);
        mem = nullptr;
    }
    if (!mem) {
        error_ = error_ ? error_ : MPI_ERR_NO_MEM;
        return nullptr;
    }
    temps_[ntemps_++] = mem;
    return static_cast<char *>(mem) - t.true_lb;
}

int Schedule::start() {
    round();
    if (error_) return error_;
    // Room for the messages of the largest round, so that running never
    // allocates.
    int most = 0;
    for (int k = 0, begin = 0; k < nrounds_; begin = ends_[k++]) {
        int n = 0;
        for (int i = begin; i < ends_[k]; ++i)
            n += is_message(steps_[i]) ? 1 : 0;
        most = n > most ? n : most;
    }
    if (!reserve(&live_, &cap_live_, most)) return MPI_ERR_NO_MEM;
    current_ = 0;
    nlive_ = 0;
    running_ = true;
    background_join(*this);
    if (nrounds_ > 0) start_round();
    advance();
    return MPI_SUCCESS;
}

bool Schedule::start_round() {
    const int begin = current_ ? ends_[current_ - 1] : 0;
    for (int i = begin; i < ends_[current_] && !error_; ++i) {
        const Step &s = steps_[i];
        if (!is_message(s)) continue;
        const bool send = s.kind == StepKind::send;
        const P2POp op{
            send ? Op2::send : Op2::recv, s.in, s.out, s.count, s.type, s.peer, tag_, s.comm, true};
        MPI_Request h;
        int e = request_new(op, false, &h);
        if (e == MPI_SUCCESS) {
            e = request_start(*request_get(h));
            if (e)
                request_drop(*request_get(h));
            else
                live_[nlive_++] = h;
        }
        error_ = e;
    }
    return error_ == MPI_SUCCESS;
}

bool Schedule::finish_round() {
    for (int i = 0; i < nlive_; ++i) {
        if (live_[i] == MPI_REQUEST_NULL) continue;
        if (!request_check(*request_get(live_[i]))) return false;
        const int e = request_finish(&live_[i], MPI_STATUS_IGNORE);
        error_ = error_ ? error_ : e;
    }
    nlive_ = 0;
    if (!error_) run_locals(current_ ? ends_[current_ - 1] : 0, ends_[current_]);
    return true;
}

void Schedule::run_locals(int begin, int end) {
    for (int i = begin; i < end && !error_; ++i) {
        const Step &s = steps_[i];
        if (s.kind == StepKind::copy)
            error_ = copy_as(s.in, s.count, *s.t, s.out, s.out_count, *s.out_t);
        else if (s.kind == StepKind::reduce)
            error_ = reduce_checked(s.in, s.out, s.count, s.type, *s.t, s.op);
        else if (s.kind == StepKind::call)
            error_ = s.fn(s.out);
    }
}

bool Schedule::advance() {
    if (ended_) return true;
    if (!running_) return false;
    while (current_ < nrounds_ && finish_round()) {
        ++current_;
        if (error_ || current_ == nrounds_) break;
        start_round();
    }
    if (current_ < nrounds_ && !error_) return false;
    // Over, or failed: a failed one still waits for the messages it
    // started (they use its buffers).
    for (int i = 0; i < nlive_; ++i)
        if (live_[i] != MPI_REQUEST_NULL) return false;
    leave();
    return true;
}

void Schedule::leave() {
    background_leave(*this);
    running_ = false;
    ended_ = true;
}

int Schedule::run() {
    if (int e = start()) return e;
    while (!advance()) {
        if (int e = progress_requests()) return e;
        if (!advance()) util::idle();
    }
    return error_;
}

int next_schedule_tag(Comm &c) {
    return first_schedule_tag + static_cast<int>(c.schedules++ % schedule_tags);
}

}  // namespace lwmpi
