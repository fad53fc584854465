// SPDX-License-Identifier: MIT
// The application's shared helpers, as OP2's applications keep them: included by the program
// itself, and put in front of every device kernel (OP_FUN_PREFIX defined for the target).
#ifndef TEST_OP2_USER_TYPES_H
#define TEST_OP2_USER_TYPES_H
#ifndef OP_FUN_PREFIX
#define OP_FUN_PREFIX
#endif

static inline OP_FUN_PREFIX double squared_plus(double a, double b) { return a * a + b; }
#endif
