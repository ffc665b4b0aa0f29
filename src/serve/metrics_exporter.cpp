#include "perfmon/metrics.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <set>

#include "monitor/locations.hpp"
#include "perfmon/error.hpp"
#include "perfmon/printable.hpp"
#include "perfmon/session.hpp"
#include "perfmon/target.hpp"

namespace perfmon {

namespace {

// A label value as both formats escape it: backslash, double quote and newline. Both formats are
// UTF-8: a name that is not (a cgroup made with Latin-1 bytes) is shown as printable() shows it,
// its odd bytes as U+FFFD, so that one directory's name never makes the whole scrape invalid.
void append_escaped(std::string& out, std::string_view text) {
  // Printable ASCII, as nearly every name is, as it is: no copy per label on the scrape's path.
  const bool plain = std::all_of(text.begin(), text.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte >= 0x20 && byte < 0x7f;
  });
  std::string shown;
  if (!plain) shown = printable(text);
  for (const char c : plain ? text : std::string_view(shown)) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

void append_number(std::string& out, double value) {
  char text[32];
  const auto [end, error] = std::to_chars(text, text + sizeof text, value);
  out.append(text, error == std::errc() ? end : text);
}

void append_number(std::string& out, std::uint64_t value) {
  char text[24];
  const auto [end, error] = std::to_chars(text, text + sizeof text, value);
  out.append(text, error == std::errc() ? end : text);
}

// A family of samples: HELP, TYPE (and UNIT in OpenMetrics) once, then its lines.
struct Family {
  const char* name;  // the samples' name without "_total" (OpenMetrics' family name)
  const char* type;  // "counter", "info"
  const char* unit;  // OpenMetrics' UNIT, or ""
  const char* help;
};

constexpr Family kCount{
    "perfmon_event_count", "counter", "",
    "Events counted while the event was on the PMU (the raw count), by event, PMU, CPU and cgroup."};
constexpr Family kScaled{"perfmon_event_scaled_count", "counter", "",
                         "Events estimated over the whole enabled time where the event was multiplexed: each read's "
                         "count scaled by its enabled over running time, summed."};
constexpr Family kEnabled{"perfmon_event_enabled_seconds", "counter", "seconds",
                          "Time the event was enabled (counting or waiting for a counter)."};
constexpr Family kRunning{"perfmon_event_running_seconds", "counter", "seconds",
                          "Time the event was on the PMU, counting: less than enabled when it was multiplexed."};
constexpr Family kUnsupported{"perfmon_event_unsupported", "info", "",
                              "An event this machine cannot count, and why; it is left out of the other families."};
constexpr Family kNotCounted{"perfmon_cgroup_not_counted", "info", "",
                             "A cgroup that is not counted, and why (too few file descriptors, say); it has no series "
                             "in the other families."};

// Descriptors kept for what is not a counter: the server's connections (64 at most) and its files.
constexpr std::size_t kReservedDescriptors = 96;

// The process's open descriptors now.
std::size_t open_descriptors() {
  std::size_t count = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec); !ec && it != std::filesystem::end(it);
       it.increment(ec))
    ++count;
  return count;
}

std::size_t descriptor_limit() {
  rlimit limit{};
  return ::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY
             ? static_cast<std::size_t>(limit.rlim_cur)
             : std::numeric_limits<std::size_t>::max();
}

void begin_family(std::string& out, const Family& family, ExpositionFormat format) {
  const bool open_metrics = format == ExpositionFormat::OpenMetrics;
  // Text 0.0.4 knows no info type and names a counter's family by its samples' name.
  const bool counter = std::string_view(family.type) == "counter";
  const std::string name = std::string(family.name) + (open_metrics ? "" : counter ? "_total" : "_info");
  out += "# HELP " + name + " " + family.help + "\n";
  out += "# TYPE " + name + " " + (open_metrics || counter ? family.type : "gauge") + "\n";
  if (open_metrics && *family.unit != '\0') out += "# UNIT " + name + " " + family.unit + "\n";
}

}  // namespace

ExpositionFormat exposition_for(std::string_view accept) {
  return accept.find("application/openmetrics-text") != std::string_view::npos ? ExpositionFormat::OpenMetrics
                                                                               : ExpositionFormat::Prometheus004;
}

std::string_view content_type(ExpositionFormat format) {
  return format == ExpositionFormat::OpenMetrics ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                                                 : "text/plain; version=0.0.4; charset=utf-8";
}

struct MetricsExporter::State {
  // One session per counted thing: the CPUs, and each cgroup on them.
  struct Counted {
    std::string cgroup;  // "" for the CPUs themselves
    CounterSession session;
    // By event and location: the last read, and the scaled count summed so far.
    struct Sums {
      CounterValue last;
      double scaled = 0;
    };
    std::vector<Sums> sums;
    bool watched = false;  // a child of a watched cgroup: dropped when it goes
  };

  void count(const std::string& cgroup, bool watched);
  // A watched child counted, or said not counted (with why) where descriptors run short.
  void count_watched(const std::string& cgroup);
  // The children of each watched cgroup, as they are now: new ones counted, gone ones dropped.
  void look_at_watched();

  std::vector<EventGroup> groups;
  SessionOptions options;
  Target cpus;
  std::vector<std::string> watched;  // "PARENT" of each "PARENT/*"
  std::mutex reading;
  std::vector<std::unique_ptr<Counted>> counted;
  std::map<std::string, std::string> not_counted;  // watched children, by path: why not
  std::size_t descriptors_per_cgroup = 0;          // the CPUs' session's: a cgroup's has as many
  std::size_t descriptors_used = 0;                // by the sessions, counted as they open
  std::size_t descriptor_budget = 0;               // for sessions: the limit less what else is open, less a reserve
};

void MetricsExporter::State::count(const std::string& cgroup, bool is_watched) {
  const Target target = cgroup.empty() ? cpus : Target::cgroup_on(cgroup, cpus.cpus);
  auto made = std::make_unique<Counted>(Counted{cgroup, CounterSession(groups, target, options), {}, is_watched});
  made->sums.resize(made->session.event_count() * made->session.locations().size());
  made->session.start();
  descriptors_used += made->sums.size();
  counted.push_back(std::move(made));
}

void MetricsExporter::State::count_watched(const std::string& cgroup) {
  if (descriptors_used + descriptors_per_cgroup > descriptor_budget) {
    not_counted[cgroup] = "not counted: it needs " + std::to_string(descriptors_per_cgroup) +
                          " more file descriptors than the limit of " + std::to_string(descriptor_limit()) +
                          " leaves (ulimit -n); raise it";
    return;
  }
  try {
    count(cgroup, true);
    not_counted.erase(cgroup);
  } catch (const Error& error) {
    // Gone between the listing and the opening: the next scrape will not list it. Any other
    // refusal (EMFILE where the budget guessed wrong) is said, not swallowed.
    if (error.kind() != ErrorKind::NoSuchTarget) not_counted[cgroup] = std::string("not counted: ") + error.what();
  }
}

void MetricsExporter::State::look_at_watched() {
  namespace fs = std::filesystem;
  std::set<std::string> now;
  for (const std::string& parent : watched) {
    std::string directory;
    try {
      directory = monitor::resolve_cgroup_path(parent);
    } catch (const Error&) {
      continue;  // gone itself: no children to count
    }
    std::error_code ec;
    for (const fs::directory_entry& child : fs::directory_iterator(directory, ec))
      if (child.is_directory(ec)) now.insert(parent + "/" + child.path().filename().string());
  }
  // A child also named on its own is counted once, as named (its series would repeat).
  for (const std::unique_ptr<Counted>& known : counted)
    if (!known->watched) now.erase(known->cgroup);
  std::erase_if(not_counted, [&](const auto& entry) { return !now.contains(entry.first); });
  std::erase_if(counted, [&](const std::unique_ptr<Counted>& known) {
    const bool gone = known->watched && now.erase(known->cgroup) == 0;  // its series go with it
    if (gone) descriptors_used -= known->sums.size();
    return gone;
  });
  for (const std::string& cgroup : now) count_watched(cgroup);
}

MetricsExporter::MetricsExporter(MetricsOptions options) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.groups = std::move(options.groups);
  s.options.inherit = false;
  s.options.skip_unsupported = true;
  s.cpus = options.cpus.empty() ? Target::all_cpus() : Target::cpu_list(options.cpus);
  // Every series is told apart by its labels: an event twice would give each of its series twice,
  // which Prometheus refuses whole.
  std::set<std::pair<std::string, std::string>> events;
  for (const EventGroup& group : s.groups)
    for (const Event& event : group.events)
      if (!events.insert({event.name, event.pmu}).second)
        throw Error(ErrorKind::InvalidArgument,
                    "'" + event.name + "' is given twice: name each event once (its series would repeat).", EINVAL);
  s.count("", false);
  s.descriptors_per_cgroup = s.descriptors_used;
  const std::size_t limit = descriptor_limit(), open = open_descriptors();
  s.descriptor_budget =
      limit > open + kReservedDescriptors ? limit - open - kReservedDescriptors + s.descriptors_used : 0;
  std::set<std::string> named;  // each cgroup and each watched parent once, however often given
  for (const std::string& cgroup : options.cgroups) {
    if (cgroup.empty() || cgroup == "/*")
      throw Error(ErrorKind::InvalidArgument,
                  "a cgroup's name is empty: give paths below /sys/fs/cgroup, separated by commas.", EINVAL);
    if (!named.insert(cgroup).second) continue;
    if (cgroup.ends_with("/*")) {
      s.watched.push_back(cgroup.substr(0, cgroup.size() - 2));
      monitor::resolve_cgroup_path(s.watched.back());  // one that is not there is a mistake, said now
    } else {
      s.count(cgroup, false);
    }
  }
  s.look_at_watched();
}

MetricsExporter::~MetricsExporter() = default;

std::vector<std::string> MetricsExporter::unsupported() const {
  std::vector<std::string> said;
  const CounterSession& session = state_->counted.front()->session;
  for (std::size_t e = 0; e < session.event_count(); ++e)
    if (!session.supported(e)) said.push_back(session.event(e).name + ": " + session.unsupported_reason(e));
  return said;
}

std::vector<std::string> MetricsExporter::not_counted() const {
  const std::lock_guard<std::mutex> lock(state_->reading);
  std::vector<std::string> said;
  for (const auto& [cgroup, why] : state_->not_counted) said.push_back(cgroup + ": " + why);
  return said;
}

std::string MetricsExporter::scrape(ExpositionFormat format) {
  const std::lock_guard<std::mutex> lock(state_->reading);
  state_->look_at_watched();
  for (const std::unique_ptr<State::Counted>& each : state_->counted) {
    State::Counted& counted = *each;
    counted.session.read();
    const std::size_t locations = counted.session.locations().size();
    for (std::size_t e = 0; e < counted.session.event_count(); ++e) {
      for (std::size_t l = 0; l < locations; ++l) {
        State::Counted::Sums& sums = counted.sums[e * locations + l];
        const CounterValue now = counted.session.value(e, l);
        // This read's share, scaled by its own enabled over running time: a sum that only grows.
        const std::uint64_t counted_more = now.raw - sums.last.raw, running = now.running - sums.last.running,
                            enabled = now.enabled - sums.last.enabled;
        if (now.raw >= sums.last.raw && running != 0 && now.running >= sums.last.running)
          sums.scaled +=
              static_cast<double>(counted_more) * static_cast<double>(enabled) / static_cast<double>(running);
        sums.last = now;
      }
    }
  }

  std::string out;
  // Every sample line of a family: for each counted thing, event and CPU with a value.
  auto lines = [&](const Family& family, const char* suffix, auto value_of) {
    begin_family(out, family, format);
    for (const std::unique_ptr<State::Counted>& each : state_->counted) {
      State::Counted& counted = *each;
      const CounterSession& session = counted.session;
      const std::size_t locations = session.locations().size();
      for (std::size_t e = 0; e < session.event_count(); ++e) {
        if (!session.supported(e)) continue;
        for (std::size_t l = 0; l < locations; ++l) {
          out += family.name;
          out += suffix;
          out += "{event=\"";
          append_escaped(out, session.event(e).name);
          out += "\",pmu=\"";
          append_escaped(out, session.event(e).pmu);
          out += "\",cpu=\"";
          append_number(out, static_cast<std::uint64_t>(session.locations()[l].cpu));
          if (!counted.cgroup.empty()) {
            out += "\",cgroup=\"";
            append_escaped(out, counted.cgroup);
          }
          out += "\"} ";
          value_of(counted.sums[e * locations + l]);
          out += "\n";
        }
      }
    }
  };
  lines(kCount, "_total", [&](const State::Counted::Sums& sums) { append_number(out, sums.last.raw); });
  lines(kScaled, "_total", [&](const State::Counted::Sums& sums) { append_number(out, sums.scaled); });
  lines(kEnabled, "_total",
        [&](const State::Counted::Sums& sums) { append_number(out, static_cast<double>(sums.last.enabled) / 1e9); });
  lines(kRunning, "_total",
        [&](const State::Counted::Sums& sums) { append_number(out, static_cast<double>(sums.last.running) / 1e9); });

  begin_family(out, kUnsupported, format);
  std::set<std::string> said;  // an event once, not once per cgroup
  for (const std::unique_ptr<State::Counted>& counted : state_->counted) {
    const CounterSession& session = counted->session;
    for (std::size_t e = 0; e < session.event_count(); ++e) {
      if (session.supported(e) || !said.insert(session.event(e).name).second) continue;
      out += "perfmon_event_unsupported_info{event=\"";
      append_escaped(out, session.event(e).name);
      out += "\",pmu=\"";
      append_escaped(out, session.event(e).pmu);
      out += "\",reason=\"";
      append_escaped(out, session.unsupported_reason(e));
      out += "\"} 1\n";
    }
  }
  begin_family(out, kNotCounted, format);
  for (const auto& [cgroup, why] : state_->not_counted) {
    out += "perfmon_cgroup_not_counted_info{cgroup=\"";
    append_escaped(out, cgroup);
    out += "\",reason=\"";
    append_escaped(out, why);
    out += "\"} 1\n";
  }
  if (format == ExpositionFormat::OpenMetrics) out += "# EOF\n";
  return out;
}

}  // namespace perfmon
