# Runs normrt-run (RUN) with the arguments FIRST and then SECOND (each a
# "|"-separated list) and fails unless both exit 0 with the same stdout: an
# input given two ways must give the same outputs.
string(REPLACE "|" ";" first "${FIRST}")
string(REPLACE "|" ";" second "${SECOND}")
execute_process(COMMAND ${RUN} ${first} OUTPUT_VARIABLE out_first ERROR_VARIABLE err_first
  RESULT_VARIABLE rc_first)
execute_process(COMMAND ${RUN} ${second} OUTPUT_VARIABLE out_second ERROR_VARIABLE err_second
  RESULT_VARIABLE rc_second)
if(NOT rc_first EQUAL 0 OR NOT rc_second EQUAL 0)
  message(FATAL_ERROR "exit codes ${rc_first}, ${rc_second}\n${err_first}\n${err_second}")
endif()
if(out_first STREQUAL "")
  message(FATAL_ERROR "no output")
endif()
if(NOT out_first STREQUAL out_second)
  message(FATAL_ERROR "outputs differ:\n${FIRST}:\n${out_first}\n${SECOND}:\n${out_second}")
endif()
message("same output:\n${out_first}")
