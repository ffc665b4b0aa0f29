// SPDX-License-Identifier: Apache-2.0
#include "fixture.hpp"

#include <stdlib.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

namespace perfmon::fuzz {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text << "\n";
}

// Removed when the campaign ends.
struct Tree {
  fs::path root;
  Tree() {
    char pattern[] = "/tmp/perfmon-fuzz-XXXXXX";
    root = mkdtemp(pattern);
    const fs::path pmus = root / "devices";
    write(pmus / "cpu/type", "4");
    write(pmus / "cpu/format/event", "config:0-7,32-35");
    write(pmus / "cpu/format/umask", "config:8-15");
    write(pmus / "cpu/format/edge", "config:18");
    write(pmus / "cpu/format/inv", "config:23");
    write(pmus / "cpu/format/cmask", "config:24-31");
    write(pmus / "cpu/format/ldlat", "config1:0-15");
    write(pmus / "cpu/events/cycles-t", "event=0x3c,in_tx=1");
    write(pmus / "cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3");
    write(pmus / "cpu/caps/max_precise", "3");
    write(pmus / "power/type", "23");
    write(pmus / "power/cpumask", "0");
    write(pmus / "power/format/event", "config:0-7");
    write(pmus / "power/events/energy-pkg", "event=0x02");
    write(pmus / "power/events/energy-pkg.scale", "2.3283064365386962890625e-10");
    write(pmus / "power/events/energy-pkg.unit", "Joules");
    write(pmus / "msr/type", "9");
    write(pmus / "msr/format/event", "config:0-63");
    write(pmus / "msr/events/tsc", "event=0x00");
    write(pmus / "software/type", "1");
    write(pmus / "tracepoint/type", "2");
    write(pmus / "breakpoint/type", "5");
    const fs::path tracefs = root / "tracing";
    write(tracefs / "events/syscalls/sys_enter_getppid/id", "180");
    write(tracefs / "events/sched/sched_switch/id", "316");
    write(tracefs / "events/sched/sched_process_exec/id", "318");
  }
  ~Tree() {
    std::error_code ignored;
    fs::remove_all(root, ignored);
  }
};

}  // namespace

const EventCatalog& catalog(std::uint8_t selector) {
  static const Tree tree;
  static const std::array<std::unique_ptr<EventCatalog>, 3> catalogs = [] {
    std::array<std::unique_ptr<EventCatalog>, 3> made;
    const std::array<const char*, 3> models = {"", "skl", "coreduo"};
    for (std::size_t i = 0; i < made.size(); ++i) {
      CatalogPaths paths;
      paths.sysfs_devices = (tree.root / "devices").string();
      paths.tracefs = (tree.root / "tracing").string();
      paths.cpu_model = models[i];
      made[i] = std::make_unique<EventCatalog>(paths);
    }
    return made;
  }();
  return *catalogs[selector % catalogs.size()];
}

std::shared_ptr<SymbolTables> recording_symbols() {
  static const std::shared_ptr<SymbolTables> symbols = [] {
    auto tables = std::make_shared<SymbolTables>("/nonexistent");
    std::uint64_t into = 0;
    (void)tables->function_in_kernel(~std::uint64_t{0} << 40, into);
    return tables;
  }();
  return symbols;
}

}  // namespace perfmon::fuzz
