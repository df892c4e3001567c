# prebuilt.cmake - -DHPCJIT_PREBUILT_COMPILER=<libhpcjit_compiler.so>: the
# compiler comes as a shared library built elsewhere with
# -DHPCJIT_SHARED_COMPILER=ON (LLVM inside, hj_* exported), so this machine
# needs no LLVM.  Defines the target hpcjit_compiler that the rest of the
# build links (_compiler, the launcher, the C tests that use only the
# public API).  Included from the top CMakeLists.txt instead of the LLVM
# set-up.
option(HPCJIT_PREBUILT_COMPILER_ANY "Accept a prebuilt compiler built from other sources" OFF)
get_filename_component(_hj_pre ${HPCJIT_PREBUILT_COMPILER} ABSOLUTE)
if(NOT EXISTS ${_hj_pre} OR IS_DIRECTORY ${_hj_pre})
  message(FATAL_ERROR "HPCJIT_PREBUILT_COMPILER: no such file: ${_hj_pre} "
                      "(build it with -DHPCJIT_SHARED_COMPILER=ON, or scripts/gpu/prepare.sh)")
endif()

# The sources it was built from must be these (compiler_hash.cmake): the
# library and the runtime built here share structure layouts.
include(${CMAKE_CURRENT_LIST_DIR}/compiler_hash.cmake)
hpcjit_compiler_hash(_hj_here ${PROJECT_SOURCE_DIR})
get_filename_component(_hj_pre_dir ${_hj_pre} DIRECTORY)
set(_hj_info ${_hj_pre_dir}/libhpcjit_compiler.info)
if(EXISTS ${_hj_info})
  file(STRINGS ${_hj_info} _hj_info_lines)
  set(_hj_there "")
  foreach(l ${_hj_info_lines})
    if(l MATCHES "^compiler_sha256=(.*)$")
      set(_hj_there ${CMAKE_MATCH_1})
    endif()
    message(STATUS "hpcjit: prebuilt compiler: ${l}")
  endforeach()
  if(NOT _hj_there STREQUAL _hj_here)
    set(_hj_level FATAL_ERROR)
    if(HPCJIT_PREBUILT_COMPILER_ANY)
      set(_hj_level WARNING)
    endif()
    message(${_hj_level} "HPCJIT_PREBUILT_COMPILER: ${_hj_pre} was built from other compiler "
            "sources (${_hj_info}: ${_hj_there}; this tree: ${_hj_here}).  Rebuild it from "
            "this tree (scripts/gpu/prepare.sh), or set HPCJIT_PREBUILT_COMPILER_ANY=ON "
            "to use it anyway.")
  endif()
elseif(NOT HPCJIT_PREBUILT_COMPILER_ANY)
  message(FATAL_ERROR "HPCJIT_PREBUILT_COMPILER: ${_hj_info} is missing: it says which "
          "sources the library was built from (or set HPCJIT_PREBUILT_COMPILER_ANY=ON)")
endif()

add_library(hpcjit_compiler SHARED IMPORTED GLOBAL)
set_target_properties(hpcjit_compiler PROPERTIES
  IMPORTED_LOCATION ${_hj_pre}
  IMPORTED_SONAME libhpcjit_compiler.so
  INTERFACE_INCLUDE_DIRECTORIES
    "${PROJECT_SOURCE_DIR}/compiler/include;${PROJECT_SOURCE_DIR}/runtime/include")
set(HPCJIT_PREBUILT_COMPILER_FILE ${_hj_pre})
message(STATUS "hpcjit: prebuilt compiler ${_hj_pre}: no LLVM needed")
