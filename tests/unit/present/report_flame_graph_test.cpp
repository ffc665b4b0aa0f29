// SPDX-License-Identifier: Apache-2.0
// Text from recordings (command names, file names) reaches an SVG, JSON and a terminal only as
// valid UTF-8: every malformed sequence becomes U+FFFD, and the flame graph is well-formed XML
// whatever the names hold (checked by Python's XML parser, which refuses what XML 1.0 refuses).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "kernel/records.hpp"
#include "perfmon/printable.hpp"
#include "perfmon/profile.hpp"
#include "perfmon/report_output.hpp"

namespace perfmon {
namespace {

const char* const kReplacement = "\xef\xbf\xbd";

// Names no well-formed UTF-8 holds, each with the text around it.
const std::vector<std::string> kHostileNames = {
    "overlong\xc0\xafslash",       // "/" in two bytes
    "overlong3\xe0\x80\xafslash",  // in three
    "surrogate\xed\xa0\x80half",   // U+D800
    "fffe\xef\xbf\xbe",            // U+FFFE, no character
    "above\xf4\x90\x80\x80max",    // U+110000
    "f5\xf5\x80\x80\x80",          // a lead byte no sequence has
    "cut\xe2\x82",                 // a sequence cut short at the end
    "stray\x80"
    "continuation",
    "tag<&>\"quote",
    "ctl\x1b[31m",
    "c1\xc2\x85"
    "next",  // U+0085, a C1 control
};

TEST(Printable, ReplacesEveryMalformedSequenceAndKeepsWellFormedText) {
  EXPECT_EQ(printable("overlong\xc0\xafslash"), std::string("overlong") + kReplacement + kReplacement + "slash");
  EXPECT_EQ(printable("surrogate\xed\xa0\x80"), std::string("surrogate") + kReplacement + kReplacement + kReplacement);
  EXPECT_EQ(printable("fffe\xef\xbf\xbe"), std::string("fffe") + kReplacement);
  EXPECT_EQ(printable("above\xf4\x90\x80\x80"),
            std::string("above") + kReplacement + kReplacement + kReplacement + kReplacement);
  EXPECT_EQ(printable("cut\xe2\x82"), std::string("cut") + kReplacement + kReplacement);
  EXPECT_EQ(printable("ctl\x1b[31m"), "ctl\\x1b[31m");
  EXPECT_EQ(printable("c1\xc2\x85"), "c1\\u0085");
  // Well-formed text passes whole: the last code point, a four-byte sequence, a three-byte one.
  for (const char* good : {"\xf4\x8f\xbf\xbf", "\xf0\x9f\x94\xa5 fire", "caf\xc3\xa9 \xe2\x82\xac"})
    EXPECT_EQ(printable(good), good);
}

// A record with its text, padded to 8 bytes as the kernel writes it.
std::vector<std::uint64_t> comm_record(std::uint32_t tid, const std::string& name) {
  kernel::CommRecord record{};
  record.pid = record.tid = tid;
  const std::size_t size = (sizeof record + name.size() + 1 + 7) / 8 * 8;
  std::vector<std::uint64_t> words(size / 8, 0);
  record.header = {PERF_RECORD_COMM, 0, static_cast<std::uint16_t>(size)};
  std::memcpy(words.data(), &record, sizeof record);
  std::memcpy(reinterpret_cast<char*>(words.data()) + sizeof record, name.data(), name.size());
  return words;
}

TEST(FlameGraph, IsWellFormedXmlWhateverTheNamesHold) {
  if (access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "Debian's python3 is not installed: no XML parser";
  Profile profile({"cpu-clock"});
  std::uint32_t tid = 100;
  for (const std::string& name : kHostileNames) {
    const std::vector<std::uint64_t> words = comm_record(++tid, name);
    profile.record(*reinterpret_cast<const perf_event_header*>(words.data()));
    perf_event_header header{PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8};
    Sample sample;
    sample.record = &header;
    sample.pid = sample.tid = tid;
    sample.ip = 0x1000;
    sample.period = 1;
    profile.sample(0, sample);
  }
  const std::string svg = format_flame_graph(profile, 0, "names \xed\xa0\x80 from a recording");
  char path[] = "/tmp/perfmon-flame-graph-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  std::ofstream(path, std::ios::binary) << svg;
  const std::string check =
      std::string("/usr/bin/python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' ") + path;
  EXPECT_EQ(std::system(check.c_str()), 0) << svg.substr(0, 3000);
  std::remove(path);
  EXPECT_NE(svg.find(std::string("overlong") + kReplacement), std::string::npos);
  EXPECT_NE(svg.find("tag&lt;&amp;&gt;&quot;quote"), std::string::npos);
}

}  // namespace
}  // namespace perfmon
