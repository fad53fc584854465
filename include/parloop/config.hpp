// SPDX-License-Identifier: MIT
// Compile-time facts shared by every part of the library.
#pragma once

#include <cstdint>

// PARLOOP_COMPILED is 1 in a program that links the compiled library (parloop configured with
// -DPARLOOP_COMPILED=ON; its parloop::parloop target defines it): the definitions kept in the
// *_impl.hpp headers are compiled once there, and the headers that declare them leave them out.
// Otherwise (header-only, the default) each such header includes its _impl.hpp, inline.
#ifndef PARLOOP_COMPILED
#define PARLOOP_COMPILED 0
#endif
#if PARLOOP_COMPILED
#define PARLOOP_FUNC
#else
#define PARLOOP_FUNC inline
#endif

// The DSL's small functions, through which the host backend evaluates a kernel (let, eval,
// operators, operator[], an element's stores): inlined at every optimisation level, so that a
// kernel on the host compiles to the loop a C programmer would write. Left to the compiler, -O2
// keeps them as calls that copy expression trees through memory, much slower than the same
// loop in C.
#if defined(__GNUC__) || defined(__clang__)
#define PARLOOP_INLINE [[gnu::always_inline]] inline
#else
#define PARLOOP_INLINE inline
#endif

// Code that runs once per program or once per kernel built (generating and compiling source, the
// disk cache, tracing, autotuning, reading settings) is optimised for size: its time is nothing
// beside a device compiler's, and at -O2 it was a sixth of the code a header-only program
// compiles. A header opens PARLOOP_COLD_BEGIN after its includes, so that the standard library's
// code stays as the program compiles it, and closes PARLOOP_COLD_END before any trailing
// _impl.hpp include. A program built without optimisation keeps that for all of it.
#if defined(__OPTIMIZE__) && defined(__clang__)
#define PARLOOP_COLD_BEGIN _Pragma("clang attribute push(__attribute__((minsize)), apply_to = function)")
#define PARLOOP_COLD_END _Pragma("clang attribute pop")
#elif defined(__OPTIMIZE__) && defined(__GNUC__)
#define PARLOOP_COLD_BEGIN _Pragma("GCC push_options") _Pragma("GCC optimize(\"Os\")")
#define PARLOOP_COLD_END _Pragma("GCC pop_options")
#else
#define PARLOOP_COLD_BEGIN
#define PARLOOP_COLD_END
#endif

namespace parloop {

// Map values and element indices: OP2 and PyOP2 use 32-bit indices, and so do we.
using index_t = std::int32_t;

namespace detail {
template <class... T>
inline constexpr bool dependent_false = false;
}  // namespace detail

}  // namespace parloop
