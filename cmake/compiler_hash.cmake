# compiler_hash.cmake - the identity of the compiler sources a prebuilt
# libhpcjit_compiler.so was built from: SHA-256 over compiler/ (*.c *.h
# *.def) and runtime/include/hpcjit/*.h (the runtime compiled code calls),
# each file's path and content, in sorted order.  A prebuilt library whose
# hash differs from the tree it is linked into may disagree with it on the
# layout of HjRequest or of the runtime's structures: cmake/prebuilt.cmake
# refuses it.
#
#   include(): hpcjit_compiler_hash(<out-var> <source-dir>)
#   script:    cmake -DSRC=<source-dir> [-DOUT=<file> [-DEXTRA=k=v;...]] -P compiler_hash.cmake
#              prints the hash, or writes `compiler_sha256=<hash>` and the
#              EXTRA lines to OUT
function(hpcjit_compiler_hash out src)
  get_filename_component(src ${src} ABSOLUTE)
  file(GLOB_RECURSE _files RELATIVE ${src}
       ${src}/compiler/*.c ${src}/compiler/*.h ${src}/compiler/*.def
       ${src}/runtime/include/hpcjit/*.h)
  list(SORT _files)
  set(_all "")
  foreach(f ${_files})
    file(SHA256 ${src}/${f} _h)
    string(APPEND _all "${f} ${_h}\n")
  endforeach()
  string(SHA256 _sum "${_all}")
  set(${out} ${_sum} PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  if(NOT SRC)
    message(FATAL_ERROR "usage: cmake -DSRC=<source dir> [-DOUT=<file>] -P compiler_hash.cmake")
  endif()
  hpcjit_compiler_hash(_hash ${SRC})
  if(OUT)
    file(WRITE ${OUT} "compiler_sha256=${_hash}\n")
    foreach(line ${EXTRA})
      file(APPEND ${OUT} "${line}\n")
    endforeach()
  else()
    message("${_hash}")
  endif()
endif()
