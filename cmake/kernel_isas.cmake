# The instruction sets normrt compiles kernels for: the one list of {ISA,
# flags, architecture}. kernels/CMakeLists.txt compiles one translation unit
# per (family, ISA) from it (normrt_add_kernel_family); tests/CMakeLists.txt
# derives the forced-ISA tests from it.
#
# Each entry:
#   KEY      the ISA's name in file names (lower-cased: norm/norm_avx2.cc) and
#            in the private definition NORMRT_HAVE_<KEY> that guards its
#            entries in the kernel families' variant lists
#   ARCH     the CMAKE_SYSTEM_PROCESSOR family it exists on: x86_64 or aarch64
#   NAME     what the C++ side calls it: isa_name() for a base ISA (what
#            NORMRT_ISA accepts), cpu_feature_name() for an extension
#   EXTENDS  for an extension: the base ISA it needs; its flags are added
#   FLAGS    the compiler flags of its translation units
#   MANDATORY  every CPU of ARCH runs it (NORMRT_ISA must select it there)
#
# A base ISA is an Isa (base/isa.h) that NORMRT_ISA can force; an extension is
# a CpuFeature (kernels/common/isa.h) that some variants of a base ISA also
# need, chosen at run time where the CPU has it.

# GCC 12 warns inside its own AVX-512 intrinsic headers (_mm512_undefined_*
# operands, GCC bug 105593).
set(_normrt_gcc_avx512_quiet
  "$<$<CXX_COMPILER_ID:GNU>:-Wno-maybe-uninitialized>"
  "$<$<CXX_COMPILER_ID:GNU>:-Wno-uninitialized>")

set_property(GLOBAL PROPERTY NORMRT_KERNEL_ISAS "")

function(normrt_kernel_isa key)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "MANDATORY" "ARCH;NAME;EXTENDS" "FLAGS")
  set(flags "")
  if(ARG_EXTENDS)
    get_property(flags GLOBAL PROPERTY NORMRT_ISA_${ARG_EXTENDS}_FLAGS)
  endif()
  list(APPEND flags ${ARG_FLAGS})
  set_property(GLOBAL PROPERTY NORMRT_ISA_${key}_ARCH "${ARG_ARCH}")
  set_property(GLOBAL PROPERTY NORMRT_ISA_${key}_NAME "${ARG_NAME}")
  set_property(GLOBAL PROPERTY NORMRT_ISA_${key}_EXTENDS "${ARG_EXTENDS}")
  set_property(GLOBAL PROPERTY NORMRT_ISA_${key}_FLAGS "${flags}")
  set_property(GLOBAL PROPERTY NORMRT_ISA_${key}_MANDATORY ${ARG_MANDATORY})
  set_property(GLOBAL APPEND PROPERTY NORMRT_KERNEL_ISAS ${key})
endfunction()

normrt_kernel_isa(AVX2 ARCH x86_64 NAME avx2 FLAGS -mavx2 -mfma)
normrt_kernel_isa(AVX512 ARCH x86_64 NAME avx512
  FLAGS -mavx512f -mavx512bw -mavx512dq -mavx512cd -mavx512vl -mfma -mavx2
        ${_normrt_gcc_avx512_quiet})
normrt_kernel_isa(AVXVNNI ARCH x86_64 NAME avx_vnni EXTENDS AVX2 FLAGS -mavxvnni)
normrt_kernel_isa(AVX512VNNI ARCH x86_64 NAME avx512_vnni EXTENDS AVX512 FLAGS -mavx512vnni)
normrt_kernel_isa(AVX512BF16 ARCH x86_64 NAME avx512_bf16 EXTENDS AVX512 FLAGS -mavx512bf16)
# Advanced SIMD is mandatory on AArch64: no flag.
normrt_kernel_isa(NEON ARCH aarch64 NAME neon MANDATORY)
normrt_kernel_isa(NEON_DOTPROD ARCH aarch64 NAME asimddp EXTENDS NEON
  FLAGS -march=armv8.2-a+dotprod)

# The architecture family of the target, as ARCH names it ("" for others:
# then only the scalar kernels are built).
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64")
  set(NORMRT_TARGET_ARCH x86_64)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
  set(NORMRT_TARGET_ARCH aarch64)
else()
  set(NORMRT_TARGET_ARCH "")
endif()

# Sets `out` to the keys of the ISAs this build compiles (ARCH is the
# target's); BASE: only the base ISAs, OTHER_ARCH: those of the other
# architectures instead (what NORMRT_ISA must refuse here).
function(normrt_kernel_isas out)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "BASE;OTHER_ARCH" "" "")
  set(keys "")
  get_property(all GLOBAL PROPERTY NORMRT_KERNEL_ISAS)
  foreach(key IN LISTS all)
    get_property(arch GLOBAL PROPERTY NORMRT_ISA_${key}_ARCH)
    get_property(extends GLOBAL PROPERTY NORMRT_ISA_${key}_EXTENDS)
    if(ARG_BASE AND extends)
      continue()
    endif()
    if(arch STREQUAL NORMRT_TARGET_ARCH)
      set(here TRUE)
    else()
      set(here FALSE)
    endif()
    if((ARG_OTHER_ARCH AND here) OR (NOT ARG_OTHER_ARCH AND NOT here))
      continue()
    endif()
    list(APPEND keys ${key})
  endforeach()
  set(${out} ${keys} PARENT_SCOPE)
endfunction()

# normrt_add_kernel_family(<name> [DIR <dir>] [SOURCES <source>...] ISAS <key>...)
#
# Adds one kernel family to normrt_kernels: its portable SOURCES (the ISA-free
# entry points, the scalar reference, the variant list), and for each of ISAS
# that exists on the target architecture the translation unit
# <dir>/<name>_<key lower-cased>.cc (DIR defaults to <name>), compiled with
# that ISA's flags. ISAS of another architecture are skipped. Each ISA
# compiled is announced to the kernels' own sources (never to their users)
# as NORMRT_HAVE_<key>, which guards its entries in the variant lists.
function(normrt_add_kernel_family name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "DIR" "SOURCES;ISAS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "normrt_add_kernel_family(${name}): unexpected ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  set(dir ${name})
  if(ARG_DIR)
    set(dir ${ARG_DIR})
  endif()
  target_sources(normrt_kernels PRIVATE ${ARG_SOURCES})
  get_property(known GLOBAL PROPERTY NORMRT_KERNEL_ISAS)
  foreach(key IN LISTS ARG_ISAS)
    if(NOT key IN_LIST known)
      message(FATAL_ERROR "normrt_add_kernel_family(${name}): ${key} is not in "
        "cmake/kernel_isas.cmake (known: ${known})")
    endif()
    get_property(arch GLOBAL PROPERTY NORMRT_ISA_${key}_ARCH)
    if(NOT arch STREQUAL NORMRT_TARGET_ARCH)
      continue()
    endif()
    get_property(flags GLOBAL PROPERTY NORMRT_ISA_${key}_FLAGS)
    string(TOLOWER "${key}" suffix)
    set(source ${dir}/${name}_${suffix}.cc)
    target_sources(normrt_kernels PRIVATE ${source})
    set_source_files_properties(${source} PROPERTIES COMPILE_OPTIONS "${flags}")
    target_compile_definitions(normrt_kernels PRIVATE NORMRT_HAVE_${key}=1)
  endforeach()
endfunction()
