// SPDX-License-Identifier: Apache-2.0
// The protocol buffers wire format, writing only (protobuf.dev/programming-guides/encoding): varints,
// length-delimited fields and packed repeated integers, enough for a message whose fields are
// numbers and nested messages. Fields holding their proto3 default (0, false) are left out.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace perfmon::analysis {

class ProtobufWriter {
 public:
  enum Wire : unsigned { kVarint = 0, kLengthDelimited = 2 };

  void varint(std::uint64_t value) {
    while (value >= 0x80) {
      out_.push_back(static_cast<char>(value | 0x80));
      value >>= 7;
    }
    out_.push_back(static_cast<char>(value));
  }
  void tag(unsigned field, Wire wire) { varint(std::uint64_t{field} << 3 | wire); }
  // An integer field (uint64, int64 of a non-negative value, bool).
  void number(unsigned field, std::uint64_t value) {
    if (value == 0) return;
    tag(field, kVarint);
    varint(value);
  }
  // A string, bytes or nested message field: written even when empty (a repeated string's "").
  void bytes(unsigned field, std::string_view data) {
    tag(field, kLengthDelimited);
    varint(data.size());
    out_.append(data);
  }
  void message(unsigned field, const ProtobufWriter& nested) { bytes(field, nested.out_); }
  // A packed repeated integer field.
  template <class Integer>
  void packed(unsigned field, std::span<const Integer> values) {
    if (values.empty()) return;
    std::size_t size = 0;
    for (const Integer value : values) size += varint_size(static_cast<std::uint64_t>(value));
    tag(field, kLengthDelimited);
    varint(size);
    for (const Integer value : values) varint(static_cast<std::uint64_t>(value));
  }

  void clear() noexcept { out_.clear(); }
  const std::string& written() const noexcept { return out_; }
  std::string take() noexcept { return std::move(out_); }

 private:
  static std::size_t varint_size(std::uint64_t value) noexcept {
    std::size_t size = 1;
    while (value >= 0x80) {
      value >>= 7;
      ++size;
    }
    return size;
  }
  std::string out_;
};

}  // namespace perfmon::analysis
