# hpcjitAot.cmake - hpcjit_add_module(): ahead-of-time modules in a CMake
# build (hpcjit cc, python/hpcjit/aot.py).  Included by hpcjitConfig.cmake.
#
#   hpcjit_add_module(<target> SOURCES <module.py> [NAME <name>]
#                     [ARCHS <arch>...] [C_HEADER] [OUTPUT_DIRECTORY <dir>])
#
# builds, as part of `all`, the Python extension module <name> (default: the
# source file's name) from the module's @njit functions with explicit
# signatures, one object per ARCHS name (default: host).  With C_HEADER it
# builds lib<name>.so and <name>.h instead, and <target>_c is an INTERFACE
# library to link C/C++ programs with.  The Python that runs hpcjit cc is
# hpcjit_PYTHON (default: the Python3 interpreter CMake finds), with
# hpcjit_PYTHONPATH prepended to PYTHONPATH when set.  <target> gets the
# property HPCJIT_OUTPUT: the file built.
function(hpcjit_add_module target)
  cmake_parse_arguments(HJ "C_HEADER" "NAME;OUTPUT_DIRECTORY" "SOURCES;ARCHS" ${ARGN})
  list(LENGTH HJ_SOURCES _n)
  if(NOT _n EQUAL 1)
    message(FATAL_ERROR "hpcjit_add_module(${target}): give one module in SOURCES")
  endif()
  get_filename_component(_src "${HJ_SOURCES}" ABSOLUTE)
  if(NOT HJ_NAME)
    get_filename_component(HJ_NAME "${_src}" NAME_WE)
  endif()
  if(NOT HJ_OUTPUT_DIRECTORY)
    set(HJ_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}")
  endif()
  if(NOT hpcjit_PYTHON)
    find_package(Python3 REQUIRED COMPONENTS Interpreter)
    set(hpcjit_PYTHON "${Python3_EXECUTABLE}")
  endif()
  set(_env "")
  if(hpcjit_PYTHONPATH)
    set(_env "PYTHONPATH=${hpcjit_PYTHONPATH}:$ENV{PYTHONPATH}")
  endif()
  set(_args "${_src}" -o ${HJ_NAME} --outdir "${HJ_OUTPUT_DIRECTORY}" -q)
  if(HJ_ARCHS)
    string(REPLACE ";" "," _archs "${HJ_ARCHS}")
    list(APPEND _args --archs ${_archs})
  endif()
  if(HJ_C_HEADER)
    list(APPEND _args --c-header)
    set(_outputs "${HJ_OUTPUT_DIRECTORY}/lib${HJ_NAME}.so" "${HJ_OUTPUT_DIRECTORY}/${HJ_NAME}.h")
  else()
    execute_process(COMMAND "${hpcjit_PYTHON}" -c
                            "import importlib.machinery as m; print(m.EXTENSION_SUFFIXES[0])"
                    OUTPUT_VARIABLE _suffix OUTPUT_STRIP_TRAILING_WHITESPACE)
    set(_outputs "${HJ_OUTPUT_DIRECTORY}/${HJ_NAME}${_suffix}")
  endif()
  add_custom_command(OUTPUT ${_outputs}
    COMMAND ${CMAKE_COMMAND} -E env ${_env} "${hpcjit_PYTHON}" -m hpcjit.aot ${_args}
    DEPENDS "${_src}"
    COMMENT "hpcjit cc ${HJ_NAME} (${_src})"
    VERBATIM)
  add_custom_target(${target} ALL DEPENDS ${_outputs})
  list(GET _outputs 0 _main)
  set_target_properties(${target} PROPERTIES HPCJIT_OUTPUT "${_main}")
  if(HJ_C_HEADER)
    add_library(${target}_c INTERFACE)
    target_include_directories(${target}_c INTERFACE "${HJ_OUTPUT_DIRECTORY}")
    target_link_libraries(${target}_c INTERFACE "${_main}")
    add_dependencies(${target}_c ${target})
  endif()
endfunction()
