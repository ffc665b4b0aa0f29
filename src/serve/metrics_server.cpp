// SPDX-License-Identifier: Apache-2.0
#include "perfmon/metrics_server.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "perfmon/error.hpp"

#if PERFMON_HAVE_MICROHTTPD
#include <microhttpd.h>

#include "kernel/loaded_library.hpp"
#endif

namespace perfmon {

#if PERFMON_HAVE_MICROHTTPD

// The threads that answer, each polling its share of the connections: a scrape takes tens of
// microseconds, so two keep up with 50 clients at once. With poll(), not epoll: libmicrohttpd
// 0.9.75's edge-triggered epoll misses a client's end of input that came with its request, and
// kept such connections to their idle timeout. (A thread per connection, tried first, left a socket
// open in about 15,000 connections under 50 concurrent clients.)
constexpr unsigned kServingThreads = 2;

// A profile being taken: its connection waits (suspended) while a thread of its own samples, so
// that the pool's threads go on answering scrapes.
struct ProfileRequest {
  std::string body;  // the gzipped profile, or the sentence that says why not
  unsigned status = 0;
};

struct MetricsServer::State {
  State(MetricsExporter& counters, MachineProfileOptions profile_options, ServerLimits server_limits)
      : exporter(counters), profile(std::move(profile_options)), limits(server_limits) {}
  MetricsExporter& exporter;
  MachineProfileOptions profile;
  ServerLimits limits;
  std::mutex profiling;                   // guards the three below: one profile at a time
  std::unique_ptr<ProfileRequest> taken;  // until its answer is sent
  std::condition_variable answered;       // `taken` is gone
  bool stopping = false;
  std::jthread profiler;
  // Connections whose request has not all come yet, since when: one whose request takes longer
  // than limits.request_seconds (a client that sends a byte a second) has its socket shut down, so
  // that slow clients cannot hold the connection slots that scrapes need.
  struct Arriving {
    MHD_Connection* connection;
    int fd;
    std::chrono::steady_clock::time_point since;
  };
  std::mutex arriving_lock;
  std::condition_variable_any arriving_changed;
  std::vector<Arriving> arriving;
  std::jthread deadline_keeper;
  MHD_Daemon* daemon = nullptr;

  void expect_request(MHD_Connection* connection, int fd) {
    const std::lock_guard<std::mutex> lock(arriving_lock);
    arriving.push_back({connection, fd, std::chrono::steady_clock::now()});
  }
  void request_arrived(MHD_Connection* connection) {
    const std::lock_guard<std::mutex> lock(arriving_lock);
    std::erase_if(arriving, [connection](const Arriving& each) { return each.connection == connection; });
  }
  // Until stopped: every so often, the sockets of requests past their deadline shut down (their
  // connections then end in the serving threads, which see the socket closed).
  void keep_deadlines(std::stop_token stop) {
    const auto deadline = std::chrono::seconds(limits.request_seconds);
    std::unique_lock<std::mutex> lock(arriving_lock);
    while (!arriving_changed.wait_for(lock, stop, std::chrono::milliseconds(250), [] { return false; }) &&
           !stop.stop_requested()) {
      const auto now = std::chrono::steady_clock::now();
      std::erase_if(arriving, [&](const Arriving& each) {
        if (now - each.since < deadline) return false;
        ::shutdown(each.fd, SHUT_RDWR);  // still open: closed only after the close notification
        return true;
      });
    }
  }
};

namespace {

// A profile's length: whole seconds from 1 to `longest`. Throws perfmon::Error saying so.
long parse_seconds(std::string_view text, unsigned longest) {
  long seconds = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (error != std::errc() || end != text.data() + text.size() || seconds < 1 || seconds > long{longest})
    throw Error(ErrorKind::InvalidArgument, "seconds is a whole number from 1 to " + std::to_string(longest) +
                                                ", not '" + std::string(text) + "'.");
  return seconds;
}

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
  decltype(&MHD_suspend_connection) suspend_connection;
  decltype(&MHD_resume_connection) resume_connection;
  decltype(&MHD_get_connection_info) get_connection_info;
  decltype(&MHD_add_connection) add_connection;
};
const Microhttpd* mhd = nullptr;

const Microhttpd* load_microhttpd() {
  const kernel::LoadedLibrary library("libmicrohttpd.so.12");
  if (!library.loaded()) return nullptr;
  static Microhttpd loaded;
  auto take = [&](auto& function, const char* name) { return library.find(name, function); };
  if (!take(loaded.start_daemon, "MHD_start_daemon") || !take(loaded.stop_daemon, "MHD_stop_daemon") ||
      !take(loaded.get_daemon_info, "MHD_get_daemon_info") ||
      !take(loaded.create_response_from_buffer, "MHD_create_response_from_buffer") ||
      !take(loaded.add_response_header, "MHD_add_response_header") ||
      !take(loaded.queue_response, "MHD_queue_response") || !take(loaded.destroy_response, "MHD_destroy_response") ||
      !take(loaded.lookup_connection_value, "MHD_lookup_connection_value") ||
      !take(loaded.suspend_connection, "MHD_suspend_connection") ||
      !take(loaded.resume_connection, "MHD_resume_connection") ||
      !take(loaded.get_connection_info, "MHD_get_connection_info") ||
      !take(loaded.add_connection, "MHD_add_connection"))
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
  // A profile is an answer of its own: the connection closes after it, so that requests sent behind
  // it on the same connection do not each take another N seconds of the machine.
  if (disposition != nullptr) {
    mhd->add_response_header(response, MHD_HTTP_HEADER_CONTENT_DISPOSITION, disposition);
    mhd->add_response_header(response, MHD_HTTP_HEADER_CONNECTION, "close");
  }
  const MHD_Result queued = mhd->queue_response(connection, status, response);
  mhd->destroy_response(response);
  return queued;
}

constexpr std::string_view kText = "text/plain; charset=utf-8";

// The profile asked for, taken on a thread of its own; its connection waits suspended and is
// answered (by `handle`, called again) when the thread resumes it.
MHD_Result profile(MetricsServer::State& served, MHD_Connection* connection, void** request_state) {
  const char* asked = mhd->lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, "seconds");
  // Go's net/http/pprof's default, where the server allows that long.
  long seconds = std::min<long>(30, served.limits.longest_profile_seconds);
  if (asked != nullptr) {
    try {
      seconds = parse_seconds(asked, served.limits.longest_profile_seconds);
    } catch (const Error& error) {
      return answer(connection, MHD_HTTP_BAD_REQUEST, kText, std::string(error.what()) + "\n");
    }
  }
  if (seconds == 0) return answer(connection, MHD_HTTP_SERVICE_UNAVAILABLE, kText, "This server takes no profiles.\n");
  const std::lock_guard<std::mutex> one(served.profiling);
  if (served.stopping) return answer(connection, MHD_HTTP_SERVICE_UNAVAILABLE, kText, "This server is stopping.\n");
  if (served.taken)
    return answer(connection, MHD_HTTP_TOO_MANY_REQUESTS, kText,
                  "A profile is being taken; ask again when it is done (one at a time).\n");
  served.taken = std::make_unique<ProfileRequest>();
  *request_state = served.taken.get();
  mhd->suspend_connection(connection);
  served.profiler = std::jthread([&served, connection, seconds, request = served.taken.get()](std::stop_token stop) {
    try {
      request->body = profile_machine(served.profile, std::chrono::seconds(seconds), stop);
      request->status = MHD_HTTP_OK;
    } catch (const std::exception& error) {
      request->body = std::string(error.what()) + "\n";
      request->status = MHD_HTTP_INTERNAL_SERVER_ERROR;
    }
    mhd->resume_connection(connection);
  });
  return MHD_YES;
}

// A connection opened: its request has limits.request_seconds to come; closed: nothing to wait for.
void connection_changed(void* served_arg, MHD_Connection* connection, void**, MHD_ConnectionNotificationCode code) {
  auto& served = *static_cast<MetricsServer::State*>(served_arg);
  if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
    served.request_arrived(connection);
    return;
  }
  const MHD_ConnectionInfo* info = mhd->get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  if (info != nullptr) served.expect_request(connection, info->connect_fd);
}

// A request is over (answered, or its connection gone): a profile's slot is free again, and a
// connection kept open waits for its next request, which has its deadline too.
void request_completed(void* served_arg, MHD_Connection* connection, void** request_state,
                       MHD_RequestTerminationCode code) {
  auto& served = *static_cast<MetricsServer::State*>(served_arg);
  if (code == MHD_REQUEST_TERMINATED_COMPLETED_OK) {
    const MHD_ConnectionInfo* info = mhd->get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (info != nullptr) served.expect_request(connection, info->connect_fd);
  }
  const std::lock_guard<std::mutex> one(served.profiling);
  if (served.taken && *request_state == served.taken.get()) {
    served.taken.reset();
    served.answered.notify_all();
  }
}

MHD_Result handle(void* served_arg, MHD_Connection* connection, const char* url, const char* method, const char*,
                  const char*, std::size_t* upload_size, void** request_state) {
  // libmicrohttpd calls once with the headers, then with any body: a GET has none to wait for,
  // and a body sent anyway is passed over.
  static int headers_seen;
  auto& served = *static_cast<MetricsServer::State*>(served_arg);
  if (*request_state == nullptr) {
    *request_state = &headers_seen;
    served.request_arrived(connection);  // answered from here on, however long (a profile) it takes
    return MHD_YES;
  }
  if (*upload_size != 0) {
    *upload_size = 0;
    return MHD_YES;
  }
  if (*request_state != &headers_seen) {  // a profile, taken
    const auto& taken = *static_cast<const ProfileRequest*>(*request_state);
    if (taken.status != MHD_HTTP_OK) return answer(connection, taken.status, kText, taken.body);
    return answer(connection, MHD_HTTP_OK, "application/octet-stream", taken.body, nullptr,
                  "attachment; filename=\"profile\"");
  }
  const std::string_view asked = method;
  if (asked != MHD_HTTP_METHOD_GET && asked != MHD_HTTP_METHOD_HEAD)
    return answer(connection, MHD_HTTP_METHOD_NOT_ALLOWED, kText, "This server answers GET only.\n", "GET, HEAD");
  const std::string_view path = url;
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
  if (path == "/debug/pprof/profile") return profile(served, connection, request_state);
  if (path == "/")
    return answer(connection, MHD_HTTP_OK, "text/html; charset=utf-8",
                  "<html><head><title>perfmon</title></head><body><h1>perfmon</h1>"
                  "<p><a href=\"/metrics\">/metrics</a>: counters for Prometheus.</p>"
                  "<p><a href=\"/debug/pprof/profile?seconds=10\">/debug/pprof/profile?seconds=N</a>: the machine "
                  "sampled for N seconds, a pprof profile.</p></body></html>\n");
  return answer(connection, MHD_HTTP_NOT_FOUND, kText,
                "No such page; this server answers /metrics and /debug/pprof/profile.\n");
}

}  // namespace

MetricsServer::MetricsServer(MetricsExporter& exporter, MachineProfileOptions profile, const sockaddr_storage& address,
                             ServerLimits limits)
    : state_(std::make_unique<State>(exporter, std::move(profile), limits)) {
  static const Microhttpd* const loaded = load_microhttpd();
  mhd = loaded;
  if (mhd == nullptr)
    throw Error(ErrorKind::Unsupported,
                "perfmon serves HTTP with libmicrohttpd, which is not installed here "
                "(libmicrohttpd.so.12); install Debian's libmicrohttpd12.");
  state_->daemon = mhd->start_daemon(
      MHD_USE_POLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | (address.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0), 0,
      nullptr, nullptr, &handle, state_.get(), MHD_OPTION_SOCK_ADDR, &address, MHD_OPTION_THREAD_POOL_SIZE,
      kServingThreads, MHD_OPTION_NOTIFY_COMPLETED, &request_completed, state_.get(), MHD_OPTION_NOTIFY_CONNECTION,
      &connection_changed, state_.get(), MHD_OPTION_CONNECTION_LIMIT, limits.connections,
      MHD_OPTION_PER_IP_CONNECTION_LIMIT, limits.connections_per_address, MHD_OPTION_CONNECTION_TIMEOUT,
      limits.idle_seconds, MHD_OPTION_CONNECTION_MEMORY_LIMIT, limits.request_bytes, MHD_OPTION_END);
  if (state_->daemon == nullptr) {
    const int err = errno;
    throw Error(ErrorKind::System,
                std::string("cannot listen there (") + std::strerror(err) + "); choose another port.", err);
  }
  state_->deadline_keeper = std::jthread([state = state_.get()](std::stop_token stop) { state->keep_deadlines(stop); });
}

MetricsServer::~MetricsServer() {
  if (!state_ || state_->daemon == nullptr) return;
  {
    // No profile starts from here on; the one being taken ends now and resumes its connection,
    // as libmicrohttpd stops only with none suspended.
    const std::lock_guard<std::mutex> one(state_->profiling);
    state_->stopping = true;
  }
  if (state_->profiler.joinable()) {
    state_->profiler.request_stop();
    state_->profiler.join();
  }
  {
    // Its client gets the time sampled so far, unless it takes more than a moment to read it.
    std::unique_lock<std::mutex> one(state_->profiling);
    state_->answered.wait_for(one, std::chrono::seconds(2), [this] { return state_->taken == nullptr; });
  }
  if (state_->deadline_keeper.joinable()) {
    state_->deadline_keeper.request_stop();
    state_->deadline_keeper.join();
  }
  mhd->stop_daemon(state_->daemon);
}

std::uint16_t MetricsServer::port() const noexcept {
  const MHD_DaemonInfo* bound = mhd->get_daemon_info(state_->daemon, MHD_DAEMON_INFO_BIND_PORT);
  return bound != nullptr ? bound->port : 0;
}

void MetricsServer::serve_connection(int fd, const sockaddr_storage& peer) {
  const socklen_t size = peer.ss_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in);
  // libmicrohttpd takes the descriptor: it closes it, when it refuses it too.
  if (mhd->add_connection(state_->daemon, fd, reinterpret_cast<const sockaddr*>(&peer), size) != MHD_YES) {
    const int err = errno;
    throw Error(ErrorKind::Limit, std::string("the server takes no more connections (") + std::strerror(err) + ").",
                err);
  }
}

#else  // built without libmicrohttpd's header

struct MetricsServer::State {};

MetricsServer::MetricsServer(MetricsExporter&, MachineProfileOptions, const sockaddr_storage&, ServerLimits) {
  throw Error(ErrorKind::Unsupported,
              "this perfmon was built without libmicrohttpd, which serves HTTP; build it with "
              "libmicrohttpd-dev installed.");
}

MetricsServer::~MetricsServer() = default;

std::uint16_t MetricsServer::port() const noexcept {
  return 0;
}

void MetricsServer::serve_connection(int fd, const sockaddr_storage&) {
  ::close(fd);
}

#endif

}  // namespace perfmon
