// SPDX-License-Identifier: Apache-2.0
// The C ABI: perf.data recordings of samplers.
#include "capi/handles.hpp"

using namespace perfmon::capi;

extern "C" {

int perfmon_recording_open(int fd, perfmon_sampler* const* samplers, size_t count, perfmon_recording** recording) {
  if (recording == nullptr || (samplers == nullptr && count > 0))
    return null_argument("samplers and a place for the recording are needed.");
  *recording = nullptr;
  return guarded([&] {
    std::vector<perfmon::Sampler*> opened;
    for (size_t k = 0; k < count; ++k) opened.push_back(&samplers[k]->sampler);
    *recording = std::make_unique<perfmon_recording>(fd, std::move(opened)).release();
    return 0;
  });
}

int perfmon_recording_add_process(perfmon_recording* recording, pid_t pid) {
  if (recording == nullptr) return null_argument("no recording.");
  return guarded([&] {
    recording->recording.describe(pid);
    return 0;
  });
}

int perfmon_recording_drain(perfmon_recording* recording, perfmon_sampler* sampler) {
  if (recording == nullptr || sampler == nullptr) return null_argument("a recording and a sampler are needed.");
  return guarded([&] {
    recording->recording.drain(sampler->sampler);
    return 0;
  });
}

int perfmon_recording_release(perfmon_recording* recording, perfmon_sampler* sampler) {
  if (recording == nullptr || sampler == nullptr) return null_argument("a recording and a sampler are needed.");
  return guarded([&] {
    recording->recording.release(sampler->sampler);
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
    recording->recording.finish(perfmon::describe_this_host(std::move(words)));
    recording->finished = true;
    return 0;
  });
}

void perfmon_recording_close(perfmon_recording* recording) {
  std::unique_ptr<perfmon_recording> owned(recording);
}

}  // extern "C"
