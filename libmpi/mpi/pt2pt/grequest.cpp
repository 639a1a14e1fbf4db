// Generalized requests (MPI 3.1 section 12.2): operations a program
// carries out itself, which the completion calls then treat like any
// other request (request.cpp).
#include <mpi.h>

#include "env/call.hpp"
#include "env/errors.hpp"
#include "request.hpp"
#include "env/state.hpp"

using namespace lwmpi;

/// A new active generalized request with these callbacks (NULL ones do
/// nothing); MPI_ERR_NO_MEM when the request table is full (section 12.2).
int MPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                       MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request) {
    Call call("MPI_Grequest_start");
    if (int e = call.active()) return e;
    if (!request) return call.fail(MPI_ERR_ARG, "request is NULL");
    const Generalized g{query_fn, free_fn, cancel_fn, extra_state};
    if (int e = request_new_generalized(g, request)) return call.fail(e, "too many requests");
    return MPI_SUCCESS;
}

/// Tells MPI that the operation of generalized request `request` is done:
/// a wait or test may now complete it. A request freed before runs its
/// free function now (whose error this returns). (section 12.2)
int MPI_Grequest_complete(MPI_Request request) {
    Call call("MPI_Grequest_complete");
    if (int e = call.active()) return e;
    Request *r = generalized_get(request);
    if (!r || r->complete) return call.fail(MPI_ERR_REQUEST, "not a pending generalized request");
    if (int e = generalized_complete(*r)) return call.fail(e, "the free function");
    return MPI_SUCCESS;
}
