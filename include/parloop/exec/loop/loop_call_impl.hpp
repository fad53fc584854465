// SPDX-License-Identifier: MIT
// The definitions of exec/loop/loop_call.hpp's functions: a par_loop call below its types.
#pragma once

#include <algorithm>
#include <array>
#include <span>
#include <string>

#include "parloop/config.hpp"
#include "parloop/core/arg.hpp"
#include "parloop/core/strategy.hpp"
#include "parloop/dsl/aliasing.hpp"
#include "parloop/dsl/params.hpp"
#include "parloop/exec/distributed/seam.hpp"
#include "parloop/exec/kernel/kernel_cache.hpp"
#include "parloop/exec/loop/check.hpp"
#include "parloop/exec/loop/loop_call.hpp"
#include "parloop/exec/loop/run_range.hpp"
#include "parloop/format.hpp"

namespace parloop::detail {

PARLOOP_FUNC signature_entry& entry_of(kernel_cache& kernels, const std::string& name, std::span<const arg_view> views,
                                       function_ref<ir::kernel(std::span<const ir::param>)> make_ir, const Set* set,
                                       const ir::extrusion& over) {
  std::array<ir::param, max_loop_args> kept;
  const std::span<ir::param> params(kept.data(), views.size());
  dsl::params_of(views, params, over.layers > 0 ? set : nullptr, over.facets);
  return kernels.get(params, over, [&] {
    dsl::check_aliasing(name, params, views);
    ir::kernel k = make_ir(params);
    const bool uses_layer =
        std::any_of(k.exprs.begin(), k.exprs.end(), [](const ir::expr& e) { return e.kind == ir::expr_kind::layer; });
    if (uses_layer && over.layers == 0) {
      throw trace_error(
          parloop::detail::format("kernel '{}': pl::layer() is the layer of the cell being run in a loop over an "
                                  "extruded set, and this loop is over set '{}', which is not extruded",
                                  name, set != nullptr ? set->name() : std::string("?")));
    }
    k.extrusion = over;
    return k;
  });
}

PARLOOP_FUNC void run_call(const loop_call& call) {
  // The same strategies are refused on every backend, the host included.
  check_strategy(call.how.named.launch);
  if (const set_distribution* d = call.set.distribution()) {
    distributed_loops().run(call, *d);
  } else {
    check_loop(call.kernel, call.set, call.r, call.views, call.subset, call.extrusion, call.run_of);
    // Tracing checks the rules only a trace can see, so the host refuses what a device would.
    signature_entry& entry =
        entry_of(call.kernels, call.kernel, call.views, call.callbacks.make_ir, &call.set, call.extrusion);
    check_trace(call, entry);
    run_range(call, entry, loop_choice_of(call), call.r);
  }
  call.kernels.count_launch();
}

}  // namespace parloop::detail
