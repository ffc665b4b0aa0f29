// SPDX-License-Identifier: Apache-2.0
#include "profiles/kernel_symbols.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

#include "kernel/fd.hpp"
#include "kernel/file_mapping.hpp"
#include "kernel/text_file.hpp"

namespace perfmon {

// A function from `offset` (above the header's base) to the next entry's; its name runs from
// `name_at` to the next entry's. An entry whose name is empty begins a range that no function
// covers (after a module's last function, whose end kallsyms does not say); the last is one.
struct KernelSymbolCopy::Entry {
  std::uint32_t offset, name_at;
};

namespace {

constexpr char kCacheName[] = "kernel-symbols";
constexpr char kCacheMagic[8] = {'P', 'M', 'K', 'S', 'Y', 'M', 'S', '2'};

// What a copy is valid for: made in this boot, with these modules loaded, by a process to which
// /proc/kallsyms showed this first line (its address is 0 where kallsyms hides them).
struct CacheKey {
  char boot_id[40] = {};
  std::uint64_t first_line_hash = 0, modules_hash = 0;
  bool operator==(const CacheKey&) const = default;
};

// The file: its header, then `count` entries sorted by offset, then the names they point into.
struct CacheHeader {
  char magic[8];
  CacheKey key;
  std::uint64_t base, count, names_size;
};
static_assert(sizeof(CacheHeader) % alignof(std::uint64_t) == 0);

// FNV-1a: a key's hash must be the same from one run to the next.
std::uint64_t stable_hash(std::string_view bytes) {
  std::uint64_t hash = 0xcbf29ce484222325;
  for (const char c : bytes) hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3;
  return hash;
}

// The key of the running system as this process sees it; nullopt where kallsyms hides the
// addresses (nothing to name) or cannot be read. The first line is read alone: the kernel formats
// only what a read asks for.
std::optional<CacheKey> current_key() {
  const kernel::FileDescriptor kallsyms(::open("/proc/kallsyms", O_RDONLY | O_CLOEXEC));
  char head[256];
  const ssize_t got = kallsyms ? ::read(kallsyms.get(), head, sizeof head) : -1;
  if (got <= 0) return std::nullopt;
  std::string_view first(head, static_cast<std::size_t>(got));
  first = first.substr(0, first.find('\n'));
  std::uint64_t address = 0;
  if (std::from_chars(first.data(), first.data() + first.size(), address, 16).ec != std::errc() || address == 0)
    return std::nullopt;
  const std::string boot = kernel::read_first_line("/proc/sys/kernel/random/boot_id");
  if (boot.empty() || boot.size() >= sizeof CacheKey::boot_id) return std::nullopt;
  CacheKey key;
  std::memcpy(key.boot_id, boot.data(), boot.size());
  key.first_line_hash = stable_hash(first);
  key.modules_hash = stable_hash(kernel::read_whole_file("/proc/modules").value_or(std::string()));
  return key;
}

// Whose code each function is: 0 the kernel itself, else 1 + its module's index in `modules`
// ("ext4", and "bpf" or "__builtin__ftrace" for code loaded and unloaded at any time).
struct Owners {
  std::vector<std::uint32_t> of;  // by function
  std::vector<std::string> modules;
  std::uint32_t index(std::string_view module) {
    if (module.empty()) return 0;
    // A module's lines come together: its index is most often the last one's.
    if (!modules.empty() && modules.back() == module) return static_cast<std::uint32_t>(modules.size());
    const auto known = static_cast<std::uint32_t>(std::find(modules.begin(), modules.end(), module) - modules.begin());
    if (known == modules.size()) modules.emplace_back(module);
    return known + 1;
  }
  // Whose names a copy would soon get wrong.
  bool transient(std::uint32_t owner) const {
    return owner != 0 && (modules[owner - 1] == "bpf" || modules[owner - 1].starts_with("__builtin__"));
  }
};

// Writes the copy: to a new file renamed over the old, so that no reader maps a half-written one.
// Any failure (a read-only home, a full disk) leaves no copy and is not reported: the copy only
// saves time.
void write_cache(const std::string& directory, const CacheKey& key,
                 const std::vector<SymbolTables::Table::Function>& sorted, const Owners& owners) {
  // Of one address's names the last, as the full table's look-up takes.
  std::vector<std::uint32_t> kept;
  for (std::size_t i = 0; i < sorted.size(); ++i)
    if (!owners.transient(owners.of[i]) && (i + 1 == sorted.size() || sorted[i + 1].start != sorted[i].start))
      kept.push_back(static_cast<std::uint32_t>(i));
  // Entries of 8 bytes: the kernel and its modules lie within 4 GiB (x86-64: 2 GiB above the
  // kernel; arm64: the module region is 2 GiB or 4 GiB wide), else no copy is made.
  if (kept.empty() || sorted[kept.back()].start - sorted[kept.front()].start > UINT32_MAX) return;
  const std::uint64_t base = sorted[kept.front()].start;
  std::vector<KernelSymbolCopy::Entry> entries;
  entries.reserve(kept.size());
  std::uint64_t names_size = 0;
  for (std::size_t k = 0; k < kept.size(); ++k) {
    // A function ends where the next of its module begins; the last of a module, whose end is not
    // known, is left out: its entry, nameless, begins a gap.
    const std::uint32_t i = kept[k];
    entries.push_back({static_cast<std::uint32_t>(sorted[i].start - base), static_cast<std::uint32_t>(names_size)});
    if (k + 1 == kept.size() || owners.of[kept[k + 1]] != owners.of[i])
      kept[k] = UINT32_MAX;  // no name
    else
      names_size += sorted[i].name.size();
    if (names_size > UINT32_MAX) return;
  }
  CacheHeader header;
  std::memcpy(header.magic, kCacheMagic, sizeof header.magic);
  header.key = key;
  header.base = base;
  header.count = entries.size();
  header.names_size = names_size;

  // Its directory made as mkdir -p makes it (~/.cache may not exist yet), private to the user.
  for (std::size_t slash = directory.find('/', 1); slash != std::string::npos; slash = directory.find('/', slash + 1))
    ::mkdir(directory.substr(0, slash).c_str(), 0700);
  if (::mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST) return;
  std::string temporary = directory + "/" + kCacheName + ".XXXXXX";
  const kernel::FileDescriptor file(::mkostemp(temporary.data(), O_CLOEXEC));
  if (!file) return;
  auto put = [&](const void* data, std::size_t size) {
    for (const char* at = static_cast<const char*>(data); size > 0;) {
      const ssize_t wrote = ::write(file.get(), at, size);
      if (wrote < 0 && errno == EINTR) continue;
      if (wrote <= 0) return false;
      at += wrote;
      size -= static_cast<std::size_t>(wrote);
    }
    return true;
  };
  bool written = put(&header, sizeof header) && put(entries.data(), entries.size() * sizeof(KernelSymbolCopy::Entry));
  std::string names;  // written a block at a time
  for (std::size_t k = 0; written && k <= kept.size(); ++k) {
    if (k < kept.size() && kept[k] != UINT32_MAX) names.append(sorted[kept[k]].name);
    if (names.size() >= (64 << 10) || k == kept.size()) {
      written = put(names.data(), names.size());
      names.clear();
    }
  }
  if (!written || ::rename(temporary.c_str(), (directory + "/" + kCacheName).c_str()) != 0) ::unlink(temporary.c_str());
}

// Calls `line` for each line of a file, read a block at a time (a line longer than the block is
// left out): /proc/kallsyms is 10 MB of text that need not be held whole.
template <class OnLine>
void for_each_line(const char* path, OnLine line) {
  const kernel::FileDescriptor file(::open(path, O_RDONLY | O_CLOEXEC));
  if (!file) return;
  std::vector<char> block(256 << 10);
  std::size_t held = 0;
  for (;;) {
    const ssize_t got = ::read(file.get(), block.data() + held, block.size() - held);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      if (held > 0) line(std::string_view(block.data(), held));
      return;
    }
    held += static_cast<std::size_t>(got);
    const std::string_view text(block.data(), held);
    std::size_t done = 0;
    for (std::size_t end; (end = text.find('\n', done)) != std::string_view::npos; done = end + 1)
      line(text.substr(done, end - done));
    if (done == 0 && held == block.size()) done = held;
    std::memmove(block.data(), block.data() + done, held - done);
    held -= done;
  }
}

}  // namespace

std::shared_ptr<const SymbolTables::Table> read_kernel_symbols(const std::string& cache_directory,
                                                               const char* kallsyms) {
  auto table = std::make_shared<SymbolTables::Table>();
  // Taken before the text: a module loaded in between makes the copy's key older than its
  // contents, and the next run reads kallsyms again.
  const std::optional<CacheKey> key = cache_directory.empty() ? std::nullopt : current_key();
  Owners owners;
  // Most lines are functions (120,000 to 200,000): room for them, which costs no memory unused.
  table->functions.reserve(1 << 18);
  owners.of.reserve(1 << 18);
  for_each_line(kallsyms, [&](std::string_view line) {
    std::uint64_t start = 0;
    const auto [after, error] = std::from_chars(line.data(), line.data() + line.size(), start, 16);
    const std::size_t at = static_cast<std::size_t>(after - line.data());
    if (error != std::errc() || start == 0 || at + 3 >= line.size() || (line[at + 1] != 't' && line[at + 1] != 'T'))
      return;
    // The name ends at the module's tab (or a space); a character loop, as find_first_of makes a
    // call per character (a tenth of a report's time on 120,000 lines).
    const std::string_view name = line.substr(at + 3);
    std::size_t length = 0;
    while (length < name.size() && name[length] != '\t' && name[length] != ' ') ++length;
    std::string_view module = name.substr(length);
    const std::size_t open = module.find('[');
    module = open == std::string_view::npos ? std::string_view()
                                            : module.substr(open + 1, module.find(']', open) - open - 1);
    table->functions.push_back({start, 0, table->names.keep(name.substr(0, length))});
    owners.of.push_back(owners.index(module));
  });
  // Of the names of one address (__pi___x86_indirect_thunk_r8 and __x86_indirect_thunk_r8), the
  // look-up takes the last; in the file's order that is the one perf takes (the others get no size).
  std::vector<SymbolTables::Table::Function>& functions = table->functions;
  const auto by_start = [&](std::uint32_t a, std::uint32_t b) { return functions[a].start < functions[b].start; };
  std::vector<std::uint32_t> order(functions.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  if (!std::is_sorted(order.begin(), order.end(), by_start)) {
    std::stable_sort(order.begin(), order.end(), by_start);
    std::vector<SymbolTables::Table::Function> sorted;
    std::vector<std::uint32_t> sorted_owners;
    for (const std::uint32_t i : order) {
      sorted.push_back(functions[i]);
      sorted_owners.push_back(owners.of[i]);
    }
    functions = std::move(sorted);
    owners.of = std::move(sorted_owners);
  }
  if (key) write_cache(cache_directory, *key, functions, owners);
  return table;
}

std::unique_ptr<const KernelSymbolCopy> KernelSymbolCopy::map(const std::string& cache_directory) {
  if (cache_directory.empty()) return nullptr;
  const std::string path = cache_directory + "/" + kCacheName;
  std::optional<kernel::FileMapping> file = kernel::FileMapping::map(path);
  kernel::FileDescriptor names = kernel::open_regular_file(path);
  if (!file || !names) return nullptr;
  const std::string_view bytes = file->bytes();
  CacheHeader header;
  if (bytes.size() < sizeof header) return nullptr;
  std::memcpy(&header, bytes.data(), sizeof header);
  const std::optional<CacheKey> key = current_key();
  if (std::memcmp(header.magic, kCacheMagic, sizeof header.magic) != 0 || !key || !(header.key == *key) ||
      header.count == 0 || header.count > (bytes.size() - sizeof header) / sizeof(Entry) ||
      header.names_size != bytes.size() - sizeof header - header.count * sizeof(Entry))
    return nullptr;
  return std::make_unique<const KernelSymbolCopy>(std::move(*file), std::move(names), header.base, header.count);
}

KernelSymbolCopy::KernelSymbolCopy(kernel::FileMapping file, kernel::FileDescriptor names, std::uint64_t base,
                                   std::uint64_t count)
    : file_(std::move(file)),
      names_file_(std::move(names)),
      base_(base),
      count_(count),
      names_at_(sizeof(CacheHeader) + count * sizeof(Entry)),
      names_size_(file_.bytes().size() - names_at_) {}

KernelSymbolCopy::Entry KernelSymbolCopy::entry(std::uint64_t index) const {
  Entry e;
  std::memcpy(&e, file_.bytes().data() + sizeof(CacheHeader) + index * sizeof e, sizeof e);
  return e;
}

const std::string_view* KernelSymbolCopy::at(std::uint64_t address, std::uint64_t& into) const {
  if (address < base_ || address - base_ > UINT32_MAX) return nullptr;
  const auto offset = static_cast<std::uint32_t>(address - base_);
  // The last entry at or below the address, which the next one bounds.
  std::uint64_t low = 0, high = count_;
  while (low < high) {
    const std::uint64_t middle = low + (high - low) / 2;
    if (entry(middle).offset <= offset)
      low = middle + 1;
    else
      high = middle;
  }
  if (low == 0 || low == count_) return nullptr;
  const Entry found = entry(low - 1), next = entry(low);
  // A gap names nothing, nor does a damaged copy outside its names, whatever its entries say.
  if (next.name_at <= found.name_at || next.name_at > names_size_) return nullptr;
  into = offset - found.offset;
  const std::lock_guard<std::mutex> lock(mutex_);
  auto [name, added] = found_.try_emplace(low - 1);
  if (added) {
    // Read, not mapped: a page mapped brings its neighbours (the kernel faults 64 KiB around), and a
    // report would soon hold all the names where it looks up a few thousand.
    std::string text(next.name_at - found.name_at, '\0');
    if (::pread(names_file_.get(), text.data(), text.size(), static_cast<off_t>(names_at_ + found.name_at)) !=
        static_cast<ssize_t>(text.size()))
      text.clear();
    name->second = names_.keep(text);
  }
  return name->second.empty() ? nullptr : &name->second;
}

}  // namespace perfmon
