# SPDX-License-Identifier: Apache-2.0
# Fails when a source of the library or the tool includes a file by a relative path, which would
# step around the layers' include roots.
file(GLOB_RECURSE sources ${ROOT}/src/*.cpp ${ROOT}/src/*.hpp ${ROOT}/tools/*.cpp ${ROOT}/tools/*.hpp
     ${ROOT}/include/*.hpp)
set(offenders "")
foreach(source ${sources})
  file(STRINGS ${source} lines REGEX "^#include \"\\.\\./")
  if(lines)
    list(APPEND offenders "${source}: ${lines}")
  endif()
endforeach()
if(offenders)
  message(FATAL_ERROR "relative includes step around the layers: ${offenders}")
endif()
