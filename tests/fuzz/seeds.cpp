// SPDX-License-Identifier: Apache-2.0
// Writes each fuzz target's seed corpus: seeds OUT_DIR DOC.md...
//   event_list, perfevtsel: every `code span` and every -e / encode / decode argument of the docs,
//     for each CPU model (the first byte), parsed and encoded;
//   the others: inputs laid out as the kernel lays out what the decoders read.
// A campaign starts from these and keeps what it finds beside them (tests/fuzz/run).
#include <linux/perf_event.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

class Corpus {
 public:
  Corpus(const fs::path& root, const std::string& target) : dir_(root / target) { fs::create_directories(dir_); }
  void add(const std::string& bytes) {
    std::ofstream(dir_ / ("seed-" + std::to_string(count_++)), std::ios::binary) << bytes;
  }

 private:
  fs::path dir_;
  int count_ = 0;
};

template <typename T>
std::string bytes_of(const T& value) {
  return std::string(reinterpret_cast<const char*>(&value), sizeof value);
}

std::string words(std::initializer_list<std::uint64_t> list) {
  std::string out;
  for (std::uint64_t word : list) out += bytes_of(word);
  return out;
}

std::uint64_t header_word(std::uint32_t type, std::uint16_t size) {
  perf_event_header header{type, 0, size};
  std::uint64_t word;
  std::memcpy(&word, &header, sizeof word);
  return word;
}

// What the docs show a user typing: code spans, and the arguments of -e, encode and decode.
std::set<std::string> doc_texts(const std::vector<std::string>& docs) {
  std::set<std::string> texts;
  const std::regex span("`([^`\n]+)`");
  const std::regex argument(R"((?:-e|encode(?: --pmu \S+)?|decode(?: --pmu \S+)?) +('[^']+'|\S+))");
  for (const std::string& doc : docs) {
    std::ifstream in(doc);
    std::stringstream text;
    text << in.rdbuf();
    const std::string all = text.str();
    for (const std::regex& pattern : {span, argument}) {
      for (std::sregex_iterator it(all.begin(), all.end(), pattern), end; it != end; ++it) {
        std::string found = (*it)[1];
        if (found.size() > 1 && found.front() == '\'' && found.back() == '\'')
          found = found.substr(1, found.size() - 2);
        texts.insert(found);
      }
    }
  }
  return texts;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: seeds OUT_DIR DOC.md...\n";
    return 2;
  }
  const fs::path out = argv[1];
  const std::set<std::string> texts = doc_texts(std::vector<std::string>(argv + 2, argv + argc));

  Corpus events(out, "event_list"), selects(out, "perfevtsel");
  for (const std::string& text : texts) {
    for (char model : {0, 1, 2}) {
      events.add(std::string(1, model) + text);
      events.add(std::string(1, static_cast<char>(model | 0x80)) + text);
    }
  }
  for (const char* value : {"0x4300c0", "0x53003c", "0x51d92e", "5439680", "0x1234567", "0xffffffff"})
    for (char model : {0, 1, 2}) selects.add(std::string(1, model) + value);

  // Names as recordings and users hand them over: well-formed text, and each kind of malformed UTF-8.
  Corpus names(out, "printable");
  for (const char* name :
       {"perfmon-test-wo", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5", "overlong\xc0\xaf", "surrogate\xed\xa0\x80",
        "fffe\xef\xbf\xbe", "above\xf4\x90\x80\x80", "cut\xe2\x82", "ctl\x1b[31m\x7f", "c1\xc2\x85"})
    names.add(name);

  // Requests as scrapers and profilers send them, and a few that no server should take.
  Corpus requests(out, "serve_requests");
  for (const char* request :
       {"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9465\r\nAccept: text/plain;version=0.0.4\r\n\r\n",
        "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: application/openmetrics-text; version=1.0.0; "
        "charset=utf-8\r\n\r\n",
        "GET /debug/pprof/profile?seconds=1 HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /debug/pprof/profile?seconds=-5&seconds=9999999999999 HTTP/1.0\r\n\r\n",
        "HEAD / HTTP/1.1\r\nHost: x\r\n\r\n", "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
        "GET /metrics HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        "GET /%00%ff/../metrics?x=%zz HTTP/1.1\r\nHost: x\r\n\r\n"})
    requests.add(request);

  // Marker results as libperfmon-likwid writes them, and in shapes a program might leave instead.
  Corpus markers(out, "marker_results");
  for (const char* results :
       {"{\"groups\":[[\"task-clock\",\"syscalls:sys_enter_getppid\"]],\"regions\":[\n{\"tag\":\"solve\",\"group\":0,"
        "\"thread\":0,\"tid\":4242,\"cpu\":1,\"count\":3,\"seconds\":0.000123456,\"values\":[{\"raw\":10,"
        "\"enabled\":20,\"running\":20},{\"raw\":1000,\"enabled\":20,\"running\":20}],\"emulated\":false}]}",
        "{\"regions\":5}", "{\"regions\":[{\"tag\":7}]}", "{\"groups\":[[]],\"regions\":[{\"group\":3}]}", "[]", "{"})
    markers.add(results);

  // Control specs and commands: a spec line, then a command.
  Corpus control(out, "control_commands");
  for (const char* line : {"fifo:/tmp/ctl,/tmp/ack\nenable", "fd:7,8\ndisable region a", "fd:7\nping",
                           "fifo:c,c\nenable\tb ", "fd:-1\nbogus", "fifo:\n"})
    control.add(line);

  // Metric expressions in perf's language: the first byte picks the inputs' values.
  Corpus metrics(out, "metric_expression");
  for (const char* text :
       {"instructions / cycles", "d_ratio(a, b) * 100", "1 + 2 * 3 % 4 - -5",
        "a if b > 1 | c & d ^ e else min(a, max(b, c))", "#slots * cpu@topdown\\-retiring@ / source_count(x)",
        "has_event(cpu@cycles@) + strcmp_cpuid_str(0x410fd0c0)", "(((1e-3)))", "NaN", "x ? y", "hv@PM\\,chip\\=?@"})
    metrics.add(std::string(1, '\x05') + text);

  Corpus cpus(out, "cpu_list");
  for (const char* list : {"0", "0-3,5", "0-1,4-7,9", "1,0", "0-8191", "3-1", "0-"}) cpus.add(list);

  Corpus formats(out, "sysfs_format");
  for (const char* text : {"config:0-7,32-35", "config1:0-15", "config:18", "config2:0-63", "config:8-15,config1:0"})
    formats.add(bytes_of(std::uint64_t{0x1ff}) + text);

  // Attr choices (sample_type, read_format, branch_sample_type, regs user, regs intr, sample_id_all)
  // and a record.
  Corpus samples(out, "sample_record");
  const std::uint64_t everything = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                   PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
                                   PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW;
  const std::uint64_t group = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED;
  samples.add(words({everything, group, 0, 0, 0}) + "\x01" +
              words({header_word(PERF_RECORD_SAMPLE, 8 * 19), 7, 0x401000, 0x0000000800000007, 123, 0xdead, 7, 1, 1000,
                     2, 50, 100, 9, 200, 10,  // read: nr, enabled, {value, id} x 2
                     2, 0x401000, 0x402000,   // callchain
                     0x0000002a00000004}));   // raw: size 4, then its 4 bytes
  samples.add(words({PERF_SAMPLE_STACK_USER | PERF_SAMPLE_REGS_USER, 0, 0, 0x3, 0}) + "\x00" +
              words({header_word(PERF_RECORD_SAMPLE, 8 * 7), 2, 11, 22, 16, 0xaaaa, 0xbbbb}));
  samples.add(words({PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER, 0, 0, 0, 0}) + "\x01" +
              words({header_word(PERF_RECORD_COMM, 8 * 6), 0x0000000800000007, 0x65757274, 0x0000000800000007, 5, 99}));

  Corpus rings(out, "ring");
  std::string ring = words({0, 8 * 9});  // tail, head
  ring += words({header_word(PERF_RECORD_SAMPLE, 24), 1, 2, header_word(PERF_RECORD_LOST, 48), 1, 2, 3, 4, 5});
  ring.resize(16 + 64);
  rings.add(ring);
  std::string wrapping = words({48, 48 + 32});  // a record that wraps around the end of a 64-byte ring
  wrapping += words({3, 4, 0, 0, 0, 0, header_word(PERF_RECORD_SAMPLE, 32), 1});
  rings.add(wrapping);

  Corpus groups(out, "group_read");
  groups.add(words(
      {PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID, 2, 100, 90, 5, 1, 6, 2}));
  groups.add(words({PERF_FORMAT_ID | PERF_FORMAT_LOST, 1, 5, 1, 0}));
  Corpus notes(out, "build_id_notes");
  std::string gnu = bytes_of(std::uint32_t{4}) + bytes_of(std::uint32_t{20}) + bytes_of(std::uint32_t{3});
  gnu += std::string("GNU\0", 4) + std::string(20, '\x42');
  notes.add(gnu);
  notes.add(bytes_of(std::uint32_t{6}) + bytes_of(std::uint32_t{4}) + bytes_of(std::uint32_t{6}) +
            std::string("Linux\0\0\0", 8) + "abcd" + gnu);
  // ELF files: small programs of this machine.
  Corpus elves(out, "elf_symbols");
  for (const char* program : {"/bin/true", "/usr/bin/env"}) {
    std::ifstream in(program, std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    if (!content.str().empty()) elves.add(content.str());
  }

  // perf.data files as perfmon record writes them, from the recordings the caller names (PERFMON_FUZZ_PERF_DATA,
  // colon-separated): the same seeds for the report's target and the annotation's.
  Corpus files(out, "perf_data"), annotated(out, "perf_data_annotate");
  if (const char* recordings = std::getenv("PERFMON_FUZZ_PERF_DATA")) {
    std::istringstream paths(recordings);
    for (std::string path; std::getline(paths, path, ':');) {
      std::ifstream in(path, std::ios::binary);
      std::stringstream content;
      content << in.rdbuf();
      if (content.str().empty()) continue;
      files.add(content.str());
      annotated.add(content.str());
    }
  }
  return 0;
}
