// SPDX-License-Identifier: MIT
// The hdf5 component's headers (HDF5, serial or parallel as the build found it), compiled and
// linked by a consumer whose project enables C++ only.
#include <parloop/io/hdf5.hpp>

bool has_cells(const std::string& path) { return parloop::hdf5::File::open(path).contains("cells"); }
