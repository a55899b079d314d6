# Installs this build tree into a scratch prefix and checks what it holds:
#  - find_package(normrt): the consumer project (C++ asking for C++11, which
#    the exported targets raise to C++17; C; the tokenizer) runs on the C API
#    fixture and the tokenizer fixture;
#  - pkg-config: normrt.pc and normrt-tokenizer.pc compile and link the same
#    C and tokenizer consumers without CMake;
#  - the tools: each installed executable runs (--help).
# Run by CTest: cmake -DBUILD_DIR=.. -DSOURCE_DIR=.. -DWORK_DIR=.. -DFIXTURE_DIR=.. -P
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR FIXTURE_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_consumer_test.cmake: ${var} is not set")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
set(consumer ${SOURCE_DIR}/tests/install/consumer)
set(tokenizer_fixture ${SOURCE_DIR}/tests/tools/text/fixtures)

function(run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}")
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${step} failed (${result}):\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

run("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --component Unspecified)

# find_package
run("configure consumer" ${CMAKE_COMMAND} -S ${consumer} -B ${WORK_DIR}/build
    -G Ninja -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
run("build consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run("consumer_cpp" ${WORK_DIR}/build/consumer_cpp ${FIXTURE_DIR}/c_api.nrmt
    ${FIXTURE_DIR}/c_api_x.f32 ${FIXTURE_DIR}/c_api_expected.f32)
run("consumer_c" ${WORK_DIR}/build/consumer_c ${FIXTURE_DIR}/c_api.nrmt)
run("consumer_tokenizer" ${WORK_DIR}/build/consumer_tokenizer ${tokenizer_fixture}/bert_uncased
    ${tokenizer_fixture}/bert_uncased.cases)

# pkg-config: the flags it gives build the consumers with the plain compilers.
find_program(PKG_CONFIG pkg-config REQUIRED)
file(GLOB pc_dir LIST_DIRECTORIES true ${prefix}/lib*/pkgconfig ${prefix}/lib/*/pkgconfig)
if(NOT pc_dir)
  message(FATAL_ERROR "no pkgconfig folder under ${prefix}")
endif()
set(pc_env ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir})
foreach(pc normrt normrt-tokenizer)
  run("pkg-config ${pc}" ${pc_env} ${PKG_CONFIG} --cflags --libs ${pc})
  string(STRIP "${last_output}" flags)
  separate_arguments(flags_${pc} UNIX_COMMAND "${flags}")
  run("pkg-config ${pc} version" ${pc_env} ${PKG_CONFIG} --modversion ${pc})
endforeach()
# The library folder for the loader (a scratch prefix is not on its path).
string(REGEX MATCH "-L[^ ;]+" libdir_flag "${flags_normrt}")
string(SUBSTRING "${libdir_flag}" 2 -1 libdir)
set(ld_env ${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${libdir})
run("pkg-config C consumer" cc ${consumer}/consumer.c ${flags_normrt} -o ${WORK_DIR}/pc_consumer_c)
run("pkg-config C consumer runs" ${ld_env} ${WORK_DIR}/pc_consumer_c ${FIXTURE_DIR}/c_api.nrmt)
run("pkg-config tokenizer consumer" c++ -std=c++17 ${consumer}/consumer_tokenizer.cc
    ${flags_normrt-tokenizer} -o ${WORK_DIR}/pc_consumer_tokenizer)
run("pkg-config tokenizer consumer runs" ${ld_env} ${WORK_DIR}/pc_consumer_tokenizer
    ${tokenizer_fixture}/bert_uncased ${tokenizer_fixture}/bert_uncased.cases)

# The tools
foreach(tool normrt-convert normrt-run normrt-bench normrt-serve)
  if(NOT EXISTS ${prefix}/bin/${tool})
    message(FATAL_ERROR "${tool} was not installed into ${prefix}/bin")
  endif()
  run("${tool} --help" ${prefix}/bin/${tool} --help)
  if(NOT last_output MATCHES "usage")
    message(FATAL_ERROR "${tool} --help printed no usage:\n${last_output}")
  endif()
endforeach()
