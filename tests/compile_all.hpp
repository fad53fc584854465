// SPDX-License-Identifier: MIT
// The test main compiles every kernel the tests make; a test that makes a kernel meant not to
// compile says so here, and that kernel is left out.
#pragma once

#include <string>

namespace parloop_test {

void expect_compile_failure(const std::string& kernel_name);

}  // namespace parloop_test
