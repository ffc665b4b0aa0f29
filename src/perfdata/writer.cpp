// SPDX-License-Identifier: Apache-2.0
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include "kernel/build_id.hpp"
#include "kernel/records.hpp"
#include "kernel/text_file.hpp"
#include "perfdata/file_layout.hpp"
#include "perfmon/error.hpp"
#include "perfmon/perf_data.hpp"

namespace perfmon {

using namespace perfdata;

namespace {

// perf 6.1 refuses a larger attr; 128 bytes (PERF_ATTR_SIZE_VER7) hold every field it knows.
constexpr std::size_t kFileAttrSize = PERF_ATTR_SIZE_VER7;

std::string attr_bytes(const perf_event_attr& attr) {
  perf_event_attr copy = attr;
  copy.size = kFileAttrSize;
  return std::string(reinterpret_cast<const char*>(&copy), kFileAttrSize);
}

template <typename T>
void put(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

// struct perf_header_string: u32 length, then the text, NUL-padded to a multiple of 64 bytes.
void put_string(std::string& out, const std::string& text) {
  const std::uint32_t length = static_cast<std::uint32_t>((text.size() + 1 + 63) / 64 * 64);
  put(out, length);
  out += text;
  out.append(length - text.size(), '\0');
}

// A name as records end with it: NUL-terminated, padded to 8 bytes.
void put_record_name(std::string& out, std::string_view name) {
  out += name;
  out.append((name.size() + 1 + 7) / 8 * 8 - name.size(), '\0');
}

std::string file_text(const std::filesystem::path& path) {
  return kernel::read_whole_file(path).value_or(std::string());
}

// HEADER_TRACING_DATA: what perf needs to read tracepoint samples, in the layout of perf's
// util/trace-event-info.c (version 0.6): tracefs's page and event headers, then the format file of
// each tracepoint recorded, by subsystem. Kernel symbols, printk formats and saved command lines,
// which perf report does not need, are left empty.
std::string tracing_data(const std::string& root, const std::vector<std::uint64_t>& ids) {
  namespace fs = std::filesystem;
  std::map<std::string, std::vector<std::string>> formats;  // subsystem -> format files
  std::error_code ec;
  for (const fs::directory_entry& subsystem : fs::directory_iterator(fs::path(root) / "events", ec)) {
    if (!subsystem.is_directory(ec)) continue;
    for (const fs::directory_entry& event : fs::directory_iterator(subsystem.path(), ec)) {
      std::uint64_t id = 0;
      if (!(std::ifstream(event.path() / "id") >> id)) continue;
      if (std::find(ids.begin(), ids.end(), id) != ids.end())
        formats[subsystem.path().filename()].push_back(file_text(event.path() / "format"));
    }
  }
  std::string out("\x17\x08\x44tracing0.6", 13);
  out.push_back('\0');
  out.push_back(0);  // little-endian
  out.push_back(static_cast<char>(sizeof(long)));
  put(out, static_cast<std::uint32_t>(::sysconf(_SC_PAGESIZE)));
  for (const char* header : {"header_page", "header_event"}) {
    const std::string text = file_text(fs::path(root) / "events" / header);
    out.append(header, std::strlen(header) + 1);
    put(out, static_cast<std::uint64_t>(text.size()));
    out += text;
  }
  put(out, std::uint32_t{0});  // ftrace's own events
  put(out, static_cast<std::uint32_t>(formats.size()));
  for (const auto& [subsystem, files] : formats) {
    out.append(subsystem.c_str(), subsystem.size() + 1);
    put(out, static_cast<std::uint32_t>(files.size()));
    for (const std::string& text : files) {
      put(out, static_cast<std::uint64_t>(text.size()));
      out += text;
    }
  }
  put(out, std::uint32_t{0});  // kallsyms
  put(out, std::uint32_t{0});  // printk formats
  put(out, std::uint64_t{0});  // saved command lines
  return out;
}

// One entry of HEADER_BUILD_ID (perf's struct perf_record_header_build_id): header, pid, the id
// (20 bytes, its size, 3 reserved), the file name NUL-padded to a multiple of 64 bytes.
void put_build_id(std::string& out, std::uint16_t misc, std::int32_t pid, const std::string& id,
                  const std::string& path) {
  const std::size_t name_bytes = (path.size() + 1 + 63) / 64 * 64;
  const perf_event_header header{0, static_cast<std::uint16_t>(misc | kMiscBuildIdSize),
                                 static_cast<std::uint16_t>(sizeof(perf_event_header) + 4 + 24 + name_bytes)};
  put(out, header);
  put(out, pid);
  char bytes[24] = {};
  std::memcpy(bytes, id.data(), std::min<std::size_t>(id.size(), 20));
  bytes[20] = static_cast<char>(std::min<std::size_t>(id.size(), 20));
  out.append(bytes, sizeof bytes);
  out += path;
  out.append(name_bytes - path.size(), '\0');
}

template <typename Files>
std::string build_id_section(const Files& mapped) {
  std::string out;
  if (std::optional<std::string> id = kernel::kernel_build_id())
    put_build_id(out, PERF_RECORD_MISC_KERNEL, -1, *id, "[kernel.kallsyms]");
  for (const auto& file : mapped)
    if (std::optional<std::string> id = kernel::elf_build_id(file.path))
      put_build_id(out, PERF_RECORD_MISC_USER, file.pid, *id, file.path);
  return out;
}

// The feature sections that describe the machine and the events (all but the build ids, which
// only the end knows), in the order of their bits.
std::vector<std::pair<Feature, std::string>> feature_sections(const PerfDataHost& host,
                                                              const std::vector<PerfDataEvent>& events) {
  std::vector<std::pair<Feature, std::string>> features;
  std::vector<std::uint64_t> tracepoints;
  for (const PerfDataEvent& event : events)
    if (event.attr.type == PERF_TYPE_TRACEPOINT) tracepoints.push_back(event.attr.config);
  if (!tracepoints.empty() && !host.tracefs_root.empty())
    features.emplace_back(kTracingData, tracing_data(host.tracefs_root, tracepoints));
  auto add_string = [&](Feature feature, const std::string& text) {
    std::string content;
    put_string(content, text);
    features.emplace_back(feature, std::move(content));
  };
  add_string(kHostname, host.hostname);
  add_string(kOsRelease, host.os_release);
  add_string(kVersion, host.perf_version);
  add_string(kArch, host.arch);
  {
    std::string content;
    put(content, host.cpus_available);
    put(content, host.cpus_online);
    features.emplace_back(kNrCpus, std::move(content));
  }
  if (!host.cpu_description.empty()) add_string(kCpuDescription, host.cpu_description);
  if (!host.cpuid.empty()) add_string(kCpuid, host.cpuid);
  {
    std::string content;
    put(content, host.total_memory_kib);
    features.emplace_back(kTotalMemory, std::move(content));
  }
  {
    std::string content;
    put(content, static_cast<std::uint32_t>(host.command_line.size()));
    for (const std::string& word : host.command_line) put_string(content, word);
    features.emplace_back(kCommandLine, std::move(content));
  }
  {
    std::string content;
    put(content, static_cast<std::uint32_t>(events.size()));
    put(content, static_cast<std::uint32_t>(kFileAttrSize));
    for (const PerfDataEvent& event : events) {
      content += attr_bytes(event.attr);
      put(content, static_cast<std::uint32_t>(event.ids.size()));
      put_string(content, event.name);
      for (std::uint64_t id : event.ids) put(content, id);
    }
    features.emplace_back(kEventDescription, std::move(content));
  }
  return features;
}

[[noreturn]] void fail_write(int err) {
  throw Error(ErrorKind::System,
              std::string("cannot write the perf.data file: ") + std::strerror(err) +
                  (err == ENOSPC ? "; free some space or write it elsewhere with -o." : "."),
              err);
}

}  // namespace

PerfDataWriter::PerfDataWriter(int fd, std::vector<PerfDataEvent> events, const PerfDataHost* stream_host)
    : fd_(fd), stream_(stream_host != nullptr), events_(std::move(events)) {
  buffer_.reserve(1 << 16);
  if (stream_) {
    // As perf record -o - begins: the machine, the events, their names, tracepoints' formats.
    PipeHeader header{};
    std::memcpy(header.magic, kMagic, sizeof kMagic);
    header.size = sizeof header;
    append(&header, sizeof header);
    for (const PerfDataEvent& event : events_) {
      std::string body = attr_bytes(event.attr);
      body.append(reinterpret_cast<const char*>(event.ids.data()), event.ids.size() * sizeof(std::uint64_t));
      append_record(kHeaderAttr, body);
    }
    for (const auto& [feature, content] : feature_sections(*stream_host, events_)) {
      if (feature == kTracingData) {  // a record of its own, the data after it; its size 8-aligned
        const std::size_t padded = (content.size() + 7) / 8 * 8;
        const std::uint32_t size_and_pad[2] = {static_cast<std::uint32_t>(padded), 0};
        append_record(kHeaderTracingData, std::string(reinterpret_cast<const char*>(size_and_pad), 8));
        append((content + std::string(padded - content.size(), '\0')).data(), padded);
        continue;
      }
      std::string body;
      put(body, std::uint64_t{feature});
      append_record(kHeaderFeature, body + content);
    }
    for (const PerfDataEvent& event : events_) {
      if (event.ids.empty()) continue;
      std::string body;
      put(body, kEventUpdateName);
      put(body, event.ids.front());
      put_record_name(body, event.name);
      append_record(kEventUpdate, body);
    }
    append_record(kFinishedInit, "");
    return;
  }
  const FileHeader placeholder{};  // the real one is written by finish()
  append(&placeholder, sizeof placeholder);
  std::vector<std::uint64_t> ids_offsets;
  for (const PerfDataEvent& event : events_) {
    ids_offsets.push_back(written_);
    append(event.ids.data(), event.ids.size() * sizeof(std::uint64_t));
  }
  attrs_offset_ = written_;
  for (std::size_t e = 0; e < events_.size(); ++e) {
    const std::string attr = attr_bytes(events_[e].attr);
    append(attr.data(), attr.size());
    const FileSection ids{ids_offsets[e], events_[e].ids.size() * sizeof(std::uint64_t)};
    append(&ids, sizeof ids);
  }
  data_offset_ = written_;
}

void PerfDataWriter::append(const void* bytes, std::size_t size) {
  const char* at = static_cast<const char*>(bytes);
  while (size > 0) {
    const std::size_t room = buffer_.capacity() - buffer_.size();
    const std::size_t taken = std::min(room, size);
    buffer_.insert(buffer_.end(), at, at + taken);
    at += taken;
    size -= taken;
    written_ += taken;
    if (buffer_.size() == buffer_.capacity()) flush();
  }
}

void PerfDataWriter::flush() {
  std::size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t wrote = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote < 0) fail_write(errno);
    done += static_cast<std::size_t>(wrote);
  }
  buffer_.clear();
}

void PerfDataWriter::append_record(std::uint32_t type, const std::string& body) {
  // A record's size is 16 bits: a longer one (a command line of more than 64 KiB) cannot be in a
  // pipe's stream, whose header is records; a file holds it in a section.
  if (body.size() > 0xffff - sizeof(perf_event_header))
    throw Error(ErrorKind::InvalidArgument,
                "what describes this recording (" + std::to_string(body.size()) +
                    " bytes: its command line, say) does not fit one record of perf's pipe layout (64 KiB); "
                    "record into a file instead (-o FILE).",
                EINVAL);
  const perf_event_header header{type, 0, static_cast<std::uint16_t>(sizeof(perf_event_header) + body.size())};
  append(&header, sizeof header);
  append(body.data(), body.size());
}

void PerfDataWriter::write(const perf_event_header& record) {
  if (record.type == PERF_RECORD_MMAP2) {
    if (const auto* mmap = kernel::record_as<kernel::Mmap2Record>(&record)) {
      const std::string_view path = kernel::record_text(mmap);
      const bool known =
          std::any_of(mapped_.begin(), mapped_.end(), [&](const MappedFile& f) { return f.path == path; });
      if (path.starts_with('/') && !known) mapped_.push_back({static_cast<std::int32_t>(mmap->pid), std::string(path)});
    }
  }
  append(&record, record.size);
  data_size_ += record.size;
  ++records_;
  round_open_ = true;
}

void PerfDataWriter::finish_round() {
  if (!round_open_) return;
  const perf_event_header end{kFinishedRound, 0, sizeof(perf_event_header)};
  append(&end, sizeof end);
  data_size_ += sizeof end;
  round_open_ = false;
}

void PerfDataWriter::write_synthesized(std::uint32_t type, std::uint16_t misc, const std::string& body) {
  // A zero sample_id trailer as wide as the events': the kernel wrote nothing of this record.
  const std::uint64_t sample_type = events_.empty() ? 0 : events_.front().attr.sample_type;
  const std::size_t trailer =
      !events_.empty() && events_.front().attr.sample_id_all
          ? 8 * static_cast<std::size_t>(
                    std::popcount(sample_type & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
                                                 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)))
          : 0;
  std::string record(sizeof(perf_event_header), '\0');
  record += body;
  record.append(trailer, '\0');
  const perf_event_header header{type, misc, static_cast<std::uint16_t>(record.size())};
  std::memcpy(record.data(), &header, sizeof header);
  write(*reinterpret_cast<const perf_event_header*>(record.data()));
}

void PerfDataWriter::write_lost_samples(std::uint64_t lost) {
  write_synthesized(PERF_RECORD_LOST_SAMPLES, 0, std::string(reinterpret_cast<const char*>(&lost), sizeof lost));
}

void describe_kernel_map(const SynthesizedRecord& take) {
  std::uint64_t text = 0;
  std::ifstream kallsyms("/proc/kallsyms");
  for (std::string line; text == 0 && std::getline(kallsyms, line);)
    if (line.ends_with(" T _text")) text = std::strtoull(line.c_str(), nullptr, 16);
  if (text == 0) return;  // hidden (kptr_restrict) or not there
  // PERF_RECORD_MMAP {pid, tid, start, len, pgoff, filename}; pid -1 is perf's host kernel.
  std::string body;
  put(body, std::int32_t{-1});
  put(body, std::int32_t{0});
  put(body, text);
  put(body, ~std::uint64_t{0} - text);
  put(body, text);
  put_record_name(body, "[kernel.kallsyms]_text");
  take(PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, body);
}

void describe_process(pid_t pid, const SynthesizedRecord& take) {
  namespace fs = std::filesystem;
  const fs::path process = fs::path("/proc") / std::to_string(pid);
  std::error_code ec;
  // PERF_RECORD_COMM {pid, tid, comm} for each thread.
  for (const fs::directory_entry& thread : fs::directory_iterator(process / "task", ec)) {
    std::string comm;
    std::getline(std::ifstream(thread.path() / "comm"), comm);
    std::string body;
    put(body, static_cast<std::int32_t>(pid));
    put(body, static_cast<std::int32_t>(std::stol(thread.path().filename().string())));
    put_record_name(body, comm);
    take(PERF_RECORD_COMM, PERF_RECORD_MISC_USER, body);
  }
  // PERF_RECORD_MMAP2 {pid, tid, start, len, pgoff, maj, min, ino, ino_generation, prot, flags,
  // filename} for each executable mapping, as /proc/PID/maps lists them.
  std::ifstream maps(process / "maps");
  for (std::string line; std::getline(maps, line);) {
    std::uint64_t start = 0, end = 0, offset = 0, inode = 0;
    unsigned major = 0, minor = 0;
    char permissions[5] = {};
    int name_at = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx %4s %lx %x:%x %lu %n", &start, &end, permissions, &offset, &major, &minor,
                    &inode, &name_at) < 7 ||
        permissions[2] != 'x')
      continue;
    const std::string name = name_at > 0 ? line.substr(static_cast<std::size_t>(name_at)) : "//anon";
    std::string body;
    put(body, static_cast<std::int32_t>(pid));
    put(body, static_cast<std::int32_t>(pid));
    put(body, start);
    put(body, end - start);
    put(body, offset);
    put(body, static_cast<std::uint32_t>(major));
    put(body, static_cast<std::uint32_t>(minor));
    put(body, inode);
    put(body, std::uint64_t{0});  // ino_generation
    const std::uint32_t prot =
        (permissions[0] == 'r' ? PROT_READ : 0) | (permissions[1] == 'w' ? PROT_WRITE : 0) | PROT_EXEC;
    put(body, prot);
    put(body, static_cast<std::uint32_t>(permissions[3] == 's' ? MAP_SHARED : MAP_PRIVATE));
    put_record_name(body, name);
    take(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, body);
  }
}

void describe_every_process(const SynthesizedRecord& take) {
  std::error_code ec;
  for (const std::filesystem::directory_entry& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.empty() && std::isdigit(static_cast<unsigned char>(name[0])))
      describe_process(static_cast<pid_t>(std::stol(name)), take);
  }
}

SynthesizedRecord PerfDataWriter::synthesized_into_file() {
  return
      [this](std::uint32_t type, std::uint16_t misc, const std::string& body) { write_synthesized(type, misc, body); };
}

void PerfDataWriter::write_kernel_map() {
  describe_kernel_map(synthesized_into_file());
}

void PerfDataWriter::write_process(pid_t pid) {
  describe_process(pid, synthesized_into_file());
}

void PerfDataWriter::write_every_process() {
  describe_every_process(synthesized_into_file());
}

void PerfDataWriter::finish(const PerfDataHost& host) {
  if (stream_) {  // the build ids, as records; the rest went first
    const std::string ids = build_id_section(mapped_);
    for (std::size_t at = 0; at < ids.size();) {
      perf_event_header entry;
      std::memcpy(&entry, ids.data() + at, sizeof entry);
      entry.type = kHeaderBuildId;
      append(&entry, sizeof entry);
      append(ids.data() + at + sizeof entry, entry.size - sizeof entry);
      at += entry.size;
    }
    flush();
    return;
  }
  // Each feature's content, in the order of its bit.
  std::vector<std::pair<Feature, std::string>> features = feature_sections(host, events_);
  if (std::string ids = build_id_section(mapped_); !ids.empty()) features.emplace_back(kBuildId, std::move(ids));

  // The table of sections follows the data, in the order of the features' bits; the contents
  // follow the table.
  std::sort(features.begin(), features.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  FileHeader header{};
  std::memcpy(header.magic, "PERFILE2", 8);
  header.size = sizeof header;
  header.attr_size = kFileAttrSize + sizeof(FileSection);
  header.attrs = {attrs_offset_, events_.size() * header.attr_size};
  header.data = {data_offset_, data_size_};
  std::uint64_t content_at = written_ + features.size() * sizeof(FileSection);
  for (const auto& [feature, content] : features) {
    header.features[feature / 64] |= std::uint64_t{1} << (feature % 64);
    const FileSection section{content_at, content.size()};
    append(&section, sizeof section);
    content_at += content.size();
  }
  for (const auto& [feature, content] : features) append(content.data(), content.size());
  flush();
  if (::pwrite(fd_, &header, sizeof header, 0) != static_cast<ssize_t>(sizeof header)) fail_write(errno);
}

std::vector<PerfDataEvent> recorded_events(const Sampler& sampler) {
  std::vector<PerfDataEvent> events;
  for (std::size_t e = 0; e < sampler.event_count(); ++e)
    events.push_back({sampler.event(e).name, sampler.opened_attr(e), sampler.ids(e)});
  return events;
}

}  // namespace perfmon
