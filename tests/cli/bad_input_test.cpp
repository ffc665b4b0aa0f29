// SPDX-License-Identifier: Apache-2.0
// Bad inputs, as a hostile or a careless user types them, across every subcommand and event
// syntax. Each must end in the expected exit status with a message that says the given words, on
// standard error, led by the command's name, with nothing raw from the input reaching the terminal
// (no control character but the line breaks), and never in a crash.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "process.hpp"

namespace perfmon::testing {
namespace {

struct BadInput {
  std::vector<std::string> args;  // after the perfmon program
  int status;
  std::string words;  // the message must contain them
};

void PrintTo(const BadInput& bad, std::ostream* os) {
  *os << "perfmon";
  for (const std::string& arg : bad.args) *os << " '" << arg << "'";
}

// `perfmon stat -e EVENT -- worker exit 0`, and the same event given to `perfmon encode`.
std::vector<BadInput> event_cases() {
  struct Event {
    std::string text;
    std::string words;
  };
  const std::vector<Event> events = {
      // the perf grammar
      {",", "an event is empty"},
      {"cycles,", "ends with a comma"},
      {",cycles", "an event is empty"},
      {"cycles,,instructions", "an event is empty"},
      {"cycles:", "modifiers are missing"},
      {"cycles:z", "'z' is not a modifier of 'cycles'"},
      {"cycles:uu", "modifier 'u' is given twice"},
      {"cycles:pppp", "at most three 'p'"},
      {"cycles:Pp", "cannot be combined"},
      {"{cycles", "has no closing '}'"},
      {"{}", "an event is empty"},
      {"{cycles,{instructions}}", "groups cannot be nested"},
      {"{cycles}x", "only ':modifiers' may follow"},
      {"{cycles}:", "only ':modifiers' may follow"},
      {"cycles}", "unexpected '}' at column 7"},
      {"{task-clock}}", "unexpected '}' at column 13"},
      {"{a/b/c/}", "has no closing '}'"},
      {"{software/config=0,name=}/", "has no closing '}'"},
      {"cyc les", "event names are made of"},
      {":u", "an event name is missing"},
      {"r12345678901234567", "at most 16 hex digits"},
      {"sched:", "modifiers are missing"},
      {"sched:x:", "modifiers are missing"},
      {"sched:sw!tch", "a tracepoint is written subsystem:name"},
      {"cyc\x1b[31mles", "control character at column 4"},
      {"\x07", "control character at column 1"},
      {"cycles\x7f", "control character at column 7"},
      {"cycles\r", "control character at column 7"},
      // PMU terms
      {"cpu/event=0x3c", "no closing '/'"},
      {"/event=1/", "pmu/term=value"},
      {"cpu/event=/", "has '=' but no value"},
      {"cpu/=5/", "is neither"},
      {"cpu/a,,b/", "is neither"},
      {"cpu/event=1/x", "unknown modifier 'x'"},
      {"cpu/event=1/:", "only ':modifiers' may follow"},
      {"software//", "name an event or terms between the slashes"},
      {"software/nosuchterm=1/", "PMU 'software' has no term or event 'nosuchterm'"},
      {"software/config=zz/", "term 'config' needs a number (decimal or 0x hex), not 'zz'"},
      {"software/config=99999999999999999999/", "term 'config' is too large: it takes at most 0xffffffffffffffff"},
      {"software/config=0x10000000000000000/", "term 'config' is too large"},
      {"software/config=-1/", "term 'config' needs a number"},
      {"software/name/", "term 'name' needs a value"},
      {"nopmu/event=1/", "no PMU named 'nopmu'"},
      {"uprobe/retprobe=-1/", "invalid event 'uprobe/retprobe=-1/': term 'retprobe' needs a number"},
      {"softwar/config=1/", "did you mean 'software'"},
      // names
      {"cylces", "did you mean 'cycles'"},
      {"instructons", "did you mean 'instructions'"},
      {"no-such-event", "unknown event 'no-such-event'"},
      {"r", "unknown event 'r'"},
      {"L1-icache-stores", "L1-icache has no store events; its events count loads and prefetches"},
      {"syscalls:no_such_tracepoint", "unknown tracepoint 'syscalls:no_such_tracepoint'"},
      {"nosuchsubsys:x", "unknown tracepoint 'nosuchsubsys:x'"},
      {"cycles:sched_switch", "'sched_switch' is not a modifier of 'cycles'"},
      // breakpoints
      {"mem:", "needs an address"},
      {"mem:zz", "needs an address"},
      {"mem:0x99999999999999999999", "the breakpoint address is too large"},
      {"mem:0x1000/3", "1, 2, 4 or 8 bytes"},
      {"mem:0x1000/99999999999999999999", "1, 2, 4 or 8 bytes"},
      {"mem:0x1000:rwx", "cannot also watch reads or writes"},
      {"mem:0x1000:rr", "given twice"},
      {"mem:0x1000/4:x", "leave out the length"},
      {"mem:0x1000:q:u", "made of r, w and x"},
      // libpfm4 names
      {"INST_RETIRED.NO_SUCH", "libpfm4 cannot encode 'INST_RETIRED.NO_SUCH'"},
      {"L2_RQSTS.MISZ:c=2", "libpfm4 cannot encode"},
      {"NOSUCHPMU::X", "may be another CPU model than this machine's"},
      // OpenBSD pctr words
      {"pctr:", "the function word is empty"},
      {"pctr:PCTR_X", "'PCTR_X' is neither a number nor a PCTR_* constant"},
      {"pctr:0x2e|(2<<PCTR_Q_SHIFT)", "is not N<<PCTR_UM_SHIFT or N<<PCTR_CM_SHIFT"},
      {"pctr:0x2e|(0x100<<PCTR_CM_SHIFT)", "shifts more than a byte"},
      {"pctr:0x2e|(99999999999999999999<<PCTR_CM_SHIFT)", "shifts more than a byte"},
      {"pctr:0x1ffffffff", "wider than the 32-bit function word"},
      {"pctr:0x99999999999999999999", "wider than the 32-bit function word"},
      {"pctr:0x2e||PCTR_U", "'' is neither"},
      // Solaris cpc specifications
      {"cpc/pic0=cycles", "needs its closing '/'"},
      {"cpc/sys/", "names at least one counter"},
      {"cpc/pic0=cycles,pic0=instructions/", "counter pic0 is given twice"},
      {"cpc/pic0=cycles,nouser/", "'nouser' without 'sys' counts nothing"},
      {"cpc/pic0=cycles,turbo/", "'turbo' is not a cpc term"},
      {"cpc/pic0=cycles:u/", "drop ':u'"},
      {"cpc/pic0/", "'pic0' needs an event"},
      {"cpc/pic0=task-clock,cmask=2/", "edit a raw x86 event"},
      {"cpc/pic0=r3c,cmask=0x100/", "cpc attribute 'cmask' is too large: it takes at most 255"},
      {"cpc/pic0=r3c,cmask=zz/", "cpc attribute 'cmask' needs a number"},
      {"cpc/pic32=cycles/", "counter 'pic32' is too large: it takes at most 31"},
      {"cpc/pic4294967296=task-clock/", "counter 'pic4294967296' is too large"},
      {"cpc/pic99999999999999999999=task-clock/", "counter 'pic99999999999999999999' is too large"},
      {"cpc/pic0=INST_RETIRED.ANY_P:u/", "without modifiers"},
      // FreeBSD pmc.core specifiers
      {"pmc.core//", "name an event first"},
      {"pmc.core/,usr/", "name an event first"},
      {"pmc.core/Div,,usr/", "a qualifier is empty"},
      {"pmc.core/Div,usr,usr/", "'usr' is given twice"},
      {"pmc.core/NoSuchEvent/", "Intel Core Solo/Duo has no event 'NoSuchEvent'"},
      {"pmc.core/Instr_Retd/", "did you mean"},
      {"pmc.core/dc-misses/", "'dc-misses' is unsupported on Intel Core Solo/Duo"},
      {"pmc.core/Div,core=all/", "Div does not take 'core='"},
      {"pmc.core/L2_Rqsts,core=some/", "'core=some' is not a choice"},
      {"pmc.core/L2_Rqsts,core/", "'core' needs a value"},
      {"pmc.core/L2_Rqsts,cachestate=x/", "cachestate takes the letters m, e, s and i"},
      {"pmc.core/Div,cmask=256/", "cmask takes a number from 0 to 255"},
      {"pmc.core/Div,cmask=99999999999999999999/", "cmask takes a number from 0 to 255"},
      {"pmc.core/Div,inv/", "'inv' inverts the cmask comparison"},
      {"pmc.core/Div,edge=1/", "'edge' takes no value"},
      {"pmc.core/Div,turbo/", "'turbo' is not a qualifier"},
  };
  std::vector<BadInput> cases;
  for (const Event& event : events) {
    cases.push_back({{"stat", "-e", event.text, "--", WORKER, "exit", "0"}, 129, event.words});
    cases.push_back({{"encode", event.text}, 129, event.words});
  }
  return cases;
}

// "name,name,...": n times.
std::string repeated(const std::string& name, int n) {
  std::string list;
  for (int i = 0; i < n; ++i) list += (i ? "," : "") + name;
  return list;
}

std::vector<BadInput> command_cases() {
  const std::string worker = WORKER;
  return {
      // perfmon itself
      {{}, 129, "perfmon: no command given."},
      {{"bogus"}, 129, "unknown command 'bogus'"},
      {{"\x1b[2J"}, 129, "unknown command '\\x1b[2J'"},
      {{"stst"}, 129, "perfmon: unknown command 'stst'; did you mean 'stat' or 'list'?"},
      {{"help", "recrod"}, 129, "perfmon: unknown command 'recrod'; did you mean 'record'?"},
      // stat's command line
      {{"stat"}, 129, "nothing to count"},
      {{"stat", "--bogus", "true"}, 129, "unknown option '--bogus'"},
      {{"stat", "--repat", "3", "true"}, 129, "perfmon stat: unknown option '--repat'; did you mean '--repeat'?\n"},
      // perf's mixed-case cache names mistyped, as perf list prints them
      {{"stat", "-e", "LLC-load-mises", "true"}, 129, "did you mean 'LLC-load-misses'"},
      {{"stat", "-e", "dTLB-load-mises", "true"}, 129, "did you mean 'dTLB-load-misses'"},
      {{"stat", "-Z", "true"}, 129, "unknown switch '-Z'"},
      {{"stat", "-I"}, 129, "needs a value"},
      {{"stat", "-I", "5", "true"}, 129, "from 10 to 86400000"},
      {{"stat", "--sets", "task-clock;;page-faults", "true"}, 129, "an event list for every set"},
      {{"stat", "--passes", "-e", "task-clock", "-a"}, 129, "--passes runs a command once per pass"},
      {{"stat", "--calibrate", "-e", "task-clock", "-a"}, 129, "--calibrate compares a command's counts"},
      {{"stat", "--passes", "-r", "2", "-e", "task-clock", "true"},
       129,
       "without -r, -I, -A, --per-socket|die|core|node or --sets"},
      {{"stat", "--plan", "--sets", "task-clock"}, 129, "--plan plans the events of -e"},
      // combinations once accepted and then ignored
      {{"stat", "--plan", "-I", "100", "-e", "task-clock"},
       129,
       "--plan prints the passes the events need and runs nothing"},
      {{"stat", "--plan", "-r", "3", "-e", "task-clock", "--", "true"}, 129, "without a command, a target, -r"},
      {{"stat", "--plan", "-o", "/tmp/perfmon-bad-input.txt", "-e", "task-clock"}, 129, "--passes or -o"},
      {{"stat", "--plan", "-a", "-e", "task-clock"}, 129, "--plan prints the passes"},
      {{"stat", "--passes", "-a", "-A", "-e", "task-clock", "--", "true"},
       129,
       "without -r, -I, -A, --per-socket|die|core|node or --sets"},
      {{"stat", "--calibrate", "-I", "100", "-e", "page-faults", "--", "true"}, 129, "--passes, -I or per-location"},
      {{"stat", "--strict", "--sets", "task-clock", "true"}, 129, "exclude each other"},
      // More counters in one group than any CPU has (the budget comes from CPUID).
      {{"stat", "--strict", "-e", "{" + repeated("instructions", 64) + "}", "true"},
       1,
       "strict mode: the group {instructions"},
      {{"stat", "--sets", "task-clock", "-e", "page-faults", "true"}, 129, "not with -e"},
      {{"stat", "--sets", "task-clock", "-I", "100", "true"}, 129, "--sets cannot be combined with -I"},
      {{"stat", "--switch", "10ms", "true"}, 129, "give them with --sets"},
      {{"stat", "--sets", "task-clock", "--switch", "0ms", "true"}, 129, "not '0ms'"},
      {{"stat", "--sets", "task-clock", "--switch", "instructions", "true"}, 129, "an event and a count"},
      {{"stat", "--sets", "task-clock", "--switch", "nosuch:100", "true"}, 129, "unknown event 'nosuch'"},
      {{"stat", "--filter", "fd == 0", "-e", "syscalls:sys_enter_read", "true"}, 129, "follows the -e of a tracepoint"},
      {{"stat", "-e", "syscalls:sys_enter_read", "--filter", " ", "true"}, 129, "needs an expression"},
      {{"stat", "-e", "syscalls:sys_enter_read,task-clock", "--filter", "fd == 0", "true"},
       129,
       "follows 'task-clock', which is not a tracepoint"},
      {{"stat", "-e", "syscalls:sys_enter_read", "--filter", "nofield == 0", "true"},
       1,
       "the kernel refused the filter"},
      {{"record", "-o", "/tmp/never.data", "-e", "cpu-clock", "--filter", "x", "true"}, 129, "not a tracepoint"},
      {{"stat", "-I", "abc", "true"}, 129, "needs a whole number"},
      {{"stat", "-I", "99999999999999999999", "true"}, 129, "from 10 to 86400000"},
      {{"stat", "-r", "0", "true"}, 129, "from 1 to 100000"},
      {{"stat", "-r", "zero", "true"}, 129, "needs a whole number"},
      {{"stat", "-r", "100001", "true"}, 129, "from 1 to 100000"},
      {{"stat", "-r", "2", "-I", "100", "true"}, 129, "-r cannot be combined with -I"},
      {{"stat", "-r", "2", "-a"}, 129, "-r repeats a command"},
      {{"stat", "-p", "abc"}, 129, "'--pid' needs a whole number"},
      {{"stat", "-p", "0"}, 129, "'--pid' needs a whole number from 1"},
      {{"stat", "-p", "99999999999"}, 129, "'--pid' needs a whole number from 1"},
      {{"stat", "-p", "1,"}, 129, "'--pid' needs a whole number"},
      {{"stat", "-t", ""}, 129, "option '-t' needs a value (tid), not an empty one"},
      {{"stat", "-p", "1", "-a"}, 129, "choose one target"},
      {{"stat", "-p", "1", "--", "true"}, 129, "cannot be combined with a command"},
      {{"stat", "-G", "x", "-p", "1"}, 129, "-G counts a cgroup system-wide"},
      {{"stat", "-e", "", "true"}, 129, "option '-e' needs a value (event), not an empty one"},
      {{"stat", "--event=", "true"}, 129, "option '--event' needs a value (event), not an empty one"},
      {{"stat", "-G", "", "true"}, 129, "option '-G' needs a value (name), not an empty one"},
      {{"stat", "-o", "", "true"}, 129, "option '-o' needs a value (file), not an empty one"},
      {{"stat", "-x", "", "true"}, 129, "option '-x' needs a value (sep), not an empty one"},
      {{"stat", "-x,", "-j", "true"}, 129, "exclude each other"},
      {{"stat", "-A", "true"}, 129, "-A prints one row per CPU"},
      {{"stat", "--per-thread", "true"}, 129, "--per-thread counts each thread"},
      {{"stat", "-C", "", "true"}, 129, "option '-C' needs a value"},
      {{"stat", "-C", "a", "true"}, 129, "invalid CPU list 'a': write CPUs like 0-3,5."},
      {{"stat", "-C", "3-1", "true"}, 129, "a range runs backwards"},
      {{"stat", "-C", "1,,2", "true"}, 129, "write CPUs like 0-3,5"},
      {{"stat", "-C", "-1", "true"}, 129, "write CPUs like 0-3,5"},
      {{"stat", "-C", "2147483647", "true"}, 129, "CPU numbers go up to"},
      {{"stat", "-C", "0-2000000000", "true"}, 129, "CPU numbers go up to"},
      {{"stat", "-C", "99999999999999999999", "true"}, 129, "CPU numbers go up to"},
      {{"stat", "-C", "0-99999999999999999999", "true"}, 129, "CPU numbers go up to"},
      // stat, at run time
      {{"stat", "-e", "task-clock", "--", "/nonexistent/program"}, 127, "No such file or directory"},
      {{"stat", "-e", "task-clock", "--", "/etc"}, 126, "Permission denied"},
      {{"stat", "-e", "task-clock", "--", "no-such-command-anywhere"}, 127, "check the command's name and PATH"},
      {{"stat", "-p", "4194303", "-e", "task-clock"}, 1, "no such process 4194303"},
      {{"stat", "-t", "4194303", "-e", "task-clock"}, 1, "no such process or thread 4194303"},
      {{"stat", "-G", "/etc", "-e", "task-clock", "--", worker, "exit", "0"}, 1, "'/etc' is not a cgroup"},
      {{"stat", "-G", "no-such-cgroup", "-e", "task-clock", "--", worker, "exit", "0"},
       1,
       "no cgroup 'no-such-cgroup'"},
      {{"stat", "-o", "/nonexistent/dir/out.txt", "-e", "task-clock", "--", worker, "exit", "0"},
       1,
       "cannot create '/nonexistent/dir/out.txt'"},
      {{"stat", "-o", "/", "-e", "task-clock", "--", worker, "exit", "0"}, 1, "it is a directory"},
      {{"stat", "-e", "mem:0x1001:w", "--", worker, "exit", "0"}, 1, "is not aligned to its length (4 bytes)"},
      {{"stat", "-e", "pmc.core/Div/", "--", worker, "exit", "0"}, 129, "pmc.core events belong to Intel Core"},
      {{"stat", "-e", "skl::INST_RETIRED.ANY_P", "--", worker, "exit", "0"}, 129, "another CPU model"},
      // record
      {{"record"}, 129, "nothing to record: give a command, or a target with -p, -t, -a or -C"},
      {{"record", "-p", "1", "-a"}, 129, "choose one target"},
      {{"record", "-p", "1", "--", "true"}, 129, "cannot be combined with a command"},
      {{"record", "-p", "1,"}, 129, "'--pid' needs a whole number"},
      {{"record", "-q", "-o", "/tmp/perfmon-bad-input.data", "-p", "4194303"}, 1, "no such process 4194303"},
      {{"record", "-c", "1", "-F", "10", "true"}, 129, "-c and -F exclude each other"},
      {{"record", "-c", "0", "true"}, 129, "'--count' needs a whole number from 1"},
      {{"record", "-F", "0", "true"}, 129, "'--freq' needs a whole number from 1"},
      {{"record", "-q", "-e", "cpu-clock", "-F", "999999", "-o", "/tmp/perfmon-bad-input.data", "--", "true"},
       1,
       "a sampling frequency of 999999 Hz is above the kernel's limit of"},
      {{"record", "-F", "99999999999999999999", "true"}, 129, "'--freq' needs a whole number from 1"},
      {{"record", "-o", "", "true"}, 129, "option '-o' needs a value (file), not an empty one"},
      {{"record", "-e", "nosuch", "--", "true"}, 129, "unknown event 'nosuch'"},
      {{"record", "-c", "1000", "--random-period", "5,42", "true"},
       129,
       "--random-period cannot be exact for a command"},
      {{"record", "-e", "cycles:z", "--", "true"}, 129, "'z' is not a modifier of 'cycles'"},
      {{"record", "-o", "/", "--", "true"}, 1, "it is a directory"},
      {{"record", "--call-graph", "bogus", "true"}, 129, "--call-graph takes fp or dwarf[,SIZE], not 'bogus'"},
      {{"record", "--call-graph", "dwarf,12", "true"}, 129, "a multiple of 8 bytes, such as 8192; not 12"},
      {{"record", "--call-graph", "dwarf,abc", "true"}, 129, "'--call-graph dwarf,SIZE' needs a whole number"},
      {{"record", "-m", "3", "true"}, 129, "--mmap-pages takes a power of two, such as 128; not 3"},
      {{"record", "-q", "-b", "-e", "cpu-clock", "-o", "/tmp/perfmon-bad-input.data", "--", "true"},
       1,
       "this event records no branch stacks"},
      {{"record", "-j", "any,bogus", "true"}, 129, "-j takes branch types separated by commas"},
      {{"record", "-j", "u,k", "true"}, 129, "-j needs a branch type besides the privilege levels"},
      {{"record", "-m", "0", "true"}, 129, "'--mmap-pages' needs a whole number from 1"},
      {{"record", "-o", "/nonexistent/dir/perf.data", "--", "true"}, 1, "cannot create '/nonexistent/dir/perf.data'"},
      {{"record", "-q", "-o", "/tmp/perfmon-bad-input.data", "--", "/nonexistent/program"},
       127,
       "No such file or directory"},
      // script
      {{"script", "-i", "/nonexistent/perf.data"}, 1, "cannot read '/nonexistent/perf.data'"},
      {{"script", "-i", "/etc/hostname"}, 1, "is not a perf.data file"},
      {{"script", "-i", "/"}, 1, "'/'"},
      {{"script", "extra"}, 129, "script takes no command"},
      {{"script", "--bogus"}, 129, "unknown option '--bogus'"},
      {{"script", "-G", "extra"}, 129, "script takes no command"},
      // report
      {{"report", "-i", "/nonexistent/perf.data"}, 1, "cannot read '/nonexistent/perf.data'"},
      {{"report", "-i", "/etc/hostname"}, 1, "is not a perf.data file"},
      {{"report", "-i", "/"}, 1, "'/'"},
      {{"report", "extra"}, 129, "report takes no command"},
      {{"report", "--sort", "comm,bogus"}, 129, "unknown sort key 'bogus'"},
      {{"report", "--sort", "srcline,"}, 129, "unknown sort key ''"},
      {{"report", "--sort", ""}, 129, "'--sort' needs a value (keys), not an empty one"},
      {{"report", "--sort", "sym,"}, 129, "unknown sort key ''"},
      {{"report", "--percent-limit", "x"}, 129, "--percent-limit takes a share from 0 to 100"},
      {{"report", "--percent-limit", "101"}, 129, "--percent-limit takes a share from 0 to 100"},
      {{"report", "--json", "--folded"},
       129,
       "choose one of --stdio, --json, --folded, --svg, --speedscope and --pprof"},
      {{"report", "--svg"}, 129, "'--svg' needs a value"},
      {{"report", "--diff", "base.data"}, 129, "--diff BASE draws a differential flame graph"},
      {{"report", "--speedscope"}, 129, "'--speedscope' needs a value"},
      {{"diff", "/nonexistent/a.data", "/nonexistent/b.data"}, 1, "cannot read '/nonexistent/a.data'"},
      {{"diff", "a", "b", "c"}, 129, "perfmon diff compares two files: BASE and NEW"},
      {{"diff", "--sort", "srcline", "a", "b"}, 129, "perfmon diff compares by comm, dso and sym, not srcline."},
      {{"diff", "--sort", "bogus", "a", "b"}, 129, "perfmon diff compares by comm, dso and sym, not 'bogus'.\nRun"},
      {{"diff", "/nonexistent/a.data", "b.data"}, 1, "that exists and that you may read."},
      {{"annotate", "-i", "/nonexistent/perf.data"}, 1, "cannot read '/nonexistent/perf.data'"},
      {{"annotate", "-i", "/etc/hostname"}, 1, "is not a perf.data file"},
      {{"annotate", "-i", "/"}, 1, "'/'"},
      {{"annotate", "a", "b"}, 129, "perfmon annotate shows one function: give one SYMBOL"},
      {{"annotate", "--sort", "address"}, 129, "--sort takes source or period, not 'address'"},
      {{"annotate", "--dso"}, 129, "'--dso' needs a value"},
      {{"top", "--stdio", "true"}, 129, "perfmon top samples what runs already: give -p PID, not a command"},
      {{"top", "-d", "0"}, 129, "-d takes the seconds between refreshes, from 0.1 to 3600"},
      {{"top", "-d", "2s"}, 129, "-d takes the seconds between refreshes, from 0.1 to 3600, such as 2; not '2s'"},
      {{"top", "-e", "task-clock,page-faults"}, 129, "perfmon top shows one event at a time: give one -e."},
      {{"top", "-p", "1", "-a"}, 129, "choose one of -p, -t and -a/-C"},
      {{"top", "--sort", "srcline"}, 129, "perfmon top merges rows by comm, dso and sym, not srcline"},
      {{"top", "-e", "cylces"}, 129, "did you mean 'cycles'?"},
      {{"top", "-p", "4194303"}, 1, "4194303"},
      {{"stat", "-D", "-1", "-e", "task-clock", "true"}, 129, "-D -1 starts with counting off: give --control"},
      {{"stat", "-D", "-2", "-e", "task-clock", "true"}, 129, "--delay"},
      {{"stat", "--control", "pipe:x", "-e", "task-clock", "true"}, 129, "a control channel is fifo:CTL[,ACK]"},
      {{"stat", "--control", "fifo:/nonexistent/ctl", "-e", "task-clock", "true"}, 1, "make it with mkfifo first"},
      {{"stat", "--control", "fd:x", "-e", "task-clock", "true"}, 129, "'x' is not a descriptor number"},
      {{"stat", "--control", "fd:abc", "-e", "task-clock", "true"}, 129, "'abc' is not a descriptor number"},
      {{"stat", "--control", "fd:-1", "-e", "task-clock", "true"}, 129, "'-1' is not a descriptor number"},
      {{"stat", "--control", "fd:3,x", "-e", "task-clock", "true"}, 129, "'x' is not a descriptor number"},
      {{"stat", "--control", "fifo:", "-e", "task-clock", "true"}, 129, "a control channel is fifo:CTL[,ACK]"},
      {{"stat", "--control", "fifo:ctl,", "-e", "task-clock", "true"}, 129, "a control channel is fifo:CTL[,ACK]"},
      {{"stat", "--control", "fifo:c,c", "-e", "task-clock", "true"}, 129, "the control and ack channels must be two"},
      {{"stat", "--control", "fd:7,7", "-e", "task-clock", "true"}, 129, "the control and ack channels must be two"},
      {{"stat", "--markers", "-a", "-e", "task-clock"}, 129, "--markers counts the regions a command marks"},
      {{"report", "--pprof", "p.pb.gz", "--json"},
       129,
       "choose one of --stdio, --json, --folded, --svg, --speedscope and --pprof"},
      {{"report", "--pprof"}, 129, "'--pprof' needs a value"},
      // serve
      {{"serve", "extra"}, 129, "serve takes no command: it counts the whole machine until stopped"},
      {{"serve", "--listen", "0.0.0.0:0"},
       129,
       "0.0.0.0:0 is not a loopback address: every machine that reaches it could read this one's counters; add "
       "--allow-remote to listen there"},
      {{"serve", "--listen", "localhost"}, 129, "--listen takes ADDRESS:PORT, such as 127.0.0.1:9465"},
      {{"serve", "--listen", "example.org:80"}, 129, "--listen takes a numeric address"},
      {{"serve", "--listen", "127.0.0.1:70000"}, 129, "port"},
      {{"serve", "--config", "/nonexistent/serve.conf"},
       1,
       "cannot read the configuration file '/nonexistent/serve.conf'"},
      {{"serve", "--config", "/etc/hostname"}, 129, "/etc/hostname:1: "},
      {{"serve", "-e", "nosuchevent"}, 129, "nosuchevent"},
      {{"serve", "-e", "{task-clock"}, 129, "has no closing '}'"},
      {{"serve", "--profile-events", "nosuch"}, 129, "unknown event 'nosuch'"},
      {{"serve", "-C", "-1"}, 129, "invalid CPU list '-1'"},
      {{"serve", "-C", "a-b"}, 129, "invalid CPU list 'a-b'"},
      {{"serve", "-e", "task-clock,task-clock"}, 129, "'task-clock' is given twice"},
      {{"serve", "-G", ","}, 129, "a cgroup's name is empty"},
      {{"serve", "-G", "/tmp"}, 129, "'/tmp' is not a cgroup"},
      {{"serve", "-G", "/tmp/*"}, 129, "'/tmp' is not a cgroup"},
      {{"serve", "--listen", "127.0.0.1:1\x1b[2J"}, 129, "not '1\\x1b[2J'"},
      // list
      {{"list", "--bogus"}, 129, "unknown option '--bogus'"},
      {{"list", "a", "b"}, 129, "list takes at most one pattern"},
      {{"list", "--pmu"}, 129, "needs a value (model)"},
      {{"list", "--pmu", ""}, 129, "option '--pmu' needs a value"},
      {{"list", "--pmu", "nosuchmodel"}, 1, "no CPU model 'nosuchmodel'"},
      {{"list", "no-such-event-anywhere"}, 1, "no event matches 'no-such-event-anywhere'"},
      {{"list", "\x1b[31m"}, 1, "no event matches '\\x1b[31m'"},
      // info
      {{"info", "extra"}, 129, "info takes no arguments"},
      {{"info", "--bogus"}, 129, "unknown option '--bogus'"},
      {{"info", "--json=yes"}, 129, "takes no value"},
      // encode
      {{"encode"}, 129, "name at least one event"},
      {{"encode", "--pmu"}, 129, "needs a value (model)"},
      {{"encode", "--pmu", "nosuchmodel", "cycles"}, 129, "no CPU model 'nosuchmodel'"},
      {{"encode", "INST_RETIRED.ANYY"}, 129, "libpfm4 cannot encode"},
      {{"encode", ""}, 129, "it is empty"},
      {{"encode", "--pmu", "coreduo", "{pmc.core/Div/,pmc.core/Mul/}"}, 129, "pmc.core/Mul/ counts only on PMC1"},
      {{"encode", "--pmu", "coreduo", "cpc/pic32=pmc.core/Instr_Ret//"}, 129, "counter 'pic32' is too large"},
      {{"encode", "--pmu", "coreduo", "cpc/pic0=pmc.core/Div//"}, 129, "Div counts only on PMC1, not on pic0"},
      {{"encode", "--pmu", "coreduo", "pmc.core/Div,usr/:u"}, 129, "choose the privilege levels once"},
      // decode
      {{"decode"}, 129, "give a PERFEVTSEL value"},
      {{"decode", "zz"}, 129, "'zz' is not a number"},
      {{"decode", ""}, 129, "'' is not a number"},
      {{"decode", "-1"}, 129, "unknown switch '-1'"},
      {{"decode", "--", "-1"}, 129, "'-1' is not a number"},
      {{"decode", "0x100000000"}, 129, "bits 63:32 are reserved"},
      {{"decode", "0x99999999999999999999"}, 129, "a register is 64 bits"},
      {{"decode", "--pmu", "nosuchmodel", "0xc0"}, 129, "no CPU model 'nosuchmodel'"},
  };
}

class BadInputs : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadInputs, EndInOneClearMessageAndTheirStatus) {
  const BadInput& bad = GetParam();
  std::vector<std::string> argv = {PERFMON};
  argv.insert(argv.end(), bad.args.begin(), bad.args.end());
  Result r = run(argv);
  EXPECT_EQ(r.exit_code, bad.status) << r.err;
  EXPECT_NE(r.err.find(bad.words), std::string::npos) << r.err;
  EXPECT_EQ(r.err.rfind("perfmon", 0), 0u) << "the message is not led by the command's name: " << r.err;
  const std::size_t said = r.err.find("invalid event '");
  EXPECT_TRUE(said == std::string::npos || r.err.find("invalid event '", said + 1) == std::string::npos)
      << "the message says what is invalid twice: " << r.err;
  for (char c : r.err + r.out)
    ASSERT_FALSE((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f)
        << "a raw control character reached the terminal: " << r.err;
  EXPECT_EQ(r.out, "") << "an error printed results";
}

std::string case_name(const ::testing::TestParamInfo<BadInput>& info) {
  std::string name = "case" + std::to_string(info.index);
  for (const std::string& arg : info.param.args) {
    if (arg == WORKER) break;
    name += "_";
    for (char c : arg) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  return name.substr(0, 100);
}

INSTANTIATE_TEST_SUITE_P(Events, BadInputs, ::testing::ValuesIn(event_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Commands, BadInputs, ::testing::ValuesIn(command_cases()), case_name);

TEST(BadInputTable, HoldsAtLeastOneHundredAndFiftyCases) {
  EXPECT_GE(event_cases().size() + command_cases().size(), 150u);
}

}  // namespace
}  // namespace perfmon::testing
