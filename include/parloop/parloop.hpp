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
#include "parloop/exec/kernel/kernel.hpp"
#include "parloop/exec/kernel/source_kernel.hpp"
#include "parloop/exec/loop/copy.hpp"
#include "parloop/exec/loop/par_loop.hpp"
#include "parloop/ir/print.hpp"
#include "parloop/order/renumber.hpp"
#include "parloop/version.hpp"

// The backends this program is built with, whose entries Runtime finds: threads always, the
// devices where the parloop::opencl and parloop::cuda targets define these.
#include "parloop/backend/threads/entry.hpp"
#if PARLOOP_HAVE_OPENCL
#include "parloop/backend/opencl/entry.hpp"
#endif
#if PARLOOP_HAVE_CUDA
#include "parloop/backend/cuda/entry.hpp"
#endif
