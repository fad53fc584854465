// SPDX-License-Identifier: MIT
// The emitter whole: its state and interface (emitter.hpp) and every part it is written in.
#pragma once

#include "parloop/codegen/emit_arguments.hpp"
#include "parloop/codegen/emit_elements.hpp"
#include "parloop/codegen/emit_expressions.hpp"
#include "parloop/codegen/emit_kernel.hpp"
#include "parloop/codegen/emit_plan.hpp"
#include "parloop/codegen/emit_reductions.hpp"
#include "parloop/codegen/emitter.hpp"
