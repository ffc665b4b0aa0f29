// SPDX-License-Identifier: Apache-2.0
// The fixed parts of a perf.data file, as Linux's tools/perf/util/header.h lays them out, shared
// by the writer and the reader.
#pragma once

#include <cstdint>

namespace perfmon::perfdata {

// The file's fixed parts, as tools/perf/util/header.h lays them out.
struct FileSection {
  std::uint64_t offset = 0, size = 0;
};
struct FileHeader {
  char magic[8];
  std::uint64_t size;
  std::uint64_t attr_size;
  FileSection attrs, data, event_types;
  std::uint64_t features[4];  // a bitmap of HEADER_FEAT_BITS (256)
};
static_assert(sizeof(FileHeader) == 104);

// Feature sections (header.h's HEADER_* numbers) that perfmon writes and reads.
enum Feature : unsigned {
  kTracingData = 1,
  kBuildId = 2,
  kHostname = 3,
  kOsRelease = 4,
  kVersion = 5,
  kArch = 6,
  kNrCpus = 7,
  kCpuDescription = 8,
  kCpuid = 9,
  kTotalMemory = 10,
  kCommandLine = 11,
  kEventDescription = 12,
};

// PERF_RECORD_MISC_BUILD_ID_SIZE (perf's tools/perf/util/event.h): a HEADER_BUILD_ID entry says its
// id's size (else it is 20 bytes).
inline constexpr std::uint16_t kMiscBuildIdSize = 1 << 15;

// perf's PERF_RECORD_FINISHED_ROUND, a record of the tool's own (no kernel writes type 68).
inline constexpr std::uint32_t kFinishedRound = 68;

inline constexpr char kMagic[8] = {'P', 'E', 'R', 'F', 'I', 'L', 'E', '2'};

}  // namespace perfmon::perfdata
