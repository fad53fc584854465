# SPDX-License-Identifier: MIT
# Compiles one snippet and checks the outcome its `// expect:` lines name: `success`, or
# text the compiler's diagnostics must contain (every line must match); `// expect-not:` lines
# name text they must not contain (an error of the compiler's own before the one intended). A snippet of several
# cases says `// case NAME: text` for each: it is compiled once per case with -DNAME, and each
# compile must fail with its text.
file(STRINGS "${SNIPPET}" expectations REGEX "^// expect: ")
file(STRINGS "${SNIPPET}" unwanted REGEX "^// expect-not: ")
file(STRINGS "${SNIPPET}" cases REGEX "^// case [A-Z_0-9]+: ")
if(NOT expectations AND NOT cases AND NOT PRECOMPILE)
  message(FATAL_ERROR "${SNIPPET} has no '// expect:' or '// case NAME:' line")
endif()
string(REPLACE "|" ";" include_list "${INCLUDES}")
set(compile_flags)
foreach(dir IN LISTS include_list)
  if(dir)
    list(APPEND compile_flags "-I${dir}")
  endif()
endforeach()
# DEFINES: the library's definitions for its programs, joined by '|' too.
string(REPLACE "|" ";" define_list "${DEFINES}")
foreach(definition IN LISTS define_list)
  if(definition)
    list(APPEND compile_flags "-D${definition}")
  endif()
endforeach()

# -DPRECOMPILE=<file>: SNIPPET is the snippets' common header, to be precompiled into <file>
# (GCC's .gch), which a snippet's compile then takes with -DPCH=<the header>.
if(PRECOMPILE)
  execute_process(
    COMMAND "${CXX}" -std=c++20 -x c++-header ${compile_flags} "${SNIPPET}" -o "${PRECOMPILE}"
    RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${SNIPPET} does not precompile:\n${out}")
  endif()
  return()
endif()
set(pch_flags)
if(PCH)
  # -Winvalid-pch: a header that cannot be used says so (the compile then parses it again).
  set(pch_flags -include "${PCH}" -Winvalid-pch)
endif()

# Compiles the snippet with `defines` once; fails the test unless the outcome is each of
# `wanted` (a list: `success`, or texts the diagnostics must contain).
function(expect wanted defines)
  execute_process(
    COMMAND "${CXX}" -std=c++20 -fsyntax-only ${pch_flags} ${compile_flags} ${defines} "${SNIPPET}"
    RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
  foreach(text IN LISTS wanted)
    if(text STREQUAL "success")
      if(NOT result EQUAL 0)
        message(FATAL_ERROR "${SNIPPET} ${defines} should compile but failed:\n${out}")
      endif()
    elseif(result EQUAL 0)
      message(FATAL_ERROR "${SNIPPET} ${defines} compiled but must not: expected a diagnostic containing '${text}'")
    else()
      string(FIND "${out}" "${text}" at)
      if(at EQUAL -1)
        message(FATAL_ERROR "${SNIPPET} ${defines} failed to compile, but without '${text}'. The diagnostics:\n${out}")
      endif()
    endif()
  endforeach()
  foreach(line IN LISTS unwanted)
    string(REGEX REPLACE "^// expect-not: " "" text "${line}")
    string(FIND "${out}" "${text}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "${SNIPPET} ${defines}: the diagnostics say '${text}', which they must not:\n${out}")
    endif()
  endforeach()
endfunction()

if(expectations)
  set(wanted)
  foreach(line IN LISTS expectations)
    string(REGEX REPLACE "^// expect: " "" text "${line}")
    list(APPEND wanted "${text}")
  endforeach()
  expect("${wanted}" "")
endif()
foreach(line IN LISTS cases)
  string(REGEX REPLACE "^// case ([A-Z_0-9]+): .*$" "\\1" name "${line}")
  string(REGEX REPLACE "^// case [A-Z_0-9]+: " "" text "${line}")
  expect("${text}" "-D${name}")
endforeach()
message(STATUS "${SNIPPET}: as expected")
