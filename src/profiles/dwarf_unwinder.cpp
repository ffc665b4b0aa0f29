// SPDX-License-Identifier: Apache-2.0
#include "profiles/dwarf_unwinder.hpp"

#include <asm/perf_regs.h>

#include <bit>
#include <cstring>
#include <set>
#include <string>
#include <utility>

#if PERFMON_HAVE_LIBDW
#include "profiles/dwfl_files.hpp"
#include "profiles/libdw.hpp"
#endif

namespace perfmon::analysis {

#if PERFMON_HAVE_LIBDW && (defined(__x86_64__) || defined(__aarch64__))

namespace {

// A sample's user registers by the kernel's number (asm/perf_regs.h): the sample holds the values
// of the mask's bits, in ascending order.
struct UserRegisters {
  std::uint64_t mask = 0;
  std::span<const std::uint64_t> values;
  bool has(unsigned reg) const noexcept { return mask >> reg & 1; }
  std::uint64_t operator[](unsigned reg) const noexcept {
    return values[static_cast<std::size_t>(std::popcount(mask & ((std::uint64_t{1} << reg) - 1)))];
  }
};

#if defined(__x86_64__)
constexpr unsigned kPcRegister = PERF_REG_X86_IP, kSpRegister = PERF_REG_X86_SP;
#elif defined(__aarch64__)
constexpr unsigned kPcRegister = PERF_REG_ARM64_PC, kSpRegister = PERF_REG_ARM64_SP;
#endif

}  // namespace

// One process: libdwfl's session (with the files reported to it) and the sample being unwound
// (the callbacks read its registers and stack).
struct DwarfUnwinder::Process {
  Dwfl* dwfl = nullptr;
  bool attached = false;
  const Locate* locate = nullptr;  // the call's
  std::uint32_t pid = 0, tid = 0;
  UserRegisters regs;
  std::span<const std::byte> stack;  // the copied bytes that hold stack, from the stack pointer up
  std::vector<std::uint64_t>* frames = nullptr;
  std::size_t room = 0;
  std::set<std::pair<std::string, std::uint64_t>> reported;  // files and where, as reported to libdwfl

  ~Process() {
    if (dwfl != nullptr) dw().dwfl_end(dwfl);
  }

  // Reports the file mapped at `address` to libdwfl unless a reported file covers it already
  // (most frames: looked up without placing the address again); false where nothing is mapped.
  bool report(std::uint64_t address) {
    if (dw().dwfl_addrmodule(dwfl, address) != nullptr) return true;
    std::string path;
    std::uint64_t base = 0;
    if (!(*locate)(pid, address, path, base) || path.empty() || path.front() != '/') return false;
    // Reported already, and the address lies in a gap between its segments: libdwfl, given the
    // same file at the same place again, marks the module it has for removal and frees it at
    // dwfl_report_end, under the frames being unwound (and the machine description they use).
    const auto [file, added_now] = reported.emplace(std::move(path), base);
    if (!added_now) return false;
    dw().dwfl_report_begin_add(dwfl);
    const bool added = report_regular_elf(dwfl, file->first, base, false) != nullptr;
    dw().dwfl_report_end(dwfl, nullptr, nullptr);
    return added;
  }
};

// libdwfl's callbacks for every session: files found by build id, their debug files beside them
// (".debug") and under the debug root, as DebugInfo finds them.
struct DwarfUnwinder::Settings {
  std::string search_path;  // libdwfl's debuginfo_path
  char* search_path_text = nullptr;
  Dwfl_Callbacks callbacks{};
};

namespace {

pid_t next_thread(Dwfl*, void* process_arg, void** thread_arg) {
  if (*thread_arg != nullptr) return 0;  // one thread: the sample's
  *thread_arg = process_arg;
  return static_cast<pid_t>(static_cast<DwarfUnwinder::Process*>(process_arg)->tid);
}

// Words of the stack copy; anything else is unknown (perf reads the files too, for data that CFI
// expressions rarely need).
bool memory_read(Dwfl*, Dwarf_Addr address, Dwarf_Word* result, void* process_arg) {
  const auto& p = *static_cast<DwarfUnwinder::Process*>(process_arg);
  const std::uint64_t sp = p.regs[kSpRegister];
  if (address < sp || address - sp > p.stack.size() || p.stack.size() - (address - sp) < sizeof *result) return false;
  std::memcpy(result, p.stack.data() + (address - sp), sizeof *result);
  return true;
}

// The sample's registers in DWARF's numbering.
bool set_initial_registers(Dwfl_Thread* thread, void* thread_arg) {
  const UserRegisters& r = static_cast<DwarfUnwinder::Process*>(thread_arg)->regs;
#if defined(__x86_64__)
  // DWARF: rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip.
  const unsigned order[] = {PERF_REG_X86_AX,  PERF_REG_X86_DX,  PERF_REG_X86_CX,  PERF_REG_X86_BX,  PERF_REG_X86_SI,
                            PERF_REG_X86_DI,  PERF_REG_X86_BP,  PERF_REG_X86_SP,  PERF_REG_X86_R8,  PERF_REG_X86_R9,
                            PERF_REG_X86_R10, PERF_REG_X86_R11, PERF_REG_X86_R12, PERF_REG_X86_R13, PERF_REG_X86_R14,
                            PERF_REG_X86_R15, PERF_REG_X86_IP};
  Dwarf_Word values[std::size(order)];
  for (std::size_t k = 0; k < std::size(order); ++k) values[k] = r.has(order[k]) ? r[order[k]] : 0;
  return dw().dwfl_thread_state_registers(thread, 0, std::size(order), values);
#else
  // DWARF: x0-x30, then sp; the pc apart.
  Dwarf_Word values[PERF_REG_ARM64_SP + 1];
  for (unsigned k = 0; k <= PERF_REG_ARM64_SP; ++k) values[k] = r.has(k) ? r[k] : 0;
  if (!dw().dwfl_thread_state_registers(thread, 0, std::size(values), values)) return false;
  dw().dwfl_thread_state_register_pc(thread, r[PERF_REG_ARM64_PC]);
  return true;
#endif
}

const Dwfl_Thread_Callbacks kThreadCallbacks = {next_thread,           nullptr, memory_read,
                                                set_initial_registers, nullptr, nullptr};

int take_frame(Dwfl_Frame* frame, void* process_arg) {
  auto& p = *static_cast<DwarfUnwinder::Process*>(process_arg);
  Dwarf_Addr pc = 0;
  if (!dw().dwfl_frame_pc(frame, &pc, nullptr) || pc == 0) return DWARF_CB_ABORT;
  p.report(pc);  // its file's CFI takes the unwinding one frame further
  p.frames->push_back(pc);
  return --p.room == 0 ? DWARF_CB_ABORT : DWARF_CB_OK;
}

}  // namespace

bool DwarfUnwinder::available() noexcept {
  return libdw() != nullptr;
}

std::size_t DwarfUnwinder::unwind(const Sample& sample, std::uint64_t regs_mask, const Locate& locate,
                                  std::vector<std::uint64_t>& frames, std::size_t max_frames) {
  const UserRegisters regs{regs_mask, sample.user_regs};
  if (sample.user_regs_abi == 0 || max_frames == 0 ||
      static_cast<std::size_t>(std::popcount(regs_mask)) != sample.user_regs.size() || !regs.has(kPcRegister) ||
      !regs.has(kSpRegister))
    return 0;
  std::unique_ptr<Process>& process = processes_[sample.pid];
  if (!process) {
    process = std::make_unique<Process>();
    process->dwfl = dw().dwfl_begin(&settings_->callbacks);
    process->pid = sample.pid;
  }
  Process& p = *process;
  if (p.dwfl == nullptr) return 0;
  p.tid = sample.tid;
  p.locate = &locate;
  p.regs = regs;
  p.stack = sample.user_stack.first(std::min<std::size_t>(sample.user_stack.size(), sample.user_stack_dynamic_size));
  p.frames = &frames;
  p.room = max_frames;
  const std::size_t before = frames.size();
  // libdwfl learns the machine from a file: the pc's must be reported before it attaches.
  if (!p.report(regs[kPcRegister])) return 0;
  if (!p.attached)
    p.attached = dw().dwfl_attach_state(p.dwfl, nullptr, static_cast<pid_t>(sample.pid), &kThreadCallbacks, &p);
  if (!p.attached) return 0;
  dw().dwfl_getthread_frames(p.dwfl, static_cast<pid_t>(sample.tid), take_frame, &p);
  if (frames.size() == before) frames.push_back(regs[kPcRegister]);  // not even the pc's frame: the pc alone
  return frames.size() - before;
}

DwarfUnwinder::DwarfUnwinder(const std::string& debug_root) : settings_(std::make_unique<Settings>()) {
  settings_->search_path = ":.debug:" + debug_root;
  settings_->search_path_text = settings_->search_path.data();
  if (libdw() != nullptr)
    settings_->callbacks = {dw().dwfl_build_id_find_elf, find_regular_debuginfo, dw().dwfl_offline_section_address,
                            &settings_->search_path_text};
}

#else  // no libdw, or an architecture it is not taught here

struct DwarfUnwinder::Process {};
struct DwarfUnwinder::Settings {};

DwarfUnwinder::DwarfUnwinder(const std::string&) {}

bool DwarfUnwinder::available() noexcept {
  return false;
}

std::size_t DwarfUnwinder::unwind(const Sample&, std::uint64_t, const Locate&, std::vector<std::uint64_t>&,
                                  std::size_t) {
  return 0;
}

#endif

DwarfUnwinder::~DwarfUnwinder() = default;

void DwarfUnwinder::forget(std::uint32_t pid) {
  processes_.erase(pid);
}

}  // namespace perfmon::analysis
