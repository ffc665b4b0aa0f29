// SPDX-License-Identifier: Apache-2.0
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <tuple>

#include "kernel/build_id.hpp"
#include "kernel/fd.hpp"
#include "kernel/file_mapping.hpp"
#include "kernel/sample_layout.hpp"
#include "perfdata/file_layout.hpp"
#include "perfmon/error.hpp"
#include "perfmon/perf_data.hpp"
#include "perfmon/sampler.hpp"

namespace perfmon {

using namespace perfdata;

namespace {

std::string hex(std::uint64_t value) {
  std::ostringstream text;
  text << "0x" << std::hex << value;
  return text.str();
}

// A file that cannot be read is the system's answer, with its errno (Python's OSError).
[[noreturn]] void cannot_read(const std::string& path, int err) {
  throw Error(ErrorKind::System,
              "cannot read '" + path + "': " + std::strerror(err) +
                  "; give a perf.data file that exists and that you may read.",
              err);
}

// A regular file or a FIFO; a device is never read (a character device may never end).
void check_readable_kind(const std::string& path, const struct stat& status) {
  if (S_ISDIR(status.st_mode)) cannot_read(path, EISDIR);
  if (!S_ISREG(status.st_mode) && !S_ISFIFO(status.st_mode))
    throw Error(ErrorKind::InvalidArgument,
                "'" + path + "' is a device, not a perf.data file; give one that perf record or perfmon record wrote.",
                EINVAL);
}

}  // namespace

struct PerfDataReader::Storage {
  std::optional<kernel::FileMapping> mapping;
  std::string bytes;
};

PerfDataReader::PerfDataReader(const std::string& path) : storage_(std::make_unique<Storage>()), name_(path) {
  if (path == "-") {  // perf's convention: standard input, the far end of perf record -o -'s pipe
    if (::isatty(STDIN_FILENO))
      throw Error(ErrorKind::InvalidArgument,
                  "-i - reads a recording from standard input, which is a terminal here; pipe one in (perf record "
                  "-o - ... | perfmon report -i -) or give a file's name.",
                  EINVAL);
    storage_->bytes = read_stream(STDIN_FILENO);
    bytes_ = storage_->bytes;
    parse();
    return;
  }
  // Looked at before anything opens it: opening a FIFO's read end, even to find it is one, would
  // take what its writer sends.
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) cannot_read(path, errno);
  check_readable_kind(path, status);
  if (S_ISREG(status.st_mode)) storage_->mapping = kernel::FileMapping::map(path);
  if (storage_->mapping) {
    bytes_ = storage_->mapping->bytes();
  } else {  // a FIFO, an empty file
    const kernel::FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
    if (!file || ::fstat(file.get(), &status) != 0) cannot_read(path, errno);
    check_readable_kind(path, status);  // what was opened, should the path have changed meanwhile
    storage_->bytes = read_stream(file.get());
    bytes_ = storage_->bytes;
  }
  parse();
}

// What cannot be mapped, read whole if it starts as a perf.data file does.
std::string PerfDataReader::read_stream(int fd) const {
  std::string bytes;
  char chunk[64 * 1024];
  for (;;) {
    const ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got == 0) break;
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) cannot_read(name_, errno);
    bytes.append(chunk, static_cast<std::size_t>(got));
    // What is not a perf.data file is refused after its first bytes, not read to its end.
    if (bytes.size() >= sizeof kMagic && std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) break;
  }
  return bytes;
}

PerfDataReader::PerfDataReader(std::string bytes, std::string name)
    : storage_(std::make_unique<Storage>(Storage{std::nullopt, std::move(bytes)})), name_(std::move(name)) {
  bytes_ = storage_->bytes;
  parse();
}

PerfDataReader::~PerfDataReader() = default;

// Cut short or damaged: the file cannot be read as what it says it is (System, as an unreadable
// file is).
void PerfDataReader::corrupt(std::uint64_t offset, const std::string& what) const {
  throw Error(ErrorKind::System,
              "'" + name_ + "' is not a whole perf.data file: at offset " + std::to_string(offset) + ", " + what +
                  "; record it again.",
              EINVAL);
}

std::string PerfDataReader::file_image_of_pipe() const {
  const std::string_view pipe = bytes_;
  struct PipedEvent {
    std::string attr;  // sizeof(perf_event_attr) bytes
    std::vector<std::uint64_t> ids;
  };
  std::vector<PipedEvent> events;
  std::map<unsigned, std::string> features;
  std::map<std::uint64_t, std::string> names;  // EVENT_UPDATE's, by id
  std::string data;
  for (std::uint64_t at = sizeof(PipeHeader); at < pipe.size();) {
    perf_event_header record;
    if (pipe.size() - at < sizeof record) corrupt(at, "a record is cut short");
    std::memcpy(&record, pipe.data() + at, sizeof record);
    if (record.size < sizeof record || record.size > pipe.size() - at)
      corrupt(at, "a record of " + std::to_string(record.size) + " bytes does not fit the stream");
    const std::string_view body = pipe.substr(at + sizeof record, record.size - sizeof record);
    const std::uint64_t record_at = at;
    at += record.size;
    switch (record.type) {
      case kHeaderAttr: {
        std::uint32_t attr_size = PERF_ATTR_SIZE_VER0;
        if (body.size() >= 8) std::memcpy(&attr_size, body.data() + 4, 4);
        if (attr_size == 0) attr_size = PERF_ATTR_SIZE_VER0;
        if (attr_size < PERF_ATTR_SIZE_VER0 || attr_size > body.size() || (body.size() - attr_size) % 8 != 0)
          corrupt(record_at, "an attr record's attr does not fit it");
        PipedEvent event;
        event.attr.assign(sizeof(perf_event_attr), '\0');
        std::memcpy(event.attr.data(), body.data(), std::min<std::size_t>(attr_size, sizeof(perf_event_attr)));
        event.ids.resize((body.size() - attr_size) / 8);
        if (!event.ids.empty()) std::memcpy(event.ids.data(), body.data() + attr_size, body.size() - attr_size);
        events.push_back(std::move(event));
        break;
      }
      case kHeaderTracingData: {  // its data follows the record, 8-aligned
        std::uint32_t size = 0;
        if (body.size() >= 4) std::memcpy(&size, body.data(), 4);
        const std::uint64_t padded = (std::uint64_t{size} + 7) / 8 * 8;
        if (padded > pipe.size() - at) corrupt(record_at, "the tracing data runs past the end of the stream");
        features[kTracingData] = std::string(pipe.substr(at, size));
        at += padded;
        break;
      }
      case kHeaderBuildId: {  // a HEADER_BUILD_ID section's entry, as it is
        features[kBuildId].append(pipe.data() + record_at, record.size);
        break;
      }
      case kHeaderFeature: {
        std::uint64_t feature = 0;
        if (body.size() < 8) corrupt(record_at, "a feature record is shorter than its fields");
        std::memcpy(&feature, body.data(), 8);
        if (feature < 256 && feature != kTracingData && feature != kBuildId)
          features[feature] = std::string(body.substr(8));
        break;
      }
      case kEventUpdate: {
        std::uint64_t kind = 0, id = 0;
        if (body.size() < 16) corrupt(record_at, "an event update is shorter than its fields");
        std::memcpy(&kind, body.data(), 8);
        std::memcpy(&id, body.data() + 8, 8);
        if (kind == kEventUpdateName) {
          const std::string_view name = body.substr(16);
          names[id] = std::string(name.substr(0, name.find('\0')));
        }
        break;
      }
      case kCompressed:
        throw Error(ErrorKind::Unsupported,
                    "'" + name_ +
                        "' holds compressed records (perf record -z), which perfmon does not read; record "
                        "it without -z.",
                    EINVAL);
      case kHeaderEventType:
      case kFinishedInit:
        break;
      default:
        // The kernel's records, FINISHED_ROUND, and perf's others (ID_INDEX, the maps, TIME_CONV,
        // ...), which a file's data section holds too.
        data.append(pipe.data() + record_at, record.size);
    }
  }
  // Names: EVENT_UPDATE's, where EVENT_DESC does not give them.
  if (!features.contains(kEventDescription) && !names.empty()) {
    std::string content;
    auto put_u32 = [&](std::uint32_t value) { content.append(reinterpret_cast<const char*>(&value), 4); };
    put_u32(static_cast<std::uint32_t>(events.size()));
    put_u32(static_cast<std::uint32_t>(sizeof(perf_event_attr)));
    for (const PipedEvent& event : events) {
      content += event.attr;
      put_u32(static_cast<std::uint32_t>(event.ids.size()));
      const auto name = event.ids.empty() ? names.end() : names.find(event.ids.front());
      std::string text = name != names.end() ? name->second : "";
      const std::uint32_t padded = static_cast<std::uint32_t>((text.size() + 1 + 63) / 64 * 64);
      put_u32(padded);
      text.resize(padded, '\0');
      content += text;
      content.append(reinterpret_cast<const char*>(event.ids.data()), event.ids.size() * 8);
    }
    features[kEventDescription] = std::move(content);
  }

  // The file: header, each event's ids, the attrs, the data, the feature sections' table, their contents.
  FileHeader header{};
  std::memcpy(header.magic, kMagic, sizeof kMagic);
  header.size = sizeof header;
  header.attr_size = sizeof(perf_event_attr) + sizeof(FileSection);
  std::string image(sizeof header, '\0');
  std::vector<FileSection> ids;
  for (const PipedEvent& event : events) {
    ids.push_back({image.size(), event.ids.size() * 8});
    image.append(reinterpret_cast<const char*>(event.ids.data()), event.ids.size() * 8);
  }
  header.attrs = {image.size(), events.size() * header.attr_size};
  for (std::size_t e = 0; e < events.size(); ++e) {
    image += events[e].attr;
    image.append(reinterpret_cast<const char*>(&ids[e]), sizeof ids[e]);
  }
  header.data = {image.size(), data.size()};
  image += data;
  std::uint64_t content_at = image.size() + features.size() * sizeof(FileSection);
  for (const auto& [feature, content] : features) {
    header.features[feature / 64] |= std::uint64_t{1} << (feature % 64);
    const FileSection section{content_at, content.size()};
    image.append(reinterpret_cast<const char*>(&section), sizeof section);
    content_at += content.size();
  }
  for (const auto& [feature, content] : features) image += content;
  std::memcpy(image.data(), &header, sizeof header);
  return image;
}

void PerfDataReader::parse() {
  const std::uint64_t size = bytes_.size();
  // A section is usable when it lies inside the file (checked without overflowing).
  auto inside = [&](const FileSection& section) {
    return section.offset <= size && section.size <= size - section.offset;
  };
  FileHeader header{};
  std::memcpy(&header, bytes_.data(), std::min<std::size_t>(size, sizeof header));
  // What there is of the signature must be right before a short file is called cut short.
  if (size == 0) corrupt(0, "the file is empty");
  if (std::memcmp(header.magic, kMagic, std::min<std::size_t>(size, sizeof kMagic)) != 0) {
    std::uint64_t swapped;
    std::memcpy(&swapped, kMagic, sizeof swapped);
    std::uint64_t found;
    std::memcpy(&found, header.magic, sizeof found);
    if (found == __builtin_bswap64(swapped))
      throw Error(ErrorKind::Unsupported,
                  "'" + name_ + "' was recorded on a machine of the other byte order, which perfmon does not read.",
                  EINVAL);
    throw Error(ErrorKind::InvalidArgument,
                "'" + name_ +
                    "' is not a perf.data file (it does not start with PERFILE2); give one that perf record "
                    "or perfmon record wrote.",
                EINVAL);
  }
  if (size >= sizeof(PipeHeader) && header.size == sizeof(PipeHeader)) {  // perf record -o -'s layout
    std::string image = file_image_of_pipe();
    storage_->bytes = std::move(image);
    bytes_ = storage_->bytes;
    parse();
    return;
  }
  if (size < sizeof header) corrupt(size, "the file ends inside its " + std::to_string(sizeof header) + "-byte header");
  if (header.size < sizeof header) corrupt(8, "the header says it has " + std::to_string(header.size) + " bytes");
  if (header.attr_size < sizeof(FileSection) + PERF_ATTR_SIZE_VER0 || header.attr_size > 4096)
    corrupt(16, "an attr entry of " + std::to_string(header.attr_size) + " bytes is impossible");
  if (!inside(header.attrs) || header.attrs.size % header.attr_size != 0)
    corrupt(24, "the attrs section (offset " + std::to_string(header.attrs.offset) + ", " +
                    std::to_string(header.attrs.size) + " bytes) does not fit the file");
  if (!inside(header.data))
    corrupt(40, "the data section (offset " + std::to_string(header.data.offset) + ", " +
                    std::to_string(header.data.size) + " bytes) runs past the end of the file (" +
                    std::to_string(size) + " bytes)");
  data_offset_ = header.data.offset;
  data_size_ = header.data.size;

  const std::uint64_t attr_bytes = header.attr_size - sizeof(FileSection);
  // Each attr's ids are its own bytes of the file: sections that overlap could make a small file
  // describe more ids than memory holds.
  std::uint64_t id_bytes = 0;
  for (std::uint64_t at = header.attrs.offset; at < header.attrs.offset + header.attrs.size; at += header.attr_size) {
    PerfDataEvent event;
    std::memcpy(&event.attr, bytes_.data() + at, std::min<std::uint64_t>(attr_bytes, sizeof event.attr));
    FileSection ids;
    std::memcpy(&ids, bytes_.data() + at + attr_bytes, sizeof ids);
    if (!inside(ids) || ids.size % 8 != 0) corrupt(at + attr_bytes, "an event's ids do not fit the file");
    id_bytes += ids.size;
    if (id_bytes > size) corrupt(at + attr_bytes, "the events' ids overlap: more of them than the file holds");
    event.ids.resize(ids.size / 8);
    if (ids.size != 0) std::memcpy(event.ids.data(), bytes_.data() + ids.offset, ids.size);
    event.name = "type " + std::to_string(event.attr.type) + " config " + hex(event.attr.config);
    events_.push_back(std::move(event));
  }
  if (events_.empty()) corrupt(24, "the file describes no event");

  // The feature sections' table follows the data; names come from EVENT_DESC, if it is there.
  std::uint64_t table = data_offset_ + data_size_;
  for (unsigned feature = 0; feature < 256; ++feature) {
    if (!((header.features[feature / 64] >> (feature % 64)) & 1)) continue;
    FileSection section;
    if (table > size || size - table < sizeof section) corrupt(table, "the table of feature sections is cut short");
    std::memcpy(&section, bytes_.data() + table, sizeof section);
    table += sizeof section;
    if (!inside(section)) corrupt(table - sizeof section, "a feature section does not fit the file");
    std::string_view content(bytes_.data() + section.offset, section.size);
    auto take = [&](std::size_t n) {
      if (content.size() < n) corrupt(section.offset, "a feature section is shorter than its fields");
      std::string_view taken = content.substr(0, n);
      content.remove_prefix(n);
      return taken;
    };
    auto take_u32 = [&] {
      std::uint32_t value;
      std::memcpy(&value, take(4).data(), 4);
      return value;
    };
    auto take_string = [&] {
      const std::string_view text = take(take_u32());
      return std::string(text.substr(0, text.find('\0')));
    };
    if (feature == kHostname) host_.hostname = take_string();
    if (feature == kOsRelease) host_.os_release = take_string();
    if (feature == kVersion) host_.perf_version = take_string();
    if (feature == kArch) host_.arch = take_string();
    if (feature == kCpuDescription) host_.cpu_description = take_string();
    if (feature == kCpuid) host_.cpuid = take_string();
    if (feature == kNrCpus) {
      host_.cpus_available = take_u32();
      host_.cpus_online = take_u32();
    }
    if (feature == kTotalMemory) std::memcpy(&host_.total_memory_kib, take(8).data(), 8);
    if (feature == kCommandLine) {
      const std::uint32_t words = take_u32();
      if (words > content.size() / 4) corrupt(section.offset, "CMDLINE lists more words than it holds");
      for (std::uint32_t w = 0; w < words; ++w) host_.command_line.push_back(take_string());
    }
    if (feature == kBuildId) {
      // Entries of perf's struct perf_record_header_build_id: a header whose size is the entry's,
      // the pid, 24 bytes of id (its size in byte 20 where misc says so), the file's name.
      while (!content.empty()) {
        perf_event_header entry;
        std::memcpy(&entry, take(sizeof entry).data(), sizeof entry);
        if (entry.size < sizeof entry + 4 + 24) corrupt(section.offset, "a build id entry is shorter than its fields");
        const std::string_view rest = take(entry.size - sizeof entry);
        const std::string_view id = rest.substr(4, 24);
        const std::size_t id_size =
            (entry.misc & kMiscBuildIdSize) ? std::min<std::size_t>(static_cast<unsigned char>(id[20]), 20) : 20;
        const std::string_view name = rest.substr(28);
        if (const std::string path(name.substr(0, name.find('\0'))); !path.empty())
          build_ids_[path] = kernel::build_id_hex(id.substr(0, id_size));
      }
    }
    if (feature == kEventDescription) {
      const std::uint32_t count = take_u32(), desc_attr_size = take_u32();
      for (std::uint32_t e = 0; e < count; ++e) {
        perf_event_attr attr{};
        std::memcpy(&attr, take(desc_attr_size).data(), std::min<std::size_t>(desc_attr_size, sizeof attr));
        const std::uint32_t id_count = take_u32();
        const std::string name = take_string();
        if (id_count > content.size() / 8) corrupt(section.offset, "EVENT_DESC lists more ids than it holds");
        std::vector<std::uint64_t> ids(id_count);
        if (id_count != 0) std::memcpy(ids.data(), take(8 * std::size_t{id_count}).data(), 8 * std::size_t{id_count});
        // Matched by ids, as perf matches them; in order where the description has none.
        bool matched = false;
        for (PerfDataEvent& event : events_) {
          if (!ids.empty() && !event.ids.empty() && event.ids.front() == ids.front()) {
            event.name = name;
            matched = true;
          }
        }
        if (!matched && ids.empty() && e < events_.size()) events_[e].name = name;
      }
    }
  }
}

std::map<std::uint32_t, std::uint64_t> PerfDataReader::record_counts() const {
  std::map<std::uint32_t, std::uint64_t> counts;
  const std::uint64_t end = data_offset_ + data_size_;
  for (std::uint64_t at = data_offset_; at < end;) {
    perf_event_header header;
    if (end - at < sizeof header) corrupt(at, "a record is cut short");
    std::memcpy(&header, bytes_.data() + at, sizeof header);
    if (header.size < sizeof header || header.size > end - at)
      corrupt(at, "a record says it has " + std::to_string(header.size) + " bytes");
    ++counts[header.type];
    at += header.size;
  }
  return counts;
}

void PerfDataReader::read(SampleHandler& handler) const {
  read_share(handler, 0, ~std::uint64_t{0});
}

std::size_t PerfDataReader::threads_worth() const {
  constexpr std::uint64_t kBytesPerThread = 16 << 20;
  const Outlook seen = outlook();
  if (seen.distinct_addresses * 4 < seen.samples_looked_at) return 1;  // most samples land where others did
  const std::uint64_t cpus = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<std::size_t>(
      std::clamp<std::uint64_t>(data_bytes() / kBytesPerThread, 1, std::min<std::uint64_t>(cpus, 8)));
}

PerfDataReader::Outlook PerfDataReader::outlook() const {
  constexpr std::uint64_t kCounted = 4096;
  // A sample's address follows its header (and its identifier, where the events carry one).
  bool addressed = true;
  for (const PerfDataEvent& event : events_) addressed = addressed && (event.attr.sample_type & PERF_SAMPLE_IP);
  const std::size_t address_at =
      sizeof(perf_event_header) + ((events_.front().attr.sample_type & PERF_SAMPLE_IDENTIFIER) ? 8 : 0);
  std::vector<std::uint64_t> addresses;
  Outlook outlook;
  std::uint64_t records = 0, at = data_offset_;
  while (records < kCounted && data_offset_ + data_size_ - at >= sizeof(perf_event_header)) {
    perf_event_header header;
    std::memcpy(&header, bytes_.data() + at, sizeof header);
    if (header.size < sizeof header || header.size > data_offset_ + data_size_ - at) break;  // read() will say
    records += header.type != kFinishedRound;
    if (header.type == PERF_RECORD_SAMPLE && addressed && header.size >= address_at + 8) {
      std::uint64_t address;
      std::memcpy(&address, bytes_.data() + at + address_at, sizeof address);
      addresses.push_back(address);
    }
    at += header.size;
  }
  std::sort(addresses.begin(), addresses.end());
  outlook.samples_looked_at = addresses.size();
  outlook.distinct_addresses =
      static_cast<std::uint64_t>(std::unique(addresses.begin(), addresses.end()) - addresses.begin());
  outlook.records =
      at >= data_offset_ + data_size_ || at == data_offset_ ? records : records * data_size_ / (at - data_offset_);
  return outlook;
}

void PerfDataReader::read_in_shares(const std::vector<SampleHandler*>& handlers, std::size_t threads,
                                    const std::function<void(std::size_t)>& share_read) const {
  if (handlers.empty()) return;
  const std::uint64_t records = outlook().records;
  auto boundary = [&](std::size_t k) {
    return k == handlers.size() ? ~std::uint64_t{0} : records * k / handlers.size();
  };
  std::vector<std::exception_ptr> failures(handlers.size());
  // Each thread takes the next share not yet taken (a caller may give more shares than threads).
  std::atomic<std::size_t> next{0};
  std::mutex reporting;  // share_read is called once at a time
  auto work = [&] {
    for (std::size_t k; (k = next.fetch_add(1)) < handlers.size();) {
      try {
        read_share(*handlers[k], boundary(k), boundary(k + 1));
        if (share_read) {
          const std::lock_guard one_at_a_time(reporting);
          share_read(k);
        }
      } catch (...) {
        failures[k] = std::current_exception();
      }
    }
  };
  {
    std::vector<std::jthread> helpers;
    for (std::size_t t = 1; t < std::min(threads, handlers.size()); ++t) helpers.emplace_back(work);
    work();
  }  // every thread has ended
  for (const std::exception_ptr& failure : failures)
    if (failure) std::rethrow_exception(failure);
}

void PerfDataReader::read_share(SampleHandler& handler, std::uint64_t begin, std::uint64_t end) const {
  std::vector<kernel::SampleLayout> layouts;
  for (const PerfDataEvent& event : events_) layouts.emplace_back(event.attr);
  const bool identified = (events_.front().attr.sample_type & PERF_SAMPLE_IDENTIFIER) != 0;
  // A record's event: by its identifier, or, without one, by PERF_SAMPLE_ID through the first
  // event's layout (perf requires the same sample_type then), or the only event.
  // Ids sorted once: a system-wide file holds an id per event and CPU, looked up for every sample.
  std::vector<std::pair<std::uint64_t, std::size_t>> by_id;
  for (std::size_t e = 0; e < events_.size(); ++e)
    for (std::uint64_t id : events_[e].ids) by_id.emplace_back(id, e);
  std::sort(by_id.begin(), by_id.end());
  auto event_of = [&](std::uint64_t id) -> long {
    auto found = std::lower_bound(by_id.begin(), by_id.end(), std::make_pair(id, std::size_t{0}));
    if (found != by_id.end() && found->first == id) return static_cast<long>(found->second);
    return events_.size() == 1 ? 0 : -1;
  };
  // Records at an odd place are copied out one at a time: the decoder reads 8-byte words.
  std::vector<std::uint64_t> aligned(65536 / 8);
  // At most `limit` bytes of it: what is looked at (the header keeps the whole record's size).
  auto copy_out = [&](std::uint64_t at, std::size_t limit = 65536) -> const perf_event_header& {
    // A record at an 8-byte boundary (every record of a file whose data section starts at one) is
    // read where it lies.
    if (reinterpret_cast<std::uintptr_t>(bytes_.data() + at) % alignof(std::uint64_t) == 0)
      return *reinterpret_cast<const perf_event_header*>(bytes_.data() + at);
    perf_event_header header;
    std::memcpy(&header, bytes_.data() + at, sizeof header);
    std::memcpy(aligned.data(), bytes_.data() + at, std::min<std::size_t>(header.size, limit));
    return *reinterpret_cast<const perf_event_header*>(aligned.data());
  };
  Sample sample;
  std::uint64_t handed = 0;  // records handed on (or passed over, before `begin`)
  // `event`: the record's, where its identifier named it when it was queued; -1 where not known.
  auto deliver = [&](std::uint64_t at, long event) {
    const std::uint64_t index = handed++;
    if (index >= end) return;
    if (index < begin) {
      std::uint32_t type;
      std::memcpy(&type, bytes_.data() + at, sizeof type);
      if (type != PERF_RECORD_SAMPLE) handler.context(copy_out(at));
      return;
    }
    const perf_event_header& record = copy_out(at);
    if (record.type != PERF_RECORD_SAMPLE) {
      handler.record(record);
      return;
    }
    // Without identifiers, the first event's layout finds the id (decoded once where it is the first's).
    const bool decoded_as_first = !identified && layouts.front().decode(record, sample);
    if (decoded_as_first) event = event_of(sample.id);
    if (event < 0 ||
        (!(decoded_as_first && event == 0) && !layouts[static_cast<std::size_t>(event)].decode(record, sample)))
      corrupt(at, "a sample does not match the fields of its event");
    // A fixed period is the attr's, as perf reads it, when the samples do not carry it.
    const perf_event_attr& attr = events_[static_cast<std::size_t>(event)].attr;
    if (!(attr.sample_type & PERF_SAMPLE_PERIOD) && !attr.freq) sample.period = attr.sample_period;
    handler.sample(static_cast<std::size_t>(event), sample);
  };
  // When a record happened: a sample's PERF_SAMPLE_TIME (after IDENTIFIER, IP and TID where the
  // event has them), another record's sample_id trailer; `before` (the previous record's) where
  // it says nothing, so that it keeps its place after that one.
  auto time_of = [&](const perf_event_header& record, long event, std::uint64_t before) {
    if (event < 0) return before;
    const std::uint64_t type = events_[static_cast<std::size_t>(event)].attr.sample_type;
    if (!(type & PERF_SAMPLE_TIME)) return before;
    if (record.type == PERF_RECORD_SAMPLE) {
      const std::size_t at = sizeof record + 8 * (((type & PERF_SAMPLE_IDENTIFIER) != 0) +
                                                  ((type & PERF_SAMPLE_IP) != 0) + ((type & PERF_SAMPLE_TID) != 0));
      if (at + 8 > record.size) return before;
      std::uint64_t time;
      std::memcpy(&time, reinterpret_cast<const char*>(&record) + at, sizeof time);
      return time;
    }
    kernel::SampleId id;
    return layouts[static_cast<std::size_t>(event)].decode_id(record, id) ? id.time : before;
  };

  // The records in the order they happened, as perf report reads them (its ordered events): the
  // rings of several CPUs are drained one after another, so a round of the file interleaves them.
  // Records wait in a queue by time; at each PERF_RECORD_FINISHED_ROUND those no later than the
  // latest of the round before are handed on (a ring drained late in a round still adds older
  // records to the next), the rest at the end. A round's records are sorted at once and merged
  // with those left from the round before (a heap, pushed and popped a record at a time, took a
  // twentieth of a report's time).
  // Records of one time keep the file's order: `at` grows as they join.
  struct Queued {
    std::uint64_t time, at;
    long event;  // as deliver takes it
    bool operator<(const Queued& other) const { return std::tie(time, at) < std::tie(other.time, other.at); }
  };
  std::vector<Queued> queue;  // [0, sorted): in order, left from the rounds before; then this round's
  std::size_t sorted = 0;
  // Where the first record still waiting lies (the file's end where none does): records join the
  // queue in the file's order, so it moves only when records are handed on.
  std::uint64_t first_waiting = data_offset_ + data_size_;
  auto hand_on = [&](std::uint64_t limit) {
    // A round of one ring (one CPU, or a command's own) comes in order: checked, not sorted again.
    const auto round = queue.begin() + static_cast<std::ptrdiff_t>(sorted);
    if (!std::is_sorted(round, queue.end())) std::sort(round, queue.end());
    if (round != queue.begin() && round != queue.end() && *round < *std::prev(round))
      std::inplace_merge(queue.begin(), round, queue.end());
    std::size_t next = 0;
    while (next < queue.size() && queue[next].time <= limit && handed < end) {
      deliver(queue[next].at, queue[next].event);
      ++next;
    }
    queue.erase(queue.begin(), queue.begin() + static_cast<std::ptrdiff_t>(next));
    sorted = queue.size();
    first_waiting = data_offset_ + data_size_;
    for (const Queued& q : queue) first_waiting = std::min(first_waiting, q.at);
  };
  std::uint64_t last_time = 0, round_latest = 0, previous_round_latest = 0, released = 0;
  for (std::uint64_t at = data_offset_; at < data_offset_ + data_size_ && handed < end;) {
    perf_event_header header;
    if (data_offset_ + data_size_ - at < sizeof header) corrupt(at, "the data section ends inside a record's header");
    std::memcpy(&header, bytes_.data() + at, sizeof header);
    if (header.size < sizeof header || header.size > data_offset_ + data_size_ - at)
      corrupt(at, "a record says it has " + std::to_string(header.size) + " bytes");
    if (header.type == kFinishedRound) {
      hand_on(previous_round_latest);
      previous_round_latest = round_latest;
    } else {
      // A sample's time lies in its first 40 bytes (after its header, identifier, ip and tid).
      const perf_event_header& record = copy_out(at, header.type == PERF_RECORD_SAMPLE ? 40 : header.size);
      // Without identifiers, every event has the first's sample_type (perf requires it then): the
      // time is read as the first's, the event known once the sample's id is decoded.
      const long event = identified ? event_of(kernel::record_identifier(record)) : -1;
      last_time = time_of(record, identified ? event : 0, last_time);
      round_latest = std::max(round_latest, last_time);
      queue.push_back({last_time, at, event});
      first_waiting = std::min(first_waiting, at);
    }
    at += header.size;
    // What is read is given back in windows of 2 MiB, up to the first record still waiting: a
    // file of any size costs a window and a round or two. A share gives back what it passed over
    // too: a share before it still reading there finds those pages again in the page cache.
    constexpr std::uint64_t kWindow = 2 << 20;
    if (storage_->mapping && at - released >= kWindow) {
      const std::uint64_t waiting = std::min(at, first_waiting);
      if (waiting > released) {
        storage_->mapping->release(released, waiting - released);
        released = waiting;
      }
    }
  }
  hand_on(~std::uint64_t{0});
}

}  // namespace perfmon
