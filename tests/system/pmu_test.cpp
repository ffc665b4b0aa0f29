// Tests that need a hardware PMU. Where the kernel exposes none they are skipped with the reason;
// the emulated-PMU rig and machines with a PMU run them (ctest -L pmu).
#include <gtest/gtest.h>

#include "perfmon/catalog.hpp"
#include "perfmon/probe.hpp"
#include "perfmon/session.hpp"

namespace perfmon {
namespace {

class HardwarePmu : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why = probe_event(catalog_.resolve("instructions:u").attr);
    if (!why.empty()) GTEST_SKIP() << "needs a hardware PMU: " << why;
  }
  EventCatalog catalog_;
};

[[gnu::noinline]] long busy_loop(long n) {
  long sum = 0;
  for (long i = 0; i < n; ++i) {
    sum += i;
    asm volatile("" : "+r"(sum));  // keeps the loop and its adds
  }
  return sum;
}

TEST_F(HardwarePmu, InstructionsGrowWithTheLoop) {
  SessionOptions options;
  options.inherit = false;
  CounterSession session(catalog_.parse("{instructions:u,cycles:u}"), Target::self(), options);
  auto measure = [&](long n) {
    session.reset();
    session.start();
    busy_loop(n);
    session.stop();
    EXPECT_EQ(session.read(), 0);
    return session.value(0).raw;
  };
  std::uint64_t small = measure(100000), large = measure(1000000);
  EXPECT_GT(large, small);
  EXPECT_GE(large - small, 900000u * 2);  // at least two instructions per iteration
  EXPECT_TRUE(session.value(1).counted());
}

}  // namespace
}  // namespace perfmon
