# SPDX-License-Identifier: MIT
# Finds Scotch's serial library (Debian's libscotch-dev ships no CMake package): scotch.h
# (in include/scotch on Debian), libscotch and its error handler libscotcherr, as the imported
# target SCOTCH::SCOTCH.
find_path(SCOTCH_INCLUDE_DIR NAMES scotch.h PATH_SUFFIXES scotch)
find_library(SCOTCH_LIBRARY NAMES scotch)
find_library(SCOTCH_ERR_LIBRARY NAMES scotcherr)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(SCOTCH REQUIRED_VARS SCOTCH_LIBRARY SCOTCH_ERR_LIBRARY SCOTCH_INCLUDE_DIR)
if(SCOTCH_FOUND AND NOT TARGET SCOTCH::SCOTCH)
  add_library(SCOTCH::SCOTCH INTERFACE IMPORTED)
  set_target_properties(SCOTCH::SCOTCH PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${SCOTCH_INCLUDE_DIR}"
                                                  INTERFACE_LINK_LIBRARIES "${SCOTCH_LIBRARY};${SCOTCH_ERR_LIBRARY}")
endif()
mark_as_advanced(SCOTCH_INCLUDE_DIR SCOTCH_LIBRARY SCOTCH_ERR_LIBRARY)
