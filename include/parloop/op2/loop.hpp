// SPDX-License-Identifier: MIT
// op_par_loop: an OP2 loop as a parloop loop. Its arguments become the type-erased views that
// every parloop loop runs on (op2/views.hpp, exec/loop/loop_call.hpp); on the host and threads
// backends the kernel function itself is called on pointers to each element's values
// (op2/host_run.hpp), so it stays debuggable, and on a device its C source, found by OP2's
// convention with the constants it names (op2/kernel_source.hpp), is compiled as
// pl::kernel_from_source's is.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "parloop/core/arg.hpp"
#include "parloop/core/function_ref.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/kernel/kernel.hpp"
#include "parloop/exec/kernel/source_kernel.hpp"
#include "parloop/exec/loop/check.hpp"
#include "parloop/exec/loop/loop_call.hpp"
#include "parloop/format.hpp"
#include "parloop/op2/args.hpp"
#include "parloop/op2/constant_values.hpp"
#include "parloop/op2/host_run.hpp"
#include "parloop/op2/kernel_source.hpp"
#include "parloop/op2/partition.hpp"
#include "parloop/op2/program.hpp"
#include "parloop/op2/views.hpp"

namespace parloop::op2 {

// Runs the loop; `call` calls the kernel on one pointer per argument.
inline void run_loop(const char* kernel, const char* file, const char* name, op_set_core* set,
                     std::span<const op_arg* const> args, std::span<const source_param> params,
                     detail::function_ref<void(void* const*)> call) {
  program& p = program::current("op_par_loop");
  // Named only when something is wrong: a time step runs its loops each time.
  const auto loop = [&] { return parloop::detail::format("op_par_loop '{}'", name != nullptr ? name : kernel); };
  if (set == nullptr) throw argument_error(loop() + ": the set is null");
  if (p.mpi && !p.mpi->partitioned()) {
    throw argument_error(loop() + ": over MPI the mesh is distributed by op_partition before the first loop");
  }
  std::array<detail::arg_view, detail::max_loop_args> kept;
  if (args.size() > kept.size())
    throw argument_error(parloop::detail::format("{}: more than {} arguments", loop(), kept.size()));
  std::array<int, detail::max_loop_args> view_at{};  // -1 for op_arg_info, which has no view
  std::size_t views = 0;
  bool info = false;
  // Each global the user's variable goes through: the loop's first, second, ... of its type and
  // dimension.
  std::array<detail::any_array*, detail::max_loop_args> globals{};
  for (std::size_t i = 0; i < args.size(); ++i) {
    const op_arg& a = *args[i];
    if (a.argtype != gbl_arg || a.opt == 0) continue;
    const auto nth = std::count_if(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(i), [&](const op_arg* b) {
      return b->argtype == gbl_arg && b->opt == 1 && b->scalar == a.scalar && b->dim == a.dim;
    });
    globals[i] = global_of(a.scalar, a.dim, static_cast<int>(nth));
  }
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i]->argtype == info_arg) {
      info = true;
      view_at[i] = -1;
      if (args[i]->scalar != params[i].type) {
        throw data_error(
            parloop::detail::format("{}: argument {} (op_arg_info) holds {}, and the kernel's parameter points to {}",
                                    loop(), i, type_name(args[i]->scalar), type_name(params[i].type)));
      }
      continue;
    }
    view_at[i] = static_cast<int>(views);
    kept[views++] = view_of(*set, *args[i], params[i], static_cast<int>(i), loop, globals[i]);
  }
  const std::span<const detail::arg_view> seen(kept.data(), views);
  order_mesh(p);
  // Globals start from the user's variables, as OP2's kernels update those in place.
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (globals[i] == nullptr) continue;
    std::memcpy(globals[i]->values->host_bytes(), args[i]->data, static_cast<std::size_t>(args[i]->size));
    globals[i]->values->host_overwritten();
  }
  kernel_record& record = record_for(p, kernel, file);

  const host_loop host{args, std::span<const int>(view_at.data(), args.size()), seen, call};
  const auto prepare = [&] { host.prepare(); };
  const auto run = [&](range r, std::byte* partials) { host.run(r, partials); };
  const auto start = [&](std::byte* partials) { host.start(partials); };
  const auto combine = [&](const std::byte* partials) { host.combine(partials); };
  // The kernel's parameters as its function declares them, for the views the loop has.
  // Made on a miss and by trace checks only, so a warm loop does not gather the declarations.
  const auto make_ir = [&](const auto& ir_params) {
    std::array<source_param, detail::max_loop_args> as_declared{};
    std::size_t n = 0;
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (view_at[i] >= 0) as_declared[n++] = params[i];
    }
    return detail::source_kernel_ir(record.name, record.source, ir_params,
                                    std::span<const source_param>(as_declared.data(), n));
  };
  // A kernel function run on the host reads the application's variables: they hold the declared
  // values while it runs.
  std::optional<declared_values> declared;
  if (info || runs_lambdas(p.runtime.kind())) declared.emplace(p.constants);
  if (info) {
    // op_arg_info hands the kernel the user's variable to write as elements run in order, which
    // only the host does: the loop runs there, on whichever backend.
    if (set->set->distribution() != nullptr) {
      throw argument_error(loop() + ": op_arg_info in a loop over a distributed set: it has no value across ranks");
    }
    detail::check_loop(kernel, *set->set, range{0, set->set->size()}, seen);
    prepare();
    run(range{0, set->set->size()}, nullptr);
  } else {
    const Runtime& rt = p.runtime;
    const bool reduces =
        std::any_of(seen.begin(), seen.end(), [](const detail::arg_view& v) { return partial_size(v) > 0; });
    const detail::loop_choice how{
        {reduces ? rt.default_reduction_strategy() : rt.default_strategy(), rt.default_conflicts()}, rt.autotunes()};
    try {
      detail::run_call({record.name,
                        *record.cache,
                        *set->set,
                        how,
                        range{0, set->set->size()},
                        seen,
                        {make_ir, {prepare, run, host.partial_bytes(), start, combine}, false}});
    } catch (const compile_error& e) {
      throw with_constant_hint(e, p.constants);
    }
  }
  // The user's variables get the reductions' results.
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (globals[i] == nullptr || args[i]->acc == read_access) continue;
    globals[i]->values->ensure_host(p.runtime.state()->memory);
    std::memcpy(args[i]->data, globals[i]->values->host_bytes(), static_cast<std::size_t>(args[i]->size));
  }
}

template <class... P, class... A>
void par_loop(void (*kernel)(P...), const char* kernel_name, const char* file, const char* name, op_set_core* set,
              const A&... args) {
  static_assert((std::is_base_of_v<op_arg, A> && ...),
                "parloop's OP2 API: each argument of op_par_loop after the set is an op_arg (op_arg_dat, op_arg_gbl, "
                "op_arg_idx, ...)");
  static_assert(sizeof...(P) == sizeof...(A),
                "parloop's OP2 API: op_par_loop passes another number of arguments than its kernel takes parameters");
  static_assert(sizeof...(A) >= 1, "parloop's OP2 API: op_par_loop takes at least one argument after the set");
  if constexpr (sizeof...(P) == sizeof...(A)) {
    static_assert((typed_fits<P>(static_cast<const A*>(nullptr)) && ...));
    static constexpr std::array<source_param, sizeof...(P)> params{raw_param_of<P>()...};
    const std::array<const op_arg*, sizeof...(A)> list{static_cast<const op_arg*>(&args)...};
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      run_loop(kernel_name, file, name, set, list, params,
               [&](void* const* pointers) { kernel(static_cast<P>(pointers[I])...); });
    }
    (std::index_sequence_for<P...>{});
  }
}

}  // namespace parloop::op2
