// SPDX-License-Identifier: Apache-2.0
// perf's control channel and named regions: the commands' language, FIFOs read as writers come and
// go, and regions' sums from readings (nested, overlapping, reopened, per location).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "perfmon/control_channel.hpp"
#include "perfmon/error.hpp"
#include "perfmon/regions.hpp"

namespace perfmon {
namespace {

using Kind = ControlCommand::Kind;

TEST(ControlCommand, ReadsPerfsWordsAndRegions) {
  EXPECT_EQ(parse_control_command("enable").kind, Kind::Enable);
  EXPECT_EQ(parse_control_command("disable\n").kind, Kind::Disable);
  EXPECT_EQ(parse_control_command("  ping ").kind, Kind::Ping);
  const ControlCommand region = parse_control_command("enable   solver phase ");
  EXPECT_EQ(region.kind, Kind::Enable);
  EXPECT_EQ(region.region, "solver phase");
  EXPECT_EQ(parse_control_command("disable io").region, "io");
  EXPECT_TRUE(parse_control_command("enable").region.empty());
  for (const char* other : {"enabled", "stop", "ping now", "", "ENABLE"}) {
    const ControlCommand command = parse_control_command(other);
    EXPECT_EQ(command.kind, Kind::Unknown) << other;
  }
  EXPECT_EQ(parse_control_command(" bogus x ").text, "bogus x");
}

class ControlFifos : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("perfmon-control-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    ASSERT_EQ(mkfifo(path("ctl").c_str(), 0600), 0);
    ASSERT_EQ(mkfifo(path("ack").c_str(), 0600), 0);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const char* name) const { return (dir_ / name).string(); }
  // A writer that comes, writes and goes, as `echo enable > ctl` does.
  void write_once(const std::string& text) const {
    const int fd = open(path("ctl").c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    close(fd);
  }

  std::filesystem::path dir_;
};

TEST_F(ControlFifos, TakesLinesFromWritersThatComeAndGoAndAcknowledges) {
  ControlChannel channel("fifo:" + path("ctl") + "," + path("ack"));
  EXPECT_TRUE(channel.take().empty());  // nothing yet, and no waiting for it
  write_once("enable a\ndisable a\n");
  write_once("ping");  // without a newline: whole once nothing more waits
  std::vector<ControlCommand> commands = channel.take();
  ASSERT_EQ(commands.size(), 3u);
  EXPECT_EQ(commands[0].region, "a");
  EXPECT_EQ(commands[1].kind, Kind::Disable);
  EXPECT_EQ(commands[2].kind, Kind::Ping);
  EXPECT_TRUE(channel.take().empty());  // the writers are gone: no end of file, nothing new
  write_once("enable\n");
  EXPECT_EQ(channel.take().size(), 1u);

  EXPECT_EQ(channel.acknowledge(), 0);
  const int ack = open(path("ack").c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(ack, 0);
  char text[8] = {};
  EXPECT_EQ(read(ack, text, sizeof text), 4);
  EXPECT_STREQ(text, "ack\n");
  close(ack);
}

TEST_F(ControlFifos, InheritedDescriptorIsReadThroughAReadOnlyEnd) {
  const int fd = open(path("ctl").c_str(), O_RDWR);  // as a shell's exec {fd}<>ctl opens it
  const int ack = open(path("ack").c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  ASSERT_GE(ack, 0);
  ControlChannel channel("fd:" + std::to_string(fd) + "," + std::to_string(ack));
  EXPECT_NE(channel.fd(), fd);
  EXPECT_EQ(fcntl(channel.fd(), F_GETFL) & O_ACCMODE, O_RDONLY);
  // The descriptors stay blocking: a command that shares them (reads the acks) is not disturbed.
  EXPECT_EQ(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
  EXPECT_EQ(fcntl(ack, F_GETFL) & O_NONBLOCK, 0);
  EXPECT_EQ(channel.acknowledge(), 0);
  char text[8] = {};
  EXPECT_EQ(read(ack, text, sizeof text), 4);
  ASSERT_EQ(write(fd, "disable x\n", 10), 10);
  std::vector<ControlCommand> commands = channel.take();
  ASSERT_EQ(commands.size(), 1u);
  EXPECT_EQ(commands[0].region, "x");
}

TEST_F(ControlFifos, RefusesWhatIsNotAChannelInOneSentence) {
  const std::string file = path("file");
  {
    std::FILE* f = std::fopen(file.c_str(), "w");
    std::fclose(f);
  }
  auto refusal = [](const std::string& spec) {
    try {
      ControlChannel channel(spec);
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refusal("fifo:" + file).find("is not a FIFO: make the control channel with mkfifo"), std::string::npos);
  EXPECT_NE(refusal("fifo:" + path("missing")).find("make it with mkfifo first"), std::string::npos);
  EXPECT_NE(refusal("pipe:" + path("ctl")).find("a control channel is fifo:CTL[,ACK]"), std::string::npos);
  EXPECT_NE(refusal("fifo:" + path("ctl") + ",").find("a control channel is"), std::string::npos);
  EXPECT_NE(refusal("fd:x").find("is not a descriptor number"), std::string::npos);
  EXPECT_NE(refusal("fd:987").find("is not open in perfmon"), std::string::npos);
}

// A reading of two events at two locations, each value `raw` (enabled = running = raw too).
Reading reading_at(std::uint64_t a0, std::uint64_t a1, std::uint64_t b0, std::uint64_t b1) {
  Reading reading;
  reading.locations.resize(2);
  for (auto [name, at0, at1] : {std::tuple{"a", a0, a1}, std::tuple{"b", b0, b1}}) {
    ReadingEvent event;
    event.event.name = name;
    event.at = {{at0, at0, at0, 0}, {at1, at1, at1, 0}};
    event.value = event.at[0];
    event.value += event.at[1];
    reading.events.push_back(event);
  }
  return reading;
}

TEST(RegionCounts, SumsWhatEachRegionSawNestedAndOverlapping) {
  RegionCounts regions;
  EXPECT_EQ(regions.begin("outer", reading_at(10, 20, 1, 2)), RegionCounts::Change::Done);
  EXPECT_EQ(regions.begin("inner", reading_at(15, 20, 3, 2)), RegionCounts::Change::Done);
  EXPECT_EQ(regions.begin("inner", reading_at(16, 20, 3, 2)), RegionCounts::Change::AlreadyOpen);
  EXPECT_EQ(regions.open_count(), 2u);
  EXPECT_EQ(regions.end("outer", reading_at(40, 25, 5, 2)), RegionCounts::Change::Done);
  EXPECT_EQ(regions.end("outer", reading_at(40, 25, 5, 2)), RegionCounts::Change::NotOpen);
  EXPECT_EQ(regions.end("never", reading_at(40, 25, 5, 2)), RegionCounts::Change::NotOpen);
  EXPECT_TRUE(regions.is_open("inner"));
  EXPECT_FALSE(regions.is_open("outer"));
  // Reopened: its sums go on.
  EXPECT_EQ(regions.begin("outer", reading_at(100, 100, 10, 10)), RegionCounts::Change::Done);
  EXPECT_EQ(regions.end("outer", reading_at(101, 103, 10, 10)), RegionCounts::Change::Done);

  // inner is still open: up to the reading handed over.
  const Reading all = regions.with_regions(reading_at(200, 200, 20, 20));
  ASSERT_EQ(all.events.size(), 6u);
  EXPECT_EQ(all.events[0].label, "");
  EXPECT_EQ(all.events[2].label, "outer");
  EXPECT_EQ(all.events[2].label_kind, "region");
  EXPECT_EQ(all.events[2].value.raw, (40u - 10 + 25 - 20) + (101u - 100 + 103 - 100));
  EXPECT_EQ(all.events[2].at[0].raw, 30u + 1);
  EXPECT_EQ(all.events[2].at[1].raw, 5u + 3);
  EXPECT_EQ(all.events[3].value.raw, (5u - 1) + 0);
  EXPECT_EQ(all.events[4].label, "inner");
  EXPECT_EQ(all.events[4].value.raw, (200u - 15) + (200u - 20));
  EXPECT_EQ(all.events[5].at[0].raw, 20u - 3);
  EXPECT_EQ(all.events[4].value.enabled, all.events[4].value.raw);  // times are differences too

  const std::vector<RegionCounts::Summary> summaries = regions.summaries();
  ASSERT_EQ(summaries.size(), 2u);
  EXPECT_EQ(summaries[0].name, "outer");
  EXPECT_EQ(summaries[0].times, 2u);
  EXPECT_FALSE(summaries[0].open);
  EXPECT_EQ(summaries[1].times, 1u);
  EXPECT_TRUE(summaries[1].open);
}

TEST(RegionCounts, ARegionNeverOpenWhileCountingIsNotCounted) {
  RegionCounts regions;
  regions.begin("idle", reading_at(5, 5, 5, 5));
  regions.end("idle", reading_at(5, 5, 5, 5));  // the counters did not run meanwhile
  const Reading all = regions.with_regions(reading_at(9, 9, 9, 9));
  ASSERT_EQ(all.events.size(), 4u);
  EXPECT_FALSE(all.events[2].value.counted());
}

}  // namespace
}  // namespace perfmon
