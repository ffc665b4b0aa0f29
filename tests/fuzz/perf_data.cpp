// perf.data files, whole: the header, attrs and ids, feature sections (EVENT_DESC, HOSTNAME) and
// every record of the data section decoded by its event, as perfmon script reads them.
#include <cstddef>
#include <cstdint>
#include <string>

#include "perfmon/error.hpp"
#include "perfmon/perf_data.hpp"
#include "perfmon/sampler.hpp"

namespace {

volatile std::uint64_t sink;

struct Touch : perfmon::SampleHandler {
  void sample(std::size_t event, const perfmon::Sample& sample) override {
    sink = event + sample.ip + sample.raw.size();
  }
  void record(const perf_event_header& record) override { sink = record.type; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const perfmon::PerfDataReader file(std::string(reinterpret_cast<const char*>(data), size), "input");
    Touch touch;
    file.read(touch);
  } catch (const perfmon::Error&) {
  }
  return 0;
}
