// SPDX-License-Identifier: MIT
// What an OP2 application prints and writes: dats to text and binary files in OP2's formats,
// the sets, maps and dats it declared (op_diagnostic_output), what each kernel cost
// (op_timing_output), and the sections op_profile_ times.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parloop/error.hpp"
#include "parloop/exec/kernel/stats.hpp"
#include "parloop/format.hpp"
#include "parloop/op2/declare.hpp"
#include "parloop/op2/program.hpp"
#include "parloop/whole_file.hpp"

namespace parloop::op2 {

inline double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The dat's values in the user's numbering, all of them (over MPI, gathered from the ranks: every
// rank takes part, the root writes).
inline std::vector<std::byte> whole_dat(op_dat_core& d, int& elements) {
  program& p = program::current("op_print_dat");
  if (p.mpi && p.mpi->partitioned()) {
    elements = p.mpi->global_size(*d.set);
    return p.mpi->gathered(d);
  }
  elements = d.set->size;
  const std::byte* values = user_values(d);
  return {values, values + static_cast<std::size_t>(elements) * static_cast<std::size_t>(d.size)};
}

// Writes the file whole or not at all (the root's, over MPI), as OP2's call `call` does.
inline void write_file(std::string_view call, const char* file, const std::string& bytes) {
  const std::filesystem::path target(file);
  const std::filesystem::path folder = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  if (const std::error_code ec = parloop::detail::write_atomically(folder, target, bytes, 0644)) {
    throw error(parloop::detail::format("{}: cannot write '{}': {}", call, target.string(), ec.message()));
  }
}

// What both of OP2's dat files start from: the dat checked, and all its values (over MPI every
// rank takes part); none on a rank that does not write.
inline std::optional<std::vector<std::byte>> dat_for_file(std::string_view call, op_dat_core* d, const char* file,
                                                          int& elements) {
  check_dat(d, call);
  if (file == nullptr) throw argument_error(parloop::detail::format("{}: the file name is null", call));
  std::vector<std::byte> all = whole_dat(*d, elements);
  if (!is_root()) return std::nullopt;
  return all;
}

// OP2's text format: "<elements> <dim>", then one line per element.
inline void print_dat_to_txtfile(op_dat_core* d, const char* file) {
  constexpr std::string_view call = "op_print_dat_to_txtfile";
  int elements = 0;
  const std::optional<std::vector<std::byte>> all = dat_for_file(call, d, file, elements);
  if (!all) return;
  const std::byte* values = all->data();
  std::string text = parloop::detail::format("{} {}\n", elements, d->dim);
  const std::size_t scalar = scalar_bytes(d->scalar);
  for (int e = 0; e < elements; ++e) {
    for (int k = 0; k < d->dim; ++k) {
      const std::byte* at =
          values +
          (static_cast<std::size_t>(e) * static_cast<std::size_t>(d->dim) + static_cast<std::size_t>(k)) * scalar;
      char buffer[64];
      switch (d->scalar) {
        case scalar_type::float64: {
          double v;
          std::memcpy(&v, at, 8);
          std::snprintf(buffer, sizeof buffer, " %+2.15lE", v == 0.0 ? 0.0 : v);
          break;
        }
        case scalar_type::float32: {
          float v;
          std::memcpy(&v, at, 4);
          std::snprintf(buffer, sizeof buffer, " %+f", static_cast<double>(v));
          break;
        }
        case scalar_type::int32: {
          std::int32_t v;
          std::memcpy(&v, at, 4);
          std::snprintf(buffer, sizeof buffer, " %+d", v);
          break;
        }
        default: {
          std::int64_t v;
          std::memcpy(&v, at, 8);
          std::snprintf(buffer, sizeof buffer, " %+lld", static_cast<long long>(v));
          break;
        }
      }
      text += buffer;
    }
    text += '\n';
  }
  write_file(call, file, text);
}

// OP2's binary format: the element count and dim as ints, then the values.
inline void print_dat_to_binfile(op_dat_core* d, const char* file) {
  constexpr std::string_view call = "op_print_dat_to_binfile";
  int elements = 0;
  const std::optional<std::vector<std::byte>> all = dat_for_file(call, d, file, elements);
  if (!all) return;
  const int head[2] = {elements, d->dim};
  std::string bytes(sizeof head + all->size(), '\0');
  std::memcpy(bytes.data(), head, sizeof head);
  if (!all->empty()) std::memcpy(bytes.data() + sizeof head, all->data(), all->size());
  write_file(call, file, bytes);
}

inline void diagnostic_output() {
  const program& p = program::current("op_diagnostic_output");
  if (p.diags <= 1) return;
  std::printf("\n  OP diagnostic output (parloop, backend %s on %s)\n", std::string(p.runtime.name()).c_str(),
              p.runtime.device_name().c_str());
  std::printf("\n       set       size\n  -------------------\n");
  for (const auto& s : p.sets) std::printf("%10s %10d\n", s->name, s->size);
  std::printf("\n       map        dim       from         to\n  -----------------------------------------\n");
  for (const auto& m : p.maps) std::printf("%10s %10d %10s %10s\n", m->name, m->dim, m->from->name, m->to->name);
  std::printf("\n       dat        dim        set\n  ------------------------------\n");
  for (const auto& d : p.dats) std::printf("%10s %10d %10s\n", d->name, d->dim, d->set->name);
  std::printf("\n");
}

// parloop's table of each kernel's calls, time, compile and load time, and bandwidth.
inline void timing_output() {
  const program& p = program::current("op_timing_output");
  std::vector<std::shared_ptr<const detail::kernel_stats>> kernels;
  for (const auto& [key, r] : p.kernels) {
    if (r.cache) kernels.emplace_back(std::shared_ptr<const detail::kernel_stats>(), &r.cache->stats());
  }
  std::printf("%s", detail::stats_text(kernels).c_str());
  if (!detail::stats_enabled()) {
    std::printf("  (times are measured with PARLOOP_STATS=1, which makes each loop wait for its device)\n");
  }
}

// op_profile_: named sections, nested, timed on the wall clock.
class profile {
 public:
  static profile& instance() {
    static profile made;
    return made;
  }
  void enter(const char* name) { open_.push_back({path_of(name), wall_seconds()}); }
  void exit() {
    if (open_.empty()) throw argument_error("op_profile_exit: no section is open");
    section& s = sections_[open_.back().path];
    s.seconds += wall_seconds() - open_.back().since;
    ++s.calls;
    open_.pop_back();
  }
  void end() {
    while (!open_.empty()) exit();
  }
  struct section {
    double seconds = 0;
    unsigned long long calls = 0;
  };
  // Each section closed so far, by its path ("app/step").
  const std::map<std::string, section>& sections() const { return sections_; }
  void output() const {
    std::printf("\n  op_profile: section, calls, seconds\n");
    for (const auto& [path, s] : sections_) std::printf("  %-40s %8llu %12.6f\n", path.c_str(), s.calls, s.seconds);
  }

 private:
  struct opened {
    std::string path;
    double since;
  };
  std::string path_of(const char* name) const {
    const std::string own = name != nullptr ? name : "(unnamed)";
    return open_.empty() ? own : open_.back().path + "/" + own;
  }
  std::map<std::string, section> sections_;
  std::vector<opened> open_;
};

}  // namespace parloop::op2
