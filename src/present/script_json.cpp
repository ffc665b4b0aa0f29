// SPDX-License-Identifier: Apache-2.0
// perfmon script --json: one JSON object per sample, on one line.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "perfmon/script_output.hpp"

namespace perfmon {

std::string format_script_json(const ScriptSample& sample) {
  nlohmann::ordered_json line = {{"comm", sample.command},  {"pid", sample.pid},   {"tid", sample.tid},
                                 {"cpu", sample.cpu},       {"time", sample.time}, {"event", sample.event},
                                 {"period", sample.period}, {"ip", sample.ip}};
  if (!sample.frames.empty()) {
    // The sample's own function, as the text without a chain names it: past the functions inlined
    // at its address, which the chain lists as frames of their own.
    const ScriptFrame& leaf = *std::find_if(sample.frames.begin(), sample.frames.end() - 1,
                                            [](const ScriptFrame& frame) { return !frame.file.empty(); });
    line["sym"] = leaf.function;
    line["symoff"] = leaf.into;
    line["dso"] = leaf.file;
    line["offset"] = leaf.address;
  }
  if (sample.with_chain) {
    nlohmann::ordered_json chain = nlohmann::ordered_json::array();
    for (const ScriptFrame& frame : sample.frames)
      chain.push_back({{"address", frame.address},
                       {"sym", frame.function},
                       {"symoff", frame.into},
                       {"dso", frame.file},
                       {"inlined", frame.file.empty()}});
    line["callchain"] = std::move(chain);
  }
  return line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace perfmon
