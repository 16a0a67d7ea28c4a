# cmake -DOUTPUT=FILE -DPROGRAM=EXE "-DARGS=a;b" -P RunToFile.cmake
# Runs PROGRAM ARGS with its standard output into FILE (build rules cannot rely on a
# shell's '>' with every generator). Fails the build if the program fails.
execute_process(COMMAND ${PROGRAM} ${ARGS} OUTPUT_FILE ${OUTPUT} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} ${ARGS} failed (${rc}): ${err}")
endif()
