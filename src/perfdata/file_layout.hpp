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

// Records of perf's own (tools/lib/perf/include/perf/event.h: enum perf_user_event_type), which no
// kernel writes. FINISHED_ROUND is in files too; the others carry, in pipe mode (perf record -o -),
// what a file's header and feature sections hold.
inline constexpr std::uint32_t kHeaderAttr = 64;         // perf_event_attr (attr.size bytes), then ids
inline constexpr std::uint32_t kHeaderEventType = 65;    // obsolete
inline constexpr std::uint32_t kHeaderTracingData = 66;  // u32 size (8-aligned), u32 pad; then size bytes
inline constexpr std::uint32_t kHeaderBuildId = 67;      // a HEADER_BUILD_ID section's entry
inline constexpr std::uint32_t kFinishedRound = 68;
inline constexpr std::uint32_t kEventUpdate = 78;     // u64 type, u64 id, then the update
inline constexpr std::uint32_t kHeaderFeature = 80;   // u64 feature, then its section's content
inline constexpr std::uint32_t kCompressed = 81;      // perf record -z
inline constexpr std::uint32_t kFinishedInit = 82;    // the header's part of a pipe is over
inline constexpr std::uint64_t kEventUpdateName = 2;  // PERF_EVENT_UPDATE__NAME

// A pipe's header: the magic, and its own size (16), which tells it from a file's.
struct PipeHeader {
  char magic[8];
  std::uint64_t size;
};

inline constexpr char kMagic[8] = {'P', 'E', 'R', 'F', 'I', 'L', 'E', '2'};

}  // namespace perfmon::perfdata
