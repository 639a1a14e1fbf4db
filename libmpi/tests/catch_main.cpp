// The Catch2 v2 main of LWMPI's host test executables.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
