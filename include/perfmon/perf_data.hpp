// SPDX-License-Identifier: Apache-2.0
// perfmon: perf.data files as perf writes and reads them (PERFILE2; Linux's
// tools/perf/Documentation/perf.data-file-format.txt): a header, the events' attrs with their ids,
// the data section of kernel records, then feature sections describing the machine.
//
// What Debian's perf (6.1) needs of a file, measured: every event with its ids; PERF_SAMPLE_IDENTIFIER
// where events' sample_types differ; an attr of at most 128 bytes; the data size filled in; event names
// in EVENT_DESC; and no feature announced that is not there.
#pragma once

#include <linux/perf_event.h>
#include <sys/types.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perfmon/sampler.hpp"

namespace perfmon {

struct PerfDataEvent {
  std::string name;  // as perf report shows it
  perf_event_attr attr{};
  std::vector<std::uint64_t> ids;  // the kernel's ids of its fds (PERF_EVENT_IOC_ID)
};

// The machine a file was recorded on: its feature sections.
struct PerfDataHost {
  std::string hostname, os_release, arch, cpu_description, cpuid, perf_version;
  std::uint32_t cpus_online = 0, cpus_available = 0;
  std::uint64_t total_memory_kib = 0;
  std::vector<std::string> command_line;
  std::string tracefs_root;  // where the formats of tracepoint events are read ("" when none)
};
// This machine, and the command line that records.
PerfDataHost describe_this_host(std::vector<std::string> command_line);

// What the kernel would have written had a process started under a recorder, made from /proc: a
// record's type, misc and body (the part after the header, without a sample_id trailer), handed
// on one by one. What perf record writes for the processes it did not start (PerfDataWriter), and
// what perfmon top gives its profile before the first sample.
using SynthesizedRecord = std::function<void(std::uint32_t type, std::uint16_t misc, const std::string& body)>;
// The kernel's map record, as perf record synthesizes it ([kernel.kallsyms]_text at _text); nothing
// where /proc/kallsyms hides the addresses.
void describe_kernel_map(const SynthesizedRecord& take);
// A COMM record for each of the process's threads and an MMAP2 record for each executable mapping;
// nothing for a process gone by now.
void describe_process(pid_t pid, const SynthesizedRecord& take);
// describe_process for every process now in /proc.
void describe_every_process(const SynthesizedRecord& take);

class PerfDataWriter {
 public:
  // Writes a perf.data file through `fd`, a regular file open for writing at offset 0 (the header
  // is written last, in place). Throws perfmon::Error.
  //
  // With `stream_host`, in perf's pipe layout instead (perf record -o -), through any descriptor (a
  // pipe, a socket) and in order: the machine's sections, the events and their names first, as
  // records; the build ids at finish(), whose own `host` is then not used.
  PerfDataWriter(int fd, std::vector<PerfDataEvent> events, const PerfDataHost* stream_host = nullptr);
  PerfDataWriter(const PerfDataWriter&) = delete;
  PerfDataWriter& operator=(const PerfDataWriter&) = delete;

  // Appends a kernel record to the data section. Throws perfmon::Error (a full disk says so).
  void write(const perf_event_header& record);
  // Ends a round, as perf record does after each pass over its rings (PERF_RECORD_FINISHED_ROUND):
  // the records of several rings interleave out of time order, and readers sort them by time a
  // round at a time rather than the whole file at once. Nothing when no record came since the last.
  void finish_round();
  // Writes the kernel's map record, as perf record synthesizes it ([kernel.kallsyms]_text at _text),
  // so that reports place kernel samples; nothing where /proc/kallsyms hides the addresses.
  void write_kernel_map();
  // Writes what the kernel would have written had the process started under the recorder: a COMM
  // record for each of its threads and an MMAP2 record for each executable mapping (from /proc), as
  // perf record synthesizes them for a process it attaches to. A process gone by now writes nothing.
  void write_process(pid_t pid);
  // write_process for every process now in /proc: what a system-wide recording starts from.
  void write_every_process();
  // Writes a PERF_RECORD_LOST_SAMPLES record of `lost` samples: the events' own count of those
  // dropped, as perf record writes it at the end.
  void write_lost_samples(std::uint64_t lost);
  // Writes the feature sections and the header. The file is complete when this returns.
  void finish(const PerfDataHost& host);

  std::uint64_t data_bytes() const noexcept { return data_size_; }
  std::uint64_t records() const noexcept { return records_; }
  const std::vector<PerfDataEvent>& events() const noexcept { return events_; }

 private:
  // A record the kernel did not write, with the zero sample_id trailer the events' attrs imply.
  void write_synthesized(std::uint32_t type, std::uint16_t misc, const std::string& body);
  SynthesizedRecord synthesized_into_file();  // write_synthesized, for the describe_* functions
  void append(const void* bytes, std::size_t size);
  void flush();
  void append_record(std::uint32_t type, const std::string& body);  // a record of perf's own (a pipe's)

  int fd_;
  bool stream_ = false;      // perf's pipe layout
  bool round_open_ = false;  // records written since the last finish_round()
  std::vector<PerfDataEvent> events_;
  struct MappedFile {
    std::int32_t pid;
    std::string path;
  };
  std::vector<MappedFile> mapped_;  // the files MMAP2 records named, for their build ids
  std::vector<char> buffer_;
  std::uint64_t written_ = 0;  // bytes of the file so far (buffer included)
  std::uint64_t attrs_offset_ = 0, data_offset_ = 0, data_size_ = 0, records_ = 0;
};

// Writes every record a sampler's drain() hands it into a file, samples and side-band alike, as the
// kernel wrote them: what perf record does with its rings.
class PerfDataRecordWriter : public SampleHandler {
 public:
  explicit PerfDataRecordWriter(PerfDataWriter& file) : file_(file) {}
  void sample(std::size_t, const Sample& sample) override { file_.write(*sample.record); }
  void record(const perf_event_header& record) override { file_.write(record); }

 private:
  PerfDataWriter& file_;
};

// A sampler's events as a perf.data file describes them: each name, attr as opened, and ids.
std::vector<PerfDataEvent> recorded_events(const Sampler& sampler);

// A perf.data file read back: written by perfmon record or by perf record (PERFILE2, this machine's
// byte order). Everything is checked against the file's size before it is read: a truncated or
// corrupt file ends in perfmon::Error naming the offset of what is wrong, never in a crash.
class PerfDataReader {
 public:
  // Maps the file (or reads it whole, where it cannot be mapped); "-" reads standard input whole,
  // as perf report -i - does. Either layout of perf's: a file, or a pipe's stream (perf record -o -).
  // Throws perfmon::Error.
  explicit PerfDataReader(const std::string& path);
  // The same over a file's bytes (tests, fuzzing); `name` is what messages call it.
  PerfDataReader(std::string bytes, std::string name);
  ~PerfDataReader();

  // The events, named from EVENT_DESC where the file has it ("type T config 0x..." where not).
  const std::vector<PerfDataEvent>& events() const noexcept { return events_; }
  const std::string& hostname() const noexcept { return host_.hostname; }
  // The machine it was recorded on, from its feature sections (what the file holds of them).
  const PerfDataHost& host() const noexcept { return host_; }
  // Where its data section lies (perf report --header's "data offset" and "data size").
  std::uint64_t data_offset() const noexcept { return data_offset_; }
  // The build ids its HEADER_BUILD_ID section names (hex), by file path ("[kernel.kallsyms]" too).
  const std::map<std::string, std::string>& build_ids() const noexcept { return build_ids_; }

  // The size of the data section: what reading costs grows with it.
  std::uint64_t data_bytes() const noexcept { return data_size_; }
  // What the first few thousand records say of the work of reading the file: about how many
  // records it holds, and how many distinct addresses its samples there hold (a profile of few
  // distinct places costs little a sample; one of many, their look-ups).
  struct Outlook {
    std::uint64_t records = 0;
    std::uint64_t samples_looked_at = 0, distinct_addresses = 0;
  };
  Outlook outlook() const;
  // How many records of each type (PERF_RECORD_*, perf's own from 64) the data section holds, as
  // perf report --stats counts them; throws perfmon::Error where a record's size is impossible.
  std::map<std::uint32_t, std::uint64_t> record_counts() const;
  // The threads that pay for themselves reading this file in shares (read_in_shares, a share a
  // thread): a share costs a pass over the records before it and the look-up of the addresses its
  // samples touch (each share knows only its own), worth it for a file of tens of megabytes whose
  // samples land in many places; one of few places is read faster by one thread. One for each
  // 16 MiB of data, up to the CPUs (at most 8). (Two shares a thread, to even out shares of unequal
  // work, cost more in passes and places than they gained: 16 % of a report's time.)
  std::size_t threads_worth() const;

  // Hands every record of the data section to the handler in the order they happened, as perf
  // report orders them: samples decoded by their event's sample_type (with the attr's fixed period
  // where they carry none), the others as they are. Memory stays bounded: the pages of a mapped
  // file are given back once read. Throws perfmon::Error at the first record that cannot be read
  // (its offset named); what came before it has been handed out.
  void read(SampleHandler& handler) const;
  // The same in consecutive shares of about as many records, read by `threads` threads at once
  // (the calling thread one of them), each taking the next share left: handlers[k] gets share k's
  // records as read() hands them on, and before them, through context(), the records other than
  // samples of the shares before it. Where a record cannot be read, throws the error of the
  // earliest share that met one, once every thread has ended. `share_read(k)`, where given, is
  // called as soon as share k has been read, on the thread that read it, one call at a time: a
  // caller merges shares there while others are still read, and lets each go once merged.
  void read_in_shares(const std::vector<SampleHandler*>& handlers, std::size_t threads,
                      const std::function<void(std::size_t)>& share_read = {}) const;
  // The file read by `threads` threads, a share each, into handlers that make() makes (as
  // std::unique_ptr<Handler>), each later one merged into the first by merge(first, later) as soon
  // as it and those before it are read (the order one reading would meet them in), while the others
  // are still read, then let go: not every share's tables are alive at once. Returns the first.
  template <class Handler, class Make, class Merge>
  std::unique_ptr<Handler> read_merged(std::size_t threads, Make make, Merge merge) const {
    std::vector<std::unique_ptr<Handler>> shares;
    std::vector<SampleHandler*> handlers;
    for (std::size_t k = 0; k < std::max<std::size_t>(threads, 1); ++k) {
      shares.push_back(make());
      handlers.push_back(shares.back().get());
    }
    std::vector<bool> done(shares.size());
    std::size_t merged = 1;
    read_in_shares(handlers, threads, [&](std::size_t k) {
      done[k] = true;
      for (; done.front() && merged < shares.size() && done[merged]; ++merged) {
        merge(*shares.front(), *shares[merged]);
        shares[merged].reset();
      }
    });
    return std::move(shares.front());
  }

 private:
  // Hands on records [begin, end) of the order read() hands them in; context() the other records
  // before `begin`.
  void read_share(SampleHandler& handler, std::uint64_t begin, std::uint64_t end) const;
  void parse();
  std::string read_stream(int fd) const;
  // A stream in perf's pipe layout (perf record -o -) as the file it would have been: its
  // header's records made into the header and feature sections, its other records the data.
  std::string file_image_of_pipe() const;
  [[noreturn]] void corrupt(std::uint64_t offset, const std::string& what) const;

  struct Storage;  // the file's bytes: mapped (a regular file), else read into memory
  std::unique_ptr<Storage> storage_;
  std::string_view bytes_;
  std::string name_;
  std::vector<PerfDataEvent> events_;
  PerfDataHost host_;
  std::map<std::string, std::string> build_ids_;
  std::uint64_t data_offset_ = 0, data_size_ = 0;
};

}  // namespace perfmon
