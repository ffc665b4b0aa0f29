// SPDX-License-Identifier: Apache-2.0
// The C ABI: perfmon2's default sampling format's buffer.
#include "capi/handles.hpp"

#include <cstddef>
#include <cstring>

using namespace perfmon::capi;

// The C entry is the C++ one, field for field.
static_assert(sizeof(perfmon_default_entry) == sizeof(perfmon::DefaultFormatEntry));
static_assert(offsetof(perfmon_default_entry, body_words) == offsetof(perfmon::DefaultFormatEntry, body_words));
static_assert(offsetof(perfmon_default_entry, ip) == offsetof(perfmon::DefaultFormatEntry, ip));

int perfmon_default_buffer_open(void* memory, size_t bytes, uint32_t flags, size_t largest_body_words,
                                perfmon_default_buffer** buffer) {
  if (buffer == nullptr || memory == nullptr) return null_argument("memory and a place for the buffer are needed.");
  *buffer = nullptr;
  if (reinterpret_cast<std::uintptr_t>(memory) % alignof(std::uint64_t) != 0)
    return fail(EINVAL, "the buffer's memory must be 8-byte aligned.");
  return guarded([&] {
    *buffer = std::make_unique<perfmon_default_buffer>(
                  perfmon::DefaultFormatBuffer({static_cast<std::byte*>(memory), bytes}, flags, largest_body_words))
                  .release();
    return 0;
  });
}

void perfmon_default_buffer_close(perfmon_default_buffer* buffer) {
  std::unique_ptr<perfmon_default_buffer> owned(buffer);
}

int perfmon_default_buffer_append(perfmon_default_buffer* buffer, const perfmon_default_entry* entry,
                                  const uint64_t* body, size_t body_words) {
  if (buffer == nullptr || entry == nullptr || (body == nullptr && body_words > 0)) return -1;
  perfmon::DefaultFormatEntry written;
  std::memcpy(&written, entry, sizeof written);
  switch (buffer->buffer.append(written, {body, body_words})) {
    case perfmon::DefaultFormatBuffer::Append::kWritten:
      return 0;
    case perfmon::DefaultFormatBuffer::Append::kFilled:
      return 1;
    case perfmon::DefaultFormatBuffer::Append::kDropped:
      break;
  }
  return -1;
}

void perfmon_default_buffer_restart(perfmon_default_buffer* buffer) {
  if (buffer != nullptr) buffer->buffer.restart();
}
