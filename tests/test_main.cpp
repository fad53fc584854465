// SPDX-License-Identifier: MIT
// The Catch2 main of the test executables.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
