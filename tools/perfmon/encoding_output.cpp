// SPDX-License-Identifier: Apache-2.0
#include "encoding_output.hpp"

#include <cstdio>

namespace perfmon::cli {

void print_attr(const perf_event_attr& attr) {
  std::printf("perf attr:   type=%u config=0x%llx", attr.type, static_cast<unsigned long long>(attr.config));
  if (attr.config1) std::printf(" config1=0x%llx", static_cast<unsigned long long>(attr.config1));
  if (attr.config2) std::printf(" config2=0x%llx", static_cast<unsigned long long>(attr.config2));
  if (attr.exclude_user) std::printf(" exclude_user");
  if (attr.exclude_kernel) std::printf(" exclude_kernel");
  if (attr.exclude_hv) std::printf(" exclude_hv");
  if (attr.precise_ip) std::printf(" precise_ip=%u", static_cast<unsigned>(attr.precise_ip));
  std::printf("\n");
}

}  // namespace perfmon::cli
