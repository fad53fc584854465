// SPDX-License-Identifier: MIT
// OP2's HDF5 calls by the header's OP2 name, for applications that include it themselves: they
// are op_lib_core.h's, where parloop is built with HDF5 (the hdf5 component).
#pragma once

#include "op_lib_core.h"
