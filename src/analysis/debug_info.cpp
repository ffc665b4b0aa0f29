#include "analysis/debug_info.hpp"

#include "analysis/symbol_table.hpp"

#include <cstdlib>

#if PERFMON_HAVE_LIBDW
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "analysis/dwfl_files.hpp"
#endif

namespace perfmon::analysis {

#if PERFMON_HAVE_LIBDW

struct DebugInfo::Session {
  std::string search_path;  // libdwfl's debuginfo_path: "" (beside the file), ".debug", the root
  char* search_path_text = nullptr;
  Dwfl_Callbacks callbacks{};
  Dwfl* dwfl = nullptr;
  Dwfl_Module* module = nullptr;

  ~Session() {
    if (dwfl != nullptr) dwfl_end(dwfl);
  }
};

namespace {

// A function's name as the symbol table's are shown: the linkage name demangled without its
// parameters where it has one (C++), else its plain name (C); of the abstract instance for an
// inlined copy.
std::string function_name(Dwarf_Die* die) {
  Dwarf_Attribute attribute;
  const char* linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attribute));
  if (linkage == nullptr) linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attribute));
  if (linkage != nullptr) return demangled_function_name(linkage);
  const char* name = dwarf_diename(die);
  return name != nullptr ? name : "";
}

}  // namespace

std::unique_ptr<DebugInfo> DebugInfo::open(const std::string& path, const std::string& debug_root) {
  auto session = std::make_unique<Session>();
  session->search_path = ":.debug:" + debug_root;
  session->search_path_text = session->search_path.data();
  session->callbacks = {dwfl_build_id_find_elf, find_regular_debuginfo, dwfl_offline_section_address,
                        &session->search_path_text};
  session->dwfl = dwfl_begin(&session->callbacks);
  if (session->dwfl == nullptr) return nullptr;
  dwfl_report_begin(session->dwfl);
  // Loaded at 0 plus its own addresses: libdwfl's addresses are then the file's.
  session->module = report_regular_elf(session->dwfl, path, 0, true);
  dwfl_report_end(session->dwfl, nullptr, nullptr);
  if (session->module == nullptr) return nullptr;
  // A stripped program without its debug file (a distribution's compiler) has none: no address of
  // it is then looked up, nor kept.
  Dwarf_Addr bias = 0;
  if (dwfl_module_getdwarf(session->module, &bias) == nullptr) return nullptr;
  return std::make_unique<DebugInfo>(std::move(session));
}

bool DebugInfo::look_up(std::uint64_t address, SourcePlace& place) {
  Dwarf_Addr bias = 0;
  Dwarf_Die* unit = dwfl_module_addrdie(session_->module, address, &bias);
  if (unit == nullptr) return false;
  place.inlined.clear();
  Dwarf_Die* scopes = nullptr;
  const int count = dwarf_getscopes(unit, address - bias, &scopes);
  for (int i = 0; i < count; ++i) {
    const int tag = dwarf_tag(&scopes[i]);
    if (tag == DW_TAG_subprogram) break;  // the function the symbol table names
    if (tag == DW_TAG_inlined_subroutine) place.inlined.push_back(function_name(&scopes[i]));
  }
  std::free(scopes);
  place.file.clear();
  place.line = 0;
  if (Dwfl_Line* line = dwfl_module_getsrc(session_->module, address)) {
    int number = 0;
    if (const char* file = dwfl_lineinfo(line, nullptr, &number, nullptr, nullptr, nullptr)) {
      place.file = file;
      place.line = number > 0 ? static_cast<unsigned>(number) : 0;
    }
  }
  return true;
}

#else  // no libdw: no DWARF

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
