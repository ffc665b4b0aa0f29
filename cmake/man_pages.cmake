# SPDX-License-Identifier: Apache-2.0
# Writes perfmon's manual pages: perfmon.1.gz and perfmon-CMD.1.gz for each command perfmon lists,
# each made by the binary itself from the option table its --help prints (perfmon --man-page [CMD]);
# compressed, as Debian's policy has them (gzip -n: the same bytes from the same page).
#   cmake -DPERFMON=path/to/perfmon -DOUT=dir -P man_pages.cmake
file(MAKE_DIRECTORY ${OUT})
execute_process(COMMAND ${PERFMON} --man-page OUTPUT_FILE ${OUT}/perfmon.1 RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "perfmon --man-page failed (${failed})")
endif()
execute_process(COMMAND ${PERFMON} --list-cmds OUTPUT_VARIABLE commands RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "perfmon --list-cmds failed (${failed})")
endif()
string(REPLACE "\n" ";" commands "${commands}")
foreach(command IN LISTS commands)
  if(command)
    execute_process(COMMAND ${PERFMON} --man-page ${command} OUTPUT_FILE ${OUT}/perfmon-${command}.1
                    RESULT_VARIABLE failed)
    if(failed)
      message(FATAL_ERROR "perfmon --man-page ${command} failed (${failed})")
    endif()
  endif()
endforeach()
file(GLOB pages ${OUT}/*.1)
execute_process(COMMAND gzip -9 -n -f ${pages} RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "gzip of the manual pages failed (${failed})")
endif()
