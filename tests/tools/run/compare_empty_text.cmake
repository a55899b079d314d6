# normrt-run (RUN) on MODEL with --text "" must print "tokens: 2" and then
# exactly what --ids CLS,SEP prints: the empty string is [CLS] [SEP], as
# Hugging Face's tokenizers and normrt-serve encode it.
execute_process(COMMAND ${RUN} ${MODEL} --vocab ${VOCAB} --text "" --print 0
  OUTPUT_VARIABLE text_out ERROR_VARIABLE text_err RESULT_VARIABLE text_rc)
execute_process(COMMAND ${RUN} ${MODEL} --ids ${CLS_SEP} --print 0
  OUTPUT_VARIABLE ids_out ERROR_VARIABLE ids_err RESULT_VARIABLE ids_rc)
if(NOT text_rc EQUAL 0 OR NOT ids_rc EQUAL 0)
  message(FATAL_ERROR "exit codes ${text_rc}, ${ids_rc}\n${text_err}\n${ids_err}")
endif()
string(FIND "${text_out}" "tokens: 2\n" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "--text \"\" did not start with 'tokens: 2':\n${text_out}")
endif()
string(REPLACE "tokens: 2\n" "" text_rest "${text_out}")
if(ids_out STREQUAL "" OR NOT text_rest STREQUAL ids_out)
  message(FATAL_ERROR "outputs differ:\n--text \"\":\n${text_out}\n--ids ${CLS_SEP}:\n${ids_out}")
endif()
message("same output:\n${text_out}")
