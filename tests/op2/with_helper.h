// SPDX-License-Identifier: MIT
// A kernel that calls a helper of user_types.h, which only the application's own source includes.
inline void with_helper(const double* a, double* b) { *b = squared_plus(*a, factor); }
