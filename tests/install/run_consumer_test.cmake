# Installs this build tree into a scratch prefix, builds the consumer project
# against it with find_package(normrt), and runs both consumers on the C API
# fixture. Run by CTest: cmake -DBUILD_DIR=.. -DSOURCE_DIR=.. -DWORK_DIR=.. -DFIXTURE_DIR=.. -P
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR FIXTURE_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_consumer_test.cmake: ${var} is not set")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK_DIR})

function(run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}")
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${step} failed (${result}):\n${err}")
  endif()
endfunction()

run("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix --component Unspecified)
run("configure consumer" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/consumer -B ${WORK_DIR}/build
    -G Ninja -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_BUILD_TYPE=Release)
run("build consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run("consumer_cpp" ${WORK_DIR}/build/consumer_cpp ${FIXTURE_DIR}/c_api.nrmt
    ${FIXTURE_DIR}/c_api_x.f32 ${FIXTURE_DIR}/c_api_expected.f32)
run("consumer_c" ${WORK_DIR}/build/consumer_c ${FIXTURE_DIR}/c_api.nrmt)
