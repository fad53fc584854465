// SPDX-License-Identifier: MIT
// A kernel whose headers include each other behind #ifndef guards, with a header only a CUDA
// compiler has behind #ifdef __CUDACC__ and one that does not exist behind #if 0: as the
// preprocessor reads them, so must the include resolver.
#include "guard_a.h"
#ifdef __CUDACC__
#include <cuda_fp16.h>
#endif
#if 0
#include "no_such_header.h"
#endif

inline void guarded(const double* a, double* b) { *b = guard_a(*a) + factor; }
