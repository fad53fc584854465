# SPDX-License-Identifier: MIT
# Every ```cpp block of the README and of docs/ compiles, so that the documentation never shows
# code that stopped working: each block is a translation unit of its own (docs/testing.md says
# how a block is read). A block with its own main compiles as written; in another, the lines that
# begin with #include, "namespace <alias> =" or "using " stay at file scope and the rest is the
# body of main. A block that includes <parloop/mpi/...> compiles against parloop::mpi, one that
# includes <parloop/op2/...> against parloop::op2, one that includes <parloop/io/...> against
# parloop::hdf5 (and parloop::mpi, for HDF5 over ranks) (skipped where the component is not built).
#
# parloop_doc_block_sources(<out prefix> <pages...>) sets <out prefix>_parloop, _mpi, _hdf5 and _op2 to
# the generated sources, and makes an edit of a page configure the build again.
function(parloop_doc_block_sources out)
  set(sources_parloop)
  set(sources_mpi)
  set(sources_op2)
  set(sources_hdf5)
  foreach(page IN LISTS ARGN)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${page}")
    file(READ "${page}" text)
    # CMake's lists are split at semicolons, which C++ is full of: they travel as a placeholder.
    string(REPLACE ";" "@SEMICOLON@" text "${text}")
    string(REGEX MATCHALL "\n```cpp\n[^`]*```" blocks "${text}")
    file(RELATIVE_PATH page_name "${PROJECT_SOURCE_DIR}" "${page}")
    string(MAKE_C_IDENTIFIER "${page_name}" page_id)
    set(n 0)
    foreach(block IN LISTS blocks)
      math(EXPR n "${n} + 1")
      string(REGEX REPLACE "^\n```cpp\n" "" code "${block}")
      string(REGEX REPLACE "```$" "" code "${code}")
      if(NOT code MATCHES "int main\\(")
        string(REGEX MATCHALL "(^|\n)(#include|namespace [A-Za-z_][A-Za-z_0-9]* =|using )[^\n]*" file_scope "${code}")
        list(JOIN file_scope "" file_scope)
        string(REGEX REPLACE "(^|\n)(#include|namespace [A-Za-z_][A-Za-z_0-9]* =|using )[^\n]*" "" body "${code}")
        set(code "${file_scope}\n\nint main() {\n${body}}\n")
      endif()
      string(REPLACE "@SEMICOLON@" ";" code "${code}")
      set(source "${CMAKE_CURRENT_BINARY_DIR}/doc_blocks/${page_id}_${n}.cpp")
      set(content "// ${page_name}, C++ block ${n} (tests/doc_blocks.cmake)\n${code}")
      # Written only when it changed, so that configuring again rebuilds nothing.
      set(old "")
      if(EXISTS "${source}")
        file(READ "${source}" old)
      endif()
      if(NOT old STREQUAL content)
        file(WRITE "${source}" "${content}")
      endif()
      if(code MATCHES "#include <parloop/io/")
        list(APPEND sources_hdf5 "${source}")
      elseif(code MATCHES "#include <parloop/mpi/")
        list(APPEND sources_mpi "${source}")
      elseif(code MATCHES "#include <parloop/op2/")
        list(APPEND sources_op2 "${source}")
      else()
        list(APPEND sources_parloop "${source}")
      endif()
    endforeach()
  endforeach()
  set(${out}_parloop "${sources_parloop}" PARENT_SCOPE)
  set(${out}_mpi "${sources_mpi}" PARENT_SCOPE)
  set(${out}_op2 "${sources_op2}" PARENT_SCOPE)
  set(${out}_hdf5 "${sources_hdf5}" PARENT_SCOPE)
endfunction()
