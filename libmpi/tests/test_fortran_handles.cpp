// Host tests of libmpi/mpi/env/fortran_handles.cpp: handles and statuses
// as Fortran integers (MPI 3.1 sections 17.2.4, 17.2.5), through mpi.h's
// MPI_ names (the weak jumps of the profiling interface) and PMPI_ ones.
#include <catch2/catch.hpp>

#include <mpi.h>

#include <vector>

#include "on_ranks.hpp"

namespace {

// One kind of handle: its conversions, its null handle, and a handle of
// another kind that its f2c must refuse.
struct Kind {
    const char *name;
    MPI_Fint (*c2f)(int);
    int (*f2c)(MPI_Fint);
    int null_handle;
    int other_kind;
};

const Kind kinds[] = {
    {"comm", MPI_Comm_c2f, MPI_Comm_f2c, MPI_COMM_NULL, MPI_INT},
    {"datatype", MPI_Type_c2f, MPI_Type_f2c, MPI_DATATYPE_NULL, MPI_COMM_WORLD},
    {"group", MPI_Group_c2f, MPI_Group_f2c, MPI_GROUP_NULL, MPI_SUM},
    {"request", MPI_Request_c2f, MPI_Request_f2c, MPI_REQUEST_NULL, MPI_GROUP_EMPTY},
    {"file", MPI_File_c2f, MPI_File_f2c, MPI_FILE_NULL, MPI_INFO_ENV},
    {"win", MPI_Win_c2f, MPI_Win_f2c, MPI_WIN_NULL, MPI_ERRORS_RETURN},
    {"op", MPI_Op_c2f, MPI_Op_f2c, MPI_OP_NULL, MPI_COMM_SELF},
    {"info", MPI_Info_c2f, MPI_Info_f2c, MPI_INFO_NULL, MPI_MAX},
    {"errhandler", MPI_Errhandler_c2f, MPI_Errhandler_f2c, MPI_ERRHANDLER_NULL, MPI_BYTE},
    {"message", MPI_Message_c2f, MPI_Message_f2c, MPI_MESSAGE_NULL, MPI_FILE_NULL},
};

}  // namespace

TEST_CASE("f2c gives back a handle of its kind and the null handle for anything else", "[fortran]") {
    for (const Kind &k : kinds) {
        INFO(k.name);
        CHECK(k.f2c(k.c2f(k.null_handle)) == k.null_handle);
        CHECK(k.c2f(k.other_kind) == k.other_kind);  // c2f takes any int as it is
        CHECK(k.f2c(k.other_kind) == k.null_handle);
        CHECK(k.f2c(12345) == k.null_handle);
        CHECK(k.f2c(-1) == k.null_handle);
    }
    CHECK(MPI_File_f2c(0) == MPI_FILE_NULL);  // the one null handle that is not 0
}

TEST_CASE("objects of every kind survive a trip through Fortran", "[fortran]") {
    const auto seen = on_a_rank([] {
        std::vector<int> bad;  // lines of failed checks
        const auto same = [&](int line, MPI_Fint (*c2f)(int), int (*f2c)(MPI_Fint), int h) {
            if (h == 0 || f2c(c2f(h)) != h) bad.push_back(line);
        };
        MPI_Comm dup = MPI_COMM_NULL;
        MPI_Datatype vector = MPI_DATATYPE_NULL;
        MPI_Group group = MPI_GROUP_NULL;
        MPI_Info info = MPI_INFO_NULL;
        MPI_Win win = MPI_WIN_NULL;
        MPI_Request request = MPI_REQUEST_NULL;
        MPI_Message message = MPI_MESSAGE_NULL;
        int cell = 0, value = 7;
        if (MPI_Comm_dup(MPI_COMM_WORLD, &dup) || MPI_Type_vector(2, 1, 3, MPI_INT, &vector) ||
            MPI_Comm_group(dup, &group) || MPI_Info_create(&info) ||
            MPI_Win_create(&cell, sizeof cell, 1, MPI_INFO_NULL, dup, &win) ||
            MPI_Isend(&value, 1, MPI_INT, 0, 4, dup, &request) ||
            MPI_Mprobe(0, 4, dup, &message, MPI_STATUS_IGNORE))
            return std::vector<int>{__LINE__};
        same(__LINE__, MPI_Comm_c2f, MPI_Comm_f2c, MPI_COMM_WORLD);
        same(__LINE__, MPI_Comm_c2f, MPI_Comm_f2c, dup);
        same(__LINE__, MPI_Type_c2f, MPI_Type_f2c, MPI_DOUBLE_INT);
        same(__LINE__, MPI_Type_c2f, MPI_Type_f2c, vector);
        same(__LINE__, MPI_Group_c2f, MPI_Group_f2c, group);
        same(__LINE__, MPI_Info_c2f, MPI_Info_f2c, info);
        same(__LINE__, MPI_Info_c2f, MPI_Info_f2c, MPI_INFO_ENV);
        same(__LINE__, MPI_Win_c2f, MPI_Win_f2c, win);
        same(__LINE__, MPI_Request_c2f, MPI_Request_f2c, request);
        same(__LINE__, MPI_Message_c2f, MPI_Message_f2c, message);
        same(__LINE__, MPI_Message_c2f, MPI_Message_f2c, MPI_MESSAGE_NO_PROC);
        same(__LINE__, MPI_Op_c2f, MPI_Op_f2c, MPI_MAXLOC);
        same(__LINE__, MPI_Errhandler_c2f, MPI_Errhandler_f2c, MPI_ERRORS_RETURN);
        same(__LINE__, PMPI_Comm_c2f, PMPI_Comm_f2c, dup);
        // The converted handles work: the message and the send complete.
        int got = 0;
        if (MPI_Mrecv(&got, 1, MPI_INT, &message, MPI_STATUS_IGNORE) ||
            MPI_Wait(&request, MPI_STATUS_IGNORE) || got != value)
            bad.push_back(__LINE__);
        if (MPI_Win_free(&win) || MPI_Info_free(&info) || MPI_Group_free(&group) || MPI_Type_free(&vector) ||
            MPI_Comm_free(&dup))
            bad.push_back(__LINE__);
        return bad;
    });
    CHECK(seen == std::vector<int>{});
}

TEST_CASE("a status converted to Fortran and back answers the same queries", "[fortran]") {
    struct Seen {
        std::vector<MPI_Fint> fortran;  // the Fortran status's first three words
        int count = -1, cancelled = -1, ok = 0;
    };
    const Seen seen = on_a_rank([] {
        Seen s;
        double out[3] = {1, 2, 3}, in[5] = {};
        MPI_Request send;
        MPI_Status c_status, back;
        MPI_Fint f_status[MPI_F_STATUS_SIZE];
        if (MPI_Isend(out, 3, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD, &send) ||
            MPI_Recv(in, 5, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD, &c_status) ||
            MPI_Wait(&send, MPI_STATUS_IGNORE))
            return s;
        c_status.MPI_ERROR = MPI_ERR_PENDING;  // a single completion leaves it as it was (3.2.5)
        if (MPI_Status_c2f(&c_status, f_status) || PMPI_Status_f2c(f_status, &back) ||
            MPI_Get_count(&back, MPI_DOUBLE, &s.count) || MPI_Test_cancelled(&back, &s.cancelled))
            return s;
        s.fortran.assign(f_status, f_status + 3);
        s.ok = back.MPI_SOURCE == 0 && back.MPI_TAG == 9 && back.MPI_ERROR == MPI_ERR_PENDING;
        return s;
    });
    CHECK(seen.ok);
    CHECK(seen.fortran == std::vector<MPI_Fint>{0, 9, MPI_ERR_PENDING});
    CHECK(seen.count == 3);
    CHECK(seen.cancelled == 0);
}

TEST_CASE("a status conversion refuses a status to ignore", "[fortran]") {
    const auto codes = on_a_rank([] {
        MPI_Status c_status{};
        MPI_Fint f_status[MPI_F_STATUS_SIZE] = {};
        return std::vector<int>{
            MPI_Status_c2f(MPI_STATUS_IGNORE, f_status),    MPI_Status_c2f(&c_status, MPI_F_STATUS_IGNORE),
            MPI_Status_f2c(MPI_F_STATUS_IGNORE, &c_status), MPI_Status_f2c(MPI_F_STATUSES_IGNORE, &c_status),
            MPI_Status_f2c(f_status, MPI_STATUS_IGNORE),    MPI_Status_f2c(f_status, &c_status)};
    });
    CHECK(codes ==
          std::vector<int>{MPI_ERR_ARG, MPI_ERR_ARG, MPI_ERR_ARG, MPI_ERR_ARG, MPI_ERR_ARG, MPI_SUCCESS});
}
