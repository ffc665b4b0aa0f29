# SPDX-License-Identifier: Apache-2.0
# Fails when a compat library reaches past perfmon's C ABI to the kernel: includes
# <linux/perf_event.h> or <sys/ioctl.h>, or calls ioctl(). What a compat library needs goes into
# the C++ API, then the C ABI (perfmon/perfmon.h), then the compat library (docs/architecture.md).
# libpctr's interposer defines and forwards ioctl under other names (WRAPPED(ioctl), real_ioctl).
file(GLOB_RECURSE sources ${ROOT}/compat/*.c ${ROOT}/compat/*.h)
set(offenders "")
foreach(source ${sources})
  file(STRINGS ${source} lines REGEX "^#include <(linux/perf_event|sys/ioctl)\\.h>|(^|[^_A-Za-z0-9])ioctl *\\(")
  if(lines)
    list(APPEND offenders "${source}: ${lines}")
  endif()
endforeach()
if(offenders)
  message(FATAL_ERROR "compat reaches past the C ABI: ${offenders}")
endif()
