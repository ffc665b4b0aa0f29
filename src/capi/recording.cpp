// The C ABI: perf.data recordings of samplers.
#include "capi/handles.hpp"

#include <iterator>

using namespace perfmon::capi;

extern "C" {

int perfmon_recording_open(int fd, perfmon_sampler* const* samplers, size_t count, perfmon_recording** recording) {
  if (recording == nullptr || (samplers == nullptr && count > 0))
    return null_argument("samplers and a place for the recording are needed.");
  *recording = nullptr;
  return guarded([&] {
    std::vector<perfmon::PerfDataEvent> events;
    for (size_t k = 0; k < count; ++k) {
      std::vector<perfmon::PerfDataEvent> described = perfmon::recorded_events(samplers[k]->sampler);
      events.insert(events.end(), std::make_move_iterator(described.begin()), std::make_move_iterator(described.end()));
    }
    auto made = std::make_unique<perfmon_recording>(fd, std::move(events));
    made->file.write_kernel_map();
    *recording = made.release();
    return 0;
  });
}

int perfmon_recording_add_process(perfmon_recording* recording, pid_t pid) {
  if (recording == nullptr) return null_argument("no recording.");
  return guarded([&] {
    recording->file.write_process(pid);
    return 0;
  });
}

int perfmon_recording_drain(perfmon_recording* recording, perfmon_sampler* sampler) {
  if (recording == nullptr || sampler == nullptr) return null_argument("a recording and a sampler are needed.");
  return guarded([&] {
    sampler->sampler.drain(recording->records);
    recording->file.finish_round();
    return 0;
  });
}

int perfmon_recording_finish(perfmon_recording* recording, const char* command_line) {
  if (recording == nullptr) return null_argument("no recording.");
  return guarded([&] {
    std::vector<std::string> words;
    std::string word;
    for (const char* c = command_line != nullptr ? command_line : ""; *c != '\0'; ++c) {
      if (*c != ' ') {
        word += *c;
      } else if (!word.empty()) {
        words.push_back(std::move(word));
        word.clear();
      }
    }
    if (!word.empty()) words.push_back(std::move(word));
    recording->file.finish(perfmon::describe_this_host(std::move(words)));
    recording->finished = true;
    return 0;
  });
}

void perfmon_recording_close(perfmon_recording* recording) {
  std::unique_ptr<perfmon_recording> owned(recording);
}

}  // extern "C"
