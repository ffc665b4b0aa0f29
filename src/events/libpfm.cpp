#include "events/libpfm.hpp"

#include <cstdlib>
#include <cstring>
#include <mutex>

#include "perfmon/error.hpp"

#if PERFMON_HAVE_LIBPFM
#include <perfmon/pfmlib_perf_event.h>
#endif

namespace perfmon::events {

#if PERFMON_HAVE_LIBPFM

namespace {

// libpfm4 is process-global, and it takes a forced model only from LIBPFM_FORCE_PMU at
// initialisation: switching models means terminating and initialising it again.
std::mutex g_mutex;
bool g_initialized = false;
std::string g_model;

pfm_pmu_info_t pmu_info(int pmu) {
  pfm_pmu_info_t info;
  std::memset(&info, 0, sizeof info);
  info.size = sizeof info;
  if (pfm_get_pmu_info(static_cast<pfm_pmu_t>(pmu), &info) != PFM_SUCCESS) info.name = nullptr;
  return info;
}

bool model_present(const std::string& model) {
  for (int pmu = PFM_PMU_NONE; pmu < PFM_PMU_MAX; ++pmu) {
    pfm_pmu_info_t info = pmu_info(pmu);
    if (info.name && info.is_present && model == info.name) return true;
  }
  return false;
}

// Whether libpfm4 can encode this name on its own (some umasks are parts that must be combined,
// such as offcore-response request and response bits).
bool encodes_alone(const std::string& name) {
  perf_event_attr attr{};
  pfm_perf_encode_arg_t arg;
  std::memset(&arg, 0, sizeof arg);
  arg.size = sizeof arg;
  arg.attr = &attr;
  return pfm_get_os_event_encoding(name.c_str(), PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg) == PFM_SUCCESS;
}

void use_model(const std::string& model) {
  if (g_initialized && model == g_model) return;
  if (g_initialized) pfm_terminate();
  if (model.empty())
    ::unsetenv("LIBPFM_FORCE_PMU");
  else
    ::setenv("LIBPFM_FORCE_PMU", model.c_str(), 1);
  int status = pfm_initialize();
  ::unsetenv("LIBPFM_FORCE_PMU");
  g_initialized = status == PFM_SUCCESS;
  g_model = model;
  if (!g_initialized)
    throw Error("libpfm4 cannot " + (model.empty() ? std::string("start") : "use model '" + model + "'") + ": " +
                pfm_strerror(status) + ".");
  // libpfm4 ignores a model it does not know and carries on with the host's PMUs: refuse it here.
  if (!model.empty() && !model_present(model)) {
    std::string known;
    for (int pmu = PFM_PMU_NONE; pmu < PFM_PMU_MAX; ++pmu) {
      pfm_pmu_info_t info = pmu_info(pmu);
      if (info.name && info.type == PFM_PMU_TYPE_CORE) known += (known.empty() ? "" : ", ") + std::string(info.name);
    }
    throw Error("libpfm4 has no CPU model '" + model + "'; it knows: " + known + ".");
  }
}

}  // namespace

bool libpfm_available() {
  return true;
}

LibpfmEncoding libpfm_encode(const std::string& name, const std::string& model) {
  std::lock_guard lock(g_mutex);
  use_model(model);
  LibpfmEncoding result;
  pfm_perf_encode_arg_t arg;
  std::memset(&arg, 0, sizeof arg);
  arg.size = sizeof arg;
  arg.attr = &result.attr;
  char* canonical = nullptr;
  arg.fstr = &canonical;
  // After a switch of forced model, libpfm4 may still see the previous model's table as present and
  // resolve an unqualified name there first: name the forced model's table explicitly.
  const std::string qualified = model.empty() || name.find("::") != std::string::npos ? name : model + "::" + name;
  int status = pfm_get_os_event_encoding(qualified.c_str(), PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
  if (status != PFM_SUCCESS)
    throw Error("libpfm4 cannot encode '" + name + "'" + (model.empty() ? "" : " for model " + model) + ": " +
                pfm_strerror(status) + ".");
  result.attr.size = sizeof result.attr;
  result.canonical = canonical ? canonical : name;
  std::free(canonical);
  return result;
}

std::vector<std::string> libpfm_models() {
  std::lock_guard lock(g_mutex);
  use_model(g_initialized ? g_model : "");
  std::vector<std::string> models;
  for (int pmu = PFM_PMU_NONE; pmu < PFM_PMU_MAX; ++pmu) {
    pfm_pmu_info_t info = pmu_info(pmu);
    if (info.name && info.type == PFM_PMU_TYPE_CORE) models.emplace_back(info.name);
  }
  return models;
}

std::vector<LibpfmEvent> libpfm_events(const std::string& model) {
  std::lock_guard lock(g_mutex);
  try {
    use_model(model);
  } catch (const Error&) {
    return {};  // an unknown model has no events
  }
  std::vector<LibpfmEvent> events;
  for (int pmu = PFM_PMU_NONE; pmu < PFM_PMU_MAX; ++pmu) {
    pfm_pmu_info_t table = pmu_info(pmu);
    if (!table.name || !table.is_present || table.type != PFM_PMU_TYPE_CORE || (!model.empty() && model != table.name))
      continue;
    for (int index = table.first_event; index != -1; index = pfm_get_event_next(index)) {
      pfm_event_info_t info;
      std::memset(&info, 0, sizeof info);
      info.size = sizeof info;
      if (pfm_get_event_info(index, PFM_OS_NONE, &info) != PFM_SUCCESS) continue;
      bool has_umask = false;
      for (int a = 0; a < info.nattrs; ++a) {
        pfm_event_attr_info_t attr;
        std::memset(&attr, 0, sizeof attr);
        attr.size = sizeof attr;
        if (pfm_get_event_attr_info(index, a, PFM_OS_NONE, &attr) != PFM_SUCCESS || attr.type != PFM_ATTR_UMASK)
          continue;
        has_umask = true;
        std::string name = std::string(info.name) + "." + attr.name;
        if (encodes_alone(std::string(table.name) + "::" + name)) events.push_back({name, attr.desc ? attr.desc : ""});
      }
      if (!has_umask && encodes_alone(std::string(table.name) + "::" + info.name))
        events.push_back({info.name, info.desc ? info.desc : ""});
    }
  }
  return events;
}

#else  // built without libpfm4

namespace {
[[noreturn]] void unavailable() {
  throw Error(
      "this perfmon was built without libpfm4, so model-specific event names are unknown; rebuild with "
      "Debian's libpfm4-dev installed.");
}
}  // namespace

bool libpfm_available() {
  return false;
}
LibpfmEncoding libpfm_encode(const std::string&, const std::string&) {
  unavailable();
}
std::vector<std::string> libpfm_models() {
  return {};
}
std::vector<LibpfmEvent> libpfm_events(const std::string&) {
  return {};
}

#endif

}  // namespace perfmon::events
