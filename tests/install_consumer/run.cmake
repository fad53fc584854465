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
# The consumer's sources copied: its OP2 kernel header is removed before the last run.
file(COPY "${CONSUMER_SOURCE}/" DESTINATION "${WORK_DIR}/source")
run_step("configure consumer" "${CMAKE_COMMAND}" -S "${WORK_DIR}/source" -B "${WORK_DIR}/build"
         "-DCMAKE_CXX_COMPILER=${CXX}")
run_step("build consumer" "${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
run_step("run consumer" "${WORK_DIR}/build/consumer")
run_step("run the OP2 application on the host" "${CMAKE_COMMAND}" -E env PARLOOP_BACKEND=host "${WORK_DIR}/build/op2_app")
# On a device it compiles the kernel's C source: the copy built into it, the header gone.
file(REMOVE "${WORK_DIR}/source/double_it.h")
execute_process(COMMAND "${CMAKE_COMMAND}" -E env PARLOOP_BACKEND=opencl PARLOOP_CACHE=off "${WORK_DIR}/build/op2_app"
                RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(out MATCHES "is not available")
  message(STATUS "the OP2 application on OpenCL: skipped, no OpenCL device")
elseif(NOT result EQUAL 0 OR NOT out MATCHES "-> ok")
  message(FATAL_ERROR "the OP2 application on OpenCL, its header removed, failed (${result}):\n${out}")
else()
  message(STATUS "the OP2 application on OpenCL, its kernel header built in: ok")
endif()
