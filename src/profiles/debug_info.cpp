// SPDX-License-Identifier: Apache-2.0
#include "profiles/debug_info.hpp"

#include "profiles/symbol_table.hpp"

#if PERFMON_HAVE_LIBDW
#include "profiles/dwfl_files.hpp"
#include "profiles/libdw.hpp"
#endif

namespace perfmon::analysis {

#if PERFMON_HAVE_LIBDW

struct DebugInfo::Session {
  std::string search_path;  // libdwfl's debuginfo_path: "" (beside the file), ".debug", the root
  char* search_path_text = nullptr;
  Dwfl_Callbacks callbacks{};
  Dwfl* dwfl = nullptr;
  Dwfl_Module* module = nullptr;
  // The concrete function whose inlined calls were looked up last, where there was one.
  Dwarf_Die function{};
  bool has_function = false;

  ~Session() {
    if (dwfl != nullptr) dw().dwfl_end(dwfl);
  }
};

namespace {

// A function's name as the symbol table's are shown: the linkage name demangled without its
// parameters where it has one (C++), else its plain name (C); of the abstract instance for an
// inlined copy.
std::string function_name(Dwarf_Die* die) {
  Dwarf_Attribute attribute;
  const char* linkage = dw().dwarf_formstring(dw().dwarf_attr_integrate(die, DW_AT_linkage_name, &attribute));
  if (linkage == nullptr)
    linkage = dw().dwarf_formstring(dw().dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attribute));
  if (linkage != nullptr) return demangled_function_name(linkage);
  const char* name = dw().dwarf_diename(die);
  return name != nullptr ? name : "";
}

// The file that an inlined call's DW_AT_call_file names, in its unit's file table ("" unknown).
std::string call_file(Dwarf_Die* call) {
  Dwarf_Attribute attribute;
  Dwarf_Word index = 0;
  Dwarf_Die unit;
  Dwarf_Files* files = nullptr;
  std::size_t count = 0;
  if (dw().dwarf_formudata(dw().dwarf_attr(call, DW_AT_call_file, &attribute), &index) != 0 ||
      dw().dwarf_diecu(call, &unit, nullptr, nullptr) == nullptr ||
      dw().dwarf_getsrcfiles(&unit, &files, &count) != 0 || index >= count)
    return {};
  const char* name = dw().dwarf_filesrc(files, index, nullptr, nullptr);
  return name != nullptr ? name : "";
}

unsigned call_line(Dwarf_Die* call) {
  Dwarf_Attribute attribute;
  Dwarf_Word line = 0;
  return dw().dwarf_formudata(dw().dwarf_attr(call, DW_AT_call_line, &attribute), &line) == 0
             ? static_cast<unsigned>(line)
             : 0;
}

bool holds(Dwarf_Die* die, Dwarf_Addr pc) {
  return dw().dwarf_haspc(die, pc) > 0;  // < 0: no address attributes, as a declaration has
}

// The scopes that can hold code (libdw's dwarf_getscopes descends the same).
bool holds_scopes(int tag) {
  switch (tag) {
    case DW_TAG_subprogram:
    case DW_TAG_inlined_subroutine:
    case DW_TAG_lexical_block:
    case DW_TAG_with_stmt:
    case DW_TAG_catch_block:
    case DW_TAG_try_block:
    case DW_TAG_entry_point:
      return true;
    default:
      return false;
  }
}

// The first child of `parent` that can hold code and holds pc, as dwarf_getscopes descends; the
// children of a unit imported there (dwz's partial units) count as the parent's.
bool child_holding(Dwarf_Die* parent, Dwarf_Addr pc, Dwarf_Die& found) {
  Dwarf_Die child;
  if (dw().dwarf_child(parent, &child) != 0) return false;
  do {
    const int tag = dw().dwarf_tag(&child);
    if (tag == DW_TAG_imported_unit) {
      Dwarf_Attribute attribute;
      Dwarf_Die imported;
      if (dw().dwarf_formref_die(dw().dwarf_attr(&child, DW_AT_import, &attribute), &imported) != nullptr &&
          child_holding(&imported, pc, found))
        return true;
    } else if (holds_scopes(tag) && holds(&child, pc)) {
      found = child;
      return true;
    }
  } while (dw().dwarf_siblingof(&child, &child) == 0);
  return false;
}

// The inlined calls that hold `pc`, outermost first, within the concrete function that holds them,
// every level of them. (dwarf_getscopes gives one: the innermost inlined call's concrete DIE, then
// its abstract origin's scopes. It also walks the whole unit for each address, twice where code is
// inlined, about a millisecond an address in a large C++ unit.) The addresses looked up come in runs
// within one function (an annotated function's instructions, a recording's hot code): the function
// found last is searched first, from its own DIE down.
std::vector<Dwarf_Die> inlined_calls(DebugInfo::Session& s, Dwarf_Die* unit, Dwarf_Addr pc) {
  Dwarf_Die scope;
  if (s.has_function && holds(&s.function, pc)) {
    scope = s.function;
  } else {
    s.has_function = false;
    for (Dwarf_Die next, *at = unit; !s.has_function && child_holding(at, pc, next); at = &scope) {
      scope = next;
      if (dw().dwarf_tag(&scope) == DW_TAG_subprogram) {
        s.function = scope;
        s.has_function = true;
      }
    }
    if (!s.has_function) return {};
  }
  std::vector<Dwarf_Die> calls;
  for (Dwarf_Die next; child_holding(&scope, pc, next); scope = next) {
    const int tag = dw().dwarf_tag(&next);
    if (tag == DW_TAG_subprogram) calls.clear();  // a function nested in it: the innermost is the one
    if (tag == DW_TAG_inlined_subroutine) calls.push_back(next);
  }
  return calls;
}

}  // namespace

std::unique_ptr<DebugInfo> DebugInfo::open(const std::string& path, const std::string& debug_root) {
  if (libdw() == nullptr) return nullptr;  // no libdw.so.1 here: no DWARF
  auto session = std::make_unique<Session>();
  session->search_path = ":.debug:" + debug_root;
  session->search_path_text = session->search_path.data();
  session->callbacks = {dw().dwfl_build_id_find_elf, find_regular_debuginfo, dw().dwfl_offline_section_address,
                        &session->search_path_text};
  session->dwfl = dw().dwfl_begin(&session->callbacks);
  if (session->dwfl == nullptr) return nullptr;
  dw().dwfl_report_begin(session->dwfl);
  // Loaded at 0 plus its own addresses: libdwfl's addresses are then the file's.
  session->module = report_regular_elf(session->dwfl, path, 0, true);
  dw().dwfl_report_end(session->dwfl, nullptr, nullptr);
  if (session->module == nullptr) return nullptr;
  // A stripped program without its debug file (a distribution's compiler) has none: no address of
  // it is then looked up, nor kept.
  Dwarf_Addr bias = 0;
  if (dw().dwfl_module_getdwarf(session->module, &bias) == nullptr) return nullptr;
  return std::make_unique<DebugInfo>(std::move(session));
}

bool DebugInfo::look_up(std::uint64_t address, SourcePlace& place) {
  Dwarf_Addr bias = 0;
  Dwarf_Die* unit = dw().dwfl_module_addrdie(session_->module, address, &bias);
  if (unit == nullptr) return false;
  place.inlined.clear();
  std::vector<Dwarf_Die> calls = inlined_calls(*session_, unit, address - bias);
  for (auto call = calls.rbegin(); call != calls.rend(); ++call)
    place.inlined.push_back(function_name(&*call));  // innermost first
  place.file.clear();
  place.line = 0;
  if (Dwfl_Line* line = dw().dwfl_module_getsrc(session_->module, address)) {
    int number = 0;
    if (const char* file = dw().dwfl_lineinfo(line, nullptr, &number, nullptr, nullptr, nullptr)) {
      place.file = file;
      place.line = number > 0 ? static_cast<unsigned>(number) : 0;
    }
  }
  return true;
}

std::vector<SourceFrame> DebugInfo::frames(std::uint64_t address) {
  std::vector<SourceFrame> found;
  Dwarf_Addr bias = 0;
  Dwarf_Die* unit = dw().dwfl_module_addrdie(session_->module, address, &bias);
  if (unit == nullptr) return found;
  std::vector<Dwarf_Die> calls = inlined_calls(*session_, unit, address - bias);
  // Each level's line is where it calls the next: the next inlined call's call site.
  found.push_back({});
  for (Dwarf_Die& call : calls) {
    found.back().file = call_file(&call);
    found.back().line = call_line(&call);
    found.push_back({function_name(&call), "", 0});
  }
  // The innermost's is the line table's.
  if (Dwfl_Line* line = dw().dwfl_module_getsrc(session_->module, address)) {
    int number = 0;
    if (const char* file = dw().dwfl_lineinfo(line, nullptr, &number, nullptr, nullptr, nullptr)) {
      found.back().file = file;
      found.back().line = number > 0 ? static_cast<unsigned>(number) : 0;
    }
  }
  return found;
}

#else  // no libdw: no DWARF

std::vector<SourceFrame> DebugInfo::frames(std::uint64_t) {
  return {};
}

struct DebugInfo::Session {};

std::unique_ptr<DebugInfo> DebugInfo::open(const std::string&, const std::string&) {
  return nullptr;
}

bool DebugInfo::look_up(std::uint64_t, SourcePlace&) {
  return false;
}

#endif

const SourcePlace* DebugInfo::describe(std::uint64_t address) {
  auto [known, added] = described_.try_emplace(address, static_cast<std::uint32_t>(places_.size()));
  if (added) {
    SourcePlace found;
    if (look_up(address, found)) {
      places_.push_back(std::move(found));
    } else {
      *known = kNothing;
    }
  }
  return *known != kNothing ? &places_[*known] : nullptr;
}

DebugInfo::DebugInfo(std::unique_ptr<Session> session) : session_(std::move(session)) {}
DebugInfo::~DebugInfo() = default;

}  // namespace perfmon::analysis
