// SPDX-License-Identifier: MIT
// Runtime: the chosen backend and the state shared by every object created on it.
#pragma once

#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "parloop/core/device_backend.hpp"
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
  // Null on the host backend.
  std::shared_ptr<device_backend> device;
  transfer_stats transfers;
  // The strategy of a par_loop that names none; the device's preference unless set.
  strategy default_strategy = split_n_across_workgroups{};
};

// A device backend compiled into the program: including its header registers it.
struct backend_factory {
  backend_status (*status)() = nullptr;
  std::shared_ptr<device_backend> (*make)() = nullptr;
};

inline backend_factory& factory(backend_kind kind) {
  static backend_factory factories[3];
  return factories[static_cast<int>(kind)];
}

inline bool register_backend(backend_kind kind, backend_factory f) {
  factory(kind) = f;
  return true;
}

}  // namespace detail

// Every backend parloop knows, best first, with whether it is usable here.
inline std::vector<backend_status> backends() {
  std::vector<backend_status> out;
  for (const backend_kind kind : {backend_kind::cuda, backend_kind::opencl}) {
    const detail::backend_factory& f = detail::factory(kind);
    if (f.status != nullptr) {
      out.push_back(f.status());
    } else {
      out.push_back({kind, false,
                     fmt::format("the {} backend is not built into this program (link parloop::{})", backend_name(kind),
                                 backend_name(kind))});
    }
  }
  out.push_back({backend_kind::host, true, ""});
  return out;
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
    auto state = std::make_shared<detail::runtime_state>();
    state->kind = kind;
    if (kind != backend_kind::host) {
      state->device = detail::factory(kind).make();
      state->default_strategy = state->device->default_strategy();
    }
    return Runtime(std::move(state));
  }

  backend_kind kind() const { return state_->kind; }
  std::string_view name() const { return backend_name(state_->kind); }
  // Host <-> device copies made so far by objects of this runtime.
  const transfer_stats& transfers() const { return state_->transfers; }
  // The device, in words; "host" on the host backend.
  std::string device_name() const { return state_->device ? state_->device->describe() : std::string("host"); }

  // The launch strategy of loops that name none.
  const strategy& default_strategy() const { return state_->default_strategy; }
  void set_default_strategy(const strategy& s) {
    exec::check(s);
    state_->default_strategy = s;
  }

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
