// The other translation unit of cxx_stdlib_test: exceptions thrown here
// are caught there, so that the unwinder crosses a call between two
// objects, and a class hierarchy whose RTTI the test queries.
#include "cxx_throw.hpp"

#include <stdexcept>
#include <string>

int Circle::sides() const { return 0; }
int Square::sides() const { return 4; }

Shape *make_shape(int sides) {
    if (sides == 0) return new Circle;
    if (sides == 4) return new Square;
    throw std::invalid_argument("no shape has " + std::to_string(sides) + " sides");
}

// Three frames deep, with a destructor to run on the way out of each.
static int depth_reached;

struct Unwound {
    int *counter;
    ~Unwound() { ++*counter; }
};

static void deepest(int value) {
    Unwound u{&depth_reached};
    throw RankError(value, "thrown three frames down");
}

static void middle(int value) {
    Unwound u{&depth_reached};
    deepest(value);
}

int throw_through_frames(int value) {
    depth_reached = 0;
    try {
        Unwound u{&depth_reached};
        middle(value);
    } catch (...) {
        throw;  // rethrown as is, to the caller in the other object
    }
    return -1;
}

int frames_unwound() { return depth_reached; }
