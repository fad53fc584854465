// SPDX-License-Identifier: MIT
// One of two headers that include each other (guarded.h).
#ifndef TEST_OP2_GUARD_A_H
#define TEST_OP2_GUARD_A_H
#include "guard_b.h"
static inline double guard_a(double v) { return guard_b(v) + 1.0; }
#endif
