// SPDX-License-Identifier: Apache-2.0
#include "perfmon/sampling_format.hpp"

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "perfmon/error.hpp"

namespace perfmon {

namespace {

std::size_t head_bytes_for(std::uint32_t flags) {
  if (flags & kDefaultFormatNoHeader) return 0;
  if (flags & kDefaultFormatIpHeader) return sizeof(std::uint64_t);
  return sizeof(DefaultFormatEntry);
}

}  // namespace

DefaultFormatBuffer::DefaultFormatBuffer(std::span<std::byte> memory, std::uint32_t flags,
                                         std::size_t largest_body_words)
    : memory_(memory.first(memory.size() / sizeof(std::uint64_t) * sizeof(std::uint64_t))),
      header_(nullptr),
      head_bytes_(head_bytes_for(flags)),
      largest_sample_(head_bytes_ + largest_body_words * sizeof(std::uint64_t)) {
  if (flags & ~std::uint32_t{kDefaultFormatNoHeader | kDefaultFormatIpHeader})
    throw Error(ErrorKind::InvalidArgument, "unknown default-format flags " + std::to_string(flags) + ".", EINVAL);
  if ((flags & kDefaultFormatNoHeader) && (flags & kDefaultFormatIpHeader))
    throw Error(ErrorKind::InvalidArgument, "a sample has no header or an IP header, not both.", EINVAL);
  if ((flags & kDefaultFormatNoHeader) && largest_body_words == 0)
    throw Error(ErrorKind::InvalidArgument,
                "samples without a header need a body: sample a group with PERF_SAMPLE_READ, or keep the header.",
                EINVAL);
  if (memory_.size() < sizeof(DefaultFormatHeader) + largest_sample_)
    throw Error(ErrorKind::InvalidArgument,
                "a buffer of " + std::to_string(memory.size()) + " bytes cannot hold the header and one sample (" +
                    std::to_string(sizeof(DefaultFormatHeader) + largest_sample_) + " bytes).",
                EINVAL);
  header_ = std::construct_at(
      reinterpret_cast<DefaultFormatHeader*>(memory_.data()),
      DefaultFormatHeader{0, sizeof(DefaultFormatHeader), 0, memory_.size(), kDefaultFormatVersion, flags});
}

DefaultFormatBuffer::Append DefaultFormatBuffer::append(const DefaultFormatEntry& entry,
                                                        std::span<const std::uint64_t> body) noexcept {
  DefaultFormatHeader& h = *header_;
  if (full_) {
    ++dropped_;
    return Append::kDropped;
  }
  // A short header has no body_words: the buffer's samples all have the first one's size.
  if (h.flags & (kDefaultFormatNoHeader | kDefaultFormatIpHeader)) {
    if (h.count == 0) fixed_body_words_ = body.size();
    if (body.size() != fixed_body_words_) {
      ++dropped_;
      return Append::kDropped;
    }
  }
  std::byte* at = memory_.data() + h.cur_offset;
  if (h.flags & kDefaultFormatIpHeader) {
    std::memcpy(at, &entry.ip, sizeof entry.ip);
  } else if (!(h.flags & kDefaultFormatNoHeader)) {
    DefaultFormatEntry written = entry;
    written.body_words = static_cast<std::uint16_t>(body.size());
    std::memcpy(at, &written, sizeof written);
  }
  at += head_bytes_;
  if (!body.empty()) std::memcpy(at, body.data(), body.size_bytes());
  ++h.count;
  h.cur_offset += head_bytes_ + body.size_bytes();
  // perfmon2's post check: full when the next sample might not fit, so that none is ever cut.
  if (h.buf_size - h.cur_offset < largest_sample_) {
    full_ = true;
    ++h.overflows;
    return Append::kFilled;
  }
  return Append::kWritten;
}

void DefaultFormatBuffer::restart() noexcept {
  header_->count = 0;
  header_->cur_offset = sizeof(DefaultFormatHeader);
  full_ = false;
}

void DefaultFormatBuffer::for_each(
    const std::function<void(const DefaultFormatEntry&, std::span<const std::uint64_t>)>& visit) const {
  const DefaultFormatHeader& h = *header_;
  std::size_t offset = sizeof(DefaultFormatHeader);
  for (std::uint64_t k = 0; k < h.count; ++k) {
    DefaultFormatEntry entry{};
    if (h.flags & kDefaultFormatNoHeader) {
      entry.body_words = static_cast<std::uint16_t>(fixed_body_words_);
    } else if (h.flags & kDefaultFormatIpHeader) {
      std::memcpy(&entry.ip, memory_.data() + offset, sizeof entry.ip);
      entry.body_words = static_cast<std::uint16_t>(fixed_body_words_);
    } else {
      std::memcpy(&entry, memory_.data() + offset, sizeof entry);
    }
    offset += head_bytes_;
    visit(entry, {reinterpret_cast<const std::uint64_t*>(memory_.data() + offset), entry.body_words});
    offset += entry.body_words * sizeof(std::uint64_t);
  }
}

struct DefaultSamplingFormat::State {
  const Sampler& sampler;
  std::vector<std::uint64_t> words;  // the buffer's memory, 8-byte aligned
  DefaultFormatBuffer buffer;
  std::vector<SampledValue> readings;  // a sample's group values, reused
  std::vector<std::uint64_t> body;     // the other members' values, reused
  bool filled_now = false;             // the last sample filled the buffer
};

namespace {

// The largest body: the other members of a group read with each sample.
std::size_t largest_body_of(const Sampler& sampler) {
  const bool reads_groups = sampler.event_count() > 0 && (sampler.opened_attr(0).sample_type & PERF_SAMPLE_READ);
  return reads_groups ? sampler.event_count() - 1 : 0;
}

std::span<std::byte> as_bytes(std::vector<std::uint64_t>& words) {
  return {reinterpret_cast<std::byte*>(words.data()), words.size() * sizeof(std::uint64_t)};
}

}  // namespace

DefaultSamplingFormat::DefaultSamplingFormat(const Sampler& sampler, std::size_t buffer_bytes, std::uint32_t flags) {
  std::vector<std::uint64_t> words(buffer_bytes / sizeof(std::uint64_t));
  DefaultFormatBuffer buffer(as_bytes(words), flags, largest_body_of(sampler));  // the vector's memory stays
  state_ = std::make_unique<State>(
      State{sampler, std::move(words), buffer, std::vector<SampledValue>(sampler.event_count()), {}, false});
  state_->body.reserve(sampler.event_count());
}

DefaultSamplingFormat::~DefaultSamplingFormat() = default;

void DefaultSamplingFormat::sample(std::size_t event, const Sample& sample) {
  State& s = *state_;
  // The body: the other members of the group, in group order.
  const std::size_t read = s.sampler.group_values(sample, s.readings);
  s.body.clear();
  for (std::size_t k = 0; k < read; ++k)
    if (s.readings[k].event != event) s.body.push_back(s.readings[k].value.raw);
  const DefaultFormatEntry entry{static_cast<std::int32_t>(sample.pid),
                                 static_cast<std::int32_t>(sample.tid),
                                 static_cast<std::uint16_t>(event),
                                 0,
                                 static_cast<std::uint16_t>(sample.cpu),
                                 0,
                                 sample.period,
                                 sample.time,
                                 sample.ip};
  s.filled_now = s.buffer.append(entry, s.body) == DefaultFormatBuffer::Append::kFilled;
}

OverflowControl DefaultSamplingFormat::overflow_control(std::size_t) {
  State& s = *state_;
  const bool filled = s.filled_now;
  s.filled_now = false;
  return {filled, filled};
}

void DefaultSamplingFormat::restart() {
  state_->buffer.restart();
  state_->filled_now = false;
}

bool DefaultSamplingFormat::full() const noexcept {
  return state_->buffer.full();
}

std::uint64_t DefaultSamplingFormat::dropped() const noexcept {
  return state_->buffer.dropped();
}

std::span<const std::byte> DefaultSamplingFormat::buffer() const noexcept {
  return state_->buffer.bytes();
}

const DefaultFormatHeader& DefaultSamplingFormat::header() const noexcept {
  return state_->buffer.header();
}

void DefaultSamplingFormat::for_each(
    const std::function<void(const DefaultFormatEntry&, std::span<const std::uint64_t>)>& visit) const {
  state_->buffer.for_each(visit);
}

}  // namespace perfmon
