// SPDX-License-Identifier: MIT
// The test executables' main, with Catch2's implementation: compiled unoptimised and without
// the sanitizers' instrumentation in every build (tests/CMakeLists.txt), for it is most of the
// main's compile time and none of the code under test.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "test_main.hpp"

int main(int argc, char** argv) {
  if (const std::optional<int> stop = parloop_test::before_tests()) return *stop;
  const int failed_tests = Catch::Session().run(argc, argv);
  const int failed_kernels = parloop_test::after_tests();
  return failed_tests != 0 || failed_kernels != 0 ? 1 : 0;
}
