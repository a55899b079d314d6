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
  # xxHash (XXH3-64, the model file checksum): Debian ships no CMake package
  # for it, only a header and a library.
  find_path(NORMRT_XXHASH_INCLUDE_DIR xxhash.h)
  find_library(NORMRT_XXHASH_LIBRARY xxhash)
  if(NOT NORMRT_XXHASH_INCLUDE_DIR OR NOT NORMRT_XXHASH_LIBRARY)
    message(FATAL_ERROR "xxHash not found (xxhash.h: ${NORMRT_XXHASH_INCLUDE_DIR}, "
      "libxxhash: ${NORMRT_XXHASH_LIBRARY}): install the Debian package libxxhash-dev "
      "(scripts/install_deps.sh)")
  endif()
  add_library(xxhash::xxhash UNKNOWN IMPORTED)
  set_target_properties(xxhash::xxhash PROPERTIES
    IMPORTED_LOCATION "${NORMRT_XXHASH_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${NORMRT_XXHASH_INCLUDE_DIR}")

  # The converter's readers (tools/convert/readers): JSON headers and configs.
  find_package(nlohmann_json 3.2 CONFIG QUIET)
  if(NOT nlohmann_json_FOUND)
    message(FATAL_ERROR "nlohmann JSON (>= 3.2) not found: install the Debian package "
      "nlohmann-json3-dev (scripts/install_deps.sh)")
  endif()
  # libzip (.npz archives). Not through its CMake package: Debian's
  # libzip-config.cmake also imports zipcmp/zipmerge/ziptool and fails unless
  # the separate tools package is installed.
  find_path(NORMRT_LIBZIP_INCLUDE_DIR zip.h)
  find_library(NORMRT_LIBZIP_LIBRARY zip)
  if(NOT NORMRT_LIBZIP_INCLUDE_DIR OR NOT NORMRT_LIBZIP_LIBRARY)
    message(FATAL_ERROR "libzip not found (zip.h: ${NORMRT_LIBZIP_INCLUDE_DIR}, "
      "libzip: ${NORMRT_LIBZIP_LIBRARY}): install the Debian package libzip-dev "
      "(scripts/install_deps.sh)")
  endif()
  add_library(normrt_libzip UNKNOWN IMPORTED)
  set_target_properties(normrt_libzip PROPERTIES
    IMPORTED_LOCATION "${NORMRT_LIBZIP_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${NORMRT_LIBZIP_INCLUDE_DIR}")
endif()
if(NORMRT_BUILD_BENCH AND NOT NORMRT_KERNELS_ONLY)
  find_package(benchmark REQUIRED)
endif()
if(NOT NORMRT_KERNELS_ONLY)
  # utf8proc (tools/text: Unicode categories, NFD and case for BERT's
  # tokenizer): Debian ships a header and a library, no CMake package.
  find_path(NORMRT_UTF8PROC_INCLUDE_DIR utf8proc.h)
  find_library(NORMRT_UTF8PROC_LIBRARY utf8proc)
  if(NOT NORMRT_UTF8PROC_INCLUDE_DIR OR NOT NORMRT_UTF8PROC_LIBRARY)
    message(FATAL_ERROR "utf8proc not found (utf8proc.h: ${NORMRT_UTF8PROC_INCLUDE_DIR}, "
      "libutf8proc: ${NORMRT_UTF8PROC_LIBRARY}): install the Debian package libutf8proc-dev "
      "(scripts/install_deps.sh)")
  endif()
  add_library(utf8proc::utf8proc UNKNOWN IMPORTED)
  set_target_properties(utf8proc::utf8proc PROPERTIES
    IMPORTED_LOCATION "${NORMRT_UTF8PROC_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${NORMRT_UTF8PROC_INCLUDE_DIR}")
  # SentencePiece (tools/text: XLM-R's sentencepiece.bpe.model): Debian's
  # libsentencepiece-dev has a pkg-config file, no CMake package.
  find_path(NORMRT_SENTENCEPIECE_INCLUDE_DIR sentencepiece_processor.h)
  find_library(NORMRT_SENTENCEPIECE_LIBRARY sentencepiece)
  if(NOT NORMRT_SENTENCEPIECE_INCLUDE_DIR OR NOT NORMRT_SENTENCEPIECE_LIBRARY)
    message(FATAL_ERROR "SentencePiece not found (sentencepiece_processor.h: "
      "${NORMRT_SENTENCEPIECE_INCLUDE_DIR}, libsentencepiece: ${NORMRT_SENTENCEPIECE_LIBRARY}): "
      "install the Debian package libsentencepiece-dev (scripts/install_deps.sh)")
  endif()
  add_library(sentencepiece::sentencepiece UNKNOWN IMPORTED)
  set_target_properties(sentencepiece::sentencepiece PROPERTIES
    IMPORTED_LOCATION "${NORMRT_SENTENCEPIECE_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${NORMRT_SENTENCEPIECE_INCLUDE_DIR}")
endif()
