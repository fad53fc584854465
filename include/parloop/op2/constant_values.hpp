// SPDX-License-Identifier: MIT
// OP2's rule for constants on every backend: op_decl_const is what makes a value visible to the
// kernels. A device kernel has the declared values built in; a kernel function on the host reads
// the application's variable, so while a loop runs there the variable holds the declared values,
// and its own afterwards. Where a device compiler does not know a name, the message says which
// op_decl_const is missing. And the declarations of the constants device code holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "parloop/core/scalar_type.hpp"
#include "parloop/error.hpp"
#include "parloop/format.hpp"
#include "parloop/op2/program.hpp"

namespace parloop::op2 {

// For the life of a loop that runs the kernel function on the host: each declared constant's
// variable that was changed since its op_decl_const holds the declared values (said once per
// constant on standard error), and gets its own back at the end.
class declared_values {
 public:
  explicit declared_values(std::vector<constant>& constants) {
    for (constant& c : constants) {
      if (c.variable == nullptr || std::memcmp(c.variable, c.bytes.data(), c.bytes.size()) == 0) continue;
      if (!c.told_changed) {
        c.told_changed = true;
        std::fprintf(stderr,
                     "parloop: op2: constant '%s' was changed after its op_decl_const; loops see the declared value "
                     "on every backend, as on a device, until op_decl_const declares it again\n",
                     c.name.c_str());
      }
      changed_.emplace_back(&c, std::vector<std::byte>(c.variable, c.variable + c.bytes.size()));
      std::memcpy(c.variable, c.bytes.data(), c.bytes.size());
    }
  }
  ~declared_values() {
    for (auto& [c, own] : changed_) std::memcpy(c->variable, own.data(), own.size());
  }
  declared_values(const declared_values&) = delete;
  declared_values& operator=(const declared_values&) = delete;

 private:
  std::vector<std::pair<constant*, std::vector<std::byte>>> changed_;
};

// The names a device compiler's log says it does not know: clang's (PoCL, NVIDIA's OpenCL) "use
// of undeclared identifier 'x'" and NVRTC's 'identifier "x" is undefined'.
inline std::set<std::string> undeclared_names(std::string_view log) {
  std::set<std::string> names;
  const auto collect = [&](std::string_view before, char open, std::string_view after) {
    for (std::size_t at = log.find(before); at != std::string_view::npos; at = log.find(before, at + 1)) {
      const std::size_t first = at + before.size();
      if (first >= log.size() || log[first] != open) continue;
      const std::size_t close = log.find(open, first + 1);
      if (close == std::string_view::npos || log.substr(close + 1, after.size()) != after) continue;
      names.emplace(log.substr(first + 1, close - first - 1));
    }
  };
  collect("undeclared identifier ", '\'', "");
  collect("identifier ", '"', " is undefined");
  return names;
}

// `e` again, with a hint where the compiler does not know a name that no op_decl_const declared.
inline compile_error with_constant_hint(const compile_error& e, const std::vector<constant>& constants) {
  std::string missing;
  for (const std::string& name : undeclared_names(e.log())) {
    // C++'s namespace, which no constant declares (OpenCL C has none).
    if (name == "std") continue;
    bool declared = false;
    for (const constant& c : constants) declared = declared || c.name == name;
    if (!declared) missing += (missing.empty() ? "'" : ", '") + name + "'";
  }
  if (missing.empty()) return e;
  return compile_error(e.message() + "\nop2: " + missing +
                           " named by the kernel but not declared: a variable the kernels read is declared with "
                           "op_decl_const before the loop, which puts it in the device's code",
                       e.log(), e.source_path());
}

// The declaration of each constant a kernel's source names, for device code: the value as a
// literal (hexadecimal for floating point, so exactly), in parloop's PL_CONSTANT space.
inline std::string literal_of(const constant& c, int k) {
  const std::byte* at = c.bytes.data() + static_cast<std::size_t>(k) * scalar_bytes(c.type);
  const auto read = [&]<class T>(T v) {
    std::memcpy(&v, at, sizeof v);
    return v;
  };
  switch (c.type) {
    case scalar_type::float64: return parloop::detail::format("{:a}", read(double{}));
    case scalar_type::float32: return parloop::detail::format("{:a}f", read(float{}));
    case scalar_type::int32: return parloop::detail::format("{}", read(std::int32_t{}));
    case scalar_type::int64: {
      const std::int64_t v = read(std::int64_t{});
      // The most negative value has no literal of its own.
      return v == std::numeric_limits<std::int64_t>::min() ? "(-9223372036854775807L - 1)"
                                                           : parloop::detail::format("{}L", v);
    }
    case scalar_type::boolean: break;
  }
  return "0";
}

inline std::string declaration_of(const constant& c) {
  const std::string_view type = c.type == scalar_type::int64 ? "long" : type_name(c.type);
  if (c.dim == 1) return parloop::detail::format("PL_CONSTANT {} {} = {};\n", type, c.name, literal_of(c, 0));
  std::string values;
  for (int k = 0; k < c.dim; ++k) values += parloop::detail::format("{}{}", k == 0 ? "" : ", ", literal_of(c, k));
  return parloop::detail::format("PL_CONSTANT {} {}[{}] = {{{}}};\n", type, c.name, c.dim, values);
}

}  // namespace parloop::op2
