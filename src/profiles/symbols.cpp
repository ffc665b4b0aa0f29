// SPDX-License-Identifier: Apache-2.0
#include "perfmon/symbols.hpp"

#include "kernel/build_id.hpp"
#include "kernel/file_mapping.hpp"
#include "kernel/text_file.hpp"
#include "profiles/debug_info.hpp"
#include "profiles/kernel_symbols.hpp"
#include "profiles/symbol_table.hpp"

#include <elf.h>

#include <cxxabi.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace perfmon {

std::string demangled_function_name(std::string name) {
  if (!name.starts_with("_Z")) return name;
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> text(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status),
                                                   &std::free);
  if (status != 0 || !text) return name;
  std::string readable(text.get());
  // The parameters are the parenthesis that closes last, taken back to the one that opens it.
  const std::size_t close = readable.rfind(')');
  int depth = 0;
  for (std::size_t i = close + 1; close != std::string::npos && i-- > 0;) {
    depth += readable[i] == ')' ? 1 : readable[i] == '(' ? -1 : 0;
    if (depth == 0) {
      if (i > 0) readable.resize(i);
      break;
    }
  }
  // A function template's instance comes with its return type ("bool std::has_facet<...>"), which
  // perf's demangling leaves out: what precedes the last space outside brackets, unless that
  // space follows "operator".
  if (!readable.ends_with('>')) return readable;
  std::size_t name_at = 0;
  depth = 0;
  for (std::size_t i = 0; i < readable.size(); ++i) {
    const char c = readable[i];
    if (c == '<' || c == '(') ++depth;
    if ((c == '>' || c == ')') && depth > 0) --depth;
    if (c == ' ' && depth == 0 && !std::string_view(readable).substr(0, i).ends_with("operator")) name_at = i + 1;
  }
  return readable.substr(name_at);
}

namespace {

// Bits of a .gnu.version entry (binutils' VERSYM_HIDDEN and VERSYM_VERSION; <elf.h> lacks them).
constexpr Elf64_Half kVersionHidden = 0x8000, kVersionIndex = 0x7fff;

struct Found {
  std::uint64_t start, size;
  std::string_view name;  // as the symbol table spells it, or made here (in read_functions' `made`)
  unsigned binding;
  std::size_t version_at = std::string::npos;  // where "@VERSION" begins in the name, if appended
};

// The parts of a 64-bit ELF file of this machine's byte order that names need, every offset
// checked against the size.
struct ElfView {
  std::string_view bytes;
  Elf64_Ehdr header{};
  std::vector<Elf64_Shdr> sections;

  bool fits(std::uint64_t offset, std::uint64_t size) const {
    return offset <= bytes.size() && size <= bytes.size() - offset;
  }
  explicit ElfView(std::string_view elf) : bytes(elf) {
    if (!fits(0, sizeof header)) return;
    std::memcpy(&header, bytes.data(), sizeof header);
    if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64) {
      header = {};
      return;
    }
    if (header.e_shentsize != sizeof(Elf64_Shdr) || !fits(header.e_shoff, header.e_shnum * sizeof(Elf64_Shdr))) return;
    sections.resize(header.e_shnum);
    if (!sections.empty())
      std::memcpy(sections.data(), bytes.data() + header.e_shoff, sections.size() * sizeof(Elf64_Shdr));
  }
  // A section's bytes, or empty when it lies outside the file (or takes no room: SHT_NOBITS).
  std::string_view contents(const Elf64_Shdr& section) const {
    if (section.sh_type == SHT_NOBITS || !fits(section.sh_offset, section.sh_size)) return {};
    return bytes.substr(section.sh_offset, section.sh_size);
  }
  // The section called `name`, or nullptr.
  const Elf64_Shdr* named(std::string_view name) const {
    if (header.e_shstrndx >= sections.size()) return nullptr;
    const std::string_view names = contents(sections[header.e_shstrndx]);
    for (const Elf64_Shdr& section : sections) {
      if (section.sh_name >= names.size()) continue;
      const std::string_view tail = names.substr(section.sh_name);
      if (tail.substr(0, tail.find('\0')) == name) return &section;
    }
    return nullptr;
  }
};

// The name of version `index` in a .gnu.version_d section, or empty.
std::string_view version_name(const ElfView& elf, const Elf64_Shdr& definitions, unsigned index) {
  const std::string_view defs = elf.contents(definitions);
  if (definitions.sh_link >= elf.sections.size()) return {};
  const std::string_view names = elf.contents(elf.sections[definitions.sh_link]);
  std::size_t at = 0;
  for (unsigned n = 0; n < definitions.sh_info && at + sizeof(Elf64_Verdef) <= defs.size(); ++n) {
    Elf64_Verdef def;
    std::memcpy(&def, defs.data() + at, sizeof def);
    if (def.vd_ndx == index && def.vd_cnt > 0 && def.vd_aux <= defs.size() - at &&
        sizeof(Elf64_Verdaux) <= defs.size() - at - def.vd_aux) {
      Elf64_Verdaux aux;
      std::memcpy(&aux, defs.data() + at + def.vd_aux, sizeof aux);
      if (aux.vda_name < names.size())
        return names.substr(aux.vda_name).substr(0, names.substr(aux.vda_name).find('\0'));
    }
    if (def.vd_next == 0) break;
    at += def.vd_next;
  }
  return {};
}

// An assembly label in code (STT_NOTYPE in an executable section, visible), such as ld.so's
// _dl_start_user: perf names code by these too (its elf_sym__is_label).
bool is_code_label(const ElfView& elf, const Elf64_Sym& symbol) {
  if (ELF64_ST_TYPE(symbol.st_info) != STT_NOTYPE || symbol.st_name == 0 || symbol.st_shndx == SHN_UNDEF ||
      symbol.st_shndx >= elf.sections.size())
    return false;
  const unsigned visibility = ELF64_ST_VISIBILITY(symbol.st_other);
  return visibility != STV_HIDDEN && visibility != STV_INTERNAL &&
         (elf.sections[symbol.st_shndx].sh_flags & SHF_EXECINSTR) != 0;
}

// The functions of .symtab, else of .dynsym. C++ names are kept as the file spells them and
// demangled when first shown (SymbolTables::Table::shown_name): a large program has 100,000 names,
// and a profile shows a few thousand. Where the choice of a name depends on its demangled form
// (among aliases, and beside a hidden version's), they are demangled here.
void read_functions(const ElfView& elf, SymbolTables::Table& table) {
  std::vector<Found> found;
  std::deque<std::string> made;  // names made here, which `found` views (a deque: they never move)
  bool versioned = false;
  for (Elf64_Word wanted : {SHT_SYMTAB, SHT_DYNSYM}) {
    for (std::size_t index = 0; index < elf.sections.size(); ++index) {
      const Elf64_Shdr& symbols = elf.sections[index];
      if (symbols.sh_type != wanted || symbols.sh_link >= elf.sections.size()) continue;
      const std::string_view entries = elf.contents(symbols), names = elf.contents(elf.sections[symbols.sh_link]);
      // .dynsym's hidden versions are named as nm -D names them, "versioned_function@PERFMON_1", where
      // another version of the name needs telling apart (below); else plainly, as perf names them.
      std::string_view versions;
      const Elf64_Shdr* definitions = nullptr;
      for (const Elf64_Shdr& section : elf.sections) {
        if (section.sh_type == SHT_GNU_versym && section.sh_link == index) versions = elf.contents(section);
        if (section.sh_type == SHT_GNU_verdef) definitions = &section;
      }
      for (std::uint64_t at = 0; at + sizeof(Elf64_Sym) <= entries.size(); at += sizeof(Elf64_Sym)) {
        Elf64_Sym symbol;
        std::memcpy(&symbol, entries.data() + at, sizeof symbol);
        const unsigned type = ELF64_ST_TYPE(symbol.st_info);
        const bool label = type != STT_FUNC && type != STT_GNU_IFUNC;
        if ((label && !is_code_label(elf, symbol)) || symbol.st_value == 0 || symbol.st_name >= names.size()) continue;
        std::string_view name = names.substr(symbol.st_name);
        name = name.substr(0, name.find('\0'));
        // Arm's mapping symbols ($x, $d, $x.42) mark code and data, they name nothing.
        if (label && name.size() >= 2 && name[0] == '$' &&
            std::string_view("adtx").find(name[1]) != std::string_view::npos && (name.size() == 2 || name[2] == '.'))
          continue;
        Found f{symbol.st_value, symbol.st_size, name, static_cast<unsigned>(ELF64_ST_BIND(symbol.st_info))};
        const std::uint64_t nth = at / sizeof(Elf64_Sym);
        if (definitions != nullptr && (nth + 1) * sizeof(Elf64_Half) <= versions.size()) {
          Elf64_Half version;
          std::memcpy(&version, versions.data() + nth * sizeof version, sizeof version);
          if ((version & kVersionHidden) && (version & kVersionIndex) > VER_NDX_GLOBAL)
            if (std::string_view v = version_name(elf, *definitions, version & kVersionIndex); !v.empty()) {
              std::string& spelled = made.emplace_back(demangled_function_name(std::string(name)));
              f.version_at = spelled.size();
              f.name = spelled.append("@").append(v);
              versioned = true;
            }
        }
        found.push_back(f);
      }
    }
    if (!found.empty()) {  // .symtab holds all of .dynsym's
      table.names_from_symtab = wanted == SHT_SYMTAB;
      break;
    }
  }
  auto demangle = [&](Found& f) {
    if (f.version_at == std::string::npos && f.name.starts_with("_Z"))
      f.name = made.emplace_back(demangled_function_name(std::string(f.name)));
  };
  if (versioned) {
    // A version is kept only where another version of the plain (demangled) name needs telling apart.
    for (Found& f : found) demangle(f);
    std::unordered_map<std::string_view, unsigned> versions_of;  // by plain name
    for (const Found& f : found) ++versions_of[f.name.substr(0, f.version_at)];
    for (Found& f : found)
      if (f.version_at != std::string::npos && versions_of[f.name.substr(0, f.version_at)] == 1)
        f.name = f.name.substr(0, f.version_at);
  }
  // Of the names of one address (aliases such as btowc and __btowc), the one perf shows (its
  // choose_best_symbol): one with a size, then global before local before weak (a weak name is
  // the one to avoid: readdir64 loses to __GI___readdir64), then the fewest leading underscores,
  // then the longest (demangled); among equals, the first in the table's order, as perf keeps the
  // first (its symbols__fixup_duplicate).
  auto rank = [](const Found& f) {
    const std::size_t underscores = f.name.find_first_not_of('_');
    return std::make_tuple(f.size != 0,
                           f.binding == STB_GLOBAL ? 2
                           : f.binding == STB_WEAK ? 0
                                                   : 1,
                           -static_cast<long>(underscores == std::string::npos ? 0 : underscores), f.name.size());
  };
  std::stable_sort(found.begin(), found.end(), [](const Found& a, const Found& b) { return a.start < b.start; });
  table.functions.clear();
  table.functions.reserve(found.size());
  for (std::size_t first = 0, end; first < found.size(); first = end) {
    end = first + 1;
    while (end < found.size() && found[end].start == found[first].start) ++end;
    std::size_t best = first;
    if (end - first > 1) {
      for (std::size_t i = first; i < end; ++i) demangle(found[i]);
      for (std::size_t i = first + 1; i < end; ++i)
        if (rank(found[i]) > rank(found[best])) best = i;
    }
    table.functions.push_back({found[best].start, found[best].size, table.names.keep(found[best].name)});
  }
}

// The symbol `index` of a symbol table section, named (demangled), or empty.
std::string symbol_name(const ElfView& elf, const Elf64_Shdr& symbols, std::uint64_t index) {
  const std::string_view entries = elf.contents(symbols);
  if (symbols.sh_link >= elf.sections.size() || index >= entries.size() / sizeof(Elf64_Sym)) return {};
  const std::string_view names = elf.contents(elf.sections[symbols.sh_link]);
  Elf64_Sym symbol;
  std::memcpy(&symbol, entries.data() + index * sizeof symbol, sizeof symbol);
  if (symbol.st_name >= names.size()) return {};
  const std::string_view tail = names.substr(symbol.st_name);
  return demangled_function_name(std::string(tail.substr(0, tail.find('\0'))));
}

// A relocation section's entries (Elf64_Rela), sorted by the address they relocate.
std::vector<Elf64_Rela> relocations(const ElfView& elf, const Elf64_Shdr* section) {
  std::vector<Elf64_Rela> entries;
  if (section == nullptr || section->sh_type != SHT_RELA) return entries;
  const std::string_view bytes = elf.contents(*section);
  entries.resize(bytes.size() / sizeof(Elf64_Rela));
  if (!entries.empty()) std::memcpy(entries.data(), bytes.data(), entries.size() * sizeof(Elf64_Rela));
  std::sort(entries.begin(), entries.end(),
            [](const Elf64_Rela& a, const Elf64_Rela& b) { return a.r_offset < b.r_offset; });
  return entries;
}

// The PLT's stubs, named as perf names them (its dso__synthesize_plt_symbols): the n-th entry of
// .plt (after its header, where the lazy PLT has one) or of .plt.sec (x86's IBT PLT) calls the
// function of the n-th relocation of .rela.plt, in address order: "getppid@plt". On x86-64 the
// entries of .plt.got jump through a GOT slot that .rela.dyn names.
void read_plt_stubs(const ElfView& elf, SymbolTables::Table& table) {
  const Elf64_Shdr* plt = elf.named(".plt");
  const Elf64_Shdr* plt_relocations = elf.named(".rela.plt");
  if (plt == nullptr || plt->sh_type != SHT_PROGBITS) return;
  const bool x86 = elf.header.e_machine == EM_X86_64;
  if (!x86 && elf.header.e_machine != EM_AARCH64) return;
  const std::uint64_t header_size = x86 ? 16 : 32, entry_size = 16;
  auto add = [&](std::uint64_t start, std::uint64_t size, const std::string& name) {
    table.plt_stubs.push_back({start, size, table.names.keep(name)});
  };
  if (plt_relocations != nullptr && plt_relocations->sh_link < elf.sections.size()) {
    const Elf64_Shdr& symbols = elf.sections[plt_relocations->sh_link];
    const std::vector<Elf64_Rela> slots = relocations(elf, plt_relocations);
    std::uint64_t at = plt->sh_addr;
    if (const Elf64_Shdr* secure = x86 ? elf.named(".plt.sec") : nullptr) {
      at = secure->sh_addr;  // the IBT PLT: its entries call; .plt's are the lazy binder's
      add(plt->sh_addr, plt->sh_size, ".plt");
    } else if (slots.size() * entry_size != plt->sh_size) {
      add(at, header_size, ".plt");  // a lazy PLT begins with the header that calls the dynamic linker
      at += header_size;
    }
    for (const Elf64_Rela& slot : slots) {
      std::string name = symbol_name(elf, symbols, ELF64_R_SYM(slot.r_info));
      if (name.empty()) {
        // An IFUNC bound in place (R_*_IRELATIVE) has no symbol: its resolver's address is the
        // addend, and the resolver is named as the function it resolves.
        const SymbolTables::Table::Function* resolver =
            slot.r_addend > 0 ? table.at(static_cast<std::uint64_t>(slot.r_addend)) : nullptr;
        if (resolver != nullptr && resolver->start == static_cast<std::uint64_t>(slot.r_addend)) {
          name = *table.shown_name(*resolver);
        } else {
          char offset[40];
          std::snprintf(offset, sizeof offset, "offset_%#llx", static_cast<unsigned long long>(at));
          name = offset;
        }
      }
      add(at, entry_size, name + "@plt");
      at += entry_size;
    }
  }
  const Elf64_Shdr* got_plt = x86 ? elf.named(".plt.got") : nullptr;
  const Elf64_Shdr* dynamic_relocations = elf.named(".rela.dyn");
  if (got_plt == nullptr || got_plt->sh_entsize == 0 || dynamic_relocations == nullptr ||
      dynamic_relocations->sh_link >= elf.sections.size())
    return;
  const std::vector<Elf64_Rela> slots = relocations(elf, dynamic_relocations);
  const std::string_view code = elf.contents(*got_plt);
  for (std::uint64_t at = 0; at + got_plt->sh_entsize <= code.size(); at += got_plt->sh_entsize) {
    // [endbr64] [bnd] jmp *disp32(%rip): the slot is at the end of the jump plus disp32.
    std::size_t n = code.substr(at).starts_with("\xf3\x0f\x1e\xfa") ? 4 : 0;
    if (at + n < code.size() && code[at + n] == '\xf2') ++n;
    if (at + n + 6 > code.size() || code[at + n] != '\xff' || code[at + n + 1] != '\x25') continue;
    std::int32_t displacement;
    std::memcpy(&displacement, code.data() + at + n + 2, sizeof displacement);
    const std::uint64_t target = got_plt->sh_addr + at + n + 6 + static_cast<std::int64_t>(displacement);
    auto slot = std::lower_bound(slots.begin(), slots.end(), target,
                                 [](const Elf64_Rela& r, std::uint64_t address) { return r.r_offset < address; });
    if (slot == slots.end() || slot->r_offset != target) continue;
    const std::string name = symbol_name(elf, elf.sections[dynamic_relocations->sh_link], ELF64_R_SYM(slot->r_info));
    if (!name.empty()) add(got_plt->sh_addr + at, got_plt->sh_entsize, name + "@plt");
  }
}

// The file name a .gnu_debuglink section names (the CRC after it is not checked: the build id is,
// where both files have one).
std::string debug_link(const ElfView& elf) {
  const Elf64_Shdr* link = elf.named(".gnu_debuglink");
  if (link == nullptr) return {};
  const std::string_view contents = elf.contents(*link);
  const std::string name(contents.substr(0, contents.find('\0')));
  return name.find('/') == std::string::npos ? name : std::string();
}

// Names a stripped file (`file`, at `path`) by the .symtab of its separate debug file: the first
// that exists of <root>/.build-id/xx/yyyy.debug by its build id, then its .gnu_debuglink name
// beside it, in .debug/ beside it and under <root> at its directory, as gdb and perf look. Its
// functions replace the table's (the segments stay the file's) unless the two files' build ids
// differ or it names none.
void read_debug_file(const std::string& path, std::string_view file, const std::string& debug_root,
                     SymbolTables::Table& table) {
  const std::optional<std::string> file_id = kernel::build_id_in_elf(file);
  std::vector<std::string> candidates;
  if (file_id && file_id->size() > 1) {
    const std::string hex = kernel::build_id_hex(*file_id);
    candidates.push_back(debug_root + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug");
  }
  if (const std::string link = debug_link(ElfView(file)); !link.empty()) {
    const std::string dir = path.substr(0, path.rfind('/') + 1);  // with its slash; empty for a bare name
    candidates.push_back(dir + link);
    candidates.push_back(dir + ".debug/" + link);
    if (dir.starts_with('/')) candidates.push_back(debug_root + dir + link);
  }
  for (const std::string& candidate : candidates) {
    if (candidate == path) continue;
    const std::optional<kernel::FileMapping> debug = kernel::FileMapping::map(candidate);
    if (!debug) continue;
    const std::optional<std::string> debug_id = kernel::build_id_in_elf(debug->bytes());
    if (file_id && debug_id && file_id != debug_id) return;  // another build's: its addresses would lie
    SymbolTables::Table named;
    read_functions(ElfView(debug->bytes()), named);
    if (named.names_from_symtab) {
      table.functions = std::move(named.functions);
      table.names.take(std::move(named.names));
    }
    return;
  }
}

}  // namespace

void read_elf_symbols(std::string_view bytes, SymbolTables::Table& table) {
  const ElfView elf(bytes);
  table.machine = elf.header.e_machine;
  for (unsigned i = 0; i < elf.header.e_phnum; ++i) {
    Elf64_Phdr segment;
    if (!elf.fits(elf.header.e_phoff + i * sizeof segment, sizeof segment)) break;
    std::memcpy(&segment, bytes.data() + elf.header.e_phoff + i * sizeof segment, sizeof segment);
    if (segment.p_type == PT_LOAD) table.segments.push_back({segment.p_offset, segment.p_filesz, segment.p_vaddr});
  }
  read_functions(elf, table);
  read_plt_stubs(elf, table);
  std::sort(table.plt_stubs.begin(), table.plt_stubs.end(),
            [](const auto& a, const auto& b) { return a.start < b.start; });
}

namespace {

// This process's vDSO image, as its mapping in /proc/self/maps bounds it ("" where it has none).
std::string_view this_process_vdso() {
  const std::string maps = kernel::read_whole_file("/proc/self/maps").value_or(std::string());
  for (std::string_view rest(maps); !rest.empty();) {
    const std::size_t end = rest.find('\n');
    const std::string_view line = rest.substr(0, end);
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
    if (!line.ends_with("[vdso]")) continue;
    std::uint64_t start = 0, stop = 0;
    const auto [dash, error] = std::from_chars(line.data(), line.data() + line.size(), start, 16);
    if (error != std::errc() || dash == line.data() + line.size() || *dash != '-') return {};
    if (std::from_chars(dash + 1, line.data() + line.size(), stop, 16).ec != std::errc() || stop <= start) return {};
    return {reinterpret_cast<const char*>(start), static_cast<std::size_t>(stop - start)};
  }
  return {};
}

// What a thread asked a SymbolTables last: most addresses it looks up lie in the file of the one
// before, and then it takes no lock (two threads taking one lock by turns for every address cost
// more than the reading of the file's symbols itself). Tables are known by a number of their own,
// not by their address, which a later SymbolTables may have.
std::atomic<std::uint64_t> tables_made{0};

// The calling thread's last answer of `look_up` for these tables (their `id`) and `path`, else a
// new one, kept as the last.
template <class Value, class LookUp>
Value* last_asked(std::uint64_t id, const std::string& path, LookUp look_up) {
  thread_local struct {
    std::uint64_t tables = 0;  // 0: nothing asked yet
    std::string path;
    Value* value = nullptr;
  } last;
  if (last.tables != id || last.path != path) last = {id, path, look_up()};
  return last.value;
}

}  // namespace

SymbolTables::SymbolTables(std::string debug_root)
    : debug_root_(std::move(debug_root)), id_(tables_made.fetch_add(1) + 1) {}
SymbolTables::SymbolTables(std::string debug_root, std::string root)
    : debug_root_(std::move(debug_root)), root_(std::move(root)), id_(tables_made.fetch_add(1) + 1) {}
SymbolTables::~SymbolTables() = default;

void SymbolTables::expect_build_ids(std::map<std::string, std::string> recorded) {
  recorded_ids_ = std::move(recorded);
}

std::vector<std::string> SymbolTables::changed_files() const {
  const std::shared_lock<std::shared_mutex> lock(mutex_);
  return changed_;
}

std::string SymbolTables::changed_since_recording(const std::string& path, std::string_view bytes) {
  const auto recorded = recorded_ids_.find(path);
  if (recorded == recorded_ids_.end()) return "";
  const std::optional<std::string> now = kernel::build_id_in_elf(bytes);
  const std::string now_hex = now ? kernel::build_id_hex(*now) : "none";
  if (now_hex == recorded->second) return "";
  return "'" + path + "' changed since the recording (build id " + recorded->second + " then, " + now_hex +
         " now): its samples are left unnamed rather than named by code that never ran; record again, or give the "
         "files as they were (--symfs)";
}

const SymbolTables::Table& SymbolTables::table_of(const std::string& path) {
  return *last_asked<const Table>(id_, path, [&] { return &read_table(path); });
}

const SymbolTables::Table& SymbolTables::read_table(const std::string& path) {
  {
    const std::shared_lock<std::shared_mutex> lock(mutex_);
    if (auto found = files_.find(path); found != files_.end()) return *found->second;
  }
  // Read under the lock: another thread that wants the same file waits for it, not reads it too.
  const std::lock_guard<std::shared_mutex> lock(mutex_);
  std::unique_ptr<const Table>& known = files_[path];
  if (!known) {
    auto table = std::make_unique<Table>();
    // The kernel's vDSO is no file: this process's own copy names its functions (the kernel maps
    // the same image into every process of an architecture, as perf reads its own).
    if (path == "[vdso]") {
      if (const std::string_view image = this_process_vdso(); !image.empty()) read_elf_symbols(image, *table);
    } else if (const std::optional<kernel::FileMapping> file = kernel::FileMapping::map(root_ + path)) {
      // Regular files only, mapped rather than copied: a recording may name /dev/zero or a FIFO.
      if (std::string changed = changed_since_recording(path, file->bytes()); !changed.empty()) {
        changed_.push_back(std::move(changed));
        unchanged_[path] = false;
      } else {
        unchanged_[path] = true;
        read_elf_symbols(file->bytes(), *table);
        // Stripped of .symtab, its local functions are named by a separate debug file, if installed.
        if (!table->names_from_symtab) read_debug_file(root_ + path, file->bytes(), debug_root_, *table);
      }
    }
    known = std::move(table);
  }
  return *known;
}

analysis::DebugInfo* SymbolTables::dwarf_of(const std::string& path) {
  return last_asked<analysis::DebugInfo>(id_, path, [&] { return open_dwarf(path); });
}

analysis::DebugInfo* SymbolTables::open_dwarf(const std::string& path) {
  auto key = std::make_pair(std::this_thread::get_id(), path);
  {
    const std::shared_lock<std::shared_mutex> lock(mutex_);
    if (auto found = dwarf_.find(key); found != dwarf_.end()) return found->second.get();
  }
  // A file that changed since the recording has no DWARF of the code that ran.
  read_table(path);
  {
    const std::shared_lock<std::shared_mutex> lock(mutex_);
    if (auto known = unchanged_.find(path); known != unchanged_.end() && !known->second) return nullptr;
  }
  // Opened outside the lock: a thread opens its own session, and no other waits for that.
  std::unique_ptr<analysis::DebugInfo> opened = analysis::DebugInfo::open(root_ + path, debug_root_);
  const std::lock_guard<std::shared_mutex> lock(mutex_);
  return dwarf_.try_emplace(std::move(key), std::move(opened)).first->second.get();
}

const std::string_view* SymbolTables::function_in_file(const std::string& path, std::uint64_t file_offset,
                                                       std::uint64_t& into) {
  const Table& table = table_of(path);
  const std::optional<std::uint64_t> address = table.address_of(file_offset);
  const Table::Function* function = address ? table.at(*address) : nullptr;
  if (function == nullptr) return nullptr;
  into = *address - function->start;
  return table.shown_name(*function);
}

const SourcePlace* SymbolTables::source_in_file(const std::string& path, std::uint64_t file_offset) {
  const std::optional<std::uint64_t> address = table_of(path).address_of(file_offset);
  if (!address) return nullptr;
  analysis::DebugInfo* dwarf = dwarf_of(path);
  return dwarf != nullptr ? dwarf->describe(*address) : nullptr;
}

std::optional<FunctionCode> SymbolTables::function_code(const std::string& path, std::uint64_t file_offset) {
  const Table& table = table_of(path);
  const std::optional<std::uint64_t> address = table.address_of(file_offset);
  const Table::Function* function = address ? table.at(*address) : nullptr;
  if (function == nullptr) return std::nullopt;
  FunctionCode code{std::string(*table.shown_name(*function)), function->start, function->size, {}, table.machine};
  const auto held = table.file_offset_of(function->start);
  const std::optional<kernel::FileMapping> file = kernel::FileMapping::map(root_ + path);
  if (held && file && held->first < file->bytes().size()) {
    // A symbol without a size (an assembly label) is read to the next function's start.
    std::uint64_t size = function->size;
    if (size == 0) {
      auto next = std::upper_bound(table.functions.begin(), table.functions.end(), function->start,
                                   [](std::uint64_t a, const Table::Function& f) { return a < f.start; });
      size = next != table.functions.end() ? next->start - function->start : 0;
      code.size = size;
    }
    size = std::min({size, held->second, file->bytes().size() - held->first});
    const std::string_view bytes = file->bytes().substr(held->first, size);
    code.bytes.assign(bytes.begin(), bytes.end());
  }
  return code;
}

std::vector<SourceFrame> SymbolTables::source_frames(const std::string& path, std::uint64_t address) {
  analysis::DebugInfo* dwarf = dwarf_of(path);
  return dwarf != nullptr ? dwarf->frames(address) : std::vector<SourceFrame>();
}

namespace {

// The process's kernel symbols: read once, shared by the SymbolTables that live at a time.
// Made when first used, not at every start of every program that links the library.
struct KernelShared {
  std::mutex reading;
  std::string cache_directory;                        // under `reading`
  std::weak_ptr<const KernelSymbolCopy> copy;         // under `reading`
  std::weak_ptr<const SymbolTables::Table> kallsyms;  // under `reading`
};
KernelShared& kernel_shared() {
  static KernelShared shared;
  return shared;
}

}  // namespace

void SymbolTables::keep_kernel_symbols_in(std::string directory) {
  KernelShared& shared = kernel_shared();
  const std::lock_guard<std::mutex> lock(shared.reading);
  shared.cache_directory = std::move(directory);
}

void SymbolTables::keep_kernel_symbols_now() {
  KernelShared& shared = kernel_shared();
  const std::lock_guard<std::mutex> lock(shared.reading);
  if (shared.cache_directory.empty() || !shared.copy.expired() || !shared.kallsyms.expired()) return;
  if (KernelSymbolCopy::map(shared.cache_directory)) return;
  read_kernel_symbols(shared.cache_directory);  // for the copy it writes
}

const KernelSymbolCopy* SymbolTables::kernel_copy() {
  KernelShared& shared = kernel_shared();
  const std::lock_guard<std::mutex> lock(shared.reading);
  if (!kernel_copy_tried_) {
    kernel_copy_tried_ = true;
    kernel_copy_ = shared.copy.lock();
    if (!kernel_copy_) shared.copy = kernel_copy_ = KernelSymbolCopy::map(shared.cache_directory);
    kernel_copy_found_.store(kernel_copy_.get(), std::memory_order_release);
  }
  return kernel_copy_.get();
}

const SymbolTables::Table& SymbolTables::kernel_table() {
  KernelShared& shared = kernel_shared();
  const std::lock_guard<std::mutex> lock(shared.reading);
  if (!kernel_) {
    kernel_ = shared.kallsyms.lock();
    if (!kernel_) shared.kallsyms = kernel_ = read_kernel_symbols(shared.cache_directory);
    kernel_table_.store(kernel_.get(), std::memory_order_release);
  }
  return *kernel_;
}

const std::string_view* SymbolTables::Table::shown_name(const Function& function) const {
  if (!function.name.starts_with("_Z") || &function < functions.data() ||
      &function >= functions.data() + functions.size())
    return &function.name;
  const auto index = static_cast<std::size_t>(&function - functions.data());
  if (const auto* slots = demangled_slots_.load(std::memory_order_acquire))
    if (const std::string_view* known = slots[index].load(std::memory_order_acquire)) return known;
  const std::string readable = demangled_function_name(std::string(function.name));  // outside the lock
  const std::lock_guard<std::mutex> lock(demangling_);
  if (!demangled_) {
    demangled_ = std::make_unique<std::atomic<const std::string_view*>[]>(functions.size());
    demangled_slots_.store(demangled_.get(), std::memory_order_release);
  }
  std::atomic<const std::string_view*>& slot = demangled_[index];
  if (const std::string_view* known = slot.load(std::memory_order_relaxed)) return known;
  const std::string_view* kept = &demangled_views_.emplace_back(demangled_text_.keep(readable));
  slot.store(kept, std::memory_order_release);
  return kept;
}

const std::string_view* SymbolTables::function_in_kernel(std::uint64_t address, std::uint64_t& into) {
  // Read once, then looked up without a lock (std::call_once costs a thread-local store a call).
  const Table* table = kernel_table_.load(std::memory_order_acquire);
  if (table == nullptr) {
    // An earlier run's copy, where there is one of this boot; what it does not cover, or where
    // there is none, /proc/kallsyms names (and is looked up in from then on).
    const KernelSymbolCopy* copy = kernel_copy_found_.load(std::memory_order_acquire);
    if (copy != nullptr || (copy = kernel_copy()) != nullptr)
      if (const std::string_view* name = copy->at(address, into)) return name;
    table = &kernel_table();
  }
  const Table::Function* function = table->at(address);
  if (function == nullptr) return nullptr;
  into = address - function->start;
  return &function->name;
}

}  // namespace perfmon
