// SPDX-License-Identifier: MIT
// A shared library opened at run time and its functions, with the reason when it cannot be.
#pragma once

#include <dlfcn.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace parloop::backend::cuda {

class shared_library {
 public:
  // Opens the first of `names` that loads; `missing` is the reason if none does.
  shared_library(const std::vector<std::string>& names, const std::string& missing) {
    for (const std::string& name : names) {
      handle_ = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle_ != nullptr) return;
    }
    reason_ = missing;
  }
  shared_library(const shared_library&) = delete;
  shared_library& operator=(const shared_library&) = delete;

  // Looks up `symbol`; a missing one makes the library unusable, with the reason.
  template <class F>
  void load(F& f, const char* symbol) {
    f = handle_ == nullptr ? nullptr : reinterpret_cast<F>(dlsym(handle_, symbol));
    if (f == nullptr && reason_.empty()) reason_ = std::string("the library lacks ") + symbol;
  }

  // The file the library was loaded from (its links followed), found by one of its functions;
  // empty where the loader does not say.
  static std::filesystem::path file_of(const void* function) {
    Dl_info info{};
    if (function == nullptr || dladdr(function, &info) == 0 || info.dli_fname == nullptr) return {};
    std::error_code ec;
    std::filesystem::path file = std::filesystem::canonical(info.dli_fname, ec);
    return ec ? std::filesystem::path() : file;
  }

  // Why the library cannot be used; empty when it can.
  const std::string& reason() const { return reason_; }
  void fail(std::string reason) { reason_ = std::move(reason); }

 private:
  void* handle_ = nullptr;  // kept loaded for the life of the program
  std::string reason_;
};

}  // namespace parloop::backend::cuda
