// SPDX-License-Identifier: Apache-2.0
// Sample your own program: a signal at every Nth page fault, as Solaris cpc's overflow signal with
// a preset counter, and a custom sample format that keeps only a histogram of where the faults were.
#include <signal.h>
#include <perfmon/catalog.hpp>
#include <perfmon/error.hpp>
#include <perfmon/sampler.hpp>

#include <cstdio>
#include <map>
#include <vector>

namespace {

perfmon::Sampler* g_sampler = nullptr;
volatile sig_atomic_t g_notifications = 0;

// Runs at each overflow: counts it and re-arms the event for the next one (async-signal-safe).
void on_overflow(int, siginfo_t* info, void*) {
  g_notifications = g_notifications + 1;
  g_sampler->rearm(info->si_fd);
}

// A sample format of our own: instruction address -> samples, nothing else kept.
struct IpHistogram : perfmon::SampleHandler {
  std::map<std::uint64_t, std::size_t> samples_at;
  void sample(std::size_t, const perfmon::Sample& sample) override { ++samples_at[sample.ip]; }
};

}  // namespace

int main() try {
  perfmon::EventCatalog catalog;
  perfmon::SamplingOptions options;
  options.period = 1000;  // the first notification after exactly 1000 page faults, then every 1000
  options.inherit = false;
  options.overflow_signal = SIGRTMIN;
  options.stop_after = 1;  // the event waits, stopped, until the handler re-arms it
  perfmon::Sampler sampler(catalog.parse("page-faults"), perfmon::Target::self(), options);
  g_sampler = &sampler;
  struct sigaction action {};
  action.sa_sigaction = on_overflow;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGRTMIN, &action, nullptr);

  sampler.start();
  std::vector<char> memory(64 << 20, 1);  // 64 MiB of fresh pages: about 16,000 faults
  sampler.stop();

  IpHistogram histogram;
  sampler.drain(histogram);
  std::printf("%d notifications, %zu samples at %zu addresses\n", static_cast<int>(g_notifications),
              static_cast<std::size_t>(sampler.stats().samples), histogram.samples_at.size());
  for (const auto& [ip, count] : histogram.samples_at)
    std::printf("  %#18llx  %zu\n", static_cast<unsigned long long>(ip), count);
  return 0;
} catch (const perfmon::Error& error) {
  std::fprintf(stderr, "self_sampling: %s\n", error.what());
  return 1;
}
