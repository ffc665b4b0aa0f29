// perfmon serve: counters for Prometheus, profiles for pprof. Counts events on every CPU (and in
// cgroups where asked) and answers GET /metrics in Prometheus' text format or OpenMetrics
// (perfmon/metrics.hpp), and GET /debug/pprof/profile?seconds=N with the machine sampled for N
// seconds (perfmon/machine_profile.hpp), over libmicrohttpd: loopback only unless told otherwise,
// requests bounded in number, size and time.
#include <arpa/inet.h>
#include <malloc.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "commands.hpp"
#include "errors.hpp"
#include "event_arguments.hpp"
#include "options.hpp"
#include "perfmon/catalog.hpp"
#include "perfmon/error.hpp"
#include "perfmon/machine_profile.hpp"
#include "perfmon/metrics.hpp"
#include "perfmon/printable.hpp"
#include "perfmon/target.hpp"

#if PERFMON_HAVE_MICROHTTPD
#include <dlfcn.h>
#include <microhttpd.h>
#endif

namespace perfmon::cli {

namespace {

// What is counted by default: the software events every machine has, and the hardware ones that
// the metrics people ask of a fleet (IPC) where there is a PMU (else reported as unsupported).
constexpr const char* kDefaultEvents = "task-clock,context-switches,cpu-migrations,page-faults,{cycles,instructions}";
constexpr const char* kDefaultListen = "127.0.0.1:9465";
// What a profile samples by default: the clock every machine has, at Go's pprof rate.
constexpr const char* kDefaultProfileEvents = "cpu-clock";
constexpr long kDefaultProfileFrequency = 99;
constexpr long kLongestProfileSeconds = 300;

struct ServeCommand {
  std::optional<std::string> listen;
  bool allow_remote = false;
  EventArguments events;
  std::optional<std::string> cpus;
  std::vector<std::string> cgroups;
  std::optional<std::string> profile_events;
  std::optional<long> profile_frequency;
  std::string config;
};

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
  std::ifstream in(o.config);
  if (!in)
    throw Error(ErrorKind::InvalidArgument,
                "cannot read the configuration file '" + printable(o.config) + "' (" + std::strerror(errno) + ").");
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string where = printable(o.config) + ":" + std::to_string(number);
    const std::size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    const std::size_t equals = line.find('=');
    if (equals == std::string::npos) throw UsageError(where + ": '" + printable(line) + "' is not 'setting = value'");
    auto trim = [](std::string text) {
      const std::size_t from = text.find_first_not_of(" \t"), to = text.find_last_not_of(" \t");
      return from == std::string::npos ? std::string() : text.substr(from, to - from + 1);
    };
    const std::string key = trim(line.substr(0, equals)), value = trim(line.substr(equals + 1));
    if (value.empty() && key != "allow-remote") throw UsageError(where + ": '" + printable(key) + "' needs a value");
    if (key == "listen") {
      if (!o.listen) o.listen = value;
    } else if (key == "allow-remote") {
      if (value != "" && value != "true" && value != "false")
        throw UsageError(where + ": allow-remote is true or false, not '" + printable(value) + "'");
      o.allow_remote = o.allow_remote || value != "false";
    } else if (key == "event" || key == "events") {
      if (!events_given) o.events.lists.push_back(value);
    } else if (key == "cpus") {
      if (!o.cpus) o.cpus = value;
    } else if (key == "cgroup" || key == "cgroups") {
      if (!cgroups_given) o.cgroups.push_back(value);
    } else if (key == "profile-events") {
      if (!o.profile_events) o.profile_events = value;
    } else if (key == "profile-frequency") {
      if (!o.profile_frequency) o.profile_frequency = parse_long(value, where + ": profile-frequency", 1, 100000);
    } else {
      throw UsageError(where + ": unknown setting '" + printable(key) +
                       "'; the settings are listen, allow-remote, events, cpus, cgroups, profile-events and "
                       "profile-frequency");
    }
  }
}

#if PERFMON_HAVE_MICROHTTPD

// libmicrohttpd, loaded when serve starts: it brings a dozen shared objects (its TLS) that every
// other perfmon command would load for nothing, and start slower.
struct Microhttpd {
  decltype(&MHD_start_daemon) start_daemon;
  decltype(&MHD_stop_daemon) stop_daemon;
  decltype(&MHD_get_daemon_info) get_daemon_info;
  decltype(&MHD_create_response_from_buffer) create_response_from_buffer;
  decltype(&MHD_add_response_header) add_response_header;
  decltype(&MHD_queue_response) queue_response;
  decltype(&MHD_destroy_response) destroy_response;
  decltype(&MHD_lookup_connection_value) lookup_connection_value;
};
const Microhttpd* mhd = nullptr;

const Microhttpd* load_microhttpd() {
  void* library = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) return nullptr;
  static Microhttpd loaded;
  auto take = [&](auto& function, const char* name) {
    function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(dlsym(library, name));
    return function != nullptr;
  };
  if (!take(loaded.start_daemon, "MHD_start_daemon") || !take(loaded.stop_daemon, "MHD_stop_daemon") ||
      !take(loaded.get_daemon_info, "MHD_get_daemon_info") ||
      !take(loaded.create_response_from_buffer, "MHD_create_response_from_buffer") ||
      !take(loaded.add_response_header, "MHD_add_response_header") ||
      !take(loaded.queue_response, "MHD_queue_response") || !take(loaded.destroy_response, "MHD_destroy_response") ||
      !take(loaded.lookup_connection_value, "MHD_lookup_connection_value"))
    return nullptr;
  return &loaded;
}

// One answer: status, type, body.
MHD_Result answer(MHD_Connection* connection, unsigned status, std::string_view type, const std::string& body,
                  const char* allow = nullptr, const char* disposition = nullptr) {
  MHD_Response* response =
      mhd->create_response_from_buffer(body.size(), const_cast<char*>(body.data()), MHD_RESPMEM_MUST_COPY);
  if (response == nullptr) return MHD_NO;
  mhd->add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, std::string(type).c_str());
  if (allow != nullptr) mhd->add_response_header(response, MHD_HTTP_HEADER_ALLOW, allow);
  if (disposition != nullptr) mhd->add_response_header(response, MHD_HTTP_HEADER_CONTENT_DISPOSITION, disposition);
  const MHD_Result queued = mhd->queue_response(connection, status, response);
  mhd->destroy_response(response);
  return queued;
}

// What the server answers from: the counters, and how to profile the machine (one profile at a time).
struct Served {
  MetricsExporter& exporter;
  MachineProfileOptions profile;
  std::mutex profiling;
};

MHD_Result profile(Served& served, MHD_Connection* connection) {
  constexpr std::string_view kText = "text/plain; charset=utf-8";
  const char* asked = mhd->lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, "seconds");
  long seconds = 30;  // Go's net/http/pprof's default
  if (asked != nullptr) {
    try {
      seconds = parse_long(asked, "seconds", 1, kLongestProfileSeconds);
    } catch (const UsageError& error) {
      return answer(connection, MHD_HTTP_BAD_REQUEST, kText, std::string(error.what()) + ".\n");
    }
  }
  const std::unique_lock<std::mutex> one(served.profiling, std::try_to_lock);
  if (!one.owns_lock())
    return answer(connection, MHD_HTTP_TOO_MANY_REQUESTS, kText,
                  "A profile is being taken; ask again when it is done (one at a time).\n");
  try {
    return answer(connection, MHD_HTTP_OK, "application/octet-stream",
                  profile_machine(served.profile, std::chrono::seconds(seconds)), nullptr,
                  "attachment; filename=\"profile\"");
  } catch (const std::exception& error) {
    return answer(connection, MHD_HTTP_INTERNAL_SERVER_ERROR, kText, std::string(error.what()) + "\n");
  }
}

MHD_Result handle(void* served_arg, MHD_Connection* connection, const char* url, const char* method, const char*,
                  const char*, std::size_t* upload_size, void** request_state) {
  // libmicrohttpd calls once with the headers, then with any body: a GET has none to wait for,
  // and a body sent anyway is passed over.
  static int headers_seen;
  if (*request_state == nullptr) {
    *request_state = &headers_seen;
    return MHD_YES;
  }
  if (*upload_size != 0) {
    *upload_size = 0;
    return MHD_YES;
  }
  constexpr std::string_view kText = "text/plain; charset=utf-8";
  const std::string_view asked = method;
  if (asked != MHD_HTTP_METHOD_GET && asked != MHD_HTTP_METHOD_HEAD)
    return answer(connection, MHD_HTTP_METHOD_NOT_ALLOWED, kText, "perfmon serve answers GET only.\n", "GET, HEAD");
  const std::string_view path = url;
  auto& served = *static_cast<Served*>(served_arg);
  MetricsExporter& exporter = served.exporter;
  if (path == "/metrics") {
    const char* accept = mhd->lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
    const ExpositionFormat format = exposition_for(accept != nullptr ? accept : "");
    try {
      return answer(connection, MHD_HTTP_OK, content_type(format), exporter.scrape(format));
    } catch (const std::exception& error) {
      return answer(connection, MHD_HTTP_INTERNAL_SERVER_ERROR, kText, std::string(error.what()) + "\n");
    }
  }
  if (path == "/debug/pprof/profile") return profile(served, connection);
  if (path == "/")
    return answer(connection, MHD_HTTP_OK, "text/html; charset=utf-8",
                  "<html><head><title>perfmon serve</title></head><body><h1>perfmon serve</h1>"
                  "<p><a href=\"/metrics\">/metrics</a>: counters for Prometheus.</p>"
                  "<p><a href=\"/debug/pprof/profile?seconds=10\">/debug/pprof/profile?seconds=N</a>: the machine "
                  "sampled for N seconds, a pprof profile.</p></body></html>\n");
  return answer(connection, MHD_HTTP_NOT_FOUND, kText,
                "No such page; perfmon serve answers /metrics and /debug/pprof/profile.\n");
}

#endif

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
         for (std::size_t at = 0;;) {
           const std::size_t comma = v.find(',', at);
           o.cgroups.emplace_back(v.substr(at, comma == std::string_view::npos ? v.npos : comma - at));
           if (comma == std::string_view::npos) break;
           at = comma + 1;
         }
       }});
  const std::string profile_help =
      std::string("the events /debug/pprof/profile samples (default ") + kDefaultProfileEvents + ")";
  options.push_back(
      {0, "profile-events", "events", profile_help, [&](std::string_view v) { o.profile_events = std::string(v); }});
  options.push_back(
      {0, "profile-frequency", "hz", "samples a second of each profiled event on each CPU (default 99)",
       [&](std::string_view v) { o.profile_frequency = parse_long(v, "--profile-frequency", 1, 100000); }});
  options.push_back({0, "config", "file",
                     "read settings from a file: 'listen = ...', 'events = ...', 'cpus = ...', "
                     "'cgroups = ...', 'allow-remote = true', one a line",
                     [&](std::string_view v) { o.config = std::string(v); }});
  std::vector<std::string> rest;
  const std::string synopsis =
      "perfmon serve [--listen ADDRESS:PORT] [--allow-remote] [-e EVENTS]... [-C CPUS] [-G CGROUPS]\n"
      "                     [--profile-events EVENTS] [--profile-frequency HZ] [--config FILE]";
  if (auto status =
          parse_command_line(args, "serve", synopsis, options, rest, [](const std::vector<std::string>& words) {
            if (!words.empty()) throw UsageError("serve takes no command: it counts the whole machine until stopped");
          }))
    return *status;
#if PERFMON_HAVE_MICROHTTPD
  try {
    if (!o.config.empty()) read_config(o, !o.events.lists.empty(), cgroups_given);
    mhd = load_microhttpd();
    if (mhd == nullptr)
      throw Error(ErrorKind::Unsupported,
                  "perfmon serve answers HTTP with libmicrohttpd, which is not installed here "
                  "(libmicrohttpd.so.12); install Debian's libmicrohttpd12.");
    const ListenAddress listen = parse_listen(o.listen.value_or(kDefaultListen), "--listen");
    if (!listen.loopback && !o.allow_remote)
      throw UsageError(listen.text +
                       " is not a loopback address: every machine that reaches it could read this "
                       "one's counters; add --allow-remote to listen there");
    EventCatalog catalog;
    MetricsOptions metrics;
    metrics.groups = o.events.lists.empty() ? catalog.parse(kDefaultEvents) : o.events.parse(catalog);
    if (o.cpus) metrics.cpus = parse_cpu_list(*o.cpus);
    const std::vector<int> metrics_cpus = metrics.cpus;
    metrics.cgroups = o.cgroups;
    MetricsExporter exporter(std::move(metrics));
    Served served{exporter, {}, {}};
    served.profile.groups = catalog.parse(o.profile_events.value_or(kDefaultProfileEvents));
    served.profile.frequency = static_cast<std::uint64_t>(o.profile_frequency.value_or(kDefaultProfileFrequency));
    served.profile.cpus = metrics_cpus;
    for (const std::string& said : exporter.unsupported())
      std::fprintf(stderr, "perfmon serve: left out (said in perfmon_event_unsupported_info): %s\n",
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
    // Bounded: 64 connections at once, 10 s of silence each, 32 KiB of request each; a thread per
    // connection, so that one slow scrape does not hold the others.
    MHD_Daemon* daemon = mhd->start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
                                               (listen.address.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
                                           0, nullptr, nullptr, &handle, &served, MHD_OPTION_SOCK_ADDR, &listen.address,
                                           MHD_OPTION_CONNECTION_LIMIT, 64u, MHD_OPTION_CONNECTION_TIMEOUT, 10u,
                                           MHD_OPTION_CONNECTION_MEMORY_LIMIT, std::size_t{32 << 10}, MHD_OPTION_END);
    if (daemon == nullptr)
      throw Error(
          ErrorKind::System,
          "cannot listen on " + listen.text + " (" + std::strerror(errno) + "); choose another port with --listen.",
          errno);
    const MHD_DaemonInfo* bound = mhd->get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    const std::string host = listen.text.substr(0, listen.text.rfind(':'));
    std::fprintf(stderr, "perfmon serve: serving http://%s:%u/metrics%s; Ctrl-C or SIGTERM ends it.\n", host.c_str(),
                 bound != nullptr ? bound->port : 0u,
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
    mhd->stop_daemon(daemon);
    std::fprintf(stderr, "perfmon serve: stopped.\n");
    return 0;
  } catch (const UsageError& error) {
    std::fprintf(stderr, "perfmon serve: %s.\nRun 'perfmon serve --help' for the options.\n", error.what());
    return 129;
  } catch (const Error& error) {
    return report_error("serve", error, 1);
  }
#else
  return report_error("serve",
                      Error(ErrorKind::Unsupported,
                            "this perfmon was built without libmicrohttpd, which serves the metrics; build it with "
                            "libmicrohttpd-dev installed."),
                      1);
#endif
}

}  // namespace perfmon::cli
