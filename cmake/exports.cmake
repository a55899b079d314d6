# normrt_export_api_only(<shared library target>): the library exports the
# public API and nothing else. Sources are compiled with -fvisibility=hidden
# (CMakeLists.txt) and the API is marked NORMRT_API (include/normrt/export.h);
# the version script cmake/normrt_exports.map also keeps the standard-library
# instantiations local, which libstdc++ declares with default visibility.
function(normrt_export_api_only target)
  set(map ${PROJECT_SOURCE_DIR}/cmake/normrt_exports.map)
  target_link_options(${target} PRIVATE "LINKER:--version-script=${map}")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${map})
endfunction()
