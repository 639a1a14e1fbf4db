/* openmp_test: OpenMP inside every MPI rank (MPI_THREAD_FUNNELED), as a
 * hybrid program uses it: parallel regions, work-sharing loops with every
 * schedule, reductions, sections, tasks, barriers, critical, atomic,
 * locks (simple and nested) and the omp_* queries. Each rank checks every
 * result against a serial computation, the ranks then combine theirs with
 * MPI_Allreduce, and each prints "openmp_test: rank R OK (T threads)" with
 * its team's size; a failed check prints "FAILED". With an argument N the
 * test asks for teams of N threads (omp_set_num_threads). */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 10000

static int rank, failures;

static void expect(int ok, const char *what) {
    if (ok) return;
    printf("openmp_test: rank %d: FAILED: %s\n", rank, what);
    ++failures;
}

/* A loop whose iterations differ in cost, so that schedules matter. */
static long work(int i) {
    long s = 0;
    for (int k = 0; k < i % 37; ++k)
        s += (long)i * k % 7;
    return s;
}

static void loops(long serial) {
    long sums[5] = {0};
    int counts[5] = {0};
#pragma omp parallel for schedule(static) reduction(+ : sums[0], counts[0])
    for (int i = 0; i < N; ++i)
        sums[0] += work(i), ++counts[0];
#pragma omp parallel for schedule(static, 7) reduction(+ : sums[1], counts[1])
    for (int i = 0; i < N; ++i)
        sums[1] += work(i), ++counts[1];
#pragma omp parallel for schedule(dynamic, 13) reduction(+ : sums[2], counts[2])
    for (int i = 0; i < N; ++i)
        sums[2] += work(i), ++counts[2];
#pragma omp parallel for schedule(guided) reduction(+ : sums[3], counts[3])
    for (int i = 0; i < N; ++i)
        sums[3] += work(i), ++counts[3];
    omp_set_schedule(omp_sched_dynamic, 5);
#pragma omp parallel for schedule(runtime) reduction(+ : sums[4], counts[4])
    for (int i = 0; i < N; ++i)
        sums[4] += work(i), ++counts[4];
    for (int s = 0; s < 5; ++s)
        expect(sums[s] == serial && counts[s] == N, "a work-sharing loop's sum");

    double prod = 1;
    int lo = N, hi = -1, all = 1;
#pragma omp parallel for reduction(* : prod) reduction(min : lo) reduction(max : hi) reduction(&& : all)
    for (int i = 0; i < 20; ++i) {
        prod *= 2;
        lo = i < lo ? i : lo;
        hi = i > hi ? i : hi;
        all = all && i < 20;
    }
    expect(prod == 1048576.0 && lo == 0 && hi == 19 && all, "reductions *, min, max, &&");
}

static long fib(int n) {
    if (n < 2) return n;
    long a, b;
#pragma omp task shared(a)
    a = fib(n - 1);
#pragma omp task shared(b)
    b = fib(n - 2);
#pragma omp taskwait
    return a + b;
}

static void constructs(int team) {
    int in_sections[3] = {0}, arrived = 0, after = 1, critical_count = 0, atomic_count = 0;
    long fib20 = 0;
    omp_lock_t lock;
    omp_nest_lock_t nest;
    omp_init_lock(&lock);
    omp_init_nest_lock(&nest);
    int locked_count = 0, nested_depth = 0, size = 0;
#pragma omp parallel
    {
#pragma omp single
        size = omp_get_num_threads();
        expect(omp_in_parallel() || omp_get_num_threads() == 1, "omp_in_parallel");
#pragma omp sections
        {
#pragma omp section
            in_sections[0] = 1;
#pragma omp section
            in_sections[1] = 2;
#pragma omp section
            in_sections[2] = 3;
        }
#pragma omp atomic
        ++arrived;
#pragma omp barrier
        if (arrived != omp_get_num_threads()) after = 0; /* read only after the barrier */
#pragma omp critical
        ++critical_count;
#pragma omp atomic update
        atomic_count += 2;
        omp_set_lock(&lock);
        ++locked_count;
        omp_unset_lock(&lock);
        omp_set_nest_lock(&nest);
        omp_set_nest_lock(&nest);
        if (omp_test_nest_lock(&nest) == 3) ++nested_depth;
        omp_unset_nest_lock(&nest);
        omp_unset_nest_lock(&nest);
        omp_unset_nest_lock(&nest);
#pragma omp single
        fib20 = fib(20);
    }
    omp_destroy_lock(&lock);
    omp_destroy_nest_lock(&nest);
    expect(size == team, "the team's size");
    expect(in_sections[0] == 1 && in_sections[1] == 2 && in_sections[2] == 3, "sections");
    expect(after, "barrier");
    expect(critical_count == size && atomic_count == 2 * size, "critical and atomic");
    expect(locked_count == size && nested_depth == size, "omp locks");
    expect(fib20 == 6765, "tasks (fib 20)");
    double t0 = omp_get_wtime();
    expect(t0 > 0 && omp_get_wtime() >= t0 && omp_get_wtick() > 0, "omp_get_wtime");
}

int main(int argc, char **argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    expect(provided >= MPI_THREAD_FUNNELED, "MPI_THREAD_FUNNELED provided");
    if (argc > 1) omp_set_num_threads(atoi(argv[1]));
    const int team = omp_get_max_threads();
    expect(team >= 1 && omp_get_num_procs() >= 1, "omp_get_max_threads, omp_get_num_procs");

    long serial = 0;
    for (int i = 0; i < N; ++i)
        serial += work(i);
    loops(serial);
    constructs(team);

    long all = 0;
    MPI_Allreduce(&serial, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    expect(all == serial * size, "MPI_Allreduce of the ranks' sums");
    if (!failures) printf("openmp_test: rank %d OK (%d threads)\n", rank, team);
    MPI_Finalize();
    return failures != 0;
}
