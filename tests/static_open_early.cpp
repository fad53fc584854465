// SPDX-License-Identifier: MIT
// A runtime opened during static initialisation, in a translation unit that includes no backend
// header and is linked (and so initialised) first: it finds the OpenCL backend all the same.
#include <string>

#include <parloop/core/runtime.hpp>

namespace parloop_test {

std::string early_backend = [] {
  try {
    return std::string(parloop::Runtime::open().name());
  } catch (const parloop::error& e) {
    return std::string(e.what());
  }
}();

}  // namespace parloop_test
