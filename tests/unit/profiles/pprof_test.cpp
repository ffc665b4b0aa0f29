// SPDX-License-Identifier: Apache-2.0
// PprofProfile's encoding read back by a small protobuf reader of the test's own: the fields of
// pprof's profile.proto, by number, as go tool pprof would find them.
#include "perfmon/pprof.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/records.hpp"

namespace perfmon {
namespace {

using kernel::CommRecord;
using kernel::Mmap2Record;

// One message's fields by number: each occurrence's varint, or its bytes.
struct Field {
  std::uint64_t number = 0;
  std::string_view bytes;
  bool delimited = false;
};
using Message = std::multimap<unsigned, Field>;

std::uint64_t varint(std::string_view& in) {
  std::uint64_t value = 0;
  for (unsigned shift = 0; !in.empty(); shift += 7) {
    const auto byte = static_cast<unsigned char>(in.front());
    in.remove_prefix(1);
    value |= std::uint64_t{byte & 0x7fu} << shift;
    if (!(byte & 0x80)) return value;
  }
  ADD_FAILURE() << "a varint runs past the end";
  return value;
}

Message parse(std::string_view in) {
  Message fields;
  while (!in.empty()) {
    const std::uint64_t key = varint(in);
    Field field;
    if ((key & 7) == 0) {
      field.number = varint(in);
    } else if ((key & 7) == 2) {
      const std::uint64_t size = varint(in);
      EXPECT_LE(size, in.size());
      field.bytes = in.substr(0, size);
      field.delimited = true;
      in.remove_prefix(field.bytes.size());
    } else {
      ADD_FAILURE() << "wire type " << (key & 7) << " is not one the encoder writes";
      break;
    }
    fields.emplace(static_cast<unsigned>(key >> 3), field);
  }
  return fields;
}

std::vector<std::uint64_t> packed(const Message& message, unsigned number) {
  std::vector<std::uint64_t> values;
  auto [from, to] = message.equal_range(number);
  for (auto it = from; it != to; ++it) {
    std::string_view bytes = it->second.bytes;
    while (!bytes.empty()) values.push_back(varint(bytes));
  }
  return values;
}

std::uint64_t number(const Message& message, unsigned field) {
  auto found = message.find(field);
  return found == message.end() ? 0 : found->second.number;
}

std::string gunzip(const std::string& data) {
  z_stream stream{};
  EXPECT_EQ(inflateInit2(&stream, 15 + 16), Z_OK);
  std::string out(1 << 20, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  inflateEnd(&stream);
  return out;
}

template <class Fixed>
void feed(PprofProfile& profile, Fixed fixed, std::uint32_t type, const std::string& text) {
  std::vector<std::uint64_t> words((sizeof fixed + text.size() + 1 + 7) / 8 + 1, 0);
  fixed.header = {type, PERF_RECORD_MISC_USER, static_cast<std::uint16_t>(words.size() * 8)};
  std::memcpy(words.data(), &fixed, sizeof fixed);
  std::memcpy(reinterpret_cast<char*>(words.data()) + sizeof fixed, text.c_str(), text.size() + 1);
  profile.record(*reinterpret_cast<const perf_event_header*>(words.data()));
}

void sample(PprofProfile& profile, std::size_t event, std::uint32_t tid, std::uint32_t cpu,
            std::vector<std::uint64_t> chain, std::uint64_t period) {
  perf_event_header header{PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8};
  Sample s;
  s.record = &header;
  s.pid = s.tid = tid;
  s.cpu = cpu;
  s.ip = chain[1];
  s.period = period;
  s.callchain = chain;
  profile.sample(event, s);
}

// Two events (a clock, counting nanoseconds, and a tracepoint), two processes: each distinct stack
// and thread is a sample with both events' two values, labelled; locations in the mapping of the
// file their process mapped, each address once; every string in the table, "" first.
TEST(PprofProfile, EncodesProfileProtoByFieldNumber) {
  PprofEvent clock{"cpu-clock", {}}, tracepoint{"syscalls:sys_enter_getppid", {}};
  clock.attr.type = PERF_TYPE_SOFTWARE;
  clock.attr.config = PERF_COUNT_SW_CPU_CLOCK;
  clock.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN;
  clock.attr.sample_period = 100000;
  tracepoint.attr.type = PERF_TYPE_TRACEPOINT;
  tracepoint.attr.sample_type = clock.attr.sample_type;
  PprofOptions options;
  options.build_ids["/nonexistent/app"] = "0123abcd";
  PprofProfile profile({clock, tracepoint}, options);
  for (std::uint32_t pid : {7u, 8u}) {
    CommRecord named{};
    named.pid = named.tid = pid;
    feed(profile, named, PERF_RECORD_COMM, "app" + std::to_string(pid));
    Mmap2Record mapped{};
    mapped.pid = mapped.tid = pid;
    mapped.addr = 0x400000;
    mapped.len = 0x1000;
    mapped.pgoff = 0x2000;
    feed(profile, mapped, PERF_RECORD_MMAP2, "/nonexistent/app");
  }
  const std::uint64_t user = PERF_CONTEXT_USER;
  sample(profile, 0, 7, 1, {user, 0x400100, 0x400201}, 100000);
  sample(profile, 0, 7, 1, {user, 0x400100, 0x400201}, 100000);  // the same: added to the first
  sample(profile, 1, 7, 1, {user, 0x400100, 0x400201}, 1);       // the other event: the same sample
  sample(profile, 0, 8, 0, {user, 0x400180, 0x400201}, 100000);  // another process

  const std::string gzipped = profile.encode();
  ASSERT_GE(gzipped.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(gzipped[0]), 0x1f);  // gzip's magic
  EXPECT_EQ(static_cast<unsigned char>(gzipped[1]), 0x8b);
  const std::string bytes = gunzip(gzipped);
  EXPECT_EQ(bytes, profile.encode(false));
  const Message top = parse(bytes);

  std::vector<std::string_view> strings;
  for (auto [it, end] = top.equal_range(6); it != end; ++it) strings.push_back(it->second.bytes);
  ASSERT_FALSE(strings.empty());
  EXPECT_EQ(strings[0], "");
  auto text = [&](std::uint64_t index) -> std::string_view {
    return index < strings.size() ? strings[index] : std::string_view("(out of the table)");
  };

  std::vector<std::pair<std::string_view, std::string_view>> types;
  for (auto [it, end] = top.equal_range(1); it != end; ++it) {
    const Message type = parse(it->second.bytes);
    types.emplace_back(text(number(type, 1)), text(number(type, 2)));
  }
  const std::vector<std::pair<std::string_view, std::string_view>> expected_types = {
      {"cpu-clock_sample", "count"},
      {"cpu-clock_event", "nanoseconds"},
      {"syscalls:sys_enter_getppid_sample", "count"},
      {"syscalls:sys_enter_getppid_event", "count"}};
  EXPECT_EQ(types, expected_types);

  // Locations: ids 1.., each in mapping 1 at its address (a caller's one byte back).
  std::map<std::uint64_t, std::uint64_t> address_of;
  for (auto [it, end] = top.equal_range(4); it != end; ++it) {
    const Message location = parse(it->second.bytes);
    EXPECT_EQ(number(location, 2), 1u) << "mapping id";
    address_of[number(location, 1)] = number(location, 3);
  }
  EXPECT_EQ(address_of.size(), 3u);  // 0x400100, 0x400180, 0x400200 (the return address less one)
  std::vector<Message> mappings;
  for (auto [it, end] = top.equal_range(3); it != end; ++it) mappings.push_back(parse(it->second.bytes));
  ASSERT_EQ(mappings.size(), 1u);  // both processes map the file at the same place: one mapping
  EXPECT_EQ(number(mappings[0], 1), 1u);
  EXPECT_EQ(number(mappings[0], 2), 0x400000u);
  EXPECT_EQ(number(mappings[0], 3), 0x401000u);
  EXPECT_EQ(number(mappings[0], 4), 0x2000u);
  EXPECT_EQ(text(number(mappings[0], 5)), "/nonexistent/app");
  EXPECT_EQ(text(number(mappings[0], 6)), "0123abcd");

  struct Seen {
    std::vector<std::uint64_t> addresses, values;
    std::map<std::string, std::string> labels;
  };
  std::vector<Seen> samples;
  for (auto [it, end] = top.equal_range(2); it != end; ++it) {
    const Message message = parse(it->second.bytes);
    Seen seen;
    for (std::uint64_t id : packed(message, 1)) seen.addresses.push_back(address_of.at(id));
    seen.values = packed(message, 2);
    for (auto [label, last] = message.equal_range(3); label != last; ++label) {
      const Message fields = parse(label->second.bytes);
      const std::string key(text(number(fields, 1)));
      seen.labels[key] = fields.count(2) ? std::string(text(number(fields, 2))) : std::to_string(number(fields, 3));
    }
    samples.push_back(seen);
  }
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0].addresses, (std::vector<std::uint64_t>{0x400100, 0x400200}));
  EXPECT_EQ(samples[0].values, (std::vector<std::uint64_t>{2, 200000, 1, 1}));
  EXPECT_EQ(samples[0].labels,
            (std::map<std::string, std::string>{{"pid", "7"}, {"tid", "7"}, {"comm", "app7"}, {"cpu", "1"}}));
  EXPECT_EQ(samples[1].addresses, (std::vector<std::uint64_t>{0x400180, 0x400200}));
  EXPECT_EQ(samples[1].values, (std::vector<std::uint64_t>{1, 100000, 0, 0}));
  EXPECT_EQ(samples[1].labels,
            (std::map<std::string, std::string>{{"pid", "8"}, {"tid", "8"}, {"comm", "app8"}, {"cpu", "0"}}));

  const Message period_type = parse(top.find(11)->second.bytes);
  EXPECT_EQ(text(number(period_type, 1)), "cpu-clock");
  EXPECT_EQ(text(number(period_type, 2)), "nanoseconds");
  EXPECT_EQ(number(top, 12), 100000u);
  EXPECT_EQ(text(number(top, 14)), "cpu-clock_event");
}

// Samples that carry their cgroup's id are labelled by its path, as a PERF_RECORD_CGROUP record or
// the caller names it, else by the id; two cgroups' samples of one stack are two samples.
TEST(PprofProfile, LabelsSamplesByCgroup) {
  PprofEvent clock{"cpu-clock", {}};
  clock.attr.type = PERF_TYPE_SOFTWARE;
  clock.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CGROUP | PERF_SAMPLE_CALLCHAIN;
  PprofOptions options;
  options.cgroup_paths[7] = "/given.slice";
  PprofProfile profile({clock}, options);
  kernel::CgroupRecord named{};
  named.id = 42;
  feed(profile, named, PERF_RECORD_CGROUP, "/system.slice/cron.service");
  for (std::uint64_t cgroup : {42u, 42u, 7u, 43u}) {
    perf_event_header header{PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8};
    Sample s;
    s.record = &header;
    s.pid = s.tid = 9;
    s.ip = 0x400100;
    s.cgroup = cgroup;
    profile.sample(0, s);
  }
  const std::string encoded = profile.encode(false);  // what the parsed message's views see
  const Message top = parse(encoded);
  std::vector<std::string_view> strings;
  for (auto [it, end] = top.equal_range(6); it != end; ++it) strings.push_back(it->second.bytes);
  std::map<std::string, std::uint64_t> by_cgroup;  // the label's text (or id), to the sample count
  for (auto [it, end] = top.equal_range(2); it != end; ++it) {
    const Message sample = parse(it->second.bytes);
    for (auto [label, last] = sample.equal_range(3); label != last; ++label) {
      const Message fields = parse(label->second.bytes);
      if (strings.at(number(fields, 1)) != "cgroup") continue;
      const std::string key =
          fields.count(2) ? std::string(strings.at(number(fields, 2))) : "id " + std::to_string(number(fields, 3));
      by_cgroup[key] += packed(sample, 2).at(0);
    }
  }
  EXPECT_EQ(by_cgroup, (std::map<std::string, std::uint64_t>{
                           {"/system.slice/cron.service", 2}, {"/given.slice", 1}, {"id 43", 1}}));
}

}  // namespace
}  // namespace perfmon
