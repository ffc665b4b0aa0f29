// SPDX-License-Identifier: Apache-2.0
#include "perfmon/annotation.hpp"

#include "kernel/file_mapping.hpp"
#include "profiles/disassembler.hpp"
#include "profiles/flat_index.hpp"
#include "profiles/recorded_processes.hpp"

#include <elf.h>

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "perfmon/symbolizer.hpp"

namespace perfmon {

namespace {

struct Counts {
  std::uint64_t samples = 0, period = 0;
  void add(std::uint64_t more_samples, std::uint64_t more_period) {
    samples += more_samples;
    period += more_period;
  }
};

// What one event's samples in one function came to.
struct FunctionSamples {
  std::string dso, name;
  bool kernel = false;
  std::uint64_t file_offset = 0;   // of one of its addresses, to find it in its file again
  std::uint64_t kernel_start = 0;  // a kernel function's address (its file offset is no use)
  Counts total;
  std::map<std::uint64_t, Counts> at;  // by offset into the function
};

struct EventSamples {
  std::string name;
  Counts total;
  std::vector<Counts> at_address;  // by the address's place in State::addresses
  // Summed from at_address when asked (settle()), by the symbol tables' name of the function,
  // which is one per file and function.
  std::unordered_map<const std::string_view*, FunctionSamples> functions;
};

std::string architecture_name(std::uint16_t machine) {
  if (machine == EM_X86_64) return "x86-64";
  if (machine == EM_AARCH64) return "arm64";
  return "ELF machine " + std::to_string(machine);
}

// Source files' lines, each file read once (regular files only: DWARF may name anything).
class SourceFiles {
 public:
  std::string line(const std::string& path, unsigned number) {
    auto [known, added] = files_.try_emplace(path);
    if (added) {
      if (const std::optional<kernel::FileMapping> file = kernel::FileMapping::map(path)) {
        std::string_view rest = file->bytes();
        while (!rest.empty()) {
          const std::size_t end = rest.find('\n');
          known->second.emplace_back(rest.substr(0, end));
          rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
        }
      }
    }
    const std::vector<std::string>& lines = known->second;
    return number >= 1 && number <= lines.size() ? lines[number - 1] : std::string();
  }

 private:
  std::map<std::string, std::vector<std::string>> files_;
};

// Adds an instruction's cost to the line tree, level by level of its source frames.
void place_instruction(std::vector<AnnotatedLine>& lines, const std::vector<SourceFrame>& source, std::uint32_t index,
                       const AnnotatedInstruction& instruction) {
  static const std::vector<SourceFrame> kNoSource(1);
  const std::vector<SourceFrame>& frames = source.empty() ? kNoSource : source;
  std::vector<AnnotatedLine>* level = &lines;
  for (std::size_t k = 0; k < frames.size(); ++k) {
    auto line = std::find_if(level->begin(), level->end(), [&](const AnnotatedLine& known) {
      return known.file == frames[k].file && known.line == frames[k].line;
    });
    if (line == level->end()) {
      level->push_back({frames[k].file, frames[k].line, {}, 0, 0, {}, {}});
      line = std::prev(level->end());
    }
    line->samples += instruction.samples;
    line->period += instruction.period;
    if (k + 1 == frames.size()) {
      line->instructions.push_back(index);
      return;
    }
    auto call = std::find_if(line->calls.begin(), line->calls.end(),
                             [&](const InlinedCall& known) { return known.function == frames[k + 1].function; });
    if (call == line->calls.end()) {
      line->calls.push_back({frames[k + 1].function, 0, 0, {}});
      call = std::prev(line->calls.end());
    }
    call->samples += instruction.samples;
    call->period += instruction.period;
    level = &call->lines;
  }
}

// The lowest-addressed instruction of a line's code, its inlined calls' included.
std::uint32_t first_instruction(const AnnotatedLine& line) {
  std::uint32_t first = line.instructions.empty() ? UINT32_MAX : line.instructions.front();
  for (const InlinedCall& call : line.calls)
    for (const AnnotatedLine& inner : call.lines) first = std::min(first, first_instruction(inner));
  return first;
}

// Each level's lines in source order: by file, in the order the code first reaches each, then by
// line; instructions that no line describes last. Their text read from the source files.
void order_lines(std::vector<AnnotatedLine>& lines, SourceFiles& sources) {
  std::map<std::string, std::uint32_t> first_reached;  // file -> its lowest instruction
  for (const AnnotatedLine& line : lines) {
    auto [known, added] = first_reached.try_emplace(line.file, first_instruction(line));
    if (!added) known->second = std::min(known->second, first_instruction(line));
  }
  std::stable_sort(lines.begin(), lines.end(), [&](const AnnotatedLine& a, const AnnotatedLine& b) {
    if (a.line == 0 || b.line == 0) return a.line != 0 && b.line == 0;
    if (a.file != b.file) return first_reached[a.file] < first_reached[b.file];
    return a.line < b.line;
  });
  for (AnnotatedLine& line : lines) {
    if (line.line != 0) line.text = sources.line(line.file, line.line);
    for (InlinedCall& call : line.calls) order_lines(call.lines, sources);
  }
}

// The function's samples on the instructions that hold their addresses; without instructions, an
// instruction without text (its name and offset) for each sampled address.
void charge_samples(const FunctionSamples& function, Annotation& annotation) {
  const bool disassembled = !annotation.instructions.empty();
  for (const auto& [into, counts] : function.at) {
    const std::uint64_t address = annotation.start + into;
    auto after = std::upper_bound(annotation.instructions.begin(), annotation.instructions.end(), address,
                                  [](std::uint64_t a, const AnnotatedInstruction& i) { return a < i.address; });
    if (!disassembled || after == annotation.instructions.begin()) {
      char place[32];
      std::snprintf(place, sizeof place, "+0x%" PRIx64, into);
      annotation.instructions.insert(after, {address, function.name + place, counts.samples, counts.period, {}});
      continue;
    }
    std::prev(after)->samples += counts.samples;
    std::prev(after)->period += counts.period;
  }
}

}  // namespace

struct AnnotationSamples::State {
  std::shared_ptr<SymbolTables> symbols;
  Symbolizer symbolizer;
  std::vector<EventSamples> events;
  // Each address named once while its process's mappings stay as they were (a new generation
  // gets a place of its own): most of a recording's samples land on a few thousand addresses, and
  // a sample costs a look-up and an add.
  analysis::RecordedProcesses processes;
  // What an annotation needs of a named address: no path of its own (a profile of a stripped
  // program has hundreds of thousands of unnamed addresses, each once a path's copy).
  struct Address {
    std::uint64_t generation, address;
    const std::string_view* function;  // nullptr: none names it
    std::uint64_t into, file_offset;
    std::uint32_t file;  // in `files`
    bool kernel;
  };
  analysis::FlatIndex<analysis::ProcessAddress, analysis::ProcessAddressHash> address_index;
  std::vector<Address> addresses;
  // The paths of named addresses: one is added where the address named before lay in another file.
  std::vector<std::string> files;

  explicit State(std::shared_ptr<SymbolTables> tables) : symbols(tables), symbolizer(std::move(tables)) {}

  // The last address asked for, valid until the next record that may change a process: samples
  // come in runs on one address (a loop's, a system call's).
  analysis::ProcessAddress last;
  bool last_valid = false;
  std::uint32_t last_index = 0;

  std::uint32_t address_of(std::uint32_t pid, std::uint64_t address, bool kernel) {
    const analysis::ProcessAddress asked{pid, kernel, address};
    if (last_valid && asked == last) return last_index;
    last = asked;
    last_valid = true;
    last_index = place_of(pid, address, kernel);
    return last_index;
  }

  std::uint32_t place_of(std::uint32_t pid, std::uint64_t address, bool kernel) {
    const std::uint64_t generation = processes.generation_of(pid);
    const auto next = static_cast<std::uint32_t>(addresses.size());
    auto [at, added] = address_index.try_emplace({pid, kernel, address}, next);
    if (added || addresses[*at].generation != generation) {
      *at = next;
      const NamedAddress named = symbolizer.name(pid, address, kernel);
      std::uint32_t file = 0;
      if (named.function != nullptr) {
        // Most addresses named one after another lie in the file of the one before.
        if (files.empty() || files.back() != named.place.file) files.push_back(named.place.file);
        file = static_cast<std::uint32_t>(files.size() - 1);
      }
      addresses.push_back({generation, address, named.function, named.into, named.place.offset, file, named.kernel});
    }
    return *at;
  }

  // The samples counted by address since the last time, added to their functions.
  void settle() {
    for (EventSamples& event : events) {
      for (std::size_t a = 0; a < event.at_address.size(); ++a) {
        const Counts& counts = event.at_address[a];
        const Address& named = addresses[a];
        if (counts.samples == 0 || named.function == nullptr) continue;  // no function to annotate
        auto [function, added] = event.functions.try_emplace(named.function);
        if (added) {
          function->second.dso = files[named.file];
          function->second.name = std::string(*named.function);
          function->second.kernel = named.kernel;
          function->second.file_offset = named.file_offset;
          function->second.kernel_start = named.address - named.into;
        }
        function->second.total.add(counts.samples, counts.period);
        function->second.at[named.into].add(counts.samples, counts.period);
      }
      event.at_address.clear();
    }
  }
};

AnnotationSamples::AnnotationSamples(std::vector<std::string> event_names, std::string debug_root)
    : AnnotationSamples(std::move(event_names), std::make_shared<SymbolTables>(std::move(debug_root))) {}

AnnotationSamples::AnnotationSamples(std::vector<std::string> event_names, std::shared_ptr<SymbolTables> symbols)
    : state_(std::make_unique<State>(std::move(symbols))) {
  for (std::string& name : event_names) state_->events.push_back({std::move(name), {}, {}, {}});
}

AnnotationSamples::~AnnotationSamples() = default;

void AnnotationSamples::record(const perf_event_header& record) {
  state_->last_valid = false;
  state_->processes.record(record);
  state_->symbolizer.record(record);
}

void AnnotationSamples::context(const perf_event_header& header) {
  record(header);
}

void AnnotationSamples::merge(const AnnotationSamples& later) {
  State& s = *state_;
  State& other = *later.state_;
  s.settle();
  other.settle();
  for (std::size_t e = 0; e < s.events.size() && e < other.events.size(); ++e) {
    EventSamples& to = s.events[e];
    to.total.add(other.events[e].total.samples, other.events[e].total.period);
    // Both named through the same symbol tables: a function's name is the same pointer in both.
    for (const auto& [key, function] : other.events[e].functions) {
      auto [into, added] = to.functions.try_emplace(key, function);
      if (added) continue;
      into->second.total.add(function.total.samples, function.total.period);
      for (const auto& [offset, counts] : function.at) into->second.at[offset].add(counts.samples, counts.period);
    }
  }
}

void AnnotationSamples::sample(std::size_t event, const Sample& sample) {
  State& s = *state_;
  if (event >= s.events.size()) return;
  EventSamples& samples = s.events[event];
  const std::uint64_t period = sample.period != 0 ? sample.period : 1;
  samples.total.add(1, period);
  const bool kernel =
      sample.record != nullptr && (sample.record->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
  const std::uint32_t address = s.address_of(sample.pid, sample.ip, kernel);
  if (address >= samples.at_address.size()) samples.at_address.resize(s.addresses.size());
  samples.at_address[address].add(1, period);
}

std::size_t AnnotationSamples::events() const noexcept {
  return state_->events.size();
}

const std::string& AnnotationSamples::event_name(std::size_t event) const {
  return state_->events.at(event).name;
}

std::uint64_t AnnotationSamples::samples(std::size_t event) const {
  return state_->events.at(event).total.samples;
}

std::vector<AnnotationSamples::Function> AnnotationSamples::functions(std::size_t event) const {
  state_->settle();
  std::vector<Function> found;
  for (const auto& [key, function] : state_->events.at(event).functions)
    found.push_back({function.dso, function.name, function.kernel, function.total.samples, function.total.period});
  std::sort(found.begin(), found.end(), [](const Function& a, const Function& b) {
    return std::tie(b.period, a.name, a.dso) < std::tie(a.period, b.name, b.dso);
  });
  return found;
}

Annotation AnnotationSamples::annotate(std::size_t event, const Function& wanted, Syntax syntax) const {
  state_->settle();
  const EventSamples& samples = state_->events.at(event);
  Annotation annotation;
  annotation.event = samples.name;
  annotation.dso = wanted.dso;
  annotation.function = wanted.name;
  annotation.kernel = wanted.kernel;
  annotation.event_samples = samples.total.samples;
  annotation.event_period = samples.total.period;
  const FunctionSamples* function = nullptr;
  for (const auto& [key, known] : samples.functions)
    if (known.name == wanted.name && known.dso == wanted.dso) function = &known;
  if (function == nullptr) return annotation;
  annotation.samples = function->total.samples;
  annotation.period = function->total.period;

  std::optional<FunctionCode> code;
  if (function->kernel) {
    annotation.start = function->kernel_start;
    annotation.note = "perfmon does not read the kernel's code: the sampled addresses are shown without instructions";
  } else {
    code = state_->symbols->function_code(function->dso, function->file_offset);
    if (code) {
      annotation.start = code->start;
      annotation.size = code->size;
      annotation.architecture = architecture_name(code->machine);
      std::string why_not;
      for (analysis::Instruction& instruction :
           analysis::disassemble(code->machine, code->bytes, code->start, syntax == Syntax::Intel, why_not))
        annotation.instructions.push_back({instruction.address, std::move(instruction.text), 0, 0, {}});
      if (code->bytes.empty())
        annotation.note =
            "the function's code is not in " + function->dso + " (it is gone or was replaced since the recording)";
      else if (!why_not.empty())
        annotation.note = why_not;
    } else {
      annotation.note =
          function->dso + " no longer holds this function (it is gone or was replaced since the recording)";
    }
  }
  charge_samples(*function, annotation);
  bool any_source = false;
  for (std::uint32_t i = 0; i < annotation.instructions.size(); ++i) {
    AnnotatedInstruction& instruction = annotation.instructions[i];
    if (code) instruction.source = state_->symbols->source_frames(function->dso, instruction.address);
    any_source = any_source || !instruction.source.empty();
    place_instruction(annotation.lines, instruction.source, i, instruction);
  }
  if (!any_source && code && annotation.note.empty())
    annotation.note = "no DWARF line information for " + function->dso +
                      " (build it with -g, or install its debug file): instructions only";
  SourceFiles sources;
  order_lines(annotation.lines, sources);
  return annotation;
}

}  // namespace perfmon
