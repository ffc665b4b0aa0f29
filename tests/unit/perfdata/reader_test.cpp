// PerfDataReader on hostile files made here: memory stays bounded by the file's size.
#include "perfmon/perf_data.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "perfdata/file_layout.hpp"
#include "perfmon/error.hpp"

namespace perfmon {
namespace {

using perfdata::FileHeader;
using perfdata::FileSection;

// A 1 MB file of 3,000 attrs whose ids all point at one section of 64k ids: read as given they
// would be 1.5 GiB of ids.
TEST(PerfDataReader, AttrsSharingOneIdSectionAreRefused) {
  constexpr std::uint64_t kAttrs = 3000, kIds = 65536;
  constexpr std::uint64_t kAttrSize = sizeof(perf_event_attr) + sizeof(FileSection);
  FileHeader header{};
  std::memcpy(header.magic, perfdata::kMagic, sizeof header.magic);
  header.size = sizeof header;
  header.attr_size = kAttrSize;
  header.attrs = {sizeof header, kAttrs * kAttrSize};
  const FileSection ids{header.attrs.offset + header.attrs.size, kIds * 8};
  header.data = {ids.offset + ids.size, 0};
  std::string bytes(header.data.offset, '\0');
  std::memcpy(bytes.data(), &header, sizeof header);
  for (std::uint64_t i = 0; i < kAttrs; ++i) {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    std::memcpy(bytes.data() + header.attrs.offset + i * kAttrSize, &attr, sizeof attr);
    std::memcpy(bytes.data() + header.attrs.offset + i * kAttrSize + sizeof attr, &ids, sizeof ids);
  }
  try {
    PerfDataReader reader(bytes, "shared-ids");
    FAIL() << "read " << reader.events().size() << " events";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("the events' ids overlap: more of them than the file holds"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace perfmon
