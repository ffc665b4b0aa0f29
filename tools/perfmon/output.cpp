// SPDX-License-Identifier: Apache-2.0
#include "output.hpp"

#include <cstdio>
#include <string>

#include "perfmon/printable.hpp"

namespace perfmon::cli {

void commit(OutputFile& out) {
  out.commit();
  if (out.changes().empty()) return;
  std::string said;
  for (const std::string& change : out.changes()) said += (said.empty() ? "" : ", ") + change;
  std::fprintf(stderr, "perfmon: replaced '%s', %s.\n", printable(out.path()).c_str(), said.c_str());
}

}  // namespace perfmon::cli
