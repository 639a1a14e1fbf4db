// mpicxx_test: an ordinary C++17 MPI program built with tools/mpicxx (at
// build time, by tessera_add_program, and by userland/tests/test_mpicxx.py):
// std::vector, std::map, std::unordered_map, std::sort, <cmath>, a lambda,
// a class hierarchy with a virtual function, a template, a global object
// built before main, new/delete and printf. Every rank builds a
// histogram of its own values in a std::map and sends its sorted vector to
// rank 0, which merges, checks and prints "mpicxx_test: OK (np=N)".
#include <mpi.h>
#include <pthread.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <unordered_map>
#include <vector>

namespace {

// <pthread.h>'s static initializers are constant expressions in C++ too,
// as libstdc++'s constexpr std::mutex constructor needs.
constexpr pthread_mutex_t mutex_init = PTHREAD_MUTEX_INITIALIZER;
constexpr pthread_mutex_t recursive_mutex_init = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
constexpr pthread_cond_t cond_init = PTHREAD_COND_INITIALIZER;
constexpr pthread_rwlock_t rwlock_init = PTHREAD_RWLOCK_INITIALIZER;
constexpr pthread_once_t once_init = PTHREAD_ONCE_INIT;
static_assert(mutex_init.__lock == 0 && recursive_mutex_init.__type == PTHREAD_MUTEX_RECURSIVE &&
                  cond_init.__seq == 0 && rwlock_init.__state == 0 && once_init.__state == 0,
              "free, unlocked, not run");

// Per MPI process, also when they are threads of one process (--ranks threads).
thread_local int failures = 0;

void expect(bool ok, const char *what, int rank) {
    if (!ok) {
        std::printf("mpicxx_test: rank %d: FAILED: %s\n", rank, what);
        ++failures;
    }
}

// Virtual functions need no RTTI (the build has -fno-rtti).
class Shape {
public:
    virtual ~Shape() = default;
    virtual long area() const = 0;
};

class Rect : public Shape {
public:
    Rect(long w, long h) : w_(w), h_(h) {}
    long area() const override { return w_ * h_; }

private:
    long w_, h_;
};

class Square : public Rect {
public:
    explicit Square(long s) : Rect(s, s) {}
};

// Counts destructor calls, so that delete is seen to run them.
thread_local int destroyed = 0;
struct Tracked {
    int value;
    explicit Tracked(int v) : value(v) {}
    ~Tracked() { ++destroyed; }
};

// Built by its constructor before main (the runtime runs .init_array);
// read-only afterwards, so ranks as threads may share it.
const std::vector<int> primes{2, 3, 5, 7, 11};

template <typename T>
T sum_of(const std::vector<T> &v) {
    return std::accumulate(v.begin(), v.end(), T{});
}

// Rank r's values: 16 pseudo-random numbers in 0..99 (an LCG seeded by r).
std::vector<int> values_of(int rank) {
    std::vector<int> v;
    unsigned x = 12345u + 977u * static_cast<unsigned>(rank);
    for (int i = 0; i < 16; ++i) {
        x = x * 1103515245u + 12345u;
        v.push_back(static_cast<int>((x >> 16) % 100));
    }
    return v;
}

}  // namespace

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    std::vector<int> mine = values_of(rank);
    std::map<int, int> histogram;
    for (int v : mine)
        ++histogram[v / 10];
    int counted = 0;
    for (const auto &[decade, n] : histogram) {
        expect(decade >= 0 && decade < 10, "histogram key in 0..9", rank);
        counted += n;
    }
    expect(counted == 16, "histogram counts every value", rank);
    int prev_key = -1;
    bool ordered = true;
    for (const auto &kv : histogram) {
        ordered = ordered && kv.first > prev_key;
        prev_key = kv.first;
    }
    expect(ordered, "std::map iterates in key order", rank);

    std::unordered_map<int, int> squares;
    for (int p : primes)
        squares[p] = p * p;
    expect(primes.size() == 5 && squares.size() == 5 && squares.at(11) == 121,
           "a global std::vector built before main, std::unordered_map", rank);
    expect(std::sqrt(static_cast<double>(squares[7])) == 7.0 && std::abs(-3) == 3, "<cmath>", rank);

    // Descending with a lambda, then check with std::is_sorted.
    std::sort(mine.begin(), mine.end(), [](int a, int b) { return a > b; });
    expect(std::is_sorted(mine.rbegin(), mine.rend()), "std::sort with a lambda", rank);

    // Virtual dispatch through base pointers, objects made with new.
    std::vector<Shape *> shapes{new Rect(2, 3), new Square(4), new Rect(rank + 1, 5)};
    long area = 0;
    for (const Shape *s : shapes)
        area += s->area();
    for (Shape *s : shapes)
        delete s;
    expect(area == 6 + 16 + 5L * (rank + 1), "virtual area()", rank);

    Tracked *one = new Tracked(rank);
    Tracked *many = new Tracked[3]{Tracked(1), Tracked(2), Tracked(3)};
    expect(one->value == rank && many[2].value == 3, "new and new[]", rank);
    delete one;
    delete[] many;
    expect(destroyed == 4, "delete and delete[] run the destructors", rank);

    // Rank 0 gathers every rank's sorted values and checks the sum.
    const long my_sum = sum_of(mine);
    if (rank == 0) {
        std::vector<int> all(mine);
        std::vector<int> buf(16);
        for (int r = 1; r < size; ++r) {
            MPI_Recv(buf.data(), 16, MPI_INT, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            expect(
                buf ==
                    [r] {
                        auto v = values_of(r);
                        std::sort(v.begin(), v.end(), std::greater<int>());
                        return v;
                    }(),
                "received values", rank);
            all.insert(all.end(), buf.begin(), buf.end());
        }
        long want = 0;
        for (int r = 0; r < size; ++r)
            want += sum_of(values_of(r));
        expect(sum_of(all) == want && all.size() == 16u * size, "gathered sum", rank);
        std::sort(all.begin(), all.end());
        expect(std::adjacent_find(all.begin(), all.end(), std::greater<int>()) == all.end(),
               "merged values sorted", rank);
    } else {
        MPI_Send(mine.data(), 16, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    long total = 0;
    MPI_Allreduce(&my_sum, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    int all_failures = 0;
    MPI_Reduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (all_failures == 0)
            std::printf("mpicxx_test: OK (np=%d, sum %ld)\n", size, total);
        else
            std::printf("mpicxx_test: %d FAILED checks\n", all_failures);
    }
    MPI_Finalize();
    return all_failures == 0 ? 0 : 1;
}
