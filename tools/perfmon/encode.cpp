// perfmon encode / perfmon decode: an event name to its encodings, and a PERFEVTSEL value back to
// its fields and name.
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "events/event_syntax.hpp"
#include "events/freebsd_pmc.hpp"
#include "events/libpfm.hpp"
#include "events/pctr.hpp"
#include "events/perfevtsel.hpp"
#include "events/x86_cpuid.hpp"
#include "options.hpp"
#include "perfmon/catalog.hpp"
#include "perfmon/error.hpp"

namespace perfmon::cli {

namespace {

void print_attr(const perf_event_attr& attr) {
  std::printf("perf attr:   type=%u config=0x%llx", attr.type, static_cast<unsigned long long>(attr.config));
  if (attr.config1) std::printf(" config1=0x%llx", static_cast<unsigned long long>(attr.config1));
  if (attr.config2) std::printf(" config2=0x%llx", static_cast<unsigned long long>(attr.config2));
  if (attr.exclude_user) std::printf(" exclude_user");
  if (attr.exclude_kernel) std::printf(" exclude_kernel");
  if (attr.exclude_hv) std::printf(" exclude_hv");
  if (attr.precise_ip) std::printf(" precise_ip=%u", static_cast<unsigned>(attr.precise_ip));
  std::printf("\n");
}

// An Intel architectural event name, with perf-style modifiers: INST_RETIRED.ANY_P:u.
bool encode_architectural(const std::string& text) {
  std::size_t colon = text.find(':');
  const events::ArchitecturalEvent* event = events::find_architectural_event(text.substr(0, colon));
  if (event == nullptr) return false;
  events::Modifiers mods = events::parse_modifiers(colon == std::string::npos ? "" : text.substr(colon + 1), text);
  events::PerfEvtSel select;
  select.event = event->event;
  select.umask = event->umask;
  bool any_ring = mods.user || mods.kernel;
  select.usr = !any_ring || mods.user;
  select.os = !any_ring || mods.kernel;
  select.interrupt = select.enable = true;  // as the kernel programs a counting event
  std::printf("event:       %s (Intel architectural: %s)\n", event->name.c_str(), event->architectural_name.c_str());
  if (event->fixed) {
    std::printf("counter:     fixed counter %u, IA32_FIXED_CTR%u at MSR %xH\n", *event->fixed_counter,
                *event->fixed_counter, *event->fixed_msr);
  } else {
    std::printf("counter:     any general-purpose counter; CPUID.0AH:EBX bit %u says whether the CPU has it\n",
                *event->ebx_bit);
    std::printf("PERFEVTSEL:  0x%llx (%s)\n", static_cast<unsigned long long>(select.encode()),
                select.describe().c_str());
  }
  print_attr(events::perfevtsel_to_attr(select));
  return true;
}

}  // namespace

int run_encode(std::span<char* const> args) {
  std::string model;
  std::vector<std::string> names;
  if (auto status = parse_command_line(
          args, "encode", "perfmon encode [--pmu MODEL] EVENT...  (perf or libpfm4 syntax, Intel architectural names)",
          {{0, "pmu", "model", "encode for this CPU model (libpfm4's names: skl, icl, spr, amd64_fam19h_zen3, ...)",
            [&](std::string_view v) { model = std::string(v); }}},
          names, [](const std::vector<std::string>& words) {
            if (words.empty()) throw UsageError("name at least one event, like 'perfmon encode INST_RETIRED.ANY_P:u'");
          }))
    return *status;
  try {
    CatalogPaths paths;
    paths.cpu_model = model;
    EventCatalog catalog(paths);
    for (const std::string& name : names) {
      if (model.empty() && encode_architectural(name)) continue;
      for (const EventGroup& group : catalog.parse(name)) {
        for (const Event& event : group.events) {
          std::printf("event:       %s (PMU %s)\n", event.name.c_str(), event.pmu.c_str());
          if (event.attr.type == PERF_TYPE_RAW && (event.attr.config >> 32) == 0) {
            events::PerfEvtSel select = events::attr_to_perfevtsel(event.attr);
            std::printf("PERFEVTSEL:  0x%llx (%s)\n", static_cast<unsigned long long>(select.encode()),
                        select.describe().c_str());
          }
          if (event.counters != 0)
            std::printf("counters:    %s only\n", events::describe_pmc_counters(event.counters).c_str());
          print_attr(event.attr);
        }
      }
    }
    return 0;
  } catch (const Error& error) {
    std::fprintf(stderr, "perfmon encode: %s\n", error.what());
    return 129;
  }
}

// The names `model`'s table gives the event `select` encodes (its rings, INT and EN aside).
std::vector<std::string> model_event_names(const events::PerfEvtSel& select, const std::string& model) {
  std::vector<std::string> names;
  if (model == events::kPmcCoreModel) {
    for (const events::PmcCoreEvent* event : events::find_pmc_core_events(select))
      names.push_back("pmc.core/" + events::format_pmc_core(*event, select) + "/");
    return names;
  }
  if (!events::libpfm_available()) return names;
  const std::uint64_t wanted = events::perfevtsel_to_attr(select).config;
  for (const events::LibpfmEvent& known : events::libpfm_events(model)) {
    try {
      if (events::libpfm_encode(known.name, model).attr.config == wanted) names.push_back(known.name);
    } catch (const Error&) {
      // an entry that needs a qualifier to encode cannot be this plain value
    }
  }
  return names;
}

int run_decode(std::span<char* const> args) {
  std::vector<std::string> values;
  std::string model;
  if (auto status =
          parse_command_line(args, "decode", "perfmon decode [--pmu MODEL] VALUE...  (an IA32_PERFEVTSELx value)",
                             {{0, "pmu", "model",
                               "name the event from this model's table (libpfm4's names, or coreduo for "
                               "pmc.core); default: this machine's",
                               [&](std::string_view v) { model = std::string(v); }}},
                             values, [](const std::vector<std::string>& words) {
                               if (words.empty())
                                 throw UsageError("give a PERFEVTSEL value, like 'perfmon decode 0x4100c0'");
                             }))
    return *status;
  try {
    for (const std::string& text : values) {
      auto value = events::parse_number(text);
      if (!value) throw Error("'" + text + "' is not a number; write it in hex (0x4100c0) or decimal.");
      events::PerfEvtSel select = events::PerfEvtSel::decode(*value);
      std::printf("PERFEVTSEL:  0x%llx\n", static_cast<unsigned long long>(*value));
      std::printf("  event select  7:0   0x%02x\n  unit mask    15:8   0x%02x\n", select.event, select.umask);
      std::printf("  USR             16  %d\n  OS              17  %d\n  edge            18  %d\n", select.usr,
                  select.os, select.edge);
      std::printf("  PC              19  %d\n  INT             20  %d\n  AnyThread       21  %d\n", select.pin_control,
                  select.interrupt, select.any_thread);
      std::printf("  EN              22  %d\n  INV             23  %d\n  CMASK       31:24   0x%02x\n", select.enable,
                  select.invert, select.cmask);
      std::printf("pctr word:   %s\n", events::format_pctr_word(select).c_str());
      bool named = false;
      for (const events::ArchitecturalEvent& event : events::intel_architectural_events()) {
        if (event.fixed || event.event != select.event || event.umask != select.umask) continue;
        std::printf("event:       %s (Intel architectural: %s)\n", event.name.c_str(),
                    event.architectural_name.c_str());
        named = true;
      }
      std::vector<std::string> names = model_event_names(select, model);
      for (const std::string& name : names)
        std::printf("event:       %s (%s)\n", name.c_str(), model.empty() ? "this CPU's table" : model.c_str());
      if (!named && names.empty())
        std::printf(
            "event:       no event of %s's table has this code; 'perfmon list --pmu MODEL' shows a model's events\n",
            model.empty() ? "this CPU" : model.c_str());
      print_attr(events::perfevtsel_to_attr(select));
    }
    return 0;
  } catch (const Error& error) {
    std::fprintf(stderr, "perfmon decode: %s\n", error.what());
    return 129;
  }
}

}  // namespace perfmon::cli
