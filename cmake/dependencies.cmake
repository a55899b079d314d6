# Third-party packages, all from Debian: xsimd (kernels), oneDNN (runtime
# backends and benchmark competitor), xxHash (model file checksum), nlohmann
# JSON and libzip (the converter's readers), doctest (tests), Google
# Benchmark (bench).

if(CMAKE_CROSSCOMPILING)
  # Header-only packages are shared with the host, but adding the host's
  # /usr/include to a cross compiler's search path would mix in x86 headers:
  # expose just the package folders through a private include directory.
  set(_cross_include "${CMAKE_BINARY_DIR}/host-header-only")
  file(MAKE_DIRECTORY "${_cross_include}")
  foreach(_pkg xsimd doctest)
    if(NOT EXISTS "/usr/include/${_pkg}")
      message(FATAL_ERROR "missing /usr/include/${_pkg}: install the Debian package (scripts/install_deps.sh)")
    endif()
    file(CREATE_LINK "/usr/include/${_pkg}" "${_cross_include}/${_pkg}" SYMBOLIC)
  endforeach()
  add_library(xsimd INTERFACE IMPORTED)
  target_include_directories(xsimd SYSTEM INTERFACE "${_cross_include}")
  add_library(doctest::doctest INTERFACE IMPORTED)
  target_include_directories(doctest::doctest SYSTEM INTERFACE "${_cross_include}")
  return()
endif()

# normrt_pkg_config(<target> <module> <debian package>): the pkg-config module
# as an imported target under the name the build uses, or an error naming the
# Debian package to install.
function(normrt_pkg_config target module package)
  string(MAKE_C_IDENTIFIER "NORMRT_PC_${module}" prefix)
  pkg_check_modules(${prefix} QUIET IMPORTED_TARGET GLOBAL ${module})
  if(NOT ${prefix}_FOUND)
    message(FATAL_ERROR "${module} not found by pkg-config: install the Debian package "
      "${package} (scripts/install_deps.sh)")
  endif()
  add_library(${target} ALIAS PkgConfig::${prefix})
endfunction()

find_package(xsimd REQUIRED)
# Debian's xsimd 8.1 exports INTERFACE_LINK_LIBRARIES "xtl" without finding xtl,
# so every executable would link a nonexistent -lxtl. xsimd needs xtl only for
# XSIMD_ENABLE_XTL_COMPLEX, which normrt does not use: drop the link.
get_target_property(_xsimd_links xsimd INTERFACE_LINK_LIBRARIES)
if(_xsimd_links AND NOT TARGET xtl)
  list(REMOVE_ITEM _xsimd_links xtl)
  set_target_properties(xsimd PROPERTIES INTERFACE_LINK_LIBRARIES "${_xsimd_links}")
endif()
if(NORMRT_BUILD_TESTS)
  find_package(doctest REQUIRED)
endif()
if(NOT NORMRT_KERNELS_ONLY)
  find_package(dnnl REQUIRED)
  # The libraries Debian ships with a pkg-config file and no CMake package:
  # each becomes an imported target named as the code uses it.
  find_package(PkgConfig REQUIRED)
  # xxHash (XXH3-64, the model file checksum).
  normrt_pkg_config(xxhash::xxhash libxxhash libxxhash-dev)

  # The converter's readers (tools/convert/readers): JSON headers and configs.
  find_package(nlohmann_json 3.2 CONFIG QUIET)
  if(NOT nlohmann_json_FOUND)
    message(FATAL_ERROR "nlohmann JSON (>= 3.2) not found: install the Debian package "
      "nlohmann-json3-dev (scripts/install_deps.sh)")
  endif()
  # libzip (.npz archives). Not through its CMake package: Debian's
  # libzip-config.cmake also imports zipcmp/zipmerge/ziptool and fails unless
  # the separate tools package is installed.
  normrt_pkg_config(normrt_libzip libzip libzip-dev)
endif()
if(NORMRT_BUILD_BENCH AND NOT NORMRT_KERNELS_ONLY)
  find_package(benchmark REQUIRED)
endif()
if(NOT NORMRT_KERNELS_ONLY)
  # utf8proc (tools/text: Unicode categories, NFD and case for BERT's
  # tokenizer) and SentencePiece (tools/text: XLM-R's sentencepiece.bpe.model).
  normrt_pkg_config(utf8proc::utf8proc libutf8proc libutf8proc-dev)
  normrt_pkg_config(sentencepiece::sentencepiece sentencepiece libsentencepiece-dev)
endif()
