#include "perfmon/catalog.hpp"

#include <linux/hw_breakpoint.h>

#include <algorithm>
#include <mutex>

#include "events/event_syntax.hpp"
#include "events/freebsd_pmc.hpp"
#include "events/generic_events.hpp"
#include "events/libpfm.hpp"
#include "events/pctr.hpp"
#include "events/perfevtsel.hpp"
#include "events/suggest.hpp"
#include "events/sysfs_pmu.hpp"
#include "events/tracefs.hpp"
#include "events/x86_cpuid.hpp"
#include "kernel/cpu_list.hpp"
#include "perfmon/error.hpp"

namespace perfmon {

using events::EventSpec;

struct EventCatalog::State {
  CatalogPaths paths;
  std::vector<events::Pmu> pmus;
  mutable std::once_flag tracefs_once;
  mutable std::string tracefs;

  const std::string& tracefs_root() const {
    std::call_once(tracefs_once, [this] { tracefs = paths.tracefs.empty() ? events::find_tracefs() : paths.tracefs; });
    return tracefs;
  }

  const events::Pmu* find_pmu(std::string_view name) const {
    for (const events::Pmu& pmu : pmus)
      if (pmu.name == name) return &pmu;
    return nullptr;
  }

  std::vector<std::string> event_names() const {
    std::vector<std::string> names;
    for (auto table : {events::hardware_events(), events::software_events()}) {
      for (const events::GenericEvent& event : table) {
        names.emplace_back(event.name);
        if (!event.alias.empty()) names.emplace_back(event.alias);
      }
    }
    for (std::string& name : events::hardware_cache_event_names()) names.push_back(std::move(name));
    for (const events::Pmu& pmu : pmus)
      for (const events::PmuEventAlias& alias : pmu.events) names.push_back(alias.name);
    return names;
  }

  Event resolve(const EventSpec& spec) const;
  void resolve_named(const EventSpec& spec, Event& event) const;
  void resolve_pmu(const EventSpec& spec, Event& event) const;
  void resolve_tracepoint(const EventSpec& spec, Event& event) const;
  void resolve_libpfm(const EventSpec& spec, Event& event) const;
  void resolve_pmc_core(const EventSpec& spec, Event& event) const;
  void apply_terms(const events::Pmu& pmu, const std::vector<events::Term>& terms, const EventSpec& spec, Event& event,
                   bool inside_alias) const;
};

namespace {

[[noreturn]] void fail(const EventSpec& spec, const std::string& why) {
  throw Error("invalid event '" + spec.text + "': " + why);
}

// Solaris cpc's x86 attributes edit the PERFEVTSEL fields of a raw event.
void apply_cpc_attributes(const EventSpec& spec, Event& event) {
  if (event.attr.type != PERF_TYPE_RAW || (event.attr.config >> 32) != 0)
    fail(spec, "cpc attributes (cmask, umask, inv, edge) edit a raw x86 event; name one with rNNNN or a vendor name.");
  events::PerfEvtSel select = events::PerfEvtSel::decode(event.attr.config);
  for (const events::Term& term : spec.cpc_attributes) {
    std::uint64_t value = 1;
    if (term.value) {
      auto number = events::parse_number(*term.value);
      if (!number || *number > 0xff) fail(spec, "cpc attribute '" + term.key + "' takes a number from 0 to 0xff.");
      value = *number;
    }
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
  attr.precise_ip = static_cast<std::uint64_t>(mods.precise);
  attr.exclude_idle = mods.exclude_idle;
  attr.exclusive = mods.exclusive;
  event.pinned = mods.pinned;
  event.group_read = mods.group_read;
  event.max_precise = mods.max_precise;
  event.weak_group = mods.weak_group;
}

std::uint64_t term_number(const EventSpec& spec, const events::Term& term) {
  if (!term.value) return 1;  // a bare flag term such as 'edge' means 1, as in perf
  auto value = events::parse_number(*term.value);
  if (!value) fail(spec, "term '" + term.key + "' needs a number (decimal or 0x hex), not '" + *term.value + "'.");
  return *value;
}

}  // namespace

void EventCatalog::State::resolve_named(const EventSpec& spec, Event& event) const {
  if (auto generic = events::find_generic_event(spec.name)) {
    event.attr.type = generic->type;
    event.attr.config = generic->config;
    event.pmu = generic->type == PERF_TYPE_SOFTWARE ? "software" : "cpu";
    return;
  }
  // A sysfs event alias written without its PMU ("tsc" for msr/tsc/): the first PMU that has it.
  for (const events::Pmu& pmu : pmus) {
    if (pmu.event(spec.name) != nullptr) {
      apply_terms(pmu, {events::Term{spec.name, std::nullopt}}, spec, event, false);
      return;
    }
  }
  std::vector<std::string> nearest = events::nearest_names(spec.name, event_names());
  for (std::string& name : events::nearest_pmc_core_names(spec.name)) nearest.push_back(std::move(name));
  std::string hint = events::did_you_mean(nearest);
  fail(spec, "unknown event '" + spec.name + "'" +
                 (hint.empty() ? "; run 'perfmon list' to see the events of this machine." : hint));
}

void EventCatalog::State::apply_terms(const events::Pmu& pmu, const std::vector<events::Term>& terms,
                                      const EventSpec& spec, Event& event, bool inside_alias) const {
  event.attr.type = pmu.type;
  event.pmu = pmu.name;
  event.cpus = pmu.cpus;
  for (const events::Term& term : terms) {
    if (term.key == "config") {
      event.attr.config = term_number(spec, term);
    } else if (term.key == "config1") {
      event.attr.config1 = term_number(spec, term);
    } else if (term.key == "config2") {
      event.attr.config2 = term_number(spec, term);
    } else if (term.key == "name") {
      if (!term.value) fail(spec, "term 'name' needs a value, like name=my-event.");
      event.name = *term.value;
    } else if (term.key == "period") {
      event.attr.sample_period = term_number(spec, term);
    } else if (term.key == "freq") {
      event.attr.sample_freq = term_number(spec, term);
      event.attr.freq = 1;
    } else if (const events::FormatField* field = pmu.format(term.key)) {
      if (term.value && *term.value == "?") fail(spec, "term '" + term.key + "' needs a value here.");
      try {
        events::pack_format_value(*field, term_number(spec, term), event.attr);
      } catch (const Error& error) {
        fail(spec, error.what());
      }
    } else if (const events::PmuEventAlias* alias = pmu.event(term.key); alias && !term.value && !inside_alias) {
      apply_terms(pmu, events::parse_terms(alias->terms, alias->terms), spec, event, true);
      event.scale = alias->scale;
      event.unit = alias->unit;
    } else {
      std::vector<std::string> known = {"config", "config1", "config2", "name", "period", "freq"};
      for (const events::FormatField& field : pmu.formats) known.push_back(field.name);
      for (const events::PmuEventAlias& alias : pmu.events) known.push_back(alias.name);
      std::string hint = events::did_you_mean(events::nearest_names(term.key, known));
      std::string listing;
      for (const events::FormatField& field : pmu.formats) listing += (listing.empty() ? "" : ", ") + field.name;
      fail(spec, "PMU '" + pmu.name + "' has no term or event '" + term.key + "'" +
                     (hint.empty() ? "; its format terms are: " + (listing.empty() ? "(none)" : listing) +
                                         "; see 'perfmon list " + pmu.name + "'."
                                   : hint));
    }
  }
}

void EventCatalog::State::resolve_pmu(const EventSpec& spec, Event& event) const {
  const events::Pmu* pmu = find_pmu(spec.name);
  if (pmu == nullptr) {
    std::vector<std::string> names;
    for (const events::Pmu& known : pmus) names.push_back(known.name);
    std::string hint = events::did_you_mean(events::nearest_names(spec.name, names));
    std::string listing;
    for (const std::string& name : names) listing += (listing.empty() ? "" : ", ") + name;
    fail(spec, "no PMU named '" + spec.name + "'" + (hint.empty() ? "; this machine has: " + listing + "." : hint));
  }
  if (spec.terms.empty()) fail(spec, "name an event or terms between the slashes, like " + spec.name + "/event=0x1/.");
  apply_terms(*pmu, spec.terms, spec, event, false);
}

void EventCatalog::State::resolve_tracepoint(const EventSpec& spec, Event& event) const {
  const std::string& root = tracefs_root();
  if (root.empty())
    fail(spec,
         "tracefs is not mounted and could not be mounted; run 'mount -t tracefs nodev /sys/kernel/tracing' as root.");
  auto id = events::tracepoint_id(root, spec.name, spec.event);
  if (!id && (events::find_generic_event(spec.name) || find_pmu(spec.name) != nullptr))
    fail(spec,
         "'" + spec.event + "' is not a modifier of '" + spec.name + "' (known: u k h G H p pp ppp P D S I e W).");
  if (!id) {
    std::vector<std::string> names;
    for (const events::Tracepoint& tp : events::list_tracepoints(root)) names.push_back(tp.subsystem + ":" + tp.name);
    std::string hint = events::did_you_mean(events::nearest_names(spec.name + ":" + spec.event, names));
    fail(spec, "unknown tracepoint '" + spec.name + ":" + spec.event + "'" +
                   (hint.empty() ? "; run 'perfmon list tracepoint' to see them." : hint));
  }
  event.attr.type = PERF_TYPE_TRACEPOINT;
  event.attr.config = *id;
  event.pmu = "tracepoint";
}

void EventCatalog::State::resolve_libpfm(const EventSpec& spec, Event& event) const {
  // "CYCLES" is perf's cycles in capitals, not a vendor name.
  if (spec.name.find(':') == std::string::npos) {
    if (auto generic = events::find_generic_event(spec.name)) {
      event.attr.type = generic->type;
      event.attr.config = generic->config;
      event.pmu = generic->type == PERF_TYPE_SOFTWARE ? "software" : "cpu";
      return;
    }
  }
  try {
    events::LibpfmEncoding encoding = events::libpfm_encode(spec.name, paths.cpu_model);
    event.attr = encoding.attr;
    std::size_t separator = encoding.canonical.find("::");
    event.pmu = separator == std::string::npos ? "cpu" : encoding.canonical.substr(0, separator);
  } catch (const Error& error) {
    std::vector<std::string> names;
    if (events::libpfm_available())
      for (const events::LibpfmEvent& known : events::libpfm_events(paths.cpu_model)) names.push_back(known.name);
    std::string stem = spec.name.substr(0, spec.name.find(':'));
    std::vector<std::string> nearest = events::nearest_names(stem, names);
    for (std::string& name : events::nearest_pmc_core_names(stem)) nearest.push_back(std::move(name));
    std::string hint = events::did_you_mean(nearest);
    std::string why = error.what();
    if (why.ends_with('.')) why.pop_back();
    std::size_t prefix = spec.name.find("::");
    if (prefix != std::string::npos && paths.cpu_model.empty())
      fail(spec, why + "; '" + spec.name.substr(0, prefix) +
                     "' may be another CPU model than this machine's: " + "'perfmon encode --pmu " +
                     spec.name.substr(0, prefix) + " " + spec.name + "' shows its encoding there.");
    fail(spec, why + (hint.empty() ? "; 'perfmon list --pmu MODEL' lists a model's events, 'perfmon encode --pmu "
                                     "MODEL NAME' encodes for another CPU."
                                   : hint));
  }
}

namespace {

// pmc.core codes mean Core Solo/Duo events only on that CPU (or when it is the forced model);
// the architectural ones among them mean the same on every Intel CPU.
void check_pmc_core_model(const EventSpec& spec, const std::string& forced_model, const events::PerfEvtSel& select) {
  if (forced_model == events::kPmcCoreModel) return;
  bool architectural = false;
  for (const events::ArchitecturalEvent& known : events::intel_architectural_events())
    architectural |= !known.fixed && known.event == select.event && known.umask == select.umask;
  std::string where;
  if (!forced_model.empty()) {
    where = "the model is '" + forced_model + "'";
    if (architectural && forced_model != "amd64" && !forced_model.starts_with("amd64_") &&
        !forced_model.starts_with("arm"))
      return;
  } else {
    std::optional<events::X86Signature> host = events::host_x86_signature();
    if (host && host->vendor == "GenuineIntel" && host->family == 6 && host->model == 14) return;
    if (host && host->vendor == "GenuineIntel" && architectural) return;
    where = host ? "this CPU is " + host->vendor + " family " + std::to_string(host->family) + " model " +
                       std::to_string(host->model)
                 : "this CPU is not x86";
  }
  fail(spec, "pmc.core events belong to Intel Core Solo/Duo (family 6, model 14) and " + where +
                 ", where the code counts something else; perfmon encode --pmu " + std::string(events::kPmcCoreModel) +
                 " '" + spec.text + "' shows its encoding.");
}

}  // namespace

void EventCatalog::State::resolve_pmc_core(const EventSpec& spec, Event& event) const {
  events::PmcEncoding encoding;
  try {
    encoding = events::encode_pmc_core(spec.event);
  } catch (const Error& error) {
    fail(spec, error.what());
  }
  const events::Modifiers& mods = spec.modifiers;
  if (encoding.rings_chosen && (mods.user || mods.kernel || mods.hypervisor) && !spec.cpc_counter)
    fail(spec, "choose the privilege levels once: with the os and usr qualifiers or with :u and :k, not both.");
  check_pmc_core_model(spec, paths.cpu_model, encoding.select);
  if (spec.cpc_counter && !((encoding.event->counters >> *spec.cpc_counter) & 1U))
    fail(spec, encoding.event->name + " counts only on " + events::describe_pmc_counters(encoding.event->counters) +
                   ", not on pic" + std::to_string(*spec.cpc_counter) + "; name it with that pic number.");
  event.attr = events::perfevtsel_to_attr(encoding.select);
  event.pmu = "cpu";
  event.counters = encoding.event->counters;
}

Event EventCatalog::State::resolve(const EventSpec& spec) const {
  Event event;
  event.name = spec.text;
  event.attr.size = sizeof(perf_event_attr);
  switch (spec.kind) {
    case EventSpec::Kind::Named:
      resolve_named(spec, event);
      break;
    case EventSpec::Kind::Pmu:
      resolve_pmu(spec, event);
      break;
    case EventSpec::Kind::Tracepoint:
      resolve_tracepoint(spec, event);
      break;
    case EventSpec::Kind::Libpfm:
      resolve_libpfm(spec, event);
      break;
    case EventSpec::Kind::FreebsdPmc:
      resolve_pmc_core(spec, event);
      break;
    case EventSpec::Kind::Pctr:
      event.attr = events::perfevtsel_to_attr(events::parse_pctr_word(spec.name));
      event.pmu = "cpu";
      break;
    case EventSpec::Kind::Raw:
      event.attr.type = PERF_TYPE_RAW;
      event.attr.config = spec.raw;
      event.pmu = "cpu";
      break;
    case EventSpec::Kind::Breakpoint:
      event.attr.type = PERF_TYPE_BREAKPOINT;
      event.attr.bp_type = spec.access;
      event.attr.bp_addr = spec.address;
      // perf's defaults: one instruction address for x, four bytes for data.
      if (spec.length != 0)
        event.attr.bp_len = spec.length;
      else if (spec.access == HW_BREAKPOINT_X)
        event.attr.bp_len = sizeof(long);
      else
        event.attr.bp_len = HW_BREAKPOINT_LEN_4;
      event.pmu = "breakpoint";
      break;
  }
  // A term such as name= may have renamed it; keep the user's modifiers visible either way.
  apply_modifiers(spec.modifiers, event);
  if (!spec.cpc_attributes.empty()) apply_cpc_attributes(spec, event);
  return event;
}

EventCatalog::EventCatalog() : EventCatalog(CatalogPaths{}) {}

EventCatalog::EventCatalog(CatalogPaths paths) : state_(std::make_unique<State>()) {
  state_->paths = std::move(paths);
  state_->pmus = events::discover_pmus(state_->paths.sysfs_devices);
}

EventCatalog::~EventCatalog() = default;
EventCatalog::EventCatalog(EventCatalog&&) noexcept = default;
EventCatalog& EventCatalog::operator=(EventCatalog&&) noexcept = default;

namespace {

// A group counts all its events at once, so events that only some counters take (pmc.core's
// PMC0/PMC1 events) must each find one of their own; software events take no counter.
void check_counter_placement(const EventGroup& group) {
  std::vector<std::uint32_t> masks;
  std::vector<const Event*> counted;
  bool restricted = false;
  for (const Event& event : group.events) {
    if (event.pmu != "cpu") continue;
    restricted |= event.counters != 0;
    masks.push_back(event.counters != 0 ? event.counters : events::kPmcAnyCounter);
    counted.push_back(&event);
  }
  if (!restricted || !events::place_on_counters(masks, events::kPmcCoreCounters).empty()) return;
  std::string names, limits;
  for (const Event* event : counted) {
    names += (names.empty() ? "'" : ", '") + event->name + "'";
    if (event->counters != 0)
      limits += "; " + event->name + " counts only on " + events::describe_pmc_counters(event->counters);
  }
  throw Error("invalid event group: " + names +
              " cannot count at once on Intel Core Solo/Duo's two counters PMC0 and PMC1" + limits +
              "; put them in separate groups so that they take turns.");
}

// Hybrid CPUs (Alder Lake and later) register one core PMU per kind of core, cpu_core and
// cpu_atom, each covering its CPUs; there is no "cpu" PMU.
std::vector<const events::Pmu*> hybrid_core_pmus(const std::vector<events::Pmu>& pmus) {
  std::vector<const events::Pmu*> cores;
  for (const events::Pmu& pmu : pmus)
    if (pmu.name.starts_with("cpu_") && !pmu.cpus.empty()) cores.push_back(&pmu);
  if (cores.size() < 2) cores.clear();
  // In CPU order: the performance cores come first on the machines that have them.
  std::sort(cores.begin(), cores.end(),
            [](const events::Pmu* a, const events::Pmu* b) { return a->cpus.front() < b->cpus.front(); });
  return cores;
}

bool counts_on_the_core_pmu(const Event& event) {
  std::uint32_t type = event.attr.type;
  return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW;
}

// As perf does on hybrid CPUs: a core event opens once per core PMU, for that PMU's CPUs (generic
// events carry the PMU type in config's high half, raw ones take it as their type), and a group
// becomes one group per core PMU. Events of other PMUs stay in the first copy of their group.
std::vector<EventGroup> split_for_hybrid(EventGroup group, const std::vector<const events::Pmu*>& cores) {
  bool has_core_event = std::any_of(group.events.begin(), group.events.end(), counts_on_the_core_pmu);
  if (!has_core_event) return {std::move(group)};
  std::vector<EventGroup> split;
  for (const events::Pmu* pmu : cores) {
    EventGroup copy;
    for (const Event& event : group.events) {
      if (!counts_on_the_core_pmu(event)) {
        if (split.empty()) copy.events.push_back(event);
        continue;
      }
      Event per_pmu = event;
      if (event.attr.type == PERF_TYPE_RAW)
        per_pmu.attr.type = pmu->type;
      else
        per_pmu.attr.config = (event.attr.config & 0xffffffffULL) | (std::uint64_t{pmu->type} << 32);
      per_pmu.total_name = event.name;
      per_pmu.name = pmu->name + "/" + event.name + "/";
      per_pmu.pmu = pmu->name;
      per_pmu.cpus = pmu->cpus;
      copy.events.push_back(std::move(per_pmu));
    }
    split.push_back(std::move(copy));
  }
  return split;
}

}  // namespace

std::vector<EventGroup> EventCatalog::parse(std::string_view list) const {
  std::vector<EventGroup> groups;
  std::vector<const events::Pmu*> cores = hybrid_core_pmus(state_->pmus);
  for (const events::GroupSpec& group_spec : events::parse_event_list_syntax(list)) {
    EventGroup group;
    for (const EventSpec& spec : group_spec.events) group.events.push_back(state_->resolve(spec));
    check_counter_placement(group);
    if (cores.empty()) {
      groups.push_back(std::move(group));
      continue;
    }
    for (EventGroup& split : split_for_hybrid(std::move(group), cores)) groups.push_back(std::move(split));
  }
  return groups;
}

Event EventCatalog::resolve(std::string_view text) const {
  auto groups = events::parse_event_list_syntax(text);
  if (groups.size() != 1 || groups.front().braced || groups.front().events.size() != 1)
    throw Error("invalid event '" + std::string(text) + "': expected one event, not a list or a group.");
  return state_->resolve(groups.front().events.front());
}

const std::string& EventCatalog::tracefs_root() const {
  return state_->tracefs_root();
}

std::vector<CatalogEntry> EventCatalog::entries() const {
  std::vector<CatalogEntry> entries;
  auto add = [&](std::string name, std::string source, std::string description, bool with_attr) {
    CatalogEntry entry;
    entry.name = std::move(name);
    entry.source = std::move(source);
    entry.description = std::move(description);
    if (with_attr) {
      entry.attr = resolve(entry.name).attr;
      entry.has_attr = true;
    }
    entries.push_back(std::move(entry));
  };
  for (const events::GenericEvent& event : events::hardware_events())
    add(std::string(event.name), "hardware",
        std::string(event.description) + (event.alias.empty() ? "" : " [alias: " + std::string(event.alias) + "]"),
        true);
  for (const events::GenericEvent& event : events::software_events())
    add(std::string(event.name), "software",
        std::string(event.description) + (event.alias.empty() ? "" : " [alias: " + std::string(event.alias) + "]"),
        true);
  for (const std::string& name : events::hardware_cache_event_names())
    add(name, "hw-cache", "hardware cache event", true);
  for (const events::Pmu& pmu : state_->pmus) {
    for (const events::PmuEventAlias& alias : pmu.events) {
      std::string description = "PMU " + pmu.name + " (type " + std::to_string(pmu.type) + "): " + alias.terms;
      if (!alias.unit.empty()) description += ", in " + alias.unit;
      add(pmu.name + "/" + alias.name + "/", "pmu", description, true);
    }
  }
  for (const events::LibpfmEvent& event : events::libpfm_events(state_->paths.cpu_model))
    add(event.name, "vendor", event.description, true);
  for (const events::PmcCoreEvent& event : events::pmc_core_events()) {
    CatalogEntry entry;
    entry.name = "pmc.core/" + event.name + "/";
    entry.source = "pmc.core";
    entry.description = "Intel Core Solo/Duo: " + event.description;
    std::string qualifiers = events::pmc_core_qualifiers(event);
    if (!qualifiers.empty()) entry.description += " [" + qualifiers + "]";
    if (event.counters != events::kPmcAnyCounter)
      entry.description += " [" + events::describe_pmc_counters(event.counters) + " only]";
    try {  // usable only on that CPU: elsewhere the row is documentation
      entry.attr = resolve(entry.name).attr;
      entry.has_attr = true;
    } catch (const Error&) {
    }
    entries.push_back(std::move(entry));
  }
  for (const events::Tracepoint& tp : events::list_tracepoints(tracefs_root()))
    add(tp.subsystem + ":" + tp.name, "tracepoint", "tracepoint", true);
  add("rNNN", "raw", "raw event code for the core PMU, in hex (see the CPU's manual)", false);
  add("mem:ADDR[/LEN][:rwx]", "breakpoint", "hardware breakpoint: count reads, writes or executions of ADDR", false);
  return entries;
}

std::vector<PmuSummary> EventCatalog::pmus() const {
  std::vector<PmuSummary> result;
  for (const events::Pmu& pmu : state_->pmus) {
    PmuSummary summary;
    summary.name = pmu.name;
    summary.type = pmu.type;
    for (const events::FormatField& field : pmu.formats) {
      std::string text = field.name + "=";
      int word = field.ranges.front().word;
      text += word == 0 ? "config:" : "config" + std::to_string(word) + ":";
      for (std::size_t i = 0; i < field.ranges.size(); ++i) {
        const events::BitRange& range = field.ranges[i];
        if (i > 0) text += ",";
        text += std::to_string(range.low);
        if (range.high != range.low) text += "-" + std::to_string(range.high);
      }
      summary.formats.push_back(text);
    }
    summary.event_count = pmu.events.size();
    summary.cpus = kernel::format_cpu_list(pmu.cpus);
    summary.caps = pmu.caps;
    result.push_back(std::move(summary));
  }
  return result;
}

}  // namespace perfmon
