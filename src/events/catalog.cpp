// SPDX-License-Identifier: Apache-2.0
// The catalogue's resolution: an EventSpec, as a grammar read it, to the Event the kernel is given.
#include "perfmon/catalog.hpp"

#include <linux/hw_breakpoint.h>
#include <strings.h>

#include <algorithm>

#include "arch/x86/cpuid.hpp"
#include "events/catalog_state.hpp"
#include "events/counter_placement.hpp"
#include "events/hybrid.hpp"
#include "events/sources/architectural_events.hpp"
#include "events/sources/generic.hpp"
#include "events/sources/libpfm.hpp"
#include "events/sources/pmc_core.hpp"
#include "events/sources/tracefs.hpp"
#include "events/suggest.hpp"
#include "events/syntax/event_list.hpp"
#include "events/syntax/perf_grammar.hpp"
#include "events/syntax/text.hpp"
#include "perfmon/error.hpp"

namespace perfmon {

using events::EventSpec;
using events::fail_event;

const events::TracefsLocation& EventCatalog::State::tracefs() const {
  std::call_once(tracefs_once, [this] {
    tracefs_location = paths.tracefs.empty() ? events::find_tracefs() : events::TracefsLocation{paths.tracefs, ""};
  });
  return tracefs_location;
}

const events::Pmu* EventCatalog::State::find_pmu(std::string_view name) const {
  for (const events::Pmu& pmu : pmus)
    if (pmu.name == name) return &pmu;
  return nullptr;
}

const events::NameIndex& EventCatalog::State::known_names() const {
  std::call_once(known_names_once, [this] {
    std::vector<std::string> names;
    for (auto table : {events::hardware_events(), events::software_events()}) {
      for (const events::GenericEvent& event : table) {
        names.emplace_back(event.name);
        if (!event.alias.empty()) names.emplace_back(event.alias);
      }
    }
    for (std::string& name : events::hardware_cache_event_names()) names.push_back(std::move(name));
    for (const events::Pmu& pmu : pmus)
      for (const events::PmuEventAlias& alias : pmu.details().events) names.push_back(alias.name);
    known_names_index = events::NameIndex(std::move(names));
  });
  return known_names_index;
}

const events::NameIndex& EventCatalog::State::vendor_names() const {
  std::call_once(vendor_names_once, [this] {
    std::vector<std::string> names;
    for (const events::LibpfmEvent& known : events::libpfm_events(paths.cpu_model)) names.push_back(known.name);
    vendor_names_index = events::NameIndex(std::move(names));
  });
  return vendor_names_index;
}

namespace {

// Solaris cpc's x86 attributes edit the PERFEVTSEL fields of a raw event.
void apply_cpc_attributes(const EventSpec& spec, Event& event) {
  if (event.attr.type != PERF_TYPE_RAW || (event.attr.config >> 32) != 0)
    fail_event(spec.text,
               "cpc attributes (cmask, umask, inv, edge) edit a raw x86 event; name one with rNNNN or a vendor name.");
  PerfEvtSel select = PerfEvtSel::decode(event.attr.config);
  for (const events::Term& term : spec.cpc_attributes) {
    const std::uint64_t value =
        term.value ? events::field_number(spec.text, "cpc attribute '" + term.key + "'", *term.value, 0xff) : 1;
    if (term.key == "cmask")
      select.cmask = static_cast<std::uint8_t>(value);
    else if (term.key == "umask")
      select.umask = static_cast<std::uint8_t>(value);
    else if (term.key == "inv")
      select.invert = value != 0;
    else if (term.key == "edge")
      select.edge = value != 0;
  }
  event.attr.config = select.encode();
}

// The modifier letters' bits in the attr, and the letters that are the session's business.
void apply_modifiers(const events::Modifiers& mods, Event& event) {
  perf_event_attr& attr = event.attr;
  if (mods.user || mods.kernel || mods.hypervisor) {
    attr.exclude_user = !mods.user;
    attr.exclude_kernel = !mods.kernel;
    attr.exclude_hv = !mods.hypervisor;
  }
  if (mods.guest != mods.host) {
    attr.exclude_host = mods.guest;
    attr.exclude_guest = mods.host;
  }
  attr.precise_ip = mods.max_precise ? 3 : static_cast<std::uint64_t>(mods.precise);
  attr.exclude_idle = mods.exclude_idle;
  attr.exclusive = mods.exclusive;
  event.pinned = mods.pinned;
  event.group_read = mods.group_read;
  event.max_precise = mods.max_precise;
  event.weak_group = mods.weak_group;
}

std::uint64_t term_number(const EventSpec& spec, const events::Term& term) {
  if (!term.value) return 1;  // a bare flag term such as 'edge' means 1, as in perf
  return events::field_number(spec.text, "term '" + term.key + "'", *term.value);
}

// pmc.core codes mean Core Solo/Duo events only on that CPU (or when it is the forced model);
// the architectural ones among them mean the same on every Intel CPU.
void check_pmc_core_model(const EventSpec& spec, const std::string& forced_model, const PerfEvtSel& select) {
  if (forced_model == events::kPmcCoreModel) return;
  const bool architectural = events::find_architectural_event(select.event, select.umask) != nullptr;
  std::string where;
  if (!forced_model.empty()) {
    where = "the model is '" + forced_model + "'";
    // libpfm4's model names say the vendor: amd64_* and arm_* are not Intel's.
    if (architectural && !forced_model.starts_with("amd64") && !forced_model.starts_with("arm")) return;
  } else {
    std::optional<arch::X86Signature> host = arch::host_x86_signature();
    if (host && host->vendor == "GenuineIntel" && host->family == 6 && host->model == 14) return;
    if (host && host->vendor == "GenuineIntel" && architectural) return;
    where = host ? "this CPU is " + host->vendor + " family " + std::to_string(host->family) + " model " +
                       std::to_string(host->model)
                 : "this CPU is not x86";
  }
  fail_event(spec.text,
             "pmc.core events belong to Intel Core Solo/Duo (family 6, model 14) and " + where +
                 ", where the code counts something else; their CPU model is '" + std::string(events::kPmcCoreModel) +
                 "'.",
             ErrorKind::OtherCpuModel);
}

// Resolution, one overload per kind of name.
class Resolver {
 public:
  Resolver(const EventCatalog::State& state, const EventSpec& spec, Event& event)
      : state_(state), spec_(spec), event_(event) {}

  void operator()(const events::NamedSpec& named) const {
    if (resolve_generic(named.name)) return;
    // A sysfs event alias written without its PMU ("tsc" for msr/tsc/): the first PMU that has it.
    for (const events::Pmu& pmu : state_.pmus) {
      if (pmu.details().event(named.name) != nullptr) {
        apply_terms(pmu, {events::Term{named.name, std::nullopt}}, false);
        return;
      }
    }
    std::vector<std::string> nearest = state_.known_names().nearest(named.name);
    for (std::string& name : events::nearest_pmc_core_names(named.name)) nearest.push_back(std::move(name));
    std::string hint = did_you_mean(nearest);
    fail_event(spec_.text, "unknown event '" + named.name + "'" + (hint.empty() ? "." : hint), ErrorKind::UnknownEvent);
  }

  void operator()(const events::PmuSpec& spec) const {
    const events::Pmu* pmu = state_.find_pmu(spec.pmu);
    if (pmu == nullptr) {
      std::vector<std::string> names;
      for (const events::Pmu& known : state_.pmus) names.push_back(known.name);
      std::string hint = did_you_mean(nearest_names(spec.pmu, names));
      std::string listing;
      for (const std::string& name : names) listing += (listing.empty() ? "" : ", ") + name;
      fail_event(spec_.text,
                 "no PMU named '" + spec.pmu + "'" + (hint.empty() ? "; this machine has: " + listing + "." : hint),
                 ErrorKind::UnknownEvent);
    }
    if (spec.terms.empty())
      fail_event(spec_.text, "name an event or terms between the slashes, like " + spec.pmu + "/event=0x1/.");
    apply_terms(*pmu, spec.terms, false);
  }

  void operator()(const events::RawSpec& raw) const {
    event_.attr.type = PERF_TYPE_RAW;
    event_.attr.config = raw.config;
    event_.pmu = state_.core_pmu_name();
  }

  void operator()(const events::TracepointSpec& tracepoint) const {
    const std::string& root = state_.tracefs().root;
    // "task-clock:zz" is a known event with letters that are not modifiers: a mistake in the text,
    // said before anything this user may not read (tracefs) is asked about.
    const bool named_event =
        events::find_generic_event(tracepoint.subsystem) || state_.find_pmu(tracepoint.subsystem) != nullptr;
    const auto id = root.empty() ? std::nullopt : events::tracepoint_id(root, tracepoint.subsystem, tracepoint.name);
    if (!id && named_event)
      fail_event(spec_.text, "'" + tracepoint.name + "' is not a modifier of '" + tracepoint.subsystem +
                                 "' (known: " + std::string(events::kModifiersWritten) + ").");
    if (root.empty())
      fail_event(spec_.text, state_.tracefs().problem,
                 state_.tracefs().forbidden ? ErrorKind::Permission : ErrorKind::Unsupported);
    if (!id) {
      std::vector<std::string> names;
      for (const events::Tracepoint& tp : events::list_tracepoints(root)) names.push_back(tp.subsystem + ":" + tp.name);
      std::string hint = did_you_mean(nearest_names(tracepoint.subsystem + ":" + tracepoint.name, names));
      fail_event(
          spec_.text,
          "unknown tracepoint '" + tracepoint.subsystem + ":" + tracepoint.name + "'" + (hint.empty() ? "." : hint),
          ErrorKind::UnknownEvent);
    }
    event_.attr.type = PERF_TYPE_TRACEPOINT;
    event_.attr.config = *id;
    event_.pmu = "tracepoint";
  }

  void operator()(const events::BreakpointSpec& breakpoint) const {
    event_.attr.type = PERF_TYPE_BREAKPOINT;
    event_.attr.bp_type = breakpoint.access;
    event_.attr.bp_addr = breakpoint.address;
    // perf's defaults: one instruction address for x, four bytes for data.
    if (breakpoint.length != 0)
      event_.attr.bp_len = breakpoint.length;
    else if (breakpoint.access == HW_BREAKPOINT_X)
      event_.attr.bp_len = sizeof(long);
    else
      event_.attr.bp_len = HW_BREAKPOINT_LEN_4;
    event_.pmu = "breakpoint";
  }

  void operator()(const events::LibpfmSpec& libpfm) const {
    // "CYCLES" is perf's cycles in capitals, not a vendor name.
    if (libpfm.text.find(':') == std::string::npos && resolve_generic(libpfm.text)) return;
    // A sysfs event alias in capitals ("TSC", "INST_RETIRED" as perf's metric tables write them):
    // perf matches aliases without case, so the first PMU that has it.
    if (libpfm.text.find(':') == std::string::npos) {
      for (const events::Pmu& pmu : state_.pmus) {
        for (const events::PmuEventAlias& alias : pmu.details().events) {
          if (strcasecmp(alias.name.c_str(), libpfm.text.c_str()) == 0) {
            apply_terms(pmu, {events::Term{alias.name, std::nullopt}}, false);
            return;
          }
        }
      }
    }
    const std::string& model = state_.paths.cpu_model;
    events::LibpfmEncoding encoding = events::libpfm_encode(libpfm.text, model);
    if (encoding.failure.empty()) {
      event_.attr = encoding.attr;
      std::size_t separator = encoding.canonical.find("::");
      event_.pmu = separator == std::string::npos ? state_.core_pmu_name() : encoding.canonical.substr(0, separator);
      return;
    }
    std::size_t prefix = libpfm.text.find("::");
    if (prefix != std::string::npos && model.empty())
      fail_event(
          spec_.text,
          encoding.failure + "; '" + libpfm.text.substr(0, prefix) +
              "' may be another CPU model than this machine's, whose events can be encoded but not counted here.",
          ErrorKind::OtherCpuModel);
    std::string stem = libpfm.text.substr(0, libpfm.text.find(':'));
    // A mixed-case name may be perf's own mistyped (LLC-load-mises, dTLB-load-mises): its names first.
    std::vector<std::string> nearest = state_.known_names().nearest(stem);
    for (std::string& name : state_.vendor_names().nearest(stem)) nearest.push_back(std::move(name));
    for (std::string& name : events::nearest_pmc_core_names(stem)) nearest.push_back(std::move(name));
    if (nearest.size() > 3) nearest.resize(3);
    std::string hint = did_you_mean(nearest);
    fail_event(spec_.text, encoding.failure + (hint.empty() ? "." : hint), encoding.failure_kind);
  }

  void operator()(const events::PctrSpec& pctr) const {
    event_.attr = perfevtsel_to_attr(pctr.select);
    event_.pmu = state_.core_pmu_name();
  }

  void operator()(const events::PmcCoreSpec& specifier) const {
    events::PmcEncoding encoding;
    try {
      encoding = events::encode_pmc_core(specifier);
    } catch (const Error& error) {
      fail_event(spec_.text, error.what(), error.kind());
    }
    const events::Modifiers& mods = spec_.modifiers;
    if (encoding.rings_chosen && (mods.user || mods.kernel || mods.hypervisor) && !spec_.cpc_counter)
      fail_event(spec_.text,
                 "choose the privilege levels once: with the os and usr qualifiers or with :u and :k, not both.");
    check_pmc_core_model(spec_, state_.paths.cpu_model, encoding.select);
    if (spec_.cpc_counter && !((encoding.event->counters >> *spec_.cpc_counter) & 1U))
      fail_event(spec_.text, encoding.event->name + " counts only on " +
                                 events::describe_counters(encoding.event->counters) + ", not on pic" +
                                 std::to_string(*spec_.cpc_counter) + "; name it with that pic number.");
    event_.attr = perfevtsel_to_attr(encoding.select);
    event_.pmu = state_.core_pmu_name();
    event_.counters = encoding.event->counters;
  }

 private:
  bool resolve_generic(const std::string& name) const {
    std::optional<events::EventCode> code = events::find_generic_event(name);
    if (!code) {
      if (std::optional<std::string> problem = events::unsupported_cache_operation(name))
        fail_event(spec_.text, *problem, ErrorKind::UnknownEvent);
      return false;
    }
    event_.attr.type = code->type;
    event_.attr.config = code->config;
    event_.pmu = code->type == PERF_TYPE_SOFTWARE ? "software" : state_.core_pmu_name();
    return true;
  }

  void apply_terms(const events::Pmu& pmu, const std::vector<events::Term>& terms, bool inside_alias) const {
    const events::PmuDetails& details = pmu.details();
    event_.attr.type = pmu.type;
    event_.pmu = pmu.name;
    event_.cpus = pmu.cpus;
    for (const events::Term& term : terms) {
      if (term.key == "config") {
        event_.attr.config = term_number(spec_, term);
      } else if (term.key == "config1") {
        event_.attr.config1 = term_number(spec_, term);
      } else if (term.key == "config2") {
        event_.attr.config2 = term_number(spec_, term);
      } else if (term.key == "name") {
        if (!term.value) fail_event(spec_.text, "term 'name' needs a value, like name=my-event.");
        event_.name = *term.value;
      } else if (term.key == "period") {
        event_.attr.sample_period = term_number(spec_, term);
      } else if (term.key == "freq") {
        event_.attr.sample_freq = term_number(spec_, term);
        event_.attr.freq = 1;
      } else if (const events::FormatField* field = details.format(term.key)) {
        if (term.value && *term.value == "?") fail_event(spec_.text, "term '" + term.key + "' needs a value here.");
        const std::uint64_t value = term_number(spec_, term);  // names the event itself when it fails
        try {
          events::pack_format_value(*field, value, event_.attr);
        } catch (const Error& error) {
          fail_event(spec_.text, error.what(), error.kind());
        }
      } else if (const events::PmuEventAlias* alias = details.event(term.key); alias && !term.value && !inside_alias) {
        apply_terms(pmu, events::parse_terms(alias->terms, alias->terms), true);
        event_.scale = alias->scale;
        event_.unit = alias->unit;
      } else {
        std::vector<std::string> known = {"config", "config1", "config2", "name", "period", "freq"};
        for (const events::FormatField& field : details.formats) known.push_back(field.name);
        for (const events::PmuEventAlias& alias : details.events) known.push_back(alias.name);
        std::string hint = did_you_mean(nearest_names(term.key, known));
        std::string listing;
        for (const events::FormatField& field : details.formats) listing += (listing.empty() ? "" : ", ") + field.name;
        fail_event(
            spec_.text,
            "PMU '" + pmu.name + "' has no term or event '" + term.key + "'" +
                (hint.empty() ? "; its format terms are: " + (listing.empty() ? "(none)" : listing) + "." : hint),
            ErrorKind::UnknownEvent);
      }
    }
  }

  const EventCatalog::State& state_;
  const EventSpec& spec_;
  Event& event_;
};

}  // namespace

Event EventCatalog::State::resolve(const EventSpec& spec) const {
  Event event;
  event.name = spec.text;
  event.attr.size = sizeof(perf_event_attr);
  std::visit(Resolver(*this, spec, event), spec.name);
  apply_modifiers(spec.modifiers, event);
  if (!spec.cpc_attributes.empty()) apply_cpc_attributes(spec, event);
  return event;
}

EventCatalog::EventCatalog() : EventCatalog(CatalogPaths{}) {}

EventCatalog::EventCatalog(CatalogPaths paths) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.paths = std::move(paths);
  const std::string& model = s.paths.cpu_model;
  if (!model.empty() && model != events::kPmcCoreModel && !events::libpfm_has_model(model)) {
    std::string known;
    for (const std::string& name : events::libpfm_models()) known += (known.empty() ? "" : ", ") + name;
    throw Error(ErrorKind::InvalidArgument, "no CPU model '" + model + "'; libpfm4 knows: " +
                                                (known.empty() ? "none (libpfm4 cannot be used here)" : known) +
                                                "; perfmon's own table: " + std::string(events::kPmcCoreModel) + ".");
  }
  s.pmus = events::discover_pmus(s.paths.sysfs_devices);
  for (const events::Pmu& pmu : s.pmus) {
    if (events::is_core_pmu(pmu.name, pmu.type)) {
      s.core_pmu = pmu.name;
      break;
    }
  }
}

EventCatalog::~EventCatalog() = default;
EventCatalog::EventCatalog(EventCatalog&&) noexcept = default;
EventCatalog& EventCatalog::operator=(EventCatalog&&) noexcept = default;

std::vector<EventGroup> EventCatalog::parse(std::string_view list) const {
  std::vector<EventGroup> groups;
  std::vector<const events::Pmu*> cores = events::hybrid_core_pmus(state_->pmus);
  for (const events::GroupSpec& group_spec : events::parse_event_list_syntax(list)) {
    EventGroup group;
    for (const EventSpec& spec : group_spec.events) group.events.push_back(state_->resolve(spec));
    events::check_counter_placement(group);
    if (cores.empty()) {
      groups.push_back(std::move(group));
      continue;
    }
    for (EventGroup& split : events::split_for_hybrid(std::move(group), cores)) groups.push_back(std::move(split));
  }
  return groups;
}

Event EventCatalog::resolve(std::string_view text) const {
  auto groups = events::parse_event_list_syntax(text);
  if (groups.size() != 1 || groups.front().braced || groups.front().events.size() != 1)
    throw Error(ErrorKind::InvalidEvent,
                "invalid event '" + std::string(text) + "': expected one event, not a list or a group.");
  return state_->resolve(groups.front().events.front());
}

const std::string& EventCatalog::tracefs_root() const {
  return state_->tracefs().root;
}

const std::string& EventCatalog::tracefs_problem() const {
  return state_->tracefs().problem;
}

const std::string& EventCatalog::cpu_model() const {
  return state_->paths.cpu_model;
}

}  // namespace perfmon
