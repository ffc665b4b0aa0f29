# SPDX-License-Identifier: Apache-2.0
# Fails when a public header is not included by perfmon/perfmon.hpp, the one include that docs/api.md
# promises holds the whole API (a snippet that includes it must compile whatever it uses).
file(GLOB headers RELATIVE ${ROOT}/include/perfmon ${ROOT}/include/perfmon/*.hpp)
file(READ ${ROOT}/include/perfmon/perfmon.hpp umbrella)
set(missing "")
foreach(header ${headers})
  if(NOT header STREQUAL "perfmon.hpp" AND NOT umbrella MATCHES "#include \"perfmon/${header}\"")
    list(APPEND missing ${header})
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "perfmon/perfmon.hpp does not include these public headers: ${missing}")
endif()
