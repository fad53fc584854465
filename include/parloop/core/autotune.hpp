// SPDX-License-Identifier: MIT
// Autotuning: a loop whose launch (strategy, block size, how combining writes through maps are
// kept apart) is chosen by timing the device's candidates at its first call, rather than named
// by the program. Asked for per loop (pl::autotune{} among par_loop's arguments) or for every
// loop of a runtime that names no strategy and no conflicts (PARLOOP_AUTOTUNE=1 when it opens,
// or Runtime::set_autotune). exec/device/autotune.hpp times the candidates.
#pragma once

namespace parloop {

struct autotune {
  friend bool operator==(const autotune&, const autotune&) = default;
};

}  // namespace parloop
