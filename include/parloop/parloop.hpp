// SPDX-License-Identifier: MIT
// The umbrella header: everything a program using parloop needs.
#pragma once

#include "parloop/config.hpp"
#include "parloop/core/access.hpp"
#include "parloop/core/dat.hpp"
#include "parloop/core/extruded_set.hpp"
#include "parloop/core/global.hpp"
#include "parloop/core/map.hpp"
#include "parloop/core/runtime.hpp"
#include "parloop/core/set.hpp"
#include "parloop/core/settings.hpp"
#include "parloop/core/subset.hpp"
#include "parloop/dsl/control.hpp"
#include "parloop/dsl/layer.hpp"
#include "parloop/dsl/math.hpp"
#include "parloop/dsl/operators.hpp"
#include "parloop/error.hpp"
#include "parloop/exec/copy.hpp"
#include "parloop/exec/kernel.hpp"
#include "parloop/exec/par_loop.hpp"
#include "parloop/exec/source_kernel.hpp"
#include "parloop/ir/print.hpp"
#include "parloop/order/renumber.hpp"
#include "parloop/version.hpp"

// The device backends this program is built with (the parloop::opencl and parloop::cuda
// targets define these): their entries, which Runtime finds.
#if PARLOOP_HAVE_OPENCL
#include "parloop/backend/opencl/entry.hpp"
#endif
#if PARLOOP_HAVE_CUDA
#include "parloop/backend/cuda/entry.hpp"
#endif
