// SPDX-License-Identifier: Apache-2.0
// perfmon: where a function's samples landed, instruction by instruction and line by line, as perf
// annotate shows it — the function's code disassembled (Capstone), each instruction's source line
// from DWARF (libdw), and the lines of functions inlined there folded under the line that calls
// them, each with its share of the function's samples.
//
//   perfmon::AnnotationSamples samples(reader_event_names);
//   reader.read(samples);
//   for (const auto& function : samples.functions(0)) ...  // hottest first
//   perfmon::Annotation annotation = samples.annotate(0, samples.functions(0).front());
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "perfmon/sampler.hpp"
#include "perfmon/symbols.hpp"

namespace perfmon {

struct AnnotatedInstruction {
  std::uint64_t address = 0;  // the file's own, as its symbol table gives them
  std::string text;           // "add    %rdx,%rax"
  std::uint64_t samples = 0, period = 0;
  std::vector<SourceFrame> source;  // outermost first (SourceFrame); empty where DWARF says nothing
};

struct InlinedCall;

// A source line of the function, or of a function inlined into it, with all that its code cost:
// its own instructions' and those of the functions it calls that were inlined there.
struct AnnotatedLine {
  std::string file;  // as DWARF names it ("" with `line` 0: instructions that no line describes)
  unsigned line = 0;
  std::string text;  // the line itself, where its file can be read here ("" where not)
  std::uint64_t samples = 0, period = 0;
  std::vector<std::uint32_t> instructions;  // its own, as indices into Annotation::instructions, by address
  std::vector<InlinedCall> calls;           // the functions inlined at this line, in the order of their code
};

// A function inlined at a line: its own lines, which may call further inlined functions.
struct InlinedCall {
  std::string function;
  std::uint64_t samples = 0, period = 0;
  std::vector<AnnotatedLine> lines;  // in source order
};

struct Annotation {
  std::string event, dso, function;  // dso: the file's path ("[kernel.kallsyms]" for the kernel)
  bool kernel = false;
  std::uint64_t start = 0, size = 0;                  // the function's addresses in its file
  std::string architecture;                           // "x86-64", "arm64", or the ELF machine's number
  std::uint64_t samples = 0, period = 0;              // of the function
  std::uint64_t event_samples = 0, event_period = 0;  // of the event, in every function
  std::vector<AnnotatedInstruction> instructions;     // by address
  std::vector<AnnotatedLine> lines;                   // the function's own lines, in source order
  // Why instructions or lines are missing, as a sentence ("" where nothing is): the kernel's code,
  // a file that is gone, a build without Capstone, a file without DWARF.
  std::string note;
};

// Samples by the function and address they landed on, per event: what annotations need of a
// recording. Like Profile, it places samples by the COMM and MMAP records before them.
class AnnotationSamples : public SampleHandler {
 public:
  // Separate debug files are looked for under `debug_root` (SymbolTables).
  explicit AnnotationSamples(std::vector<std::string> event_names, std::string debug_root = "/usr/lib/debug");
  // Names through `symbols`, which others may share: the handlers of the shares of one file read
  // at once (PerfDataReader::read_in_shares) read each file's symbols once, and can be merged.
  AnnotationSamples(std::vector<std::string> event_names, std::shared_ptr<SymbolTables> symbols);
  ~AnnotationSamples() override;
  AnnotationSamples(const AnnotationSamples&) = delete;
  AnnotationSamples& operator=(const AnnotationSamples&) = delete;

  // Each sample is charged to the function at its sampled address (perf annotate's choice: the
  // leaf, not its callers), with its period (1 where it has none).
  void sample(std::size_t event, const Sample& sample) override;
  void record(const perf_event_header& record) override;
  // A record from before the share of a file these samples are of: it places later samples.
  void context(const perf_event_header& record) override;
  // Adds `later`: the samples of the share of the same file after this one's, named through the
  // same SymbolTables. The result is what one reading both shares would hold.
  void merge(const AnnotationSamples& later);

  struct Function {
    std::string dso, name;
    bool kernel = false;
    std::uint64_t samples = 0, period = 0;
  };
  std::size_t events() const noexcept;
  const std::string& event_name(std::size_t event) const;
  std::uint64_t samples(std::size_t event) const;  // all of the event's, named or not
  // The functions that the event's samples landed in, the heaviest first (ties by name).
  std::vector<Function> functions(std::size_t event) const;
  // The function's instructions and lines with the event's samples on them; reads its file's code
  // and DWARF, and the source files DWARF names. x86 code in AT&T syntax (objdump's and perf's
  // default) or Intel's (perf annotate -M intel).
  enum class Syntax { Att, Intel };
  Annotation annotate(std::size_t event, const Function& function, Syntax syntax = Syntax::Att) const;

  struct State;  // defined in the library only

 private:
  std::unique_ptr<State> state_;
};

}  // namespace perfmon
