// The one Catch2 main of every host unit-test executable (the library
// tessera_catch_main, CMakeLists.txt): Catch2 v2's runner is compiled once,
// and a test file holds only its TEST_CASEs.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
