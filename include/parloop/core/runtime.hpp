// SPDX-License-Identifier: MIT
// Runtime: the chosen backend and the state shared by every object created on it.
#pragma once

#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "parloop/core/validity.hpp"
#include "parloop/error.hpp"

namespace parloop {

enum class backend_kind { host, opencl, cuda };

constexpr std::string_view backend_name(backend_kind b) {
  switch (b) {
    case backend_kind::host: return "host";
    case backend_kind::opencl: return "opencl";
    case backend_kind::cuda: return "cuda";
  }
  return "?";
}

// Whether a backend can be used in this program on this machine, and if not, why.
struct backend_status {
  backend_kind kind;
  bool available;
  std::string reason;
};

namespace detail {

struct runtime_state {
  backend_kind kind;
  // Null on the host backend; a device backend plugs in its memory here.
  std::shared_ptr<device_memory> device;
  transfer_stats transfers;
};

}  // namespace detail

// Every backend parloop knows, best first, with whether it is usable here.
inline std::vector<backend_status> backends() {
  return {
      {backend_kind::cuda, false, "the CUDA backend is not built into this version of parloop"},
      {backend_kind::opencl, false, "the OpenCL backend is not built into this version of parloop"},
      {backend_kind::host, true, ""},
  };
}

class Runtime {
 public:
  // PARLOOP_BACKEND=host|opencl|cuda chooses; unset or empty, the best available backend.
  static Runtime open() {
    const char* env = std::getenv("PARLOOP_BACKEND");
    if (env == nullptr || *env == '\0') return open_best();
    const std::string_view name(env);
    for (const backend_kind b : {backend_kind::host, backend_kind::opencl, backend_kind::cuda}) {
      if (name == backend_name(b)) return open(b);
    }
    throw backend_unavailable("PARLOOP_BACKEND='" + std::string(name) +
                              "' names no backend; use host, opencl or cuda");
  }

  static Runtime open(backend_kind kind) {
    for (const backend_status& s : backends()) {
      if (s.kind != kind) continue;
      if (!s.available) {
        throw backend_unavailable("backend '" + std::string(backend_name(kind)) +
                                  "' is not available: " + s.reason);
      }
    }
    return Runtime(std::make_shared<detail::runtime_state>(detail::runtime_state{kind, nullptr, {}}));
  }

  backend_kind kind() const { return state_->kind; }
  std::string_view name() const { return backend_name(state_->kind); }
  // Host <-> device copies made so far by objects of this runtime.
  const transfer_stats& transfers() const { return state_->transfers; }

  friend bool operator==(const Runtime& a, const Runtime& b) { return a.state_ == b.state_; }

  // For the backends and the library's internals.
  explicit Runtime(std::shared_ptr<detail::runtime_state> state) : state_(std::move(state)) {}
  const std::shared_ptr<detail::runtime_state>& state() const { return state_; }

 private:
  static Runtime open_best() {
    for (const backend_status& s : backends()) {
      if (s.available) return open(s.kind);
    }
    throw backend_unavailable("no backend is available");
  }

  std::shared_ptr<detail::runtime_state> state_;
};

}  // namespace parloop
