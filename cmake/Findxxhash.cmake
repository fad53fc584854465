# SPDX-License-Identifier: MIT
# Finds the xxHash header (Debian's libxxhash-dev ships no CMake package). parloop uses it
# header-only (XXH_INLINE_ALL), so the target carries the include directory alone.
find_path(xxhash_INCLUDE_DIR NAMES xxhash.h)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(xxhash REQUIRED_VARS xxhash_INCLUDE_DIR)
if(xxhash_FOUND AND NOT TARGET xxhash::xxhash)
  add_library(xxhash::xxhash INTERFACE IMPORTED)
  set_target_properties(xxhash::xxhash PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${xxhash_INCLUDE_DIR}")
endif()
mark_as_advanced(xxhash_INCLUDE_DIR)
