// SPDX-License-Identifier: Apache-2.0
#include "events/sources/libpfm.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>

#if PERFMON_HAVE_LIBPFM
#include <perfmon/pfmlib_perf_event.h>

#include "kernel/loaded_library.hpp"
#endif

namespace perfmon::events {

#if PERFMON_HAVE_LIBPFM

namespace {

// The libpfm4 functions perfmon calls, looked up in libpfm.so.4 when first needed.
struct Library {
  decltype(&pfm_initialize) initialize = nullptr;
  decltype(&pfm_terminate) terminate = nullptr;
  decltype(&pfm_strerror) strerror = nullptr;
  decltype(&pfm_get_pmu_info) get_pmu_info = nullptr;
  decltype(&pfm_get_os_event_encoding) get_os_event_encoding = nullptr;
  decltype(&pfm_get_event_next) get_event_next = nullptr;
  decltype(&pfm_get_event_info) get_event_info = nullptr;
  decltype(&pfm_get_event_attr_info) get_event_attr_info = nullptr;
  std::string missing;  // why it cannot be used; empty when it can
};

const Library& library() {
  static const Library loaded = [] {
    Library lib;
    const kernel::LoadedLibrary libpfm("libpfm.so.4");
    if (!libpfm.loaded()) {
      lib.missing = "model-specific event names need libpfm4, which cannot be loaded (" + libpfm.why() +
                    "); install Debian's libpfm4 package";
      return lib;
    }
    bool all = libpfm.find("pfm_initialize", lib.initialize) && libpfm.find("pfm_terminate", lib.terminate) &&
               libpfm.find("pfm_strerror", lib.strerror) && libpfm.find("pfm_get_pmu_info", lib.get_pmu_info) &&
               libpfm.find("pfm_get_os_event_encoding", lib.get_os_event_encoding) &&
               libpfm.find("pfm_get_event_next", lib.get_event_next) &&
               libpfm.find("pfm_get_event_info", lib.get_event_info) &&
               libpfm.find("pfm_get_event_attr_info", lib.get_event_attr_info);
    if (!all) lib.missing = "the libpfm.so.4 found here lacks functions perfmon needs; install Debian's libpfm4 4.13";
    return lib;
  }();
  return loaded;
}

// libpfm4 is process-global, and it takes a forced model only from LIBPFM_FORCE_PMU at
// initialisation: switching models means terminating and initialising it again.
std::mutex g_mutex;
bool g_initialized = false;
std::string g_model;

pfm_pmu_info_t pmu_info(const Library& lib, int pmu) {
  pfm_pmu_info_t info;
  std::memset(&info, 0, sizeof info);
  info.size = sizeof info;
  if (lib.get_pmu_info(static_cast<pfm_pmu_t>(pmu), &info) != PFM_SUCCESS) info.name = nullptr;
  return info;
}

std::vector<std::string> core_models(const Library& lib, bool present_only) {
  std::vector<std::string> models;
  for (int pmu = PFM_PMU_NONE; pmu < PFM_PMU_MAX; ++pmu) {
    pfm_pmu_info_t info = pmu_info(lib, pmu);
    if (info.name && info.type == PFM_PMU_TYPE_CORE && (!present_only || info.is_present))
      models.emplace_back(info.name);
  }
  return models;
}

// The config of this name encoded on its own, or nothing when libpfm4 cannot (some umasks are parts
// that must be combined, such as offcore-response request and response bits).
std::optional<std::uint64_t> config_alone(const Library& lib, const std::string& name) {
  perf_event_attr attr{};
  pfm_perf_encode_arg_t arg;
  std::memset(&arg, 0, sizeof arg);
  arg.size = sizeof arg;
  arg.attr = &attr;
  if (lib.get_os_event_encoding(name.c_str(), PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg) != PFM_SUCCESS)
    return std::nullopt;
  return attr.config;
}

// Makes `model` libpfm4's model; returns why it cannot (a clause), or "".
std::string use_model(const Library& lib, const std::string& model) {
  if (g_initialized && model == g_model) return "";
  if (g_initialized) lib.terminate();
  if (model.empty())
    ::unsetenv("LIBPFM_FORCE_PMU");
  else
    ::setenv("LIBPFM_FORCE_PMU", model.c_str(), 1);
  int status = lib.initialize();
  ::unsetenv("LIBPFM_FORCE_PMU");
  g_initialized = status == PFM_SUCCESS;
  g_model = model;
  if (!g_initialized)
    return "libpfm4 cannot " + (model.empty() ? std::string("start") : "use model '" + model + "'") + ": " +
           lib.strerror(status);
  // libpfm4 ignores a model it does not know and carries on with the host's PMUs: refuse it here.
  std::vector<std::string> present = core_models(lib, true);
  if (!model.empty() && std::find(present.begin(), present.end(), model) == present.end()) {
    std::string known;
    for (const std::string& name : core_models(lib, false)) known += (known.empty() ? "" : ", ") + name;
    return "libpfm4 has no CPU model '" + model + "'; it knows: " + known;
  }
  return "";
}

}  // namespace

bool libpfm_available() {
  return library().missing.empty();
}

LibpfmEncoding libpfm_encode(const std::string& name, const std::string& model) {
  LibpfmEncoding result;
  const Library& lib = library();
  if (!lib.missing.empty()) {
    result.failure = lib.missing;
    result.failure_kind = ErrorKind::Unsupported;
    return result;
  }
  std::lock_guard lock(g_mutex);
  result.failure = use_model(lib, model);
  if (!result.failure.empty()) {
    result.failure_kind = ErrorKind::Unsupported;
    return result;
  }
  pfm_perf_encode_arg_t arg;
  std::memset(&arg, 0, sizeof arg);
  arg.size = sizeof arg;
  arg.attr = &result.attr;
  char* canonical = nullptr;
  arg.fstr = &canonical;
  // After a switch of forced model, libpfm4 may still see the previous model's table as present and
  // resolve an unqualified name there first: name the forced model's table explicitly.
  const std::string qualified = model.empty() || name.find("::") != std::string::npos ? name : model + "::" + name;
  int status = lib.get_os_event_encoding(qualified.c_str(), PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
  if (status != PFM_SUCCESS) {
    result.failure = "libpfm4 cannot encode '" + name + "'" + (model.empty() ? "" : " for model " + model) + ": " +
                     lib.strerror(status);
    result.failure_kind = status == PFM_ERR_NOTFOUND ? ErrorKind::UnknownEvent : ErrorKind::InvalidEvent;
    return result;
  }
  result.attr.size = sizeof result.attr;
  result.canonical = canonical ? canonical : name;
  std::free(canonical);
  return result;
}

std::vector<std::string> libpfm_models() {
  if (!libpfm_available()) return {};
  const Library& lib = library();
  std::lock_guard lock(g_mutex);
  if (!use_model(lib, g_initialized ? g_model : "").empty()) return {};
  return core_models(lib, false);
}

bool libpfm_has_model(const std::string& model) {
  std::vector<std::string> models = libpfm_models();
  return std::find(models.begin(), models.end(), model) != models.end();
}

const std::vector<LibpfmEvent>& libpfm_events(const std::string& model) {
  static const std::vector<LibpfmEvent> none;
  if (!libpfm_available()) return none;
  const Library& lib = library();
  std::lock_guard lock(g_mutex);
  // A model's table never changes, and listing it encodes every event: once per model. (std::map
  // keeps the vectors where they are as others are added.)
  static std::map<std::string, std::vector<LibpfmEvent>> listed;
  if (auto found = listed.find(model); found != listed.end()) return found->second;
  if (!use_model(lib, model).empty()) return none;  // an unknown model has no events
  std::vector<LibpfmEvent>& events = listed[model];
  for (int pmu = PFM_PMU_NONE; pmu < PFM_PMU_MAX; ++pmu) {
    pfm_pmu_info_t table = pmu_info(lib, pmu);
    if (!table.name || !table.is_present || table.type != PFM_PMU_TYPE_CORE || (!model.empty() && model != table.name))
      continue;
    for (int index = table.first_event; index != -1; index = lib.get_event_next(index)) {
      pfm_event_info_t info;
      std::memset(&info, 0, sizeof info);
      info.size = sizeof info;
      if (lib.get_event_info(index, PFM_OS_NONE, &info) != PFM_SUCCESS) continue;
      bool has_umask = false;
      for (int a = 0; a < info.nattrs; ++a) {
        pfm_event_attr_info_t attr;
        std::memset(&attr, 0, sizeof attr);
        attr.size = sizeof attr;
        if (lib.get_event_attr_info(index, a, PFM_OS_NONE, &attr) != PFM_SUCCESS || attr.type != PFM_ATTR_UMASK)
          continue;
        has_umask = true;
        std::string name = std::string(info.name) + "." + attr.name;
        if (auto config = config_alone(lib, std::string(table.name) + "::" + name))
          events.push_back({name, attr.desc ? attr.desc : "", *config});
      }
      if (has_umask) continue;
      if (auto config = config_alone(lib, std::string(table.name) + "::" + info.name))
        events.push_back({info.name, info.desc ? info.desc : "", *config});
    }
  }
  return events;
}

#else  // built without libpfm4

bool libpfm_available() {
  return false;
}
LibpfmEncoding libpfm_encode(const std::string&, const std::string&) {
  LibpfmEncoding result;
  result.failure =
      "this perfmon was built without libpfm4, so model-specific event names are unknown; rebuild it with "
      "Debian's libpfm4-dev installed";
  result.failure_kind = ErrorKind::Unsupported;
  return result;
}
std::vector<std::string> libpfm_models() {
  return {};
}
bool libpfm_has_model(const std::string&) {
  return false;
}
const std::vector<LibpfmEvent>& libpfm_events(const std::string&) {
  static const std::vector<LibpfmEvent> none;
  return none;
}

#endif

}  // namespace perfmon::events
