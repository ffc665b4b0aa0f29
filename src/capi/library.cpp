// SPDX-License-Identifier: Apache-2.0
// The C ABI (perfmon/perfmon.h) over the C++ library: what every handle's calls share, the
// library's version and last error, and the CPU's description.
#include "capi/handles.hpp"

#include <algorithm>
#include <cstring>

#include "perfmon/system_info.hpp"

namespace perfmon::capi {

namespace {

thread_local std::string last_error;

}  // namespace

int errno_of(const perfmon::Error& error) {
  if (error.errnum() != 0) return error.errnum();
  switch (error.kind()) {
    case perfmon::ErrorKind::UnknownEvent:
      return ENOENT;
    case perfmon::ErrorKind::Unsupported:
    case perfmon::ErrorKind::OtherCpuModel:
      return EOPNOTSUPP;
    case perfmon::ErrorKind::Permission:
      return EACCES;
    case perfmon::ErrorKind::NoSuchTarget:
      return ESRCH;
    case perfmon::ErrorKind::Limit:
      return EMFILE;
    default:
      return EINVAL;
  }
}

int fail(int err, const char* text) noexcept {
  try {
    last_error = text;
  } catch (...) {
    // No memory for the sentence: the errno says enough.
  }
  return err;
}

int control(int err, const char* text) noexcept {
  return err == 0 ? 0 : fail(err, text);
}

perfmon::Target target_of(const perfmon_target* target) {
  if (target == nullptr) return perfmon::Target::self();
  switch (target->kind) {
    case PERFMON_TARGET_SELF:
      return perfmon::Target::self();
    case PERFMON_TARGET_THREAD:
      return perfmon::Target::thread(target->id);
    case PERFMON_TARGET_PROCESS:
      return perfmon::Target::process(target->id);
    case PERFMON_TARGET_CPUS:
      if (target->cpus == nullptr) return perfmon::Target::all_cpus();
      return perfmon::Target::cpu_list(std::vector<int>(target->cpus, target->cpus + target->cpu_count));
  }
  throw perfmon::Error(perfmon::ErrorKind::InvalidArgument,
                       "unknown target kind " + std::to_string(static_cast<int>(target->kind)) + ".", EINVAL);
}

void copy_string(char* field, std::size_t size, const std::string& text) noexcept {
  const std::size_t n = std::min(size - 1, text.size());
  std::memcpy(field, text.data(), n);
  field[n] = '\0';
}

perfmon_sample sample_of(std::size_t event, const perfmon::Sample& taken) noexcept {
  return perfmon_sample{event, taken.ip, taken.pid, taken.tid, taken.time, taken.cpu, 0, 0, nullptr, 0};
}

int null_argument(const char* what) noexcept {
  return fail(EINVAL, what);
}

}  // namespace perfmon::capi

using namespace perfmon::capi;

extern "C" {

int perfmon_api_version(void) {
  return PERFMON_API_VERSION;
}

const char* perfmon_version(void) {
  return PERFMON_VERSION;
}

const char* perfmon_last_error(void) {
  return last_error.c_str();
}

int perfmon_cpu_info_get(const perfmon_catalog* catalog, perfmon_cpu_info* info) {
  if (catalog == nullptr || info == nullptr) return null_argument("a catalogue and a place for the answer are needed.");
  return guarded([&] {
    const perfmon::SystemInfo cpu = perfmon::collect_cpu_info();
    *info = perfmon_cpu_info{};
    copy_string(info->vendor, sizeof info->vendor, cpu.cpu_vendor);
    copy_string(info->model, sizeof info->model, cpu.cpu_model);
    info->family = cpu.family.value_or(-1);
    info->model_number = cpu.model.value_or(-1);
    for (const perfmon::PmuSummary& pmu : catalog->catalog.pmus()) {
      if (!pmu.core) continue;
      info->hardware_pmu = 1;
      copy_string(info->pmu_name, sizeof info->pmu_name, pmu.name);
      break;
    }
    info->general_counters = info->general_width = info->fixed_counters = -1;
    if (cpu.counters) {
      info->general_counters = cpu.counters->general_purpose.value_or(-1);
      info->general_width = cpu.counters->general_width.value_or(-1);
      info->fixed_counters = cpu.counters->fixed.value_or(-1);
    }
    return 0;
  });
}

}  // extern "C"
