// LWMPI's per-rank state: RankLocal<T>, the one way LibMPI and MPIUtil
// keep what belongs to the calling MPI process (rank).
//
// A rank's state is that of the thread that called MPI_Init, its *home*
// thread, and every thread of the rank must find it: when each rank is a
// process (processes mode), its process's threads; when the ranks of a
// cluster are threads of one process (threads mode), the rank's thread
// and the threads it starts (which have its local index). Any of them may
// call MPI, one at a time (MPI_THREAD_SERIALIZED), or at any time under
// the rank's lock (MPI_THREAD_MULTIPLE, threads.cpp).
//
// So each object is a thread_local RankLocal<T>, and get() moves from the
// caller's instance to the home thread's: every thread's thread_local
// objects are copies of one template block (LWMPI is linked into the
// program, whose one TLS block holds them all), at the same distance from
// one another, so the home thread's instance of an object lies at a fixed
// shift from the caller's own instance of it, the same shift for every
// object. MPI_Init records the home thread in os::rank_word(); each
// thread learns its shift once (find_home()), after which get() costs a
// thread_local load and an add (the shift is 0 on the home thread). The
// home thread's objects live as long as it does: it
// must outlive the other threads' calls (MPI asks that it also be the one
// that calls MPI_Finalize).
#pragma once

#include <stdint.h>

#include <type_traits>

namespace lwmpi::util {

/// How the calling thread reaches its rank's state: its objects' shift
/// to the home thread's (modulo 2^64), final once known for good.
struct RankLink {
    uintptr_t shift;
    bool final;
};

/// The calling thread's link; all-zero: not known yet.
inline constinit thread_local RankLink t_rank_link{};

/// Sets t_rank_link: final in a thread of a rank whose MPI_Init has run;
/// before that, the thread's own state, and it asks again next time.
void find_home();

/// Makes the calling thread its rank's home thread (init()): the rank's
/// other threads find their rank's state in its objects from now on.
void become_home();

/// The shift from the caller's thread_local objects to its rank's.
inline uintptr_t rank_shift() {
    if (!t_rank_link.final) [[unlikely]]
        find_home();
    return t_rank_link.shift;
}

/// True when the caller holds its rank's state itself: in threads mode
/// always, in processes mode on the home thread (and on every thread
/// before MPI_Init).
inline bool holds_rank_state() { return rank_shift() == 0; }

/// One object of the calling rank's state, to be declared thread_local at
/// namespace scope (all-zero at the start: T must be trivially default
/// constructible, so no thread pays for an initialiser). Reach it with
/// get() only, except for what concerns the calling thread itself (own()).
template <class T>
class RankLocal {
    static_assert(std::is_trivially_default_constructible_v<T>);

public:
    /// The calling rank's object.
    T &get() { return *reinterpret_cast<T *>(reinterpret_cast<uintptr_t>(&value_) + rank_shift()); }
    /// The calling thread's own object, the rank's or not.
    T &own() { return value_; }

private:
    T value_;
};

}  // namespace lwmpi::util
