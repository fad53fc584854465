// SPDX-License-Identifier: MIT
// OP_RW through a map whose targets meet: OP2 runs such a loop coloured, each target changed by
// one element at a time.
inline void bump(double* c) { *c = *c + 1.0; }
