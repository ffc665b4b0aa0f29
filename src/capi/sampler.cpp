// SPDX-License-Identifier: Apache-2.0
// The C ABI: samplers.
#include <linux/perf_event.h>

#include "capi/handles.hpp"

using namespace perfmon::capi;

// perfmon.h's names for the kernel's bits are the kernel's values.
static_assert(PERFMON_SAMPLE_IP == PERF_SAMPLE_IP && PERFMON_SAMPLE_TID == PERF_SAMPLE_TID &&
              PERFMON_SAMPLE_TIME == PERF_SAMPLE_TIME && PERFMON_SAMPLE_ADDR == PERF_SAMPLE_ADDR &&
              PERFMON_SAMPLE_CALLCHAIN == PERF_SAMPLE_CALLCHAIN && PERFMON_SAMPLE_ID == PERF_SAMPLE_ID &&
              PERFMON_SAMPLE_CPU == PERF_SAMPLE_CPU && PERFMON_SAMPLE_PERIOD == PERF_SAMPLE_PERIOD &&
              PERFMON_SAMPLE_RAW == PERF_SAMPLE_RAW);

extern "C" {

int perfmon_sampler_open(const perfmon_catalog* catalog, const char* events, const perfmon_target* target,
                         const perfmon_sampler_options* options, perfmon_sampler** sampler) {
  if (catalog == nullptr || events == nullptr || sampler == nullptr || options == nullptr)
    return null_argument("a catalogue, an event list, options and a place for the sampler are needed.");
  *sampler = nullptr;
  return guarded([&] {
    perfmon::SamplingOptions settings;
    settings.period = options->period;
    settings.frequency = options->frequency;
    if (options->sample_type != 0) settings.sample_type = options->sample_type;
    if (options->ring_pages != 0) settings.ring_pages = options->ring_pages;
    settings.inherit = options->no_inherit == 0;
    settings.task_records = options->task_records != 0;
    *sampler =
        std::make_unique<perfmon_sampler>(perfmon::Sampler(catalog->catalog.parse(events), target_of(target), settings))
            .release();
    return 0;
  });
}

void perfmon_sampler_close(perfmon_sampler* sampler) {
  std::unique_ptr<perfmon_sampler> owned(sampler);
}

int perfmon_sampler_start(perfmon_sampler* sampler) {
  if (sampler == nullptr) return null_argument("no sampler.");
  return guarded([&] {
    sampler->sampler.start();
    return 0;
  });
}

int perfmon_sampler_stop(perfmon_sampler* sampler) {
  if (sampler == nullptr) return null_argument("no sampler.");
  return guarded([&] {
    sampler->sampler.stop();
    return 0;
  });
}

int perfmon_sampler_drain(perfmon_sampler* sampler, perfmon_sample_callback callback, void* context, size_t* samples) {
  if (sampler == nullptr || callback == nullptr) return null_argument("a sampler and a callback are needed.");
  struct Forward : perfmon::SampleHandler {
    perfmon_sample_callback callback;
    void* context;
    std::size_t samples = 0;
    void sample(std::size_t event, const perfmon::Sample& sample) override {
      const perfmon_sample out{event,
                               sample.ip,
                               sample.pid,
                               sample.tid,
                               sample.time,
                               sample.cpu,
                               sample.period,
                               sample.addr,
                               sample.callchain.data(),
                               sample.callchain.size()};
      ++samples;
      callback(context, &out);
    }
  } forward;
  forward.callback = callback;
  forward.context = context;
  const int status = guarded([&] {
    sampler->sampler.drain(forward);
    return 0;
  });
  if (samples != nullptr) *samples = forward.samples;
  return status;
}

uint64_t perfmon_sampler_lost(const perfmon_sampler* sampler) {
  if (sampler == nullptr) return 0;
  const perfmon::RecordLoss lost = sampler->sampler.lost();
  return lost.samples_known ? lost.samples : lost.records;
}

}  // extern "C"
