# SPDX-License-Identifier: MIT
# parloop_embed_sources(<target> <file>...): builds the files' text into <target>, under the
# absolute paths they have here, so that a kernel's C source and the headers it includes are
# found where the source tree is not (a compute node): OP2 kernel headers (`k.h`) and the
# #include lines of pl::kernel_from_source. Edited, they are embedded again at the next build.
set(_parloop_embed_script "${CMAKE_CURRENT_LIST_DIR}/parloopEmbedScript.cmake")

function(parloop_embed_sources target)
  if(NOT TARGET ${target})
    message(FATAL_ERROR "parloop_embed_sources: '${target}' is not a target")
  endif()
  if(ARGC LESS 2)
    message(FATAL_ERROR "parloop_embed_sources(${target}): name the files to embed")
  endif()
  set(files)
  foreach(file IN LISTS ARGN)
    get_filename_component(path "${file}" ABSOLUTE)
    if(NOT EXISTS "${path}")
      message(FATAL_ERROR "parloop_embed_sources(${target}): '${file}' does not exist")
    endif()
    list(APPEND files "${path}")
  endforeach()
  set(output "${CMAKE_CURRENT_BINARY_DIR}/${target}_parloop_embedded.cpp")
  string(REPLACE ";" "|" joined "${files}")
  add_custom_command(OUTPUT "${output}"
    COMMAND "${CMAKE_COMMAND}" "-DOUTPUT=${output}" "-DFILES=${joined}" -P "${_parloop_embed_script}"
    DEPENDS ${files} "${_parloop_embed_script}"
    COMMENT "Embedding kernel sources into ${target}"
    VERBATIM)
  target_sources(${target} PRIVATE "${output}")
endfunction()
