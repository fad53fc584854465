// SPDX-License-Identifier: MIT
// The iteration range of a par_loop: elements [start, end) of its set.
#pragma once

#include "parloop/config.hpp"

namespace parloop {

struct range {
  index_t start;
  index_t end;
};

}  // namespace parloop
