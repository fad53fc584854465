// SPDX-License-Identifier: MIT
// The compiled library (PARLOOP_COMPILED): the definitions that the headers leave out of a
// program that links it, compiled here once.
#include "parloop/backend/threads/entry_impl.hpp"
#include "parloop/core/map_impl.hpp"
#include "parloop/core/runtime_impl.hpp"
#include "parloop/core/set_impl.hpp"
#include "parloop/core/settings_impl.hpp"
#include "parloop/core/thread_count_impl.hpp"
#include "parloop/exec/device/device_run_impl.hpp"
#include "parloop/exec/distributed/entry_impl.hpp"
#include "parloop/exec/kernel/kernel_cache_impl.hpp"
#include "parloop/exec/loop/loop_call_impl.hpp"
#include "parloop/ir/builder_impl.hpp"
