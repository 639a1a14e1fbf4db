// cxx_stdlib_test: the C++ standard library in every rank, as an ordinary
// C++17 MPI program uses it: strings and string streams, <iomanip>,
// <regex>, <memory>, <chrono>, <random>, file streams (through the file
// server), exceptions thrown and caught across functions and translation
// units (cxx_throw.cpp), RTTI (dynamic_cast, typeid), and threads:
// std::thread, std::mutex, std::condition_variable, std::async and
// std::atomic. A rank starts threads until the kernel has no core left
// for one (std::thread throws std::system_error), at most 3. Each rank
// prints "cxx_stdlib_test: rank R OK (N threads)" on std::cout and a line
// on std::cerr; a failed check prints "FAILED".
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <future>
#include <iomanip>
#include <iostream>
#include <memory>
#include <mutex>
#include <new>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <typeinfo>
#include <vector>

#include "cxx_throw.hpp"

namespace {

int rank;
int failures;

void expect(bool ok, const std::string &what) {
    if (ok) return;
    std::cout << "cxx_stdlib_test: rank " << rank << ": FAILED: " << what << std::endl;
    ++failures;
}

void strings_and_streams() {
    std::ostringstream out;
    out << std::setw(6) << std::setfill('0') << rank * 7 << ' ' << std::fixed << std::setprecision(3)
        << 3.14159 << ' ' << std::hex << 255;
    char want[32];
    std::snprintf(want, sizeof(want), "%06d 3.142 ff", rank * 7);
    expect(out.str() == want, "ostringstream with <iomanip> gave '" + out.str() + "'");

    std::istringstream in("12 34 word 2.5");
    int a = 0, b = 0;
    std::string w;
    double d = 0;
    in >> a >> b >> w >> d;
    expect(a == 12 && b == 34 && w == "word" && d == 2.5, "istringstream");

    const std::string name = "rank-" + std::to_string(rank);
    std::smatch m;
    expect(std::regex_match(name, m, std::regex(R"((\w+)-(\d+))")) && m[1] == "rank" &&
               m[2] == std::to_string(rank),
           "regex_match on " + name);
    expect(std::regex_replace(std::string("a1b22c"), std::regex("[0-9]+"), "#") == "a#b#c", "regex_replace");
}

void memory_time_random() {
    auto unique = std::unique_ptr<Shape>(make_shape(4));
    expect(unique->sides() == 4, "unique_ptr");
    auto shared = std::make_shared<std::vector<int>>(100, rank);
    std::weak_ptr<std::vector<int>> weak = shared;
    {
        auto copy = shared;
        expect(shared.use_count() == 2, "shared_ptr use_count");
    }
    shared.reset();
    expect(weak.expired(), "weak_ptr expired");

    const auto t0 = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const auto waited = std::chrono::steady_clock::now() - t0;
    expect(waited >= std::chrono::milliseconds(2), "sleep_for(2ms) on steady_clock");
    expect(std::chrono::system_clock::now().time_since_epoch().count() > 0, "system_clock");

    // The standard fixes this value ([rand.predef]).
    std::mt19937 gen;
    gen.discard(9999);
    expect(gen() == 4123659995u, "mt19937's 10000th value");
    std::uniform_int_distribution<int> die(1, 6);
    const int roll = die(gen);
    expect(roll >= 1 && roll <= 6, "uniform_int_distribution");
}

void files() {
    const std::string path = "cxx_" + std::to_string(rank) + ".txt";
    {
        std::ofstream out(path);
        expect(out.good(), "ofstream " + path);
        for (int i = 0; i < 100; ++i)
            out << "line " << i * rank << '\n';
    }
    std::ifstream in(path);
    expect(in.good(), "ifstream " + path);
    std::string word;
    long value = 0, lines = 0, sum = 0;
    while (in >> word >> value) {
        ++lines;
        sum += value;
    }
    expect(lines == 100 && sum == 4950L * rank, "file read back: " + std::to_string(lines) + " lines");
    std::ifstream missing("no_such_file.txt");
    expect(!missing.is_open() && missing.fail(), "ifstream of a missing file fails");
}

void exceptions_and_rtti() {
    try {
        throw_through_frames(rank);
        expect(false, "throw_through_frames returned");
    } catch (const RankError &e) {
        expect(e.value == rank && std::string(e.what()) == "thrown three frames down",
               "RankError's contents");
        expect(frames_unwound() == 3, "destructors run while unwinding: " + std::to_string(frames_unwound()));
    }
    try {
        delete make_shape(3);
        expect(false, "make_shape(3) returned");
    } catch (const std::logic_error &e) {  // a base class of invalid_argument
        expect(std::string(e.what()) == "no shape has 3 sides", std::string("what() ") + e.what());
    }
    try {
        std::vector<int>(4).at(rank + 4);
        expect(false, "vector::at past the end returned");
    } catch (const std::out_of_range &) {}
    try {
        // Called as a function: a new-expression's allocation may be elided.
        void *huge = ::operator new(size_t(1) << 50);
        ::operator delete(huge);
        expect(false, "operator new of 1 PiB returned");
    } catch (const std::bad_alloc &) {}
    std::exception_ptr saved;
    try {
        throw 42;
    } catch (...) {
        saved = std::current_exception();
    }
    try {
        std::rethrow_exception(saved);
    } catch (int v) {
        expect(v == 42, "rethrow_exception");
    }

    std::unique_ptr<Shape> circle(make_shape(0));
    expect(dynamic_cast<Circle *>(circle.get()) != nullptr, "dynamic_cast to the right class");
    expect(dynamic_cast<Square *>(circle.get()) == nullptr, "dynamic_cast to the wrong class");
    expect(typeid(*circle) == typeid(Circle) && typeid(*circle) != typeid(Square), "typeid");
    try {
        (void)dynamic_cast<Square &>(*circle);
        expect(false, "dynamic_cast of a reference to the wrong class returned");
    } catch (const std::bad_cast &) {}
}

// Starts up to 3 threads, as many as the kernel gives cores; each adds to
// a counter under a mutex and to an atomic, and the last waits on a
// condition variable for the main thread. Returns how many started.
int threads() {
    std::mutex lock;
    std::condition_variable ready;
    bool go = false;
    long counter = 0;
    std::atomic<long> atomic_counter{0};
    thread_local int mine = 0;
    std::vector<std::thread> team;
    for (int i = 0; i < 3; ++i) {
        try {
            team.emplace_back([&, i] {
                {
                    std::unique_lock<std::mutex> hold(lock);
                    ready.wait(hold, [&] { return go; });
                }
                mine = i + 1;
                for (int k = 0; k < 1000; ++k) {
                    std::lock_guard<std::mutex> hold(lock);
                    ++counter;
                }
                atomic_counter.fetch_add(mine, std::memory_order_relaxed);
            });
        } catch (const std::system_error &e) {
            expect(e.code() == std::errc::resource_unavailable_try_again,
                   std::string("std::thread failed with ") + e.what());
            break;
        }
    }
    const int n = int(team.size());
    // The rank's share of the cluster's cores, its own included.
    expect(std::thread::hardware_concurrency() == unsigned(n) + 1,
           "hardware_concurrency " + std::to_string(std::thread::hardware_concurrency()));
    {
        std::lock_guard<std::mutex> hold(lock);
        go = true;
    }
    ready.notify_all();
    for (auto &t : team)
        t.join();
    expect(counter == 1000L * n, "mutex-protected counter " + std::to_string(counter));
    expect(atomic_counter == long(n) * (n + 1) / 2, "atomic counter");
    expect(mine == 0, "thread_local of the main thread untouched");
    if (n > 0) {
        auto answer = std::async(std::launch::async, [] { return 6 * 7; });
        expect(answer.get() == 42, "std::async");
    }
    return n;
}

}  // namespace

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    strings_and_streams();
    memory_time_random();
    files();
    exceptions_and_rtti();
    const int n = threads();
    std::cerr << "cxx_stdlib_test: rank " << rank << " on std::cerr" << std::endl;
    if (!failures) std::cout << "cxx_stdlib_test: rank " << rank << " OK (" << n << " threads)" << std::endl;
    MPI_Finalize();
    return failures != 0;
}
