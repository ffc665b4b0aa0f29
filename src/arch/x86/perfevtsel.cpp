// SPDX-License-Identifier: Apache-2.0
#include "perfmon/perfevtsel.hpp"

#include <cstdio>

#include "perfmon/error.hpp"

namespace perfmon {

namespace {
constexpr int kUsr = 16, kOs = 17, kEdge = 18, kPinControl = 19, kInterrupt = 20, kAnyThread = 21, kEnable = 22,
              kInvert = 23;
constexpr std::uint64_t bit(int n, bool set) {
  return set ? std::uint64_t{1} << n : 0;
}
constexpr bool has(std::uint64_t value, int n) {
  return (value >> n) & 1U;
}
// The flag bits perf's x86 cpu PMU passes through from attr.config (format: edge, pc, any, inv).
constexpr std::uint64_t kConfigFlags =
    bit(kEdge, true) | bit(kPinControl, true) | bit(kAnyThread, true) | bit(kInvert, true);
}  // namespace

std::uint64_t PerfEvtSel::encode() const noexcept {
  return std::uint64_t{event} | (std::uint64_t{umask} << 8) | bit(kUsr, usr) | bit(kOs, os) | bit(kEdge, edge) |
         bit(kPinControl, pin_control) | bit(kInterrupt, interrupt) | bit(kAnyThread, any_thread) |
         bit(kEnable, enable) | bit(kInvert, invert) | (std::uint64_t{cmask} << 24);
}

PerfEvtSel PerfEvtSel::decode(std::uint64_t value) {
  if (value >> 32) {
    char text[64];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
    throw Error(ErrorKind::InvalidArgument,
                std::string("invalid PERFEVTSEL value ") + text + ": bits 63:32 are reserved and must be zero.");
  }
  PerfEvtSel select;
  select.event = static_cast<std::uint8_t>(value & 0xff);
  select.umask = static_cast<std::uint8_t>((value >> 8) & 0xff);
  select.usr = has(value, kUsr);
  select.os = has(value, kOs);
  select.edge = has(value, kEdge);
  select.pin_control = has(value, kPinControl);
  select.interrupt = has(value, kInterrupt);
  select.any_thread = has(value, kAnyThread);
  select.enable = has(value, kEnable);
  select.invert = has(value, kInvert);
  select.cmask = static_cast<std::uint8_t>((value >> 24) & 0xff);
  return select;
}

std::string PerfEvtSel::describe() const {
  char text[64];
  std::snprintf(text, sizeof text, "event=0x%02x,umask=0x%02x", event, umask);
  std::string out = text;
  for (auto [set, name] : {std::pair{usr, "usr"},
                           {os, "os"},
                           {edge, "edge"},
                           {pin_control, "pc"},
                           {interrupt, "int"},
                           {any_thread, "any"},
                           {enable, "en"},
                           {invert, "inv"}})
    if (set) out += std::string(",") + name;
  if (cmask != 0) {
    std::snprintf(text, sizeof text, ",cmask=0x%02x", cmask);
    out += text;
  }
  return out;
}

perf_event_attr perfevtsel_to_attr(const PerfEvtSel& select) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_RAW;
  PerfEvtSel config = select;
  config.usr = config.os = config.interrupt = config.enable = false;
  attr.config = config.encode();
  // Counting neither ring counts nothing on the CPU; perf's convention is that both are counted.
  if (select.usr != select.os) {
    attr.exclude_kernel = !select.os;
    attr.exclude_user = !select.usr;
  }
  return attr;
}

PerfEvtSel attr_to_perfevtsel(const perf_event_attr& attr) {
  PerfEvtSel select = PerfEvtSel::decode(attr.config & (0xffffULL | kConfigFlags | (0xffULL << 24)));
  select.usr = !attr.exclude_user;
  select.os = !attr.exclude_kernel;
  select.interrupt = true;  // the kernel always arms the overflow interrupt (64-bit virtualisation)
  select.enable = true;
  return select;
}

}  // namespace perfmon
