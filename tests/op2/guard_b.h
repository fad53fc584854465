// SPDX-License-Identifier: MIT
// The other of two headers that include each other (guarded.h).
#ifndef TEST_OP2_GUARD_B_H
#define TEST_OP2_GUARD_B_H
#include "guard_a.h"
static inline double guard_b(double v) { return 3.0 * v; }
#endif
