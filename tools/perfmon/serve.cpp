// SPDX-License-Identifier: Apache-2.0
// perfmon serve: counters for Prometheus, profiles for pprof. Its settings (flags, a file), then
// the library's MetricsExporter (perfmon/metrics.hpp) behind its MetricsServer
// (perfmon/metrics_server.hpp) until a signal ends it: loopback only unless told otherwise.
#include <arpa/inet.h>
#include <fcntl.h>
#include <malloc.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "commands.hpp"
#include "errors.hpp"
#include "event_arguments.hpp"
#include "options.hpp"
#include "perfmon/catalog.hpp"
#include "perfmon/error.hpp"
#include "perfmon/machine_profile.hpp"
#include "perfmon/metrics.hpp"
#include "perfmon/metrics_server.hpp"
#include "perfmon/printable.hpp"
#include "perfmon/target.hpp"

namespace perfmon::cli {

namespace {

// What is counted by default: the software events every machine has, and the hardware ones that
// the metrics people ask of a fleet (IPC) where there is a PMU (else reported as unsupported).
constexpr const char* kDefaultEvents = "task-clock,context-switches,cpu-migrations,page-faults,{cycles,instructions}";
constexpr const char* kDefaultListen = "127.0.0.1:9465";
// What a profile samples by default: the clock every machine has, at Go's pprof rate.
constexpr const char* kDefaultProfileEvents = "cpu-clock";
constexpr long kDefaultProfileFrequency = 99;

struct ServeCommand {
  std::optional<std::string> listen;
  bool allow_remote = false;
  EventArguments events;
  std::optional<std::string> cpus;
  std::vector<std::string> cgroups;
  std::optional<std::string> profile_events;
  std::optional<long> profile_frequency;
  std::string config;
  std::optional<std::string> metrics, metrics_dir;  // -M, --metrics-dir
  // Where each setting the file gave came from ("FILE:LINE"), for its errors; empty: the command line.
  std::string listen_from, events_from, cpus_from, profile_events_from;
};

// "a,b,c" as its parts, as -G and the file's cgroups take them (an empty part kept: refused later).
void add_list(std::vector<std::string>& to, std::string_view text) {
  for (std::size_t at = 0;;) {
    const std::size_t comma = text.find(',', at);
    to.emplace_back(text.substr(at, comma == std::string_view::npos ? text.npos : comma - at));
    if (comma == std::string_view::npos) break;
    at = comma + 1;
  }
}

// Runs `parse` on a setting's value; what it throws names the file and line the value came from.
template <typename Parse>
auto from_setting(const std::string& from, Parse&& parse) {
  try {
    return parse();
  } catch (const Error& error) {
    if (from.empty()) throw;
    throw Error(error.kind(), from + ": " + error.what(), error.errnum());
  } catch (const UsageError& error) {
    if (from.empty()) throw;
    throw UsageError(from + ": " + error.what());
  }
}

// ADDR:PORT, IPv4 ("127.0.0.1:9465") or IPv6 in brackets ("[::1]:9465"). Throws UsageError.
struct ListenAddress {
  sockaddr_storage address{};
  bool loopback = false;
  std::string text;
};
ListenAddress parse_listen(const std::string& text, const std::string& where) {
  ListenAddress parsed;
  parsed.text = text;
  const std::size_t colon = text.rfind(':');
  const bool bracketed = !text.empty() && text.front() == '[';
  if (colon == std::string::npos || colon == 0 || (bracketed && text[colon - 1] != ']'))
    throw UsageError(where + " takes ADDRESS:PORT, such as " + kDefaultListen + " or [::1]:9465; not '" +
                     printable(text) + "'");
  const std::string host = bracketed ? text.substr(1, colon - 2) : text.substr(0, colon);
  const long port = parse_long(std::string_view(text).substr(colon + 1), where + "'s port", 0, 65535);
  if (auto* v4 = reinterpret_cast<sockaddr_in*>(&parsed.address);
      !bracketed && inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<std::uint16_t>(port));
    parsed.loopback = (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
  } else if (auto* v6 = reinterpret_cast<sockaddr_in6*>(&parsed.address);
             inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<std::uint16_t>(port));
    parsed.loopback = IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr);
  } else {
    throw UsageError(where + " takes a numeric address (127.0.0.1, [::1], 0.0.0.0), not '" + printable(host) + "'");
  }
  return parsed;
}

// The configuration file: "setting = value" lines (the long options' names), '#' comments. A
// setting the command line gives too is the command line's.
void read_config(ServeCommand& o, bool events_given, bool cgroups_given) {
  // Opened without waiting and read only if it is a regular file: a FIFO or a device named by
  // mistake would hang the start or be read without end.
  const int fd = ::open(o.config.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat status {};
  if (fd < 0 || ::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
    const int err = fd < 0 ? errno : 0;
    if (fd >= 0) ::close(fd);
    throw Error(ErrorKind::System,
                "cannot read the configuration file '" + printable(o.config) + "' (" +
                    (err != 0 ? std::strerror(err) : "it is not a regular file") + ").",
                err);
  }
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
  ::close(fd);
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string where = printable(o.config) + ":" + std::to_string(number);
    const std::size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    const std::size_t equals = line.find('=');
    if (equals == std::string::npos) throw UsageError(where + ": '" + printable(line) + "' is not 'setting = value'");
    // A file written on Windows ends its lines in CR LF: the CR is a blank like the others.
    auto trim = [](std::string text) {
      const std::size_t from = text.find_first_not_of(" \t\r"), to = text.find_last_not_of(" \t\r");
      return from == std::string::npos ? std::string() : text.substr(from, to - from + 1);
    };
    const std::string key = trim(line.substr(0, equals)), value = trim(line.substr(equals + 1));
    if (value.empty() && key != "allow-remote") throw UsageError(where + ": '" + printable(key) + "' needs a value");
    if (key == "listen") {
      if (!o.listen) o.listen = value, o.listen_from = where;
    } else if (key == "allow-remote") {
      if (value != "" && value != "true" && value != "false")
        throw UsageError(where + ": allow-remote is true or false, not '" + printable(value) + "'");
      o.allow_remote = o.allow_remote || value != "false";
    } else if (key == "event" || key == "events") {
      if (!events_given) o.events.lists.push_back(value), o.events_from = where;
    } else if (key == "cpus") {
      if (!o.cpus) o.cpus = value, o.cpus_from = where;
    } else if (key == "cgroup" || key == "cgroups") {
      if (!cgroups_given) add_list(o.cgroups, value);  // as -G: "a,b" is two
    } else if (key == "profile-events") {
      if (!o.profile_events) o.profile_events = value, o.profile_events_from = where;
    } else if (key == "metrics") {
      if (!o.metrics) o.metrics = value;
    } else if (key == "metrics-dir") {
      if (!o.metrics_dir) o.metrics_dir = value;
    } else if (key == "profile-frequency") {
      if (!o.profile_frequency) o.profile_frequency = parse_long(value, where + ": profile-frequency", 1, 100000);
    } else {
      throw UsageError(where + ": unknown setting '" + printable(key) +
                       "'; the settings are listen, allow-remote, events, cpus, cgroups, metrics, metrics-dir, "
                       "profile-events and profile-frequency");
    }
  }
}

}  // namespace

int run_serve(std::span<char* const> args) {
  ServeCommand o;
  bool cgroups_given = false;
  // Option keeps views of its help: these outlive the parsing.
  const std::string event_help = "events to count, in perf's syntax with groups, as perfmon stat takes them (default " +
                                 std::string(kDefaultEvents) + ")";
  const std::string listen_help = std::string("where to answer (default ") + kDefaultListen +
                                  ", loopback only; port 0: any free one, said at start)";
  std::vector<Option> options = o.events.options(event_help);
  options.push_back({0, "listen", "address:port", listen_help, [&](std::string_view v) { o.listen = std::string(v); }});
  options.push_back({0, "allow-remote", "", "listen on an address other machines reach (counters are readable there)",
                     [&](std::string_view) { o.allow_remote = true; }});
  options.push_back({'C', "cpu", "cpus", "count on these CPUs only (default all), as 0-3,5",
                     [&](std::string_view v) { o.cpus = std::string(v); }});
  options.push_back(
      {'G', "cgroup", "cgroups",
       "count in these cgroups too (a path below the cgroup mount), each labelled cgroup=", [&](std::string_view v) {
         cgroups_given = true;
         add_list(o.cgroups, v);
       }});
  const std::string profile_help =
      std::string("the events /debug/pprof/profile samples (default ") + kDefaultProfileEvents + ")";
  options.push_back(
      {0, "profile-events", "events", profile_help, [&](std::string_view v) { o.profile_events = std::string(v); }});
  options.push_back(
      {0, "profile-frequency", "hz", "samples a second of each profiled event on each CPU (default 99)",
       [&](std::string_view v) { o.profile_frequency = parse_long(v, "--profile-frequency", 1, 100000); }});
  options.push_back({'M', "metrics", "list",
                     "metrics or groups of metrics (perfmon list metrics) as gauges, each over the interval since "
                     "the scrape before: perfmon_metric_<name>",
                     [&](std::string_view v) { o.metrics = std::string(v); }});
  options.push_back({0, "metrics-dir", "dir",
                     "also this CPU's metrics from perf's pmu-events laid out as in Linux's "
                     "tools/perf/pmu-events/arch/ARCH",
                     [&](std::string_view v) { o.metrics_dir = std::string(v); }});
  options.push_back({0, "config", "file",
                     "read settings from a file: 'listen = ...', 'events = ...', 'cpus = ...', "
                     "'cgroups = ...', 'allow-remote = true', one a line",
                     [&](std::string_view v) { o.config = std::string(v); }});
  std::vector<std::string> rest;
  const std::string synopsis =
      "perfmon serve [--listen ADDRESS:PORT] [--allow-remote] [-e EVENTS]... [-C CPUS] [-G CGROUPS]\n"
      "                     [-M METRICS] [--metrics-dir DIR] [--profile-events EVENTS] [--profile-frequency HZ]\n"
      "                     [--config FILE]";
  if (auto status =
          parse_command_line(args, "serve", synopsis, options, rest, [](const std::vector<std::string>& words) {
            if (!words.empty()) throw UsageError("serve takes no command: it counts the whole machine until stopped");
          }))
    return *status;
  try {
    if (!o.config.empty()) read_config(o, !o.events.lists.empty(), cgroups_given);
    const ListenAddress listen = from_setting(o.listen_from, [&] {
      return parse_listen(o.listen.value_or(kDefaultListen), o.listen_from.empty() ? "--listen" : "listen");
    });
    if (!listen.loopback && !o.allow_remote)
      throw UsageError(listen.text +
                       " is not a loopback address: every machine that reaches it could read this "
                       "one's counters; add --allow-remote to listen there");
    // Each cgroup counted takes a descriptor per event and CPU: the soft limit is raised to the hard
    // one, as far as this user may, before any is opened.
    if (rlimit limit{}; ::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
      limit.rlim_cur = limit.rlim_max;
      ::setrlimit(RLIMIT_NOFILE, &limit);
    }
    EventCatalog catalog;
    MetricsOptions metrics;
    MachineProfileOptions profile;
    // What the user wrote wrong (an event, a CPU list, a cgroup that is no cgroup, an event twice)
    // is a usage error as in perfmon stat: 129.
    std::optional<MetricsExporter> made;
    try {
      metrics.groups = from_setting(o.events_from, [&] {
        return o.events.lists.empty() ? catalog.parse(kDefaultEvents) : o.events.parse(catalog);
      });
      if (o.cpus) metrics.cpus = from_setting(o.cpus_from, [&] { return parse_cpu_list(*o.cpus); });
      profile.groups = from_setting(o.profile_events_from,
                                    [&] { return catalog.parse(o.profile_events.value_or(kDefaultProfileEvents)); });
      profile.frequency = static_cast<std::uint64_t>(o.profile_frequency.value_or(kDefaultProfileFrequency));
      profile.cpus = metrics.cpus;
      metrics.cgroups = o.cgroups;
      metrics.metrics = o.metrics.value_or("");
      metrics.metrics_dir = o.metrics_dir.value_or("");
      made.emplace(std::move(metrics));
    } catch (const Error& error) {
      return report_event_error("serve", error);
    }
    MetricsExporter& exporter = *made;
    for (const std::string& said : exporter.unsupported())
      std::fprintf(stderr, "perfmon serve: left out (said in %s): %s\n",
                   said.starts_with("metric ") ? "perfmon_metric_unavailable_info" : "perfmon_event_unsupported_info",
                   printable(said).c_str());
    for (const std::string& said : exporter.not_counted())
      std::fprintf(stderr, "perfmon serve: left out (said in perfmon_cgroup_not_counted_info): %s\n",
                   printable(said).c_str());

    // A thread per connection would each take an allocator arena of its own: two in all keep a
    // daemon's memory to what it holds.
    mallopt(M_ARENA_MAX, 2);
    // The signals that end or reload it are taken by this thread: blocked before the server's
    // threads start, so that they inherit the mask.
    sigset_t signals;
    sigemptyset(&signals);
    for (int signal : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&signals, signal);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    std::optional<MetricsServer> server;
    try {
      server.emplace(exporter, std::move(profile), listen.address);
    } catch (const Error& error) {
      if (error.kind() != ErrorKind::System) throw;
      throw Error(ErrorKind::System,
                  "cannot listen on " + listen.text + " (" + std::strerror(error.errnum()) +
                      "); choose another port with --listen.",
                  error.errnum());
    }
    const std::string host = listen.text.substr(0, listen.text.rfind(':'));
    std::fprintf(stderr, "perfmon serve: serving http://%s:%u/metrics%s; Ctrl-C or SIGTERM ends it.\n", host.c_str(),
                 static_cast<unsigned>(server->port()),
                 listen.loopback ? " (loopback only; --allow-remote to listen elsewhere)" : "");
    std::fflush(stderr);
    for (;;) {
      int signal = 0;
      if (sigwait(&signals, &signal) != 0) continue;
      if (signal != SIGHUP) break;
      std::fprintf(stderr,
                   "perfmon serve: SIGHUP: the configuration is read at start only; restart perfmon serve to change "
                   "it. Serving on.\n");
    }
    server.reset();
    std::fprintf(stderr, "perfmon serve: stopped.\n");
    return 0;
  } catch (const UsageError& error) {
    std::fprintf(stderr, "perfmon serve: %s.\nRun 'perfmon serve --help' for the options.\n",
                 printable(error.what()).c_str());
    return 129;
  } catch (const Error& error) {
    return report_error("serve", error, 1);
  }
}

}  // namespace perfmon::cli
