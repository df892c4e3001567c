# Run hjfront on SRC and compare its output with EXPECTED (a golden file).
execute_process(COMMAND ${HJFRONT} ${SRC} OUTPUT_VARIABLE out ERROR_VARIABLE err
                RESULT_VARIABLE rc)
file(READ ${EXPECTED} expected)
string(STRIP "${out}" out)
string(STRIP "${expected}" expected)
if(NOT out STREQUAL expected)
  message(FATAL_ERROR "hjfront ${SRC} (rc ${rc}) printed:\n${out}\n${err}\nexpected:\n${expected}")
endif()
