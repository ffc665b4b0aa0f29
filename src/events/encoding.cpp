// SPDX-License-Identifier: Apache-2.0
#include "perfmon/encoding.hpp"

#include "events/counter_placement.hpp"
#include "events/sources/architectural_events.hpp"
#include "events/sources/libpfm.hpp"
#include "events/sources/pmc_core.hpp"
#include "events/syntax/pctr.hpp"
#include "events/syntax/perf_grammar.hpp"
#include "events/syntax/text.hpp"
#include "perfmon/error.hpp"

namespace perfmon {

namespace {

// An Intel architectural event name, with perf's modifiers: INST_RETIRED.ANY_P:u.
std::optional<EventEncoding> encode_architectural(std::string_view text) {
  const std::size_t colon = text.find(':');
  const events::ArchitecturalEvent* event = events::find_architectural_event(std::string(text.substr(0, colon)));
  if (event == nullptr) return std::nullopt;
  events::Modifiers mods = events::parse_modifiers(colon == std::string_view::npos ? "" : text.substr(colon + 1), text);
  PerfEvtSel select;
  select.event = event->event;
  select.umask = event->umask;
  const bool any_ring = mods.user || mods.kernel;
  select.usr = !any_ring || mods.user;
  select.os = !any_ring || mods.kernel;
  select.interrupt = select.enable = true;  // as the kernel programs a counting event
  EventEncoding encoding;
  encoding.name = event->name;
  encoding.pmu = "cpu";
  encoding.architectural_name = event->architectural_name;
  if (event->fixed) {
    encoding.fixed_counter = event->fixed_counter;
    encoding.fixed_msr = event->fixed_msr;
  } else {
    encoding.select = select;
    encoding.cpuid_ebx_bit = event->ebx_bit;
  }
  encoding.attr = perfevtsel_to_attr(select);
  return encoding;
}

}  // namespace

std::vector<EventEncoding> encode_events(const EventCatalog& catalog, std::string_view list) {
  if (catalog.cpu_model().empty())
    if (std::optional<EventEncoding> architectural = encode_architectural(list)) return {*architectural};
  std::vector<EventEncoding> encodings;
  for (const EventGroup& group : catalog.parse(list)) {
    for (const Event& event : group.events) {
      EventEncoding encoding;
      encoding.name = event.name;
      encoding.pmu = event.pmu;
      if (event.attr.type == PERF_TYPE_RAW && (event.attr.config >> 32) == 0)
        encoding.select = attr_to_perfevtsel(event.attr);
      if (event.counters != 0) encoding.counters = events::describe_counters(event.counters);
      encoding.attr = event.attr;
      encodings.push_back(std::move(encoding));
    }
  }
  return encodings;
}

SelectDecoding decode_perfevtsel(const EventCatalog& catalog, std::uint64_t value) {
  SelectDecoding decoding;
  decoding.select = PerfEvtSel::decode(value);
  const PerfEvtSel& select = decoding.select;
  decoding.pctr_word = events::format_pctr_word(select);
  decoding.attr = perfevtsel_to_attr(select);
  if (const events::ArchitecturalEvent* event = events::find_architectural_event(select.event, select.umask))
    decoding.names.push_back({event->name, "Intel architectural: " + event->architectural_name});
  const std::string& model = catalog.cpu_model();
  if (model == events::kPmcCoreModel) {
    for (const events::PmcCoreEvent* event : events::find_pmc_core_events(select))
      decoding.names.push_back({"pmc.core/" + events::format_pmc_core(*event, select) + "/", model});
    return decoding;
  }
  // The model's events whose plain encoding is this value (rings, INT and EN aside).
  const std::string origin = model.empty() ? "this CPU's table" : model;
  for (const events::LibpfmEvent& known : events::libpfm_events(model))
    if (known.config == decoding.attr.config) decoding.names.push_back({known.name, origin});
  return decoding;
}

SelectDecoding decode_perfevtsel(const EventCatalog& catalog, std::string_view value) {
  events::Number number = events::parse_number(value);
  if (number.status == events::Number::Status::NotANumber)
    throw Error(ErrorKind::InvalidArgument,
                "'" + std::string(value) + "' is not a number; write it in hex (0x4100c0) or decimal.");
  if (number.status == events::Number::Status::TooLarge)
    throw Error(ErrorKind::InvalidArgument, "invalid PERFEVTSEL value " + std::string(value) +
                                                ": a register is 64 bits, of which 63:32 are reserved.");
  return decode_perfevtsel(catalog, *number);
}

}  // namespace perfmon
