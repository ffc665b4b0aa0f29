// SPDX-License-Identifier: Apache-2.0
// perfmon2's message queue and default sampling format against the running kernel, with exact
// counts: a tracepoint on getppid sampled at period 1 overflows once per call, so the messages,
// the buffer's samples and the group values in their bodies are all known in advance.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "../helpers/system_calls.hpp"
#include "perfmon/catalog.hpp"
#include "perfmon/error.hpp"
#include "perfmon/notification_queue.hpp"
#include "perfmon/sampling_format.hpp"
#include "perfmon/workload.hpp"

namespace perfmon {
namespace {

using testing::call_getppid;
using testing::catalog;

struct CountSamples : SampleHandler {
  std::size_t samples = 0;
  void sample(std::size_t, const Sample&) override { ++samples; }
};

SamplingOptions every_call() {
  SamplingOptions options;
  options.period = 1;
  options.inherit = false;
  return options;
}

// The group {enter, exit} of getppid, both sampled at every call, each sample reading the other.
Sampler enter_exit_sampler() {
  SamplingOptions options = every_call();
  options.sample_type = kDefaultSampleType | PERF_SAMPLE_READ;
  return Sampler(catalog().parse("{syscalls:sys_enter_getppid,syscalls:sys_exit_getppid}"), Target::self(), options);
}

struct Kept {
  DefaultFormatEntry entry;
  std::vector<std::uint64_t> body;
};
std::vector<Kept> kept(const DefaultSamplingFormat& format) {
  std::vector<Kept> all;
  format.for_each([&](const DefaultFormatEntry& entry, std::span<const std::uint64_t> body) {
    all.push_back({entry, {body.begin(), body.end()}});
  });
  return all;
}

// A command's 500 calls: 500 overflow messages naming event 0, then the end message, read through
// the queue's descriptor in a poll loop as a tool would, then nothing more.
TEST(Notifications, EveryOverflowOfACommandIsAMessageThenTheEnd) {
  Workload workload({WORKER, "getppid", "500"});
  SamplingOptions options = every_call();
  options.inherit = true;
  options.wakeup_events = 1;
  Sampler sampler(catalog().parse("syscalls:sys_enter_getppid"), Target::workload(workload), options);
  CountSamples format;
  NotificationQueue queue(sampler, format);
  workload.start();
  std::size_t overflows = 0, ends = 0, other = 0;
  Notification message;
  for (int rounds = 0; ends == 0 && rounds < 10000; ++rounds) {
    pollfd ready{queue.fd(), POLLIN, 0};
    ASSERT_GE(poll(&ready, 1, 10000), 1) << "the queue's descriptor never became readable";
    while (queue.next(message, 0)) {
      if (message.type == Notification::kOverflow && message.overflowed_event(0) && !message.overflowed_event(1))
        ++overflows;
      else if (message.type == Notification::kEnd)
        ++ends;
      else
        ++other;
    }
  }
  WorkloadExit exit;
  ASSERT_TRUE(workload.wait(exit));
  EXPECT_EQ(overflows, 500u);
  EXPECT_EQ(ends, 1u);
  EXPECT_EQ(other, 0u);
  EXPECT_EQ(format.samples, 500u);
  EXPECT_EQ(queue.lost(), 0u);
  EXPECT_FALSE(queue.next(message, 100)) << "nothing comes after the end message";
}

TEST(Notifications, OverflowsBeyondTheQueuesCapacityAreCounted) {
  Sampler sampler(catalog().parse("syscalls:sys_enter_getppid"), Target::self(), every_call());
  CountSamples format;
  NotificationOptions options;
  options.capacity = 100;
  NotificationQueue queue(sampler, format, options);
  sampler.start();
  call_getppid(500);
  sampler.stop();
  Notification message;
  std::size_t read = 0;
  while (queue.next(message, 0)) ++read;
  EXPECT_EQ(read, 100u);
  EXPECT_EQ(queue.lost(), 400u);
  EXPECT_EQ(format.samples, 500u) << "the format sees every sample; only messages are dropped";
}

// The default format's buffer holds exactly ten samples of 48 bytes (a 40-byte entry and one body
// word) after its 40-byte header. Eight calls make sixteen samples: the tenth fills the buffer,
// notifies and masks; the other six wait in the ring, and calls made while masked are not counted.
// After the restart the buffer starts over with those six, and the counters go on from where they
// stopped.
TEST(Notifications, DefaultFormatFillsNotifiesMasksAndRestarts) {
  Sampler sampler = enter_exit_sampler();
  DefaultSamplingFormat format(sampler, sizeof(DefaultFormatHeader) + 10 * 48);
  NotificationQueue queue(sampler, format);
  sampler.start();
  call_getppid(8);
  Notification message;
  ASSERT_TRUE(queue.next(message, 0));
  EXPECT_EQ(message.type, Notification::kOverflow);
  EXPECT_TRUE(message.overflowed_event(1)) << "the tenth sample is the fifth call's exit";
  EXPECT_FALSE(queue.next(message, 0));
  EXPECT_TRUE(queue.masked());
  EXPECT_TRUE(format.full());
  EXPECT_EQ(sampler.stats().samples, 10u) << "the samples after the tenth stay in the ring";

  const DefaultFormatHeader& header = format.header();
  EXPECT_EQ(header.count, 10u);
  EXPECT_EQ(header.overflows, 1u);
  EXPECT_EQ(header.cur_offset, header.buf_size);
  EXPECT_EQ(header.buf_size, format.buffer().size());
  EXPECT_EQ(header.version, kDefaultFormatVersion);
  DefaultFormatHeader raw;
  std::memcpy(&raw, format.buffer().data(), sizeof raw);
  EXPECT_EQ(raw.count, 10u) << "the header is the buffer's first bytes";

  std::vector<Kept> samples = kept(format);
  ASSERT_EQ(samples.size(), 10u);
  std::uint64_t last_time = 0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const DefaultFormatEntry& entry = samples[i].entry;
    const std::uint64_t call = i / 2;  // calls before this one
    EXPECT_EQ(entry.event, i % 2);
    EXPECT_EQ(entry.pid, getpid());
    EXPECT_EQ(entry.tid, gettid());
    EXPECT_EQ(entry.set, 0u);
    EXPECT_EQ(entry.last_reset_val, 1u);
    EXPECT_NE(entry.ip, 0u);
    EXPECT_GE(entry.tstamp, last_time);
    last_time = entry.tstamp;
    ASSERT_EQ(samples[i].body.size(), 1u);
    // The enter sample reads the exits so far; the exit sample the enters, its own call's included.
    EXPECT_EQ(samples[i].body[0], i % 2 == 0 ? call : call + 1) << "sample " << i;
  }

  call_getppid(3);  // masked: not counted
  queue.restart();
  EXPECT_FALSE(queue.masked());
  EXPECT_EQ(format.header().count, 0u);
  call_getppid(1);
  sampler.stop();
  EXPECT_FALSE(queue.next(message, 0)) << "eight samples do not fill the buffer";
  samples = kept(format);
  ASSERT_EQ(samples.size(), 8u);
  const std::uint64_t expected_bodies[] = {5, 6, 6, 7, 7, 8, 8, 9};
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(samples[i].entry.event, i % 2);
    EXPECT_EQ(samples[i].body.at(0), expected_bodies[i]) << "sample " << i;
  }
  EXPECT_EQ(format.header().overflows, 1u);
}

TEST(Notifications, SilentEventsSaturateTheBufferQuietly) {
  Sampler sampler = enter_exit_sampler();
  DefaultSamplingFormat format(sampler, sizeof(DefaultFormatHeader) + 10 * 48);
  NotificationOptions options;
  options.silent.set();
  NotificationQueue queue(sampler, format, options);
  sampler.start();
  call_getppid(8);
  sampler.stop();
  Notification message;
  EXPECT_FALSE(queue.next(message, 0));
  EXPECT_TRUE(format.full());
  EXPECT_TRUE(queue.masked());
  EXPECT_EQ(format.header().count, 10u);
}

// The short headers of perfmon2's buf_flags: the IP alone, or nothing but the body.
TEST(Notifications, DefaultFormatShortHeaders) {
  Sampler sampler = enter_exit_sampler();
  DefaultSamplingFormat ip_only(sampler, 4096, kDefaultFormatIpHeader);
  DefaultSamplingFormat body_only(sampler, 4096, kDefaultFormatNoHeader);
  struct Both : SampleHandler {
    DefaultSamplingFormat *a, *b;
    void sample(std::size_t event, const Sample& sample) override {
      a->sample(event, sample);
      b->sample(event, sample);
    }
  } both;
  both.a = &ip_only;
  both.b = &body_only;
  sampler.start();
  call_getppid(3);
  sampler.stop();
  sampler.drain(both);
  EXPECT_EQ(ip_only.header().cur_offset, sizeof(DefaultFormatHeader) + 6 * 16);
  EXPECT_EQ(body_only.header().cur_offset, sizeof(DefaultFormatHeader) + 6 * 8);
  const std::vector<Kept> with_ip = kept(ip_only), bodies = kept(body_only);
  ASSERT_EQ(with_ip.size(), 6u);
  ASSERT_EQ(bodies.size(), 6u);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_NE(with_ip[i].entry.ip, 0u);
    EXPECT_EQ(bodies[i].entry.ip, 0u);
    EXPECT_EQ(with_ip[i].body, bodies[i].body);
    EXPECT_EQ(bodies[i].body.at(0), i % 2 == 0 ? i / 2 : i / 2 + 1);
  }
}

TEST(Notifications, FormatsThatCannotHoldASampleAreRefused) {
  Sampler sampler = enter_exit_sampler();
  EXPECT_THROW(DefaultSamplingFormat(sampler, sizeof(DefaultFormatHeader) + 47), Error);
  EXPECT_NO_THROW(DefaultSamplingFormat(sampler, sizeof(DefaultFormatHeader) + 48));
  EXPECT_THROW(DefaultSamplingFormat(sampler, 4096, kDefaultFormatNoHeader | kDefaultFormatIpHeader), Error);
  EXPECT_THROW(DefaultSamplingFormat(sampler, 4096, 4), Error);
  Sampler alone(catalog().parse("syscalls:sys_enter_getppid"), Target::self(), every_call());
  try {
    DefaultSamplingFormat format(alone, 4096, kDefaultFormatNoHeader);
    FAIL() << "samples of nothing were accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("need a body"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace perfmon
