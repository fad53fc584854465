// SPDX-License-Identifier: MIT
// What the test executables' main (catch_main.cpp) does around Catch2's run (test_main.cpp).
#pragma once

#include <optional>

namespace parloop_test {

// Sets the suite's environment and checks the device under test: an exit code where the run
// must stop before any test (77: skipped, the device is not here), else nothing.
std::optional<int> before_tests();

// Compiles every kernel the tests made with the device compilers of this build; the number that
// failed.
int after_tests();

}  // namespace parloop_test
