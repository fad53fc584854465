// SPDX-License-Identifier: MIT
// A job's time by phase (--phases): the mesh read or made, the runtime opened, the mesh declared,
// ordered (renumbered, or partitioned over ranks), the first step (its kernels compiled or loaded
// from the disk cache, each waited for) and the remaining loops, printed on one line of stderr with
// the wall-clock times at which main began and ended, so that a script that times the process
// (benchmarks/airfoil_job.sh) also has its start-up and teardown.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace airfoil {

class phases {
 public:
  explicit phases(bool on) : on_(on), began_(now()), last_(std::chrono::steady_clock::now()) {}
  // Ends the phase `name`, which began where the last ended.
  void end(const char* name) {
    if (!on_) return;
    const auto t = std::chrono::steady_clock::now();
    text_ += " " + std::string(name) + "=" + std::to_string(std::chrono::duration<double>(t - last_).count());
    last_ = t;
  }
  // A figure beside the phases (over MPI, the largest rank's peak memory).
  void note(const char* name, double value) {
    if (on_) text_ += " " + std::string(name) + "=" + std::to_string(value);
  }
  bool on() const { return on_; }
  void print() const {
    if (on_) std::fprintf(stderr, "airfoil phases: main_began=%.6f%s main_ended=%.6f\n", began_, text_.c_str(), now());
  }

 private:
  static double now() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  }
  bool on_;
  double began_;
  std::chrono::steady_clock::time_point last_;
  std::string text_;
};

}  // namespace airfoil
