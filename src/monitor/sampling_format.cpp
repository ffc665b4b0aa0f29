#include "perfmon/sampling_format.hpp"

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "perfmon/error.hpp"

namespace perfmon {

struct DefaultSamplingFormat::State {
  const Sampler& sampler;
  std::vector<std::uint64_t> words;    // the buffer, 8-byte aligned
  DefaultFormatHeader* header;         // at words[0]
  std::vector<SampledValue> readings;  // a sample's group values, reused
  std::size_t head_bytes;              // of each sample before its body
  std::size_t largest_sample;          // bytes: the post check's margin
  std::size_t fixed_body_words = 0;    // with a short header: the first sample's body size
  bool filled_now = false;             // the last sample filled the buffer
  bool full = false;
  std::uint64_t dropped = 0;

  std::byte* bytes() noexcept { return reinterpret_cast<std::byte*>(words.data()); }
  const std::byte* bytes() const noexcept { return reinterpret_cast<const std::byte*>(words.data()); }
};

namespace {

std::size_t head_bytes_for(std::uint32_t flags) {
  if (flags & kDefaultFormatNoHeader) return 0;
  if (flags & kDefaultFormatIpHeader) return sizeof(std::uint64_t);
  return sizeof(DefaultFormatEntry);
}

}  // namespace

DefaultSamplingFormat::DefaultSamplingFormat(const Sampler& sampler, std::size_t buffer_bytes, std::uint32_t flags) {
  if (flags & ~std::uint32_t{kDefaultFormatNoHeader | kDefaultFormatIpHeader})
    throw Error(ErrorKind::InvalidArgument, "unknown default-format flags " + std::to_string(flags) + ".", EINVAL);
  if ((flags & kDefaultFormatNoHeader) && (flags & kDefaultFormatIpHeader))
    throw Error(ErrorKind::InvalidArgument, "a sample has no header or an IP header, not both.", EINVAL);
  const bool reads_groups = sampler.event_count() > 0 && (sampler.opened_attr(0).sample_type & PERF_SAMPLE_READ);
  const std::size_t largest_body = reads_groups ? sampler.event_count() - 1 : 0;
  if ((flags & kDefaultFormatNoHeader) && largest_body == 0)
    throw Error(ErrorKind::InvalidArgument,
                "samples without a header need a body: sample a group with PERF_SAMPLE_READ, or keep the header.",
                EINVAL);
  const std::size_t head = head_bytes_for(flags);
  const std::size_t largest = head + largest_body * sizeof(std::uint64_t);
  const std::size_t words = buffer_bytes / sizeof(std::uint64_t);
  if (words * sizeof(std::uint64_t) < sizeof(DefaultFormatHeader) + largest)
    throw Error(ErrorKind::InvalidArgument,
                "a buffer of " + std::to_string(buffer_bytes) + " bytes cannot hold the header and one sample (" +
                    std::to_string(sizeof(DefaultFormatHeader) + largest) + " bytes).",
                EINVAL);
  state_ = std::make_unique<State>(State{sampler, std::vector<std::uint64_t>(words), nullptr,
                                         std::vector<SampledValue>(sampler.event_count()), head, largest});
  State& s = *state_;
  s.header = std::construct_at(reinterpret_cast<DefaultFormatHeader*>(s.words.data()),
                               DefaultFormatHeader{0, sizeof(DefaultFormatHeader), 0, words * sizeof(std::uint64_t),
                                                   kDefaultFormatVersion, flags});
}

DefaultSamplingFormat::~DefaultSamplingFormat() = default;

void DefaultSamplingFormat::sample(std::size_t event, const Sample& sample) {
  State& s = *state_;
  DefaultFormatHeader& h = *s.header;
  if (s.full) {
    ++s.dropped;
    return;
  }
  // The body: the other members of the group, in group order.
  const std::size_t read = s.sampler.group_values(sample, s.readings);
  std::size_t body = 0;
  for (std::size_t k = 0; k < read; ++k)
    if (s.readings[k].event != event) s.readings[body++].value.raw = s.readings[k].value.raw;
  // A header without body_words: the buffer's samples all have the first one's size.
  if (h.flags & (kDefaultFormatNoHeader | kDefaultFormatIpHeader)) {
    if (h.count == 0) s.fixed_body_words = body;
    if (body != s.fixed_body_words) {
      ++s.dropped;
      return;
    }
  }
  std::byte* at = s.bytes() + h.cur_offset;
  if (h.flags & kDefaultFormatIpHeader) {
    std::memcpy(at, &sample.ip, sizeof sample.ip);
  } else if (!(h.flags & kDefaultFormatNoHeader)) {
    const DefaultFormatEntry entry{static_cast<std::int32_t>(sample.pid),
                                   static_cast<std::int32_t>(sample.tid),
                                   static_cast<std::uint16_t>(event),
                                   0,
                                   static_cast<std::uint16_t>(sample.cpu),
                                   static_cast<std::uint16_t>(body),
                                   sample.period,
                                   sample.time,
                                   sample.ip};
    std::memcpy(at, &entry, sizeof entry);
  }
  at += s.head_bytes;
  for (std::size_t k = 0; k < body; ++k, at += sizeof(std::uint64_t))
    std::memcpy(at, &s.readings[k].value.raw, sizeof(std::uint64_t));
  ++h.count;
  h.cur_offset += s.head_bytes + body * sizeof(std::uint64_t);
  // perfmon2's post check: full when the next sample might not fit, so that none is ever cut.
  if (h.buf_size - h.cur_offset < s.largest_sample) {
    s.full = s.filled_now = true;
    ++h.overflows;
  }
}

OverflowControl DefaultSamplingFormat::overflow_control(std::size_t) {
  State& s = *state_;
  const bool filled = s.filled_now;
  s.filled_now = false;
  return {filled, filled};
}

void DefaultSamplingFormat::restart() {
  State& s = *state_;
  s.header->count = 0;
  s.header->cur_offset = sizeof(DefaultFormatHeader);
  s.full = s.filled_now = false;
}

bool DefaultSamplingFormat::full() const noexcept {
  return state_->full;
}

std::uint64_t DefaultSamplingFormat::dropped() const noexcept {
  return state_->dropped;
}

std::span<const std::byte> DefaultSamplingFormat::buffer() const noexcept {
  return {state_->bytes(), state_->words.size() * sizeof(std::uint64_t)};
}

const DefaultFormatHeader& DefaultSamplingFormat::header() const noexcept {
  return *state_->header;
}

void DefaultSamplingFormat::for_each(
    const std::function<void(const DefaultFormatEntry&, std::span<const std::uint64_t>)>& visit) const {
  const State& s = *state_;
  const DefaultFormatHeader& h = *s.header;
  std::size_t offset = sizeof(DefaultFormatHeader);
  for (std::uint64_t k = 0; k < h.count; ++k) {
    DefaultFormatEntry entry{};
    if (h.flags & kDefaultFormatNoHeader) {
      entry.body_words = static_cast<std::uint16_t>(s.fixed_body_words);
    } else if (h.flags & kDefaultFormatIpHeader) {
      std::memcpy(&entry.ip, s.bytes() + offset, sizeof entry.ip);
      entry.body_words = static_cast<std::uint16_t>(s.fixed_body_words);
    } else {
      std::memcpy(&entry, s.bytes() + offset, sizeof entry);
    }
    offset += s.head_bytes;
    visit(entry, {s.words.data() + offset / sizeof(std::uint64_t), entry.body_words});
    offset += entry.body_words * sizeof(std::uint64_t);
  }
}

}  // namespace perfmon
