// SPDX-License-Identifier: Apache-2.0
// The CLI's side of its output files (perfmon/output_file.hpp): a committed replacement says on
// stderr what it could not keep of the old file.
#pragma once

#include "perfmon/output_file.hpp"

namespace perfmon::cli {

// Commits `out` (throws perfmon::Error) and says what its replacement changed, if anything.
void commit(OutputFile& out);

}  // namespace perfmon::cli
