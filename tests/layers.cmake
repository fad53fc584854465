# The library's folders are layers: a header includes headers of its own folder or of a folder
# below it, never above, so that no two folders include each other; cache/ and op2/ skip some.
# And no header is over 300 lines unless docs/design.md ("Files over 300 lines") says why, and
# every cold region (config.hpp's PARLOOP_COLD_BEGIN) closes in its header with nothing included.
# cmake -DINCLUDE_DIR=<repo>/include -DDESIGN=<repo>/docs/design.md -P layers.cmake
cmake_minimum_required(VERSION 3.25)

# From the bottom. The top-level base headers (config, error, fwd, version) are below every
# folder; parloop.hpp, the umbrella, is above all. backend/host/ is the host backend, which
# par_loop's templates bind each loop to, below exec; backend/<name>/ are the backends Runtime
# opens through their entries (threads and the devices), above exec; backend/*.hpp (the rebuild
# dispatcher) sit above them. op2/ (OP2's API) is a front end over exec; its headers with OP2's
# names (op2/api/*.h) include the umbrella, above everything.
set(layers base core order ir dsl codegen cache backend/host exec mpi io op2 backend/<name> backend umbrella)

function(layer_of header out)
  if(header MATCHES "^parloop/parloop\\.hpp$")
    set(layer umbrella)
  elseif(header MATCHES "^parloop/[^/]+\\.hpp$")
    set(layer base)
  elseif(header MATCHES "^parloop/backend/host/")
    set(layer backend/host)
  elseif(header MATCHES "^parloop/backend/[^/]+/")
    set(layer backend/<name>)
  elseif(header MATCHES "^parloop/([^/]+)/")
    set(layer ${CMAKE_MATCH_1})
  endif()
  list(FIND layers "${layer}" rank)
  if(rank EQUAL -1)
    message(FATAL_ERROR "${header}: in no layer; add its folder to tests/layers.cmake")
  endif()
  set(${out} ${rank} PARENT_SCOPE)
endfunction()

file(READ "${DESIGN}" design)
string(REGEX MATCH "### Files over 300 lines\n[^#]*" exempt_section "${design}")
string(REGEX MATCHALL "- `parloop/[^`]+`" exempt_items "${exempt_section}")
set(exempt)
foreach(item IN LISTS exempt_items)
  string(REGEX REPLACE "^- `(.*)`$" "\\1" item "${item}")
  list(APPEND exempt "${item}")
endforeach()

file(GLOB_RECURSE headers RELATIVE "${INCLUDE_DIR}" "${INCLUDE_DIR}/parloop/*.hpp")
set(problems "")
foreach(header IN LISTS headers)
  layer_of("${header}" rank)
  get_filename_component(folder "${header}" DIRECTORY)
  file(READ "${INCLUDE_DIR}/${header}" text)
  string(REGEX MATCHALL "\n" newlines "${text}")
  list(LENGTH newlines count)
  if(count GREATER 300 AND NOT header IN_LIST exempt)
    string(APPEND problems "\n  ${header}: ${count} lines (over 300, and not in docs/design.md's list)")
  endif()
  # Code compiled for size (config.hpp): each PARLOOP_COLD_BEGIN closed by a PARLOOP_COLD_END
  # in the same header, and nothing included between them, whose code would be compiled so too.
  string(REGEX MATCHALL "\nPARLOOP_COLD_(BEGIN|END)|\n#include [^\n]*" marks "${text}")
  set(cold OFF)
  foreach(mark IN LISTS marks)
    if(mark MATCHES "BEGIN$" AND NOT cold)
      set(cold ON)
    elseif(mark MATCHES "END$" AND cold)
      set(cold OFF)
    elseif(mark MATCHES "#include" AND NOT cold)
      continue()
    else()
      string(STRIP "${mark}" mark)
      string(APPEND problems "\n  ${header}: ${mark} where the cold markers do not allow it")
    endif()
  endforeach()
  if(cold)
    string(APPEND problems "\n  ${header}: PARLOOP_COLD_BEGIN without PARLOOP_COLD_END")
  endif()
  file(STRINGS "${INCLUDE_DIR}/${header}" includes REGEX "^#include \"parloop/")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" included "${line}")
    get_filename_component(included_folder "${included}" DIRECTORY)
    if(included_folder STREQUAL folder)
      continue()
    endif()
    layer_of("${included}" included_rank)
    if(included_rank GREATER rank)
      string(APPEND problems "\n  ${header} includes ${included}, a layer above it")
    endif()
    # Layers that skip some below them: cache/ stores, and generates nothing; op2/, a front end,
    # stands on what a program uses (docs/design.md).
    if((header MATCHES "^parloop/cache/" AND included MATCHES "^parloop/(dsl|codegen)/") OR
       (header MATCHES "^parloop/op2/" AND included MATCHES "^parloop/(cache|codegen|dsl|ir)/"))
      string(APPEND problems "\n  ${header} includes ${included}, a layer it skips")
    endif()
  endforeach()
endforeach()
foreach(header IN LISTS exempt)
  if(NOT EXISTS "${INCLUDE_DIR}/${header}")
    string(APPEND problems "\n  docs/design.md excuses ${header}, which does not exist")
  endif()
endforeach()
if(problems)
  message(FATAL_ERROR "the layers of include/parloop (${layers}):${problems}")
endif()
list(LENGTH headers n)
message(STATUS "${n} headers: no include goes up a layer")
