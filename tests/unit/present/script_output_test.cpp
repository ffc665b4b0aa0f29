// SPDX-License-Identifier: Apache-2.0
// perf script's shapes of one sample: its columns, its frame or call chain, and the JSON line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "perfmon/script_output.hpp"

namespace perfmon {
namespace {

ScriptSample sample_in_main() {
  ScriptSample sample;
  sample.command = "worker";
  sample.pid = sample.tid = 42;
  sample.cpu = 1;
  sample.time = 12'167'663'647'123;
  sample.period = 250000;
  sample.ip = 0x401136;
  sample.event = "cpu-clock";
  sample.cpu_recorded = sample.period_shown = true;
  sample.frames = {{0x1136, "main", 0x16, "/usr/bin/worker"}};
  return sample;
}

TEST(ScriptOutput, OneLineWithItsFrameAsPerfScriptPrintsIt) {
  EXPECT_EQ(format_script_text(sample_in_main()),
            "          worker    42 [001] 12167.663647:     250000 cpu-clock:            401136 main+0x16 "
            "(/usr/bin/worker)\n");
}

TEST(ScriptOutput, ACallChainBelowWithItsInlinedFunctions) {
  ScriptSample sample = sample_in_main();
  sample.with_chain = true;
  sample.cpu_recorded = sample.period_shown = false;
  sample.frames = {{0x1136, "square", 0, ""}, {0x1136, "main", 0x16, "/usr/bin/worker"}, {0x9000, "", 0, "/lib/c.so"}};
  EXPECT_EQ(format_script_text(sample),
            "worker    42 12167.663647: cpu-clock: \n"
            "\t            1136 square (inlined)\n"
            "\t            1136 main+0x16 (/usr/bin/worker)\n"
            "\t            9000 [unknown] (/lib/c.so)\n\n");
  const nlohmann::json line = nlohmann::json::parse(format_script_json(sample));
  EXPECT_EQ(line["sym"], "main");  // past the function inlined at the sample's address
  EXPECT_EQ(line["callchain"].size(), 3u);
  EXPECT_EQ(line["callchain"][0]["inlined"], true);
  EXPECT_EQ(line["comm"], "worker");
  EXPECT_EQ(line["period"], 250000);
}

}  // namespace
}  // namespace perfmon
