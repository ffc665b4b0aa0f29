// SPDX-License-Identifier: Apache-2.0
#include "perfmon/pprof.hpp"

#if PERFMON_HAVE_ZLIB
#include <zlib.h>
#endif

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <span>

#include "kernel/build_id.hpp"
#include "kernel/loaded_library.hpp"
#include "kernel/records.hpp"
#include "perfmon/error.hpp"
#include "perfmon/profile.hpp"
#include "perfmon/symbolizer.hpp"
#include "profiles/flat_index.hpp"
#include "profiles/name_table.hpp"
#include "profiles/protobuf_writer.hpp"
#include "profiles/recorded_processes.hpp"

namespace perfmon {

namespace {

using analysis::FlatIndex;
using analysis::mix_words;
using analysis::NameTable;
using analysis::ProtobufWriter;

constexpr std::uint32_t kNone = 0xffffffff;

// profile.proto's field numbers.
namespace field {
enum Profile : unsigned {
  kSampleType = 1,
  kSample = 2,
  kMapping = 3,
  kLocation = 4,
  kFunction = 5,
  kStringTable = 6,
  kTimeNanos = 9,
  kDurationNanos = 10,
  kPeriodType = 11,
  kPeriod = 12,
  kComment = 13,
  kDefaultSampleType = 14,
};
enum ValueType : unsigned { kType = 1, kUnit = 2 };
enum Sample : unsigned { kLocationId = 1, kValue = 2, kLabel = 3 };
enum Label : unsigned { kKey = 1, kStr = 2, kNum = 3 };
enum Mapping : unsigned {
  kMappingId = 1,
  kMemoryStart = 2,
  kMemoryLimit = 3,
  kFileOffset = 4,
  kFilename = 5,
  kBuildId = 6,
  kHasFunctions = 7,
  kHasFilenames = 8,
  kHasLineNumbers = 9,
  kHasInlineFrames = 10,
};
enum Location : unsigned { kLocationIdOwn = 1, kMappingIdRef = 2, kAddress = 3, kLine = 4 };
enum Line : unsigned { kFunctionId = 1, kLineNumber = 2 };
enum Function : unsigned { kFunctionIdOwn = 1, kName = 2, kSystemName = 3, kFunctionFilename = 4 };
}  // namespace field

#if PERFMON_HAVE_ZLIB
// The zlib functions gzip calls, looked up in libz.so.1 when a profile is first gzipped.
struct Zlib {
  decltype(&deflateInit2_) init = nullptr;
  decltype(&deflateBound) bound = nullptr;
  decltype(&deflate) compress = nullptr;
  decltype(&deflateEnd) end = nullptr;
  std::string missing;  // why it cannot be used; empty when it can
};

const Zlib& zlib() {
  static const Zlib loaded = [] {
    Zlib lib;
    const kernel::LoadedLibrary library(PERFMON_ZLIB_SONAME);
    if (!library.loaded() || !library.find("deflateInit2_", lib.init) || !library.find("deflateBound", lib.bound) ||
        !library.find("deflate", lib.compress) || !library.find("deflateEnd", lib.end))
      lib.missing = "a pprof profile is gzipped with zlib, which cannot be loaded (" +
                    (library.loaded() ? std::string(PERFMON_ZLIB_SONAME " lacks deflate") : library.why()) +
                    "); install Debian's zlib1g package";
    return lib;
  }();
  return loaded;
}

std::string gzip(const std::string& data) {
  const Zlib& lib = zlib();
  if (!lib.missing.empty()) throw Error(ErrorKind::Unsupported, lib.missing + ".");
  z_stream stream{};
  // windowBits 15 + 16: a gzip header and trailer around the deflate stream (deflateInit2 is a
  // macro for deflateInit2_ with the header's version and size).
  if (lib.init(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
               static_cast<int>(sizeof(z_stream))) != Z_OK)
    throw Error(ErrorKind::System, "zlib could not start compressing the profile.");
  std::string out(lib.bound(&stream, data.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int result = lib.compress(&stream, Z_FINISH);
  out.resize(stream.total_out);
  lib.end(&stream);
  if (result != Z_STREAM_END) throw Error(ErrorKind::System, "zlib could not compress the profile.");
  return out;
}
#else
// This build has no zlib: pprof reads an uncompressed profile too.
std::string gzip(const std::string& data) {
  return data;
}
#endif

// The software clocks count nanoseconds; every other event, events.
bool counts_nanoseconds(const perf_event_attr& attr) {
  return attr.type == PERF_TYPE_SOFTWARE &&
         (attr.config == PERF_COUNT_SW_CPU_CLOCK || attr.config == PERF_COUNT_SW_TASK_CLOCK);
}

}  // namespace

struct PprofProfile::State {
  // A process's address's location, while its process's mappings stay as they were.
  struct CachedLocation {
    std::uint64_t generation;
    std::uint32_t location;
  };
  // Ids in the encoding are these indexes plus one.
  struct Location {
    std::uint32_t mapping;  // kNone: none
    std::uint64_t address;
    std::uint32_t lines_at, lines_count;  // in lines, innermost first
  };
  struct Line {
    std::uint32_t function;
    std::int64_t line;
  };
  struct Mapping {
    std::uint64_t start, limit, offset;
    NameId file, build_id;
    bool has_functions, has_line_numbers, has_inline_frames;
  };
  struct MappingKey {
    NameId file;
    std::uint64_t start, limit, offset;
    bool operator==(const MappingKey&) const = default;
  };
  struct MappingKeyHash {
    std::size_t operator()(const MappingKey& key) const noexcept {
      return mix_words(mix_words(key.start, key.limit), mix_words(key.offset, key.file));
    }
  };
  // A function by its name and the file whose code it is; its source file once a line names it.
  struct Function {
    NameId name, file;
  };
  // A distinct stack of a process (its words, and its mappings' generation): its locations.
  struct Stack {
    std::uint32_t pid;
    bool kernel_leaf;
    std::uint64_t generation;
    std::size_t words_at, words_count;
    std::uint32_t locations_at, locations_count;
    std::uint32_t next;  // the next stack of the same hash, or kNone
  };
  struct SampleKey {
    std::uint32_t stack, tid, cpu;  // cpu kNone where the event's samples do not carry it
    NameId comm;
    std::uint64_t cgroup;  // its id, 0 where the event's samples do not carry it
    bool operator==(const SampleKey&) const = default;
  };
  struct SampleKeyHash {
    std::size_t operator()(const SampleKey& key) const noexcept {
      return mix_words(mix_words(std::uint64_t{key.stack} << 32 | key.tid, std::uint64_t{key.cpu} << 32 | key.comm),
                       key.cgroup);
    }
  };

  // Tables that name no file rebuilt since the recording (its build ids).
  static std::shared_ptr<SymbolTables> tables_for(const PprofOptions& options) {
    auto tables = std::make_shared<SymbolTables>(options.debug_root);
    tables->expect_build_ids(options.build_ids);
    return tables;
  }

  State(std::vector<PprofEvent> pprof_events, PprofOptions pprof_options, std::shared_ptr<SymbolTables> symbols)
      : events(std::move(pprof_events)),
        options(std::move(pprof_options)),
        symbolizer(symbols ? std::move(symbols) : tables_for(options)) {
    strings.intern("");  // string_table[0]
    for (const auto& [id, path] : options.cgroup_paths) cgroups[id] = strings.intern(path);
  }

  std::uint32_t location(std::uint32_t pid, std::uint64_t address, bool kernel, std::uint64_t generation);
  std::uint32_t resolve(std::uint32_t pid, std::uint64_t address, bool kernel);
  std::uint32_t mapping(const PlacedAddress& place);
  std::uint32_t function(NameId name, NameId dso, NameId file);
  std::uint32_t stack(std::size_t event, const Sample& sample, bool kernel_leaf, std::uint64_t generation);

  std::vector<PprofEvent> events;
  PprofOptions options;
  Symbolizer symbolizer;
  analysis::RecordedProcesses processes;
  NameTable strings;
  FlatIndex<analysis::ProcessAddress, analysis::ProcessAddressHash> location_of;
  std::vector<CachedLocation> cached;
  std::vector<Location> locations;
  std::vector<Line> lines;
  FlatIndex<std::uint64_t, analysis::WordHash> location_in_mapping;  // a hash of (address, mapping) -> a location
  std::vector<Mapping> mappings;
  FlatIndex<MappingKey, MappingKeyHash> mapping_of;
  std::vector<Function> functions;
  FlatIndex<std::uint64_t, analysis::WordHash> function_of;  // (name << 32 | dso) -> in functions
  std::vector<Stack> stacks;
  std::vector<std::uint64_t> stack_words;
  std::vector<std::uint32_t> stack_locations;
  FlatIndex<std::uint64_t, analysis::WordHash> first_stack;  // a hash of a stack -> in stacks
  std::map<std::uint64_t, NameId> cgroups;                   // id -> path
  std::vector<SampleKey> samples;
  FlatIndex<SampleKey, SampleKeyHash> sample_of;
  std::vector<std::int64_t> values;  // 2 per event and sample: samples, periods
  RecordLoss lost;
  std::uint64_t first_time = ~std::uint64_t{0}, last_time = 0;
  std::optional<std::pair<std::uint64_t, std::uint64_t>> time;  // set_time's start and duration
};

PprofProfile::PprofProfile(std::vector<PprofEvent> events, PprofOptions options, std::shared_ptr<SymbolTables> symbols)
    : state_(std::make_unique<State>(std::move(events), std::move(options), std::move(symbols))) {}

PprofProfile::~PprofProfile() = default;

bool PprofProfile::unwind_user_stacks(std::size_t event, std::uint64_t sample_regs_user) {
  return event < state_->events.size() && state_->symbolizer.unwind_user_stacks(event, sample_regs_user);
}

void PprofProfile::set_time(std::uint64_t start_nanos, std::uint64_t duration_nanos) {
  state_->time.emplace(start_nanos, duration_nanos);
}

void PprofProfile::record(const perf_event_header& header) {
  using namespace kernel;
  state_->lost.add(header);
  if (header.type == PERF_RECORD_CGROUP) {
    if (const auto* cgroup = record_as<CgroupRecord>(&header)) {
      const char* path = reinterpret_cast<const char*>(cgroup + 1);
      const std::size_t room = header.size - sizeof *cgroup;
      state_->cgroups[cgroup->id] = state_->strings.intern(std::string_view(path, strnlen(path, room)));
    }
  }
  state_->processes.record(header);
  state_->symbolizer.record(header);
}

std::uint32_t PprofProfile::State::mapping(const PlacedAddress& place) {
  const MappingKey key{strings.intern(place.file), place.mapping_start, place.mapping_end, place.mapping_offset};
  auto [found, added] = mapping_of.try_emplace(key, static_cast<std::uint32_t>(mappings.size()));
  if (added) {
    NameId build_id = 0;
    if (auto known = options.build_ids.find(place.file); known != options.build_ids.end()) {
      build_id = strings.intern(known->second);
    } else if (place.file.starts_with('/')) {
      if (const std::optional<std::string> id = kernel::elf_build_id(place.file))
        build_id = strings.intern(kernel::build_id_hex(*id));
    }
    mappings.push_back(
        {place.mapping_start, place.mapping_end, place.mapping_offset, key.file, build_id, false, false, false});
  }
  return *found;
}

std::uint32_t PprofProfile::State::function(NameId name, NameId dso, NameId file) {
  auto [found, added] =
      function_of.try_emplace(std::uint64_t{name} << 32 | dso, static_cast<std::uint32_t>(functions.size()));
  if (added) functions.push_back({name, file});
  if (functions[*found].file == 0) functions[*found].file = file;
  return *found;
}

std::uint32_t PprofProfile::State::resolve(std::uint32_t pid, std::uint64_t address, bool kernel) {
  const NamedAddress named = symbolizer.name(pid, address, kernel);
  Location location{kNone, address, static_cast<std::uint32_t>(lines.size()), 0};
  if (named.place.mapping_end != 0) {
    location.mapping = mapping(named.place);
    // Processes that map a file at the same place share its locations (a system's many shells).
    auto [found, added] = location_in_mapping.try_emplace(mix_words(address, location.mapping),
                                                          static_cast<std::uint32_t>(locations.size()));
    if (!added) {
      const Location& known = locations[*found];
      if (known.mapping == location.mapping && known.address == address) return *found;
    }
  }
  if (named.function != nullptr) {
    const NameId dso = location.mapping != kNone ? mappings[location.mapping].file : 0;
    const SourcePlace* described = options.inlined_frames || options.source_lines ? symbolizer.source(named) : nullptr;
    const NameId source_file = described != nullptr ? strings.intern(described->file) : 0;
    const std::int64_t line = described != nullptr && options.source_lines ? described->line : 0;
    // Innermost first: the functions inlined there (the innermost at the address's line), then the
    // function the symbol table names; only the innermost line is known.
    const bool inlined = options.inlined_frames && described != nullptr && !described->inlined.empty();
    if (inlined) {
      for (std::size_t k = 0; k < described->inlined.size(); ++k)
        lines.push_back(
            {function(strings.intern(described->inlined[k]), dso, k == 0 ? source_file : 0), k == 0 ? line : 0});
    }
    lines.push_back({function(strings.intern(*named.function), dso, inlined ? 0 : source_file), inlined ? 0 : line});
    location.lines_count = static_cast<std::uint32_t>(lines.size() - location.lines_at);
    if (location.mapping != kNone) {
      Mapping& mapped = mappings[location.mapping];
      mapped.has_functions = true;
      mapped.has_line_numbers |= line != 0;
      mapped.has_inline_frames |= inlined;
    }
  }
  locations.push_back(location);
  return static_cast<std::uint32_t>(locations.size() - 1);
}

std::uint32_t PprofProfile::State::location(std::uint32_t pid, std::uint64_t address, bool kernel,
                                            std::uint64_t generation) {
  auto [found, added] = location_of.try_emplace(analysis::ProcessAddress{pid, kernel, address},
                                                static_cast<std::uint32_t>(cached.size()));
  if (added) {
    cached.push_back({generation, resolve(pid, address, kernel)});
  } else if (CachedLocation& known = cached[*found]; known.generation != generation) {
    // Samples before keep the location they were given: the process's new one is another.
    known = {generation, resolve(pid, address, kernel)};
  }
  return cached[*found].location;
}

std::uint32_t PprofProfile::State::stack(std::size_t event, const Sample& sample, bool kernel_leaf,
                                         std::uint64_t generation) {
  const std::span<const std::uint64_t> callchain = symbolizer.callchain(event, sample);
  const std::span<const std::uint64_t> words =
      callchain.empty() ? std::span<const std::uint64_t>(&sample.ip, 1) : callchain;
  std::uint64_t hash = mix_words(generation, std::uint64_t{sample.pid} << 1 | kernel_leaf);
  for (const std::uint64_t word : words) hash = mix_words(hash, word);
  auto [first, added] = first_stack.try_emplace(hash, kNone);
  for (std::uint32_t at = *first; at != kNone; at = stacks[at].next) {
    const Stack& known = stacks[at];
    if (known.pid == sample.pid && known.kernel_leaf == kernel_leaf && known.generation == generation &&
        known.words_count == words.size() &&
        std::equal(words.begin(), words.end(), stack_words.begin() + static_cast<std::ptrdiff_t>(known.words_at)))
      return at;
  }
  Stack made{sample.pid,
             kernel_leaf,
             generation,
             stack_words.size(),
             words.size(),
             static_cast<std::uint32_t>(stack_locations.size()),
             0,
             *first};
  stack_words.insert(stack_words.end(), words.begin(), words.end());
  // Leaf first; a caller's address is a return address: one byte back lies inside the call.
  bool leaf = true;
  Symbolizer::for_each_frame(callchain, kernel_leaf, [&](std::uint64_t address, bool kernel) {
    stack_locations.push_back(location(sample.pid, leaf ? address : address - 1, kernel, generation));
    leaf = false;
  });
  if (leaf) stack_locations.push_back(location(sample.pid, sample.ip, kernel_leaf, generation));
  made.locations_count = static_cast<std::uint32_t>(stack_locations.size() - made.locations_at);
  const auto index = static_cast<std::uint32_t>(stacks.size());
  stacks.push_back(made);
  *first_stack.try_emplace(hash, kNone).first = index;  // the table may have grown since `first`
  return index;
}

void PprofProfile::sample(std::size_t event, const Sample& sample) {
  State& s = *state_;
  if (event >= s.events.size()) return;
  const bool kernel_leaf =
      sample.record != nullptr && (sample.record->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
  const std::uint64_t generation = s.processes.generation_of(sample.pid);
  const std::uint32_t stack = s.stack(event, sample, kernel_leaf, generation);
  const bool has_cpu = (s.events[event].attr.sample_type & PERF_SAMPLE_CPU) != 0;
  const bool has_cgroup = (s.events[event].attr.sample_type & PERF_SAMPLE_CGROUP) != 0;
  const State::SampleKey key{stack, sample.tid, has_cpu ? sample.cpu : kNone,
                             s.processes.command_of(sample.tid, s.symbolizer.spaces(), s.strings),
                             has_cgroup ? sample.cgroup : 0};
  auto [found, added] = s.sample_of.try_emplace(key, static_cast<std::uint32_t>(s.samples.size()));
  if (added) {
    s.samples.push_back(key);
    s.values.resize(s.values.size() + 2 * s.events.size());
  }
  std::int64_t* values = &s.values[std::size_t{*found} * 2 * s.events.size() + 2 * event];
  values[0] += 1;
  values[1] += static_cast<std::int64_t>(sample.period != 0 ? sample.period : 1);
  if ((s.events[event].attr.sample_type & PERF_SAMPLE_TIME) != 0) {
    s.first_time = std::min(s.first_time, sample.time);
    s.last_time = std::max(s.last_time, sample.time);
  }
}

std::string PprofProfile::encode(bool gzipped) const {
  const State& s = *state_;
  // The strings the profile's samples named, then those the encoding adds (a reading does not
  // change the profile): each added string's index follows the table's.
  std::vector<std::string> added;
  auto add = [&](std::string text) {
    added.push_back(std::move(text));
    return static_cast<NameId>(s.strings.size() + added.size() - 1);
  };
  const NameId count = add("count"), nanoseconds = add("nanoseconds");
  const NameId pid = add("pid"), tid = add("tid"), comm = add("comm"), cpu = add("cpu"), cgroup = add("cgroup");
  std::vector<NameId> sample_names, event_names, units;
  for (const PprofEvent& event : s.events) {
    sample_names.push_back(add(event.name + "_sample"));
    event_names.push_back(add(event.name + "_event"));
    units.push_back(counts_nanoseconds(event.attr) ? nanoseconds : count);
  }
  const NameId period_name = s.events.empty() ? 0 : add(s.events.front().name);
  const std::string lost = s.lost.sentence();
  const NameId lost_comment = lost.empty() ? 0 : add(lost + " (the recording says so)");

  // pprof takes the first mapping for the program's: that of the command with the most samples
  // (its file's name begins with the command's, which the kernel cuts at 15 characters).
  std::vector<std::uint64_t> mapping_id(s.mappings.size());
  for (std::size_t m = 0; m < mapping_id.size(); ++m) mapping_id[m] = m + 1;
  std::map<NameId, std::int64_t> samples_of;
  for (std::size_t k = 0; k < s.samples.size(); ++k)
    for (std::size_t e = 0; e < s.events.size(); ++e)
      samples_of[s.samples[k].comm] += s.values[k * 2 * s.events.size() + 2 * e];
  const auto busiest = std::max_element(samples_of.begin(), samples_of.end(),
                                        [](const auto& a, const auto& b) { return a.second < b.second; });
  for (std::size_t m = 0; busiest != samples_of.end() && m < s.mappings.size(); ++m) {
    const std::string_view file = s.strings[s.mappings[m].file];
    if (file.starts_with('/') && file.substr(file.rfind('/') + 1).starts_with(s.strings[busiest->first])) {
      for (std::size_t other = 0; other < m; ++other) ++mapping_id[other];
      mapping_id[m] = 1;
      break;
    }
  }
  std::vector<std::size_t> mapping_order(s.mappings.size());
  for (std::size_t m = 0; m < mapping_order.size(); ++m) mapping_order[mapping_id[m] - 1] = m;

  ProtobufWriter out, message, inner;
  auto value_type = [&](unsigned at, NameId type, NameId unit) {
    message.clear();
    message.number(field::kType, type);
    message.number(field::kUnit, unit);
    out.message(at, message);
  };
  for (std::size_t e = 0; e < s.events.size(); ++e) {
    value_type(field::kSampleType, sample_names[e], count);
    value_type(field::kSampleType, event_names[e], units[e]);
  }
  const std::size_t width = 2 * s.events.size();
  std::vector<std::uint64_t> ids;
  for (std::size_t k = 0; k < s.samples.size(); ++k) {
    const State::SampleKey& key = s.samples[k];
    const State::Stack& stack = s.stacks[key.stack];
    message.clear();
    ids.clear();
    for (std::uint32_t k = 0; k < stack.locations_count; ++k)
      ids.push_back(s.stack_locations[stack.locations_at + k] + 1);
    message.packed<std::uint64_t>(field::kLocationId, ids);
    message.packed<std::int64_t>(field::kValue, std::span<const std::int64_t>(s.values).subspan(k * width, width));
    auto label = [&](NameId key_name, std::optional<NameId> text, std::uint64_t number) {
      inner.clear();
      inner.number(field::kKey, key_name);
      if (text) {
        inner.number(field::kStr, *text);
      } else {
        inner.number(field::kNum, number);
      }
      message.message(field::kLabel, inner);
    };
    label(pid, std::nullopt, stack.pid);
    label(tid, std::nullopt, key.tid);
    label(comm, key.comm, 0);
    if (key.cpu != kNone) label(cpu, std::nullopt, key.cpu);
    if (key.cgroup != 0) {
      // Its path where a record or the caller named it, else its id.
      const auto named = s.cgroups.find(key.cgroup);
      if (named != s.cgroups.end()) {
        label(cgroup, named->second, 0);
      } else {
        label(cgroup, std::nullopt, key.cgroup);
      }
    }
    out.message(field::kSample, message);
  }
  for (const std::size_t m : mapping_order) {
    const State::Mapping& mapping = s.mappings[m];
    message.clear();
    message.number(field::kMappingId, mapping_id[m]);
    message.number(field::kMemoryStart, mapping.start);
    message.number(field::kMemoryLimit, mapping.limit);
    message.number(field::kFileOffset, mapping.offset);
    message.number(field::kFilename, mapping.file);
    message.number(field::kBuildId, mapping.build_id);
    message.number(field::kHasFunctions, mapping.has_functions);
    message.number(field::kHasFilenames, mapping.has_line_numbers);
    message.number(field::kHasLineNumbers, mapping.has_line_numbers);
    message.number(field::kHasInlineFrames, mapping.has_inline_frames);
    out.message(field::kMapping, message);
  }
  for (std::size_t l = 0; l < s.locations.size(); ++l) {
    const State::Location& location = s.locations[l];
    message.clear();
    message.number(field::kLocationIdOwn, l + 1);
    if (location.mapping != kNone) message.number(field::kMappingIdRef, mapping_id[location.mapping]);
    message.number(field::kAddress, location.address);
    for (std::uint32_t k = 0; k < location.lines_count; ++k) {
      const State::Line& line = s.lines[location.lines_at + k];
      inner.clear();
      inner.number(field::kFunctionId, line.function + 1);
      inner.number(field::kLineNumber, static_cast<std::uint64_t>(line.line));
      message.message(field::kLine, inner);
    }
    out.message(field::kLocation, message);
  }
  for (std::size_t f = 0; f < s.functions.size(); ++f) {
    message.clear();
    message.number(field::kFunctionIdOwn, f + 1);
    message.number(field::kName, s.functions[f].name);
    message.number(field::kSystemName, s.functions[f].name);
    message.number(field::kFunctionFilename, s.functions[f].file);
    out.message(field::kFunction, message);
  }
  for (NameId id = 0; id < s.strings.size(); ++id) out.bytes(field::kStringTable, s.strings[id]);
  for (const std::string& text : added) out.bytes(field::kStringTable, text);
  if (s.time) {
    out.number(field::kTimeNanos, s.time->first);
    out.number(field::kDurationNanos, s.time->second);
  } else if (s.last_time > s.first_time) {
    out.number(field::kDurationNanos, s.last_time - s.first_time);
  }
  if (!s.events.empty()) {
    const perf_event_attr& first = s.events.front().attr;
    message.clear();
    message.number(field::kType, period_name);
    message.number(field::kUnit, units.front());
    out.message(field::kPeriodType, message);
    if (!first.freq) out.number(field::kPeriod, first.sample_period);
    out.number(field::kDefaultSampleType, event_names.front());
  }
  if (lost_comment != 0) out.number(field::kComment, lost_comment);
  return gzipped ? gzip(out.written()) : out.take();
}

}  // namespace perfmon
