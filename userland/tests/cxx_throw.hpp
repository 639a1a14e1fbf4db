// Shared by cxx_stdlib_test.cpp and cxx_throw.cpp (see there).
#pragma once

#include <stdexcept>

struct Shape {
    virtual ~Shape() = default;
    virtual int sides() const = 0;
};
struct Circle : Shape {
    int sides() const override;
};
struct Square : Shape {
    int sides() const override;
};

// An exception type of the program's own, carrying a value.
struct RankError : std::runtime_error {
    RankError(int v, const char *what) : std::runtime_error(what), value(v) {}
    int value;
};

// A new Circle (0 sides) or Square (4); std::invalid_argument otherwise.
Shape *make_shape(int sides);
// Throws RankError(value) from three frames down, each with a destructor
// to run, through a catch (...) that rethrows; never returns.
int throw_through_frames(int value);
// How many of those destructors ran during the last throw.
int frames_unwound();
