// SPDX-License-Identifier: MIT
// Builds a kernel's generated source with each real compiler the tests have: PoCL's
// clBuildProgram and NVRTC (for sm_90, which needs no GPU).
#pragma once

#include <catch2/catch.hpp>

#include <parloop/codegen/generate.hpp>
#include <parloop/core/strategy.hpp>
#include <parloop/ir/kernel.hpp>
#if PARLOOP_TEST_OPENCL
#include <parloop/backend/opencl/compile.hpp>
#endif
#if PARLOOP_TEST_CUDA
#include <parloop/backend/cuda/compile.hpp>
#endif

namespace parloop_test {

// Checks that k, generated for strategy s, compiles in every dialect a compiler is built for.
inline void check_builds_everywhere([[maybe_unused]] const parloop::ir::kernel& k,
                                    [[maybe_unused]] const parloop::strategy& s) {
  namespace cg = parloop::codegen;
#if PARLOOP_TEST_OPENCL
  const auto context = parloop::backend::opencl::context::first();
  CHECK_NOTHROW(parloop::backend::opencl::build_program(context, cg::generate(k, cg::dialect_kind::opencl, s)));
#endif
#if PARLOOP_TEST_CUDA
  CHECK_NOTHROW(
      parloop::backend::cuda::build(cg::generate(k, cg::dialect_kind::cuda, s), parloop::backend::cuda::target{90}));
#endif
}

}  // namespace parloop_test
