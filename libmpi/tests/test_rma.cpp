// One-sided communication in whole jobs (MPI 3.1 chapter 11) over the
// fake fabric's IKC windows: windows of every flavor, put, get and the
// accumulates with their epochs, and the error classes of section 11.8.
// Every placement: ranks of one cluster copy directly (threads, or
// processes through aliases), ranks of different clusters go through the
// kernel's windows.
#include <catch2/catch.hpp>

#include <mpi.h>

#include <algorithm>
#include <string>
#include <vector>

#include "jobs_support.hpp"

using namespace jobs;

namespace {

// Placements with 4 ranks, and 8 ranks over two clusters (compact).
struct RmaPlacement {
    const char *name;
    int np;
    Placement p;
};
const RmaPlacement rma[] = {
    {"4 ranks, one cluster", 4, placements[0]},
    {"4 ranks, one per cluster", 4, placements[2]},
    {"4 ranks, one cluster, processes", 4, placements[4]},
    {"8 ranks over two clusters", 8, placements[0]},
};

template <class Body>
void each_placement(Body body) {
    for (const RmaPlacement &rp : rma) {
        SECTION(rp.name) {
            JobConfig c = config(rp.np, rp.p);
            const JobResult r = run_job(c, [&](int rank) {
                if (MPI_Init(nullptr, nullptr)) return __LINE__;
                const int e = body(rank);
                if (e) return e;
                return MPI_Finalize() == MPI_SUCCESS ? 0 : __LINE__;
            });
            CHECK_CLEAN(r);
        }
    }
}

int size() {
    int n = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

}  // namespace

TEST_CASE("put and get under fences, created and allocated windows", "[jobs][rma]") {
    each_placement([](int rank) {
        const int np = size(), right = (rank + 1) % np, left = (rank + np - 1) % np;
        std::vector<int> mem(8, -1);
        MPI_Win win;
        EXPECT_OK(
            MPI_Win_create(mem.data(), 8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        EXPECT_OK(MPI_Win_fence(0, win));
        const int mine[2] = {rank, 100 + rank};
        EXPECT_OK(MPI_Put(mine, 2, MPI_INT, right, 3, 2, MPI_INT, win));
        EXPECT_OK(MPI_Win_fence(0, win));
        EXPECT(mem[3] == left && mem[4] == 100 + left && mem[2] == -1 && mem[5] == -1);
        int got[2] = {0, 0};
        EXPECT_OK(MPI_Get(got, 2, MPI_INT, left, 3, 2, MPI_INT, win));
        EXPECT_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
        const int ll = (left + np - 1) % np;
        EXPECT(got[0] == ll && got[1] == 100 + ll);
        EXPECT_OK(MPI_Win_free(&win));
        EXPECT(win == MPI_WIN_NULL);

        // Allocated, with a strided target type (every other int).
        int *base = nullptr;
        EXPECT_OK(
            MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
        for (int i = 0; i < 16; ++i)
            base[i] = -1;
        MPI_Datatype every_other;
        EXPECT_OK(MPI_Type_vector(4, 1, 2, MPI_INT, &every_other));
        EXPECT_OK(MPI_Type_commit(&every_other));
        EXPECT_OK(MPI_Win_fence(0, win));
        const int four[4] = {rank, rank + 1, rank + 2, rank + 3};
        EXPECT_OK(MPI_Put(four, 4, MPI_INT, right, 1, 1, every_other, win));
        EXPECT_OK(MPI_Win_fence(0, win));
        for (int i = 0; i < 16; ++i)
            EXPECT(base[i] == (i % 2 == 1 && i < 9 ? left + (i - 1) / 2 : -1));
        int back[8] = {0};
        EXPECT_OK(MPI_Get(back, 1, every_other, left, 1, 1, every_other, win));  // both strided
        EXPECT_OK(MPI_Win_fence(0, win));
        EXPECT(back[0] == ll && back[2] == ll + 1 && back[4] == ll + 2 && back[6] == ll + 3 && back[1] == 0);
        EXPECT_OK(MPI_Type_free(&every_other));
        EXPECT_OK(MPI_Win_free(&win));
        return 0;
    });
}

TEST_CASE("accumulates are atomic per element", "[jobs][rma]") {
    each_placement([](int rank) {
        const int np = size();
        long *base = nullptr;
        MPI_Win win;
        EXPECT_OK(
            MPI_Win_allocate(4 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
        base[0] = base[1] = base[2] = base[3] = 0;
        EXPECT_OK(MPI_Win_fence(0, win));
        const long add[2] = {rank + 1, 1};
        for (int k = 0; k < 10; ++k)
            EXPECT_OK(MPI_Accumulate(add, 2, MPI_LONG, 0, 0, 2, MPI_LONG, MPI_SUM, win));
        const long mx = rank;
        EXPECT_OK(MPI_Accumulate(&mx, 1, MPI_LONG, 0, 2, 1, MPI_LONG, MPI_MAX, win));
        EXPECT_OK(MPI_Win_fence(0, win));
        if (rank == 0) EXPECT(base[0] == 10L * np * (np + 1) / 2 && base[1] == 10L * np && base[2] == np - 1);
        EXPECT_OK(MPI_Win_fence(0, win));

        // A counter: fetch-and-add from every rank, the values fetched all
        // differ, compare-and-swap claims a slot once.
        EXPECT_OK(MPI_Win_lock_all(0, win));
        std::vector<long> fetched;
        const long one = 1;
        for (int k = 0; k < 20; ++k) {
            long old = -1;
            EXPECT_OK(MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, 3, MPI_SUM, win));
            fetched.push_back(old);
        }
        long claim = rank + 1, expect_free = 0, was = -1;
        EXPECT_OK(MPI_Compare_and_swap(&claim, &expect_free, &was, MPI_LONG, np - 1, 3, win));
        EXPECT_OK(MPI_Win_unlock_all(win));
        std::vector<long> all(static_cast<size_t>(20 * np));
        EXPECT_OK(MPI_Allgather(fetched.data(), 20, MPI_LONG, all.data(), 20, MPI_LONG, MPI_COMM_WORLD));
        std::sort(all.begin(), all.end());
        for (int i = 0; i < 20 * np; ++i)
            EXPECT(all[static_cast<size_t>(i)] == i);
        int winners = was == 0, total = 0;
        EXPECT_OK(MPI_Allreduce(&winners, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        EXPECT(np == 1 || total == 1);
        EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0) EXPECT(base[3] == 20L * np);
        EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));

        // Get_accumulate with MPI_NO_OP reads; MPI_REPLACE writes.
        EXPECT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        long cur = -1, rep = 7;
        EXPECT_OK(
            MPI_Get_accumulate(nullptr, 0, MPI_LONG, &cur, 1, MPI_LONG, 0, 3, 1, MPI_LONG, MPI_NO_OP, win));
        EXPECT(cur == 20L * np || cur == 8);  // first, or after another rank
        EXPECT_OK(MPI_Accumulate(&rep, 1, MPI_LONG, 0, 3, 1, MPI_LONG, MPI_REPLACE, win));
        EXPECT_OK(MPI_Win_flush(0, win));
        EXPECT_OK(MPI_Get_accumulate(&one, 1, MPI_LONG, &cur, 1, MPI_LONG, 0, 3, 1, MPI_LONG, MPI_SUM, win));
        EXPECT(cur == 7);
        EXPECT_OK(MPI_Win_unlock(0, win));
        EXPECT_OK(MPI_Win_free(&win));
        return 0;
    });
}

TEST_CASE("post-start-complete-wait and exclusive locks", "[jobs][rma]") {
    each_placement([](int rank) {
        const int np = size(), right = (rank + 1) % np, left = (rank + np - 1) % np;
        int *base = nullptr;
        MPI_Win win;
        EXPECT_OK(MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
        base[0] = base[1] = 0;
        MPI_Group world, from_left, to_right;
        EXPECT_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
        EXPECT_OK(MPI_Group_incl(world, 1, &left, &from_left));
        EXPECT_OK(MPI_Group_incl(world, 1, &right, &to_right));
        for (int round = 1; round <= 3; ++round) {
            EXPECT_OK(MPI_Win_post(from_left, 0, win));
            EXPECT_OK(MPI_Win_start(to_right, 0, win));
            const int v = rank * 10 + round;
            EXPECT_OK(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win));
            EXPECT_OK(MPI_Win_complete(win));
            int flag = 0;
            if (round == 2)
                while (!flag)
                    EXPECT_OK(MPI_Win_test(win, &flag));
            else
                EXPECT_OK(MPI_Win_wait(win));
            EXPECT(base[0] == left * 10 + round);
        }
        // Exclusive read-modify-write of rank 0's word by get and put.
        EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
        for (int k = 0; k < 10; ++k) {
            EXPECT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
            int x = -1;
            EXPECT_OK(MPI_Get(&x, 1, MPI_INT, 0, 1, 1, MPI_INT, win));
            EXPECT_OK(MPI_Win_flush(0, win));
            ++x;
            EXPECT_OK(MPI_Put(&x, 1, MPI_INT, 0, 1, 1, MPI_INT, win));
            EXPECT_OK(MPI_Win_unlock(0, win));
        }
        EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0) EXPECT(base[1] == 10 * np);
        // Request-based operations complete through MPI_Wait.
        EXPECT_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
        int y = -1;
        MPI_Request req[2];
        EXPECT_OK(MPI_Rget(&y, 1, MPI_INT, right, 1, 1, MPI_INT, win, &req[0]));
        const int two = 2;
        EXPECT_OK(MPI_Raccumulate(&two, 1, MPI_INT, right, 0, 1, MPI_INT, MPI_SUM, win, &req[1]));
        EXPECT_OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        EXPECT(req[0] == MPI_REQUEST_NULL && y == (right == 0 ? 10 * np : 0));
        EXPECT_OK(MPI_Win_unlock(right, win));
        EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
        EXPECT(base[0] == left * 10 + 3 + 2);
        EXPECT_OK(MPI_Group_free(&world));
        EXPECT_OK(MPI_Group_free(&from_left));
        EXPECT_OK(MPI_Group_free(&to_right));
        EXPECT_OK(MPI_Win_free(&win));
        return 0;
    });
}

TEST_CASE("dynamic and shared windows", "[jobs][rma]") {
    each_placement([](int rank) {
        const int np = size(), right = (rank + 1) % np;
        MPI_Win win;
        EXPECT_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        std::vector<double> region(4, 0.0);
        EXPECT_OK(MPI_Win_attach(win, region.data(), 4 * sizeof(double)));
        MPI_Aint mine, addrs[16];
        EXPECT_OK(MPI_Get_address(region.data(), &mine));
        EXPECT_OK(MPI_Allgather(&mine, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD));
        EXPECT_OK(MPI_Win_fence(0, win));
        const double d = rank + 0.5;
        EXPECT_OK(MPI_Put(&d, 1, MPI_DOUBLE, right, addrs[right] + 2 * sizeof(double), 1, MPI_DOUBLE, win));
        EXPECT_OK(MPI_Win_fence(0, win));
        EXPECT(region[2] == (rank + np - 1) % np + 0.5 && region[0] == 0.0);
        EXPECT_OK(MPI_Win_detach(win, region.data()));
        EXPECT_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
        EXPECT_OK(MPI_Win_free(&win));

        // Shared windows need ranks that share memory.
        MPI_Comm node;
        EXPECT_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
        int nr, nn;
        MPI_Comm_rank(node, &nr);
        MPI_Comm_size(node, &nn);
        int *mybase = nullptr;
        EXPECT_OK(
            MPI_Win_allocate_shared(sizeof(int) * (nr + 1), sizeof(int), MPI_INFO_NULL, node, &mybase, &win));
        for (int i = 0; i <= nr; ++i)
            mybase[i] = nr;
        EXPECT_OK(MPI_Win_sync(win));
        EXPECT_OK(MPI_Barrier(node));
        for (int q = 0; q < nn; ++q) {
            MPI_Aint sz;
            int du;
            int *p = nullptr;
            EXPECT_OK(MPI_Win_shared_query(win, q, &sz, &du, &p));
            EXPECT(sz == static_cast<MPI_Aint>(sizeof(int)) * (q + 1) && du == static_cast<int>(sizeof(int)));
            EXPECT(p[0] == q && p[q] == q);
        }
        if (nn > 1) {  // the parts follow each other: rank 0's 1 int, then rank 1's
            MPI_Aint sz;
            int du, *first = nullptr, *second = nullptr;
            EXPECT_OK(MPI_Win_shared_query(win, 0, &sz, &du, &first));
            EXPECT_OK(MPI_Win_shared_query(win, 1, &sz, &du, &second));
            EXPECT(second == first + 1);
        }
        EXPECT_OK(MPI_Barrier(node));
        EXPECT_OK(MPI_Win_free(&win));
        EXPECT_OK(MPI_Comm_free(&node));
        return 0;
    });
}

TEST_CASE("window attributes, names and error classes", "[jobs][rma]") {
    const JobResult r = run_job(shape(4, TS_MAP_SCATTER), [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        int mem[4] = {0, 0, 0, 0};
        MPI_Win win;
        EXPECT_OK(MPI_Win_create(mem, sizeof mem, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        void *base = nullptr;
        int flag = 0, *flavor = nullptr, *model = nullptr, *unit = nullptr;
        MPI_Aint *sz = nullptr;
        EXPECT_OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag));
        EXPECT(flag && base == mem);
        EXPECT_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag));
        EXPECT(flag && *sz == static_cast<MPI_Aint>(sizeof mem));
        EXPECT_OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unit, &flag));
        EXPECT(*unit == 4);
        EXPECT_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
        EXPECT(*flavor == MPI_WIN_FLAVOR_CREATE);
        EXPECT_OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
        EXPECT(*model == MPI_WIN_UNIFIED);
        int key;
        EXPECT_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &key, nullptr));
        EXPECT_OK(MPI_Win_set_attr(win, key, &mem[1]));
        void *v = nullptr;
        EXPECT_OK(MPI_Win_get_attr(win, key, &v, &flag));
        EXPECT(flag && v == &mem[1]);
        EXPECT_OK(MPI_Win_delete_attr(win, key));
        EXPECT_OK(MPI_Win_get_attr(win, key, &v, &flag));
        EXPECT(!flag);
        EXPECT_OK(MPI_Win_free_keyval(&key));
        char name[MPI_MAX_OBJECT_NAME];
        int len = -1;
        EXPECT_OK(MPI_Win_get_name(win, name, &len));
        EXPECT(len == 0);
        EXPECT_OK(MPI_Win_set_name(win, "halo"));
        EXPECT_OK(MPI_Win_get_name(win, name, &len));
        EXPECT(len == 4 && std::string(name) == "halo");
        MPI_Group g;
        int gs = 0;
        EXPECT_OK(MPI_Win_get_group(win, &g));
        EXPECT_OK(MPI_Group_size(g, &gs));
        EXPECT(gs == 4);
        EXPECT_OK(MPI_Group_free(&g));

        MPI_Errhandler h;
        EXPECT_OK(MPI_Win_get_errhandler(win, &h));
        EXPECT(h == MPI_ERRORS_ARE_FATAL);
        EXPECT_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
        EXPECT_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        int x = 1;
        EXPECT(MPI_Put(&x, 1, MPI_INT, 1, 0, 1, MPI_INT, win) == MPI_ERR_RMA_SYNC);  // no epoch
        EXPECT(MPI_Win_unlock(1, win) == MPI_ERR_RMA_SYNC);
        EXPECT(MPI_Win_complete(win) == MPI_ERR_RMA_SYNC);
        EXPECT(MPI_Win_wait(win) == MPI_ERR_RMA_SYNC);
        EXPECT(MPI_Win_flush(1, win) == MPI_ERR_RMA_SYNC);
        EXPECT(MPI_Win_lock(99, 1, 0, win) == MPI_ERR_LOCKTYPE);
        EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, 1, 12345, win) == MPI_ERR_ASSERT);
        EXPECT(MPI_Win_fence(1 << 10, win) == MPI_ERR_ASSERT);
        EXPECT(MPI_Win_attach(win, mem, 4) == MPI_ERR_RMA_FLAVOR);
        EXPECT(MPI_Win_shared_query(win, 0, sz, unit, &base) == MPI_ERR_RMA_FLAVOR);
        EXPECT(MPI_Put(&x, 1, MPI_INT, 1, 0, 1, MPI_INT, MPI_WIN_NULL) == MPI_ERR_WIN);
        EXPECT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win));
        EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win) == MPI_ERR_RMA_SYNC);  // twice
        EXPECT(MPI_Put(&x, 1, MPI_INT, 1, 4, 1, MPI_INT, win) == MPI_ERR_RMA_RANGE);
        EXPECT(MPI_Put(&x, 2, MPI_INT, 1, 3, 2, MPI_INT, win) == MPI_ERR_RMA_RANGE);
        EXPECT(MPI_Put(&x, 1, MPI_INT, 1, -1, 1, MPI_INT, win) == MPI_ERR_DISP);
        EXPECT(MPI_Put(&x, 1, MPI_INT, 9, 0, 1, MPI_INT, win) == MPI_ERR_RANK);
        EXPECT(MPI_Put(&x, -1, MPI_INT, 1, 0, 1, MPI_INT, win) == MPI_ERR_COUNT);
        EXPECT(MPI_Accumulate(&x, 1, MPI_INT, 1, 0, 1, MPI_INT, MPI_OP_NULL, win) == MPI_ERR_OP);
        EXPECT(MPI_Put(&x, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win) == MPI_SUCCESS);
        EXPECT(MPI_Win_free(&win) == MPI_ERR_RMA_SYNC);  // in an epoch
        EXPECT_OK(MPI_Win_unlock(1, win));
        EXPECT(MPI_Win_create(mem, -1, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_ERR_SIZE);
        EXPECT(MPI_Win_create(mem, 4, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_ERR_DISP);
        MPI_Win shared;
        void *sb;
        EXPECT(MPI_Win_allocate_shared(4, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &sb, &shared) ==
               MPI_ERR_RMA_SHARED);

        // A dynamic window's unattached memory: the kernel refuses it.
        MPI_Win dyn;
        EXPECT_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn));
        EXPECT_OK(MPI_Win_set_errhandler(dyn, MPI_ERRORS_RETURN));
        EXPECT_OK(MPI_Win_lock_all(0, dyn));
        int y = 0;
        EXPECT(MPI_Get(&y, 1, MPI_INT, (rank + 1) % 4, reinterpret_cast<MPI_Aint>(&y), 1, MPI_INT, dyn) ==
               MPI_ERR_RMA_RANGE);
        EXPECT(MPI_Win_detach(dyn, &y) == MPI_ERR_RMA_ATTACH);
        EXPECT_OK(MPI_Win_unlock_all(dyn));
        EXPECT_OK(MPI_Win_free(&dyn));
        EXPECT_OK(MPI_Win_free(&win));
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}

TEST_CASE("no data at the target: any types; a segment of size 0: a NULL base", "[jobs][rma]") {
    const JobResult r = run_job(shape(2, TS_MAP_COMPACT), [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        MPI_Datatype none;  // a committed type of size 0: no basic type at all
        EXPECT_OK(MPI_Type_contiguous(0, MPI_INT, &none));
        EXPECT_OK(MPI_Type_commit(&none));
        int buf[2] = {1, 2}, *base;
        MPI_Win win;
        EXPECT_OK(MPI_Win_allocate_shared(rank == 0 ? 0 : 2 * sizeof(int), sizeof(int), MPI_INFO_NULL,
                                          MPI_COMM_WORLD, &base, &win));
        EXPECT_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
        EXPECT_OK(MPI_Win_fence(0, win));
        EXPECT_OK(MPI_Accumulate(buf, 1, none, 1, 0, 1, none, MPI_SUM, win));
        EXPECT_OK(MPI_Accumulate(buf, 0, MPI_INT, 1, 0, 0, none, MPI_SUM, win));
        EXPECT_OK(MPI_Get_accumulate(buf, 1, none, buf, 1, none, 1, 0, 1, none, MPI_SUM, win));
        EXPECT(MPI_Accumulate(buf, 1, none, 1, 0, 1, none, MPI_OP_NULL, win) == MPI_ERR_OP);
        EXPECT_OK(MPI_Win_fence(0, win));
        MPI_Aint size;
        int unit;
        int *seg = buf;
        EXPECT_OK(MPI_Win_shared_query(win, 0, &size, &unit, &seg));
        EXPECT(size == 0 && seg == nullptr);
        EXPECT_OK(MPI_Win_shared_query(win, MPI_PROC_NULL, &size, &unit, &seg));
        EXPECT(size == 2 * static_cast<MPI_Aint>(sizeof(int)) &&
               seg != nullptr);  // the first of nonzero size
        EXPECT_OK(MPI_Win_free(&win));
        EXPECT_OK(MPI_Type_free(&none));
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}

TEST_CASE("a window reports its hints of 11.2.1, given or default", "[jobs][rma]") {
    const JobResult r = run_job(shape(2, TS_MAP_SCATTER), [](int) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        // The value of hint `key` in MPI_Win_get_info, "(absent)", or "(failed)".
        const auto value = [](MPI_Win w, const char *key) {
            MPI_Info used;
            char v[MPI_MAX_INFO_VAL] = "";
            int flag = 0;
            if (MPI_Win_get_info(w, &used) || MPI_Info_get(used, key, MPI_MAX_INFO_VAL - 1, v, &flag) ||
                MPI_Info_free(&used))
                return std::string("(failed)");
            return flag ? std::string(v) : std::string("(absent)");
        };
        MPI_Info info;
        EXPECT_OK(MPI_Info_create(&info));
        EXPECT_OK(MPI_Info_set(info, "no_locks", "true"));
        EXPECT_OK(MPI_Info_set(info, "accumulate_ordering", "rar,waw"));
        EXPECT_OK(MPI_Info_set(info, "accumulate_ops", "whatever"));  // not understood: ignored
        int *base;
        MPI_Win win;
        EXPECT_OK(MPI_Win_allocate(sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &base, &win));
        EXPECT(value(win, "no_locks") == "true");
        EXPECT(value(win, "accumulate_ordering") == "rar,waw");
        EXPECT(value(win, "accumulate_ops") == "same_op_no_op");
        EXPECT(value(win, "same_size") == "false");
        EXPECT(value(win, "alloc_shared_noncontig") == "(absent)");  // not a shared window
        EXPECT_OK(MPI_Info_set(info, "accumulate_ordering", "none"));
        EXPECT_OK(MPI_Info_set(info, "no_locks", "false"));
        EXPECT_OK(MPI_Win_set_info(win, info));
        EXPECT(value(win, "accumulate_ordering") == "none");
        EXPECT(value(win, "no_locks") == "false");
        EXPECT_OK(MPI_Info_free(&info));
        EXPECT_OK(MPI_Win_free(&win));
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}

TEST_CASE("a dynamic window holds many attached regions", "[jobs][rma]") {
    const JobResult r = run_job(shape(2, TS_MAP_SCATTER), [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        MPI_Win win;
        EXPECT_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        // 40 separate regions, as a linked list's nodes would be: more
        // than the kernel keeps apart (TS_WINDOW_REGIONS).
        std::vector<std::vector<int>> nodes(40, std::vector<int>(4, 0));
        for (auto &n : nodes)
            EXPECT_OK(MPI_Win_attach(win, n.data(), 4 * sizeof(int)));
        MPI_Aint mine[2], theirs[2];
        EXPECT_OK(MPI_Get_address(nodes.front().data(), &mine[0]));
        EXPECT_OK(MPI_Get_address(nodes.back().data(), &mine[1]));
        EXPECT_OK(MPI_Sendrecv(mine, 2, MPI_AINT, 1 - rank, 0, theirs, 2, MPI_AINT, 1 - rank, 0,
                               MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        const int v = 7 + rank;
        EXPECT_OK(MPI_Win_fence(0, win));
        for (const MPI_Aint at : theirs)
            EXPECT_OK(MPI_Put(&v, 1, MPI_INT, 1 - rank, at + sizeof(int), 1, MPI_INT, win));
        EXPECT_OK(MPI_Win_fence(0, win));
        EXPECT(nodes.front()[1] == 8 - rank && nodes.back()[1] == 8 - rank);
        for (auto &n : nodes)
            EXPECT_OK(MPI_Win_detach(win, n.data()));
        EXPECT_OK(MPI_Win_free(&win));
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}

TEST_CASE("an access may run from one attached region into the next", "[jobs][rma]") {
    const JobResult r = run_job(shape(2, TS_MAP_SCATTER), [](int rank) {
        EXPECT_OK(MPI_Init(nullptr, nullptr));
        MPI_Win win;
        EXPECT_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        // Two halves of one array, attached apart (MPICH's
        // win_dynamic_rma_flush_get); a put and a get cross the seam.
        std::vector<int> array(64, 0), back(48, 0), out(48, 0);
        EXPECT_OK(MPI_Win_attach(win, array.data(), 32 * sizeof(int)));
        EXPECT_OK(MPI_Win_attach(win, array.data() + 32, 32 * sizeof(int)));
        MPI_Aint mine, theirs;
        EXPECT_OK(MPI_Get_address(array.data(), &mine));
        EXPECT_OK(MPI_Sendrecv(&mine, 1, MPI_AINT, 1 - rank, 0, &theirs, 1, MPI_AINT, 1 - rank, 0,
                               MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < 48; ++i)
            out[i] = 100 * rank + i;
        EXPECT_OK(MPI_Win_lock_all(0, win));
        EXPECT_OK(MPI_Put(out.data(), 48, MPI_INT, 1 - rank, theirs + 8 * sizeof(int), 48, MPI_INT, win));
        EXPECT_OK(MPI_Win_flush(1 - rank, win));
        EXPECT_OK(MPI_Get(back.data(), 48, MPI_INT, 1 - rank, theirs + 8 * sizeof(int), 48, MPI_INT, win));
        EXPECT_OK(MPI_Win_flush(1 - rank, win));
        EXPECT_OK(MPI_Win_unlock_all(win));
        EXPECT(back == out);
        EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
        EXPECT(array[8] == 100 * (1 - rank) && array[55] == 100 * (1 - rank) + 47);
        EXPECT_OK(MPI_Win_detach(win, array.data()));
        EXPECT_OK(MPI_Win_detach(win, array.data() + 32));
        EXPECT_OK(MPI_Win_free(&win));
        EXPECT_OK(MPI_Finalize());
        return 0;
    });
    CHECK_CLEAN(r);
}

TEST_CASE("puts within a cluster are copies, across clusters kernel window writes", "[jobs][rma]") {
    for (const int policy : {TS_MAP_COMPACT, TS_MAP_SCATTER}) {
        SECTION(policy == TS_MAP_COMPACT ? "one cluster" : "one cluster per rank") {
            const JobResult r = run_job(shape(2, policy), [policy](int rank) {
                EXPECT_OK(MPI_Init(nullptr, nullptr));
                int mem[4] = {0, 0, 0, 0};
                MPI_Win win;
                EXPECT_OK(MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
                EXPECT_OK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
                const int before = fake::ikc_calls(rank);
                const int v = 40 + rank;
                EXPECT_OK(MPI_Put(&v, 1, MPI_INT, 1 - rank, 2, 1, MPI_INT, win));
                EXPECT_OK(MPI_Win_flush(1 - rank, win));
                const int calls = fake::ikc_calls(rank) - before;
                EXPECT(policy == TS_MAP_COMPACT ? calls == 0 : calls == 2);  // write, flush
                EXPECT_OK(MPI_Win_unlock_all(win));
                EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD));
                EXPECT(mem[2] == 41 - rank);
                EXPECT_OK(MPI_Win_free(&win));
                EXPECT_OK(MPI_Finalize());
                return 0;
            });
            CHECK_CLEAN(r);
        }
    }
}
