// SPDX-License-Identifier: MIT
// Checks what static_open_early.cpp opened (with PARLOOP_BACKEND=opencl) before main.
#include <cstdio>
#include <string>

#include <parloop/parloop.hpp>

namespace parloop_test {
extern std::string early_backend;
}

int main() {
  std::printf("opened during static initialisation: %s\n", parloop_test::early_backend.c_str());
  return parloop_test::early_backend == "opencl" ? 0 : 1;
}
