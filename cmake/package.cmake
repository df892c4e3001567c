# `cmake --install` installs the C libraries, their headers and a CMake
# package config, so that C/C++ codes can find_package(hpcjit).  The config
# is written by hand (the build targets carry source-tree include paths).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
if(NOT SKBUILD)
  install(FILES $<TARGET_FILE:hpcjit_runtime> $<TARGET_FILE:hpcjit_topology>
                $<TARGET_FILE:hpcjit_compiler>
          DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES ${PROJECT_SOURCE_DIR}/runtime/include/hpcjit/abi.h
                ${PROJECT_SOURCE_DIR}/runtime/include/hpcjit/runtime.h
                ${PROJECT_SOURCE_DIR}/runtime/include/hpcjit/pool.h
                ${PROJECT_SOURCE_DIR}/topology/include/hpcjit/topo.h
                ${PROJECT_SOURCE_DIR}/compiler/include/hpcjit/compiler.h
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hpcjit)
  set(_hj_cfgdir ${CMAKE_INSTALL_LIBDIR}/cmake/hpcjit)
  configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/hpcjitConfig.cmake.in
    ${PROJECT_BINARY_DIR}/hpcjitConfig.cmake
    INSTALL_DESTINATION ${_hj_cfgdir}
    PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_BINDIR)
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/hpcjitConfigVersion.cmake
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/hpcjitConfig.cmake ${PROJECT_BINARY_DIR}/hpcjitConfigVersion.cmake
                ${CMAKE_CURRENT_LIST_DIR}/hpcjitAot.cmake
          DESTINATION ${_hj_cfgdir})
endif()
