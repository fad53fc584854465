// SPDX-License-Identifier: MIT
// The exceptions parloop throws: every one derives from parloop::error.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace parloop {

// Base of everything parloop throws; what() says what was wrong and where.
class error : public std::runtime_error {
 public:
  explicit error(const std::string& what) : std::runtime_error("parloop: " + what) {}
  // what() without the "parloop: " in front, for a message that quotes this one.
  std::string message() const { return std::string(what()).substr(9); }
};

// An argument of par_loop does not fit the loop: a dat on another set, a map from or to the
// wrong set, a map index beyond the arity, a range outside the set, a runtime mismatch.
class argument_error : public error {
 public:
  using error::error;
};

// Data handed to a constructor is malformed: wrong length, a map value out of range.
class data_error : public error {
 public:
  using error::error;
};

// The kernel broke an access rule that only tracing can see (reading a WRITE argument
// before writing it, a component index out of range, a bad local name).
class trace_error : public error {
 public:
  using error::error;
};

// Generated or user-written device source that a device compiler refused. what() carries the
// compiler's log and the source with line numbers; log() and source_path() give them alone.
class compile_error : public error {
 public:
  compile_error(const std::string& what, std::string log, std::string source_path)
      : error(what), log_(std::move(log)), source_path_(std::move(source_path)) {}
  const std::string& log() const { return log_; }
  // Where PARLOOP_DUMP_SOURCE wrote the source; empty when it is not set.
  const std::string& source_path() const { return source_path_; }

 private:
  std::string log_;
  std::string source_path_;
};

// The requested backend is not built into this program or cannot run on this machine.
class backend_unavailable : public error {
 public:
  using error::error;
};

}  // namespace parloop
