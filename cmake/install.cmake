# What `cmake --install` puts beside libnormrt.so, its headers and the CMake
# package (runtime/CMakeLists.txt): the tools, the tokenizer library with its
# header (target normrt::tokenizer), and pkg-config files (normrt.pc,
# normrt-tokenizer.pc). tests/install checks each from a scratch prefix.
include(GNUInstallDirs)

install(TARGETS normrt-convert normrt-run normrt-bench normrt-serve
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

install(TARGETS normrt_tokenizer EXPORT normrtTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/normrt/tokenizer.hpp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/normrt)

# The .pc files find the prefix from their own place (${pcfiledir}), so that
# `cmake --install --prefix DIR` into any DIR gives working files.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(NORMRT_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(NORMRT_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH _up "/root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/root")
  string(REGEX REPLACE "/$" "" _up "${_up}")
  set(NORMRT_PC_PREFIX "\${pcfiledir}/${_up}")
  set(NORMRT_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(NORMRT_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(NORMRT_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
foreach(pc normrt normrt-tokenizer)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
