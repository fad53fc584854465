# SPDX-License-Identifier: MIT
# Installs the build tree's parloop into a fresh prefix, then configures, builds and runs
# the consumer against it with find_package(parloop CONFIG REQUIRED).
file(REMOVE_RECURSE "${WORK_DIR}")
# The prefixes go through the environment (':'-separated): a ';' list would be split into
# separate arguments on its way to the command line.
string(REPLACE "|" ":" prefix_path "${PREFIX_PATH}")
set(ENV{CMAKE_PREFIX_PATH} "${WORK_DIR}/prefix:${prefix_path}")
function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${what} failed (${result}):\n${out}")
  endif()
  message(STATUS "${what}: ok")
endfunction()
run_step("install" "${CMAKE_COMMAND}" --install "${PROJECT_BINARY_DIR}" --prefix "${WORK_DIR}/prefix")
# The cache tool comes with the package.
if(NOT EXISTS "${WORK_DIR}/prefix/bin/parloop-cache")
  message(FATAL_ERROR "install: bin/parloop-cache is missing")
endif()
run_step("configure consumer" "${CMAKE_COMMAND}" -S "${CONSUMER_SOURCE}" -B "${WORK_DIR}/build"
         "-DCMAKE_CXX_COMPILER=${CXX}")
run_step("build consumer" "${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
run_step("run consumer" "${WORK_DIR}/build/consumer")
