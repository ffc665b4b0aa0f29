// SPDX-License-Identifier: Apache-2.0
// perfmon top: where the machine (or -p's processes) spends its samples now, refreshed every -d
// seconds, per function with its file (and command), as perf top shows it: on a terminal, a live
// view to sort, pause, zoom into a file, open a row's call chains (-g) and quit with q; else
// (--stdio) a table every -d seconds.
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "commands.hpp"
#include "errors.hpp"
#include "event_arguments.hpp"
#include "options.hpp"
#include "perfmon/catalog.hpp"
#include "perfmon/error.hpp"
#include "perfmon/measurement.hpp"
#include "perfmon/perf_data.hpp"
#include "perfmon/printable.hpp"
#include "perfmon/profile.hpp"
#include "perfmon/report_output.hpp"
#include "perfmon/sampler.hpp"
#include "profile_reading.hpp"
#include "targets.hpp"
#include "top_rows.hpp"

namespace perfmon::cli {

namespace {

constexpr const char* kSynopsis =
    "perfmon top [-e EVENT] [-F HZ | -c N] [-p PID | -t TID | -a | -C CPUS] [-d SECS] [--sort comm,dso,sym]\n"
    "                   [-E ROWS] [-g | --call-graph fp|dwarf] [--no-children] [--stdio]";
constexpr long kDefaultFrequency = 4000;  // perf top's

struct TopOptions {
  EventArguments events;
  TargetChoice target;
  long frequency = 0, period = 0;
  double delay_seconds = 2;  // perf top's -d
  std::vector<ReportKey> sort = {ReportKey::Dso, ReportKey::Symbol};
  long entries = 0;  // rows shown; 0: the terminal's height, or 30 with --stdio
  bool stdio = false;
  bool hide_kernel = false, hide_user = false;  // -K, -U: perf top's
  CallGraphChoice call_graph;
  TopStacks stacks;  // with call_graph.callchains
  bool verbose = false;
};

double parse_delay(std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !(value >= 0.1 && value <= 3600))
    throw UsageError("-d takes the seconds between refreshes, from 0.1 to 3600, such as 2; not '" + printable(text) +
                     "'");
  return value;
}

// Records the kernel would have written had what already runs started under the sampler, for the
// profile to name its samples by.
void describe_running(const TopOptions& o, const Target& target, Profile& profile) {
  std::vector<std::uint64_t> record;
  const SynthesizedRecord take = [&](std::uint32_t type, std::uint16_t misc, const std::string& body) {
    const perf_event_header header{type, misc, static_cast<std::uint16_t>(sizeof(perf_event_header) + body.size())};
    record.assign((header.size + 7) / 8, 0);
    std::memcpy(record.data(), &header, sizeof header);
    std::memcpy(reinterpret_cast<char*>(record.data()) + sizeof header, body.data(), body.size());
    profile.record(*reinterpret_cast<const perf_event_header*>(record.data()));
  };
  describe_kernel_map(take);
  if (target.cpu_wide()) {
    describe_every_process(take);
  } else {
    for (pid_t pid : o.target.pids) describe_process(pid, take);
    for (pid_t tid : o.target.tids) describe_process(tid, take);
  }
}

const char* order_name(TopRows::Order order) {
  switch (order) {
    case TopRows::Order::Samples:
      return "samples";
    case TopRows::Order::Name:
      return "name";
    case TopRows::Order::Overhead:
      break;
  }
  return "overhead";
}

// A line of the table: the heading, a row (`row`: its place in the rows shown), or a line of the
// call chains under the row before.
struct TableLine {
  std::string text;
  std::size_t row = SIZE_MAX;
};

// The column heading and the first `limit` rows as text, columns as wide as what they show; under
// each row whose `expanded` says so, its call chains as perf report -g draws them.
std::vector<TableLine> table_lines(const TopRows& top, const Profile& profile, const std::vector<TopRow>& rows,
                                   std::size_t limit, const std::function<bool(const TopRow&)>& expanded) {
  std::size_t command_width = 7, dso_width = 13;
  for (std::size_t i = 0; i < rows.size() && i < limit; ++i) {
    command_width = std::max(command_width, rows[i].command.size());
    dso_width = std::max(dso_width, rows[i].dso.size());
  }
  auto has = [&](ReportKey key) { return std::find(top.keys().begin(), top.keys().end(), key) != top.keys().end(); };
  auto pad = [](std::string text, std::size_t width) {
    text.resize(std::max(width, text.size()), ' ');
    return text;
  };
  const bool children = top.shows_children();
  std::string heading = children ? "Children      Self   Samples  " : "Overhead   Samples  ";
  if (has(ReportKey::Command)) heading += pad("Command", command_width) + "  ";
  if (has(ReportKey::Dso)) heading += pad("Shared Object", dso_width) + "  ";
  if (has(ReportKey::Symbol)) heading += "Symbol";
  std::vector<TableLine> lines = {{heading}};
  std::vector<CallChainShare> shares;
  for (std::size_t i = 0; i < rows.size() && i < limit; ++i) {
    const TopRow& row = rows[i];
    const double share = 100.0 * row.weight / top.total_weight();
    char figures[64];
    if (children)
      std::snprintf(figures, sizeof figures, "%7.2f%%  %7.2f%%  %8" PRIu64 "  ",
                    100.0 * row.children_weight / top.total_weight(), share, row.samples);
    else
      std::snprintf(figures, sizeof figures, "%7.2f%%  %8" PRIu64 "  ", share, row.samples);
    std::string line = figures;
    if (has(ReportKey::Command)) line += pad(row.command, command_width) + "  ";
    if (has(ReportKey::Dso)) line += pad(row.dso, dso_width) + "  ";
    if (has(ReportKey::Symbol)) line += std::string(row.kernel ? "[k] " : "[.] ") + row.symbol;
    lines.push_back({line, i});
    if (!top.stacks().chains || !expanded(row)) continue;
    const std::vector<TopChain> chains = top.chains(profile, row);
    shares.clear();
    for (const TopChain& chain : chains) shares.push_back({chain.frames, 100.0 * chain.weight / top.total_weight()});
    const std::string drawn = format_call_chains(profile, shares);
    for (std::size_t at = 0; at < drawn.size();) {
      const std::size_t end = drawn.find('\n', at);
      lines.push_back({drawn.substr(at, end - at)});
      at = end + 1;
    }
  }
  return lines;
}

// The terminal as a live view needs it: keys read one at a time without echo, the screen of its
// own (the alternate screen), no cursor; all as it was when this ends.
class LiveTerminal {
 public:
  LiveTerminal() {
    ::tcgetattr(STDIN_FILENO, &saved_);
    termios raw = saved_;
    raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    ::tcsetattr(STDIN_FILENO, TCSANOW, &raw);
    std::fputs("\x1b[?1049h\x1b[?25l", stdout);
    std::fflush(stdout);
  }
  ~LiveTerminal() {
    std::fputs("\x1b[?25h\x1b[?1049l", stdout);
    std::fflush(stdout);
    ::tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
  }
  LiveTerminal(const LiveTerminal&) = delete;
  LiveTerminal& operator=(const LiveTerminal&) = delete;

  static std::pair<std::size_t, std::size_t> size() {
    winsize window{};
    if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &window) != 0 || window.ws_row == 0) return {24, 80};
    return {window.ws_row, window.ws_col};
  }

 private:
  termios saved_{};
};

struct Screen {
  std::string header, note;
  TopRows::Order order = TopRows::Order::Overhead;
  std::string zoomed_dso;  // "" every file
  bool paused = false;
  std::size_t selected = 0;
  std::vector<TopRow> rows;   // as last shown (kept while paused)
  std::size_t most_rows = 0;  // -E; 0: every row (as many as the terminal has room for are seen)
  // -g: the rows whose call chains are open (by TopRow::index), or all of them (E).
  std::set<std::size_t> expanded;
  bool all_expanded = false;
  bool is_expanded(const TopRow& row) const { return all_expanded || expanded.contains(row.index); }
  // The rows to show now, in the chosen order and file, at most -E of them.
  void take_rows(const TopRows& top) {
    rows = top.rows(order, zoomed_dso);
    if (most_rows != 0 && rows.size() > most_rows) rows.resize(most_rows);
  }
};

void draw(const TopRows& top, const Profile& profile, Screen& screen) {
  const auto [height, width] = LiveTerminal::size();
  auto fit = [width = width](std::string line) {
    if (line.size() > width) line.resize(width);
    return line;
  };
  std::string out = "\x1b[H";
  auto put = [&](const std::string& line, bool reverse = false) {
    out += reverse ? "\x1b[7m" + fit(line) + "\x1b[0m" : fit(line);
    out += "\x1b[K\r\n";
  };
  put(screen.header);
  std::string status = "sort: " + std::string(order_name(screen.order)) +
                       "   file: " + (screen.zoomed_dso.empty() ? "all" : screen.zoomed_dso) +
                       (screen.paused ? "   PAUSED" : "");
  if (!screen.note.empty()) status += "   " + screen.note;
  put(status);
  put("");
  const std::size_t room = height > 6 ? height - 6 : 1;  // lines below the heading
  if (!screen.rows.empty()) screen.selected = std::min(screen.selected, screen.rows.size() - 1);
  // The rows up to the selected one and as many after as could be seen.
  const std::size_t row_limit = screen.selected + room;
  const std::vector<TableLine> lines = table_lines(top, profile, screen.rows, row_limit,
                                                   [&screen](const TopRow& row) { return screen.is_expanded(row); });
  // The selected row in view, with its call chains where they fit.
  std::size_t selected_line = 1;
  while (selected_line + 1 < lines.size() && lines[selected_line].row != screen.selected) ++selected_line;
  std::size_t selected_end = selected_line;
  while (selected_end + 1 < lines.size() && lines[selected_end + 1].row == SIZE_MAX) ++selected_end;
  const std::size_t first = std::min(selected_line, selected_end >= room ? selected_end - room + 1 : 1);
  put(lines.front().text);
  for (std::size_t i = first; i < lines.size() && i < first + room; ++i)
    put(lines[i].text, lines[i].row == screen.selected);
  if (screen.rows.empty()) put(screen.zoomed_dso.empty() ? "(waiting for samples)" : "(no samples in this file now)");
  out += "\x1b[J";
  // The keys, on the last line.
  std::string keys = "q quit   up/down select   d zoom into the file   s sort   p pause";
  if (top.stacks().chains) keys += "   e call chains (E all, C none)";
  out += "\x1b[" + std::to_string(height) + ";1H" + fit(keys) + "\x1b[K";
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

// A key pressed: false where it asks to quit. Arrows come as ESC [ A / ESC [ B.
bool press(const std::string& keys, Screen& screen, const TopRows& top) {
  for (std::size_t i = 0; i < keys.size(); ++i) {
    char key = keys[i];
    if (key == '\x1b' && i + 2 < keys.size() && keys[i + 1] == '[') {
      key = keys[i + 2] == 'A' ? 'k' : keys[i + 2] == 'B' ? 'j' : '\0';
      i += 2;
    }
    switch (key) {
      case 'q':
      case 'Q':
        return false;
      case 'j':
        if (screen.selected + 1 < screen.rows.size()) ++screen.selected;
        break;
      case 'k':
        if (screen.selected > 0) --screen.selected;
        break;
      case 'p':
      case 'P':
      case ' ':
        screen.paused = !screen.paused;
        break;
      case 's':
      case 'S':
        screen.order = screen.order == TopRows::Order::Overhead  ? TopRows::Order::Samples
                       : screen.order == TopRows::Order::Samples ? TopRows::Order::Name
                                                                 : TopRows::Order::Overhead;
        screen.take_rows(top);
        break;
      case 'e':
      case '+':
      case '\n':
        if (screen.selected < screen.rows.size() && !screen.expanded.erase(screen.rows[screen.selected].index))
          screen.expanded.insert(screen.rows[screen.selected].index);
        break;
      case 'E':
        screen.all_expanded = true;
        break;
      case 'C':
        screen.all_expanded = false;
        screen.expanded.clear();
        break;
      case 'd':
      case 'D':
        if (!screen.zoomed_dso.empty())
          screen.zoomed_dso.clear();
        else if (screen.selected < screen.rows.size())
          screen.zoomed_dso = screen.rows[screen.selected].dso;
        screen.selected = 0;
        screen.take_rows(top);
        break;
      default:
        break;
    }
  }
  return true;
}

// The samples top shows, into its profile: all of them, or (-K, -U) those of one ring only.
class ShownSamples final : public SampleHandler {
 public:
  ShownSamples(Profile& profile, bool hide_kernel, bool hide_user)
      : profile_(profile), hide_kernel_(hide_kernel), hide_user_(hide_user) {}
  void sample(std::size_t event, const Sample& sample) override {
    const std::uint16_t mode = sample.record->misc & PERF_RECORD_MISC_CPUMODE_MASK;
    const bool kernel = mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL;
    if (kernel ? hide_kernel_ : hide_user_) return;
    profile_.sample(event, sample);
  }
  void record(const perf_event_header& record) override { profile_.record(record); }

 private:
  Profile& profile_;
  bool hide_kernel_, hide_user_;
};

// top's part in the run: every tick the samples taken into the profile, every -d seconds the rows
// refreshed and shown; keys from the terminal, and a redraw when its size changes (SIGWINCH).
class TopView final : public RunHooks {
 public:
  using Clock = std::chrono::steady_clock;
  TopView(const TopOptions& o, Sampler& sampler, Profile& profile, TopRows& top, Screen& screen,
          const std::string& rate, const std::string& where, const Target& target, bool live, bool drawn)
      : o_(o),
        sampler_(sampler),
        profile_(profile),
        top_(top),
        screen_(screen),
        rate_(rate),
        where_(where),
        target_(target),
        live_(live),
        drawn_(drawn),
        delay_(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.delay_seconds))),
        last_refresh_(Clock::now()),
        next_refresh_(last_refresh_ + delay_) {}

  bool ended() const { return ended_; }

  int signal_number() const noexcept override { return SIGWINCH; }
  void signalled(const siginfo_t&) override { redraw(); }
  std::vector<int> wake_fds() const override { return live_ ? std::vector<int>{STDIN_FILENO} : std::vector<int>{}; }
  void woken() override {
    char keys[64];
    const ssize_t got = ::read(STDIN_FILENO, keys, sizeof keys);
    if (got <= 0) return;
    quit_ = quit_ || !press(std::string(keys, static_cast<std::size_t>(got)), screen_, top_);
    redraw();
  }
  // q, or output that cannot be written (a full disk: main says why), ends it.
  int interruption() override { return quit_ ? SIGINT : 0; }
  void tick(std::chrono::nanoseconds) override {
    // Whether the targets live is asked first: once they have gone, this drain takes their last samples.
    const bool alive = targets_alive(target_);
    ShownSamples shown(profile_, o_.hide_kernel, o_.hide_user);
    sampler_.drain(shown);
    ended_ = !alive;
    if (Clock::now() >= next_refresh_ || ended_) refresh();
  }

 private:
  void redraw() {
    if (drawn_) draw(top_, profile_, screen_);
  }
  void refresh() {
    const auto now = Clock::now();
    const double seconds = std::chrono::duration<double>(now - last_refresh_).count();
    last_refresh_ = now;
    next_refresh_ = now + delay_;
    const TopRefresh added = top_.refresh(profile_, 0);
    char header[256];
    std::snprintf(
        header, sizeof header,
        "   perfmon top: %8.0f samples/sec  kernel: %5.1f%%  records lost: %" PRIu64 "  [%s%s]  (%s)",
        static_cast<double>(added.samples) / std::max(seconds, 1e-3),
        added.samples ? 100.0 * static_cast<double>(added.kernel_samples) / static_cast<double>(added.samples) : 0.0,
        sampler_.stats().lost_records, rate_.c_str(), printable(sampler_.event(0).name).c_str(), where_.c_str());
    screen_.header = header;
    if (!screen_.paused) screen_.take_rows(top_);
    if (live_) {
      redraw();
      return;
    }
    std::string block = screen_.header + "\n" + std::string(79, '-') + "\n\n";
    for (const TableLine& line :
         table_lines(top_, profile_, screen_.rows, o_.entries > 0 ? static_cast<std::size_t>(o_.entries) : 30,
                     [](const TopRow&) { return true; }))
      block += line.text + "\n";
    std::fputs((block + "\n").c_str(), stdout);
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) quit_ = true;
  }

  const TopOptions& o_;
  Sampler& sampler_;
  Profile& profile_;
  TopRows& top_;
  Screen& screen_;
  const std::string& rate_;
  const std::string& where_;
  const Target& target_;
  const bool live_, drawn_;
  const Clock::duration delay_;
  Clock::time_point last_refresh_, next_refresh_;
  bool quit_ = false, ended_ = false;
};

int top(const TopOptions& o) {
  EventCatalog catalog;
  std::vector<EventGroup> groups;
  std::string note;
  try {
    groups = o.events.lists.empty() ? catalog.parse(default_sampled_event(catalog, note)) : o.events.parse(catalog);
    o.events.restrict_rings(groups);
  } catch (const Error& error) {
    return report_event_error("top", error);
  }
  std::size_t events = 0;
  for (const EventGroup& group : groups) events += group.events.size();
  if (events != 1)
    return report_error("top", Error(ErrorKind::InvalidArgument, "perfmon top shows one event at a time: give one -e."),
                        129);
  const bool live = !o.stdio && ::isatty(STDIN_FILENO) && ::isatty(STDOUT_FILENO);
  if (!note.empty() && !live) std::fprintf(stderr, "perfmon top: %s\n", note.c_str());

  TopOptions chosen = o;
  if (targets_given(chosen.target) == 0) chosen.target.all_cpus = true;  // the machine, as perf top
  const Target target = make_target(chosen.target, nullptr);
  SamplingOptions sampling;
  sampling.period = static_cast<std::uint64_t>(o.period);
  sampling.frequency = o.period == 0 ? static_cast<std::uint64_t>(o.frequency ? o.frequency : kDefaultFrequency) : 0;
  sampling.inherit = !target.cpu_wide();
  sampling.task_records = true;
  if (o.call_graph.callchains) sampling.sample_type |= PERF_SAMPLE_CALLCHAIN;
  sampling.user_stack_bytes = o.call_graph.user_stack_bytes;
  Sampler sampler(groups, target, sampling);
  for (const std::string& sampler_note : sampler.notes())
    std::fprintf(stderr, "perfmon top: %s\n", sampler_note.c_str());

  Profile profile({sampler.event(0).name}, ProfileOptions{.stacks = o.call_graph.callchains});
  if (o.call_graph.user_stack_bytes != 0 && !profile.unwind_user_stacks(0, sampler.opened_attr(0).sample_regs_user))
    std::fprintf(stderr,
                 "perfmon top: this build cannot unwind copied user stacks (no libdw, or another architecture): "
                 "the call chains show kernel frames and the sampled function only; use -g\n");
  describe_running(chosen, target, profile);
  TopStacks stacks = o.stacks;
  stacks.chains = o.call_graph.callchains;
  TopRows top(o.sort, stacks);
  Screen screen;
  screen.most_rows = static_cast<std::size_t>(o.entries);
  screen.note = note.empty() ? "" : "(" + note.substr(0, note.find(':')) + ": no PMU)";
  const std::string rate =
      o.period != 0 ? "every " + std::to_string(o.period) + " " : std::to_string(sampling.frequency) + " Hz ";
  // What is sampled, as perf top's header says it: "all, 2 CPUs", "CPUs 0-1", "pid 1234".
  auto ids = [](const char* kind, const auto& list) {
    std::string text = kind;
    for (std::size_t i = 0; i < list.size(); ++i) text += (i == 0 ? " " : ",") + std::to_string(list[i]);
    return text;
  };
  const std::string where = !o.target.pids.empty()   ? ids("pid", o.target.pids)
                            : !o.target.tids.empty() ? ids("tid", o.target.tids)
                            : o.target.cpus          ? ids("CPU", *o.target.cpus)
                                                     : "all, " + std::to_string(sampler.locations().size()) + " CPUs";

  // Waited for from here on, before the terminal changes: Ctrl-C then still gives it back.
  sigset_t signals;
  sigemptyset(&signals);
  for (int signo : {SIGINT, SIGTERM, SIGHUP, SIGWINCH}) sigaddset(&signals, signo);
  sigprocmask(SIG_BLOCK, &signals, nullptr);
  std::optional<LiveTerminal> terminal;
  if (live) terminal.emplace();

  sampler.start();
  if (o.verbose && !live) std::fprintf(stderr, "perfmon top: sampling started\n");
  TopView view(o, sampler, profile, top, screen, rate, where, target, live, terminal.has_value());
  if (terminal) draw(top, profile, screen);
  RunOptions every_50ms;
  every_50ms.tick = std::chrono::milliseconds(50);
  RunResult run;
  wait_until_done(nullptr, target, view, every_50ms, run);
  const bool ended = view.ended();
  sampler.stop();
  terminal.reset();
  if (ended) std::fprintf(stderr, "perfmon top: every thread it sampled has exited.\n");
  return 0;
}

}  // namespace

int run_top(std::span<char* const> args) {
  TopOptions o;
  std::vector<Option> options =
      o.events.options("the event to sample, perf syntax (default: cycles, or cpu-clock without a PMU)");
  for (Option& option : target_options(o.target, Measure::Sample)) options.push_back(std::move(option));
  for (Option& option : sampling_rate_options(o.period, o.frequency)) options.push_back(std::move(option));
  for (Option& option : call_graph_options(o.call_graph)) options.push_back(std::move(option));
  std::vector<Option> rest = {
      {'d', "delay", "secs", "refresh every secs seconds (default 2)",
       [&](std::string_view v) { o.delay_seconds = parse_delay(v); }},
      row_keys_option(o.sort, "the columns rows are merged by: comm, dso, sym (default dso,sym, as perf top)",
                      "perfmon top merges rows by comm, dso and sym"),
      {'E', "entries", "n", "show this many rows (default: as many as the terminal has room for; 30 with --stdio)",
       [&](std::string_view v) { o.entries = parse_long(v, "--entries", 1, 100000); }},
      {0, "stdio", "", "print the table every -d seconds instead of the live view (also when not on a terminal)",
       [&](std::string_view) { o.stdio = true; }},
      {'K', "hide_kernel_symbols", "", "leave out the kernel's samples (perf top's -K)",
       [&](std::string_view) { o.hide_kernel = true; }},
      {'U', "hide_user_symbols", "", "leave out user space's samples (perf top's -U)",
       [&](std::string_view) { o.hide_user = true; }},
      {0, "children", "",
       "with call chains: each row also weighs the stacks through its function (Children), rows ranked by it "
       "(the default with -g, as perf top's)",
       [&](std::string_view) { o.stacks.children = true; }},
      {0, "no-children", "", "with call chains: rows weigh and are ranked by their own samples only",
       [&](std::string_view) { o.stacks.children = false; }},
      {0, "max-stack", "n", "the frames of a call chain used, from the sampled function (chains and Children)",
       [&](std::string_view v) {
         o.stacks.max_stack = static_cast<std::size_t>(parse_long(v, "--max-stack", 1, 1 << 16));
       }},
      {'v', "verbose", "", "say on standard error when sampling has started (--stdio)",
       [&](std::string_view) { o.verbose = true; }},
  };
  for (Option& option : rest) options.push_back(std::move(option));
  std::vector<std::string> words;
  if (auto status = parse_command_line(args, "top", kSynopsis, options, words, [&](const std::vector<std::string>& w) {
        if (!w.empty()) throw UsageError("perfmon top samples what runs already: give -p PID, not a command");
        if (targets_given(o.target) > 1) throw UsageError("choose one of -p, -t and -a/-C");
      }))
    return *status;
  try {
    return top(o);
  } catch (const Error& error) {
    return report_run_error("top", error);
  }
}

}  // namespace perfmon::cli
