// SPDX-License-Identifier: Apache-2.0
// perfmonpy: a perf.data file's samples, their frames and names, collected as the arrays
// read_perf_data hands numpy (bind_perf_data.cpp): the rows' layouts and the handler that fills them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "perfmon/perf_data.hpp"
#include "perfmon/profile.hpp"
#include "perfmon/symbolizer.hpp"
#include "perfmon/symbols.hpp"

namespace perfmonpy {

// A sample as one row of the samples array (numpy's structured dtype, declared below).
struct SampleRow {
  std::uint64_t time;
  std::uint32_t pid, tid;
  std::uint16_t cpu;
  std::uint16_t event;
  std::int32_t mapping;  // into the mappings table; -1: in none
  std::uint64_t ip;
  std::uint64_t period;
  std::int32_t symbol;  // into the symbols table; -1: no symbol covers the address
  std::int32_t dso;     // into the dsos table
  std::int32_t comm;    // into the comms table
  std::uint32_t chain_length;
  std::uint64_t chain_begin;  // into the frames arrays
};

// A mapping that samples fell in, as one row of the mappings array: the process's (-1: the
// kernel's), its addresses [start, end), the file offset at start, and the file.
struct MappingRow {
  std::int32_t pid;
  std::int32_t dso;
  std::uint64_t start, end, offset;
  bool operator==(const MappingRow&) const = default;
};

// Samples, their frames and names, as read() hands them on.
class ArrayCollector final : public perfmon::SampleHandler {
  // What a place is named by: ids into the tables (-1: none).
  struct Named {
    std::int32_t symbol = -1, dso = -1, mapping = -1;
  };

 public:
  ArrayCollector(bool callchains, bool symbols, std::shared_ptr<perfmon::SymbolTables> tables)
      : callchains_(callchains), symbols_(symbols), symbolizer_(std::move(tables)) {}

  void record(const perf_event_header& record) override {
    context(record);
    lost_.add(record);
  }
  // What the records before this share's say of the processes (read in shares).
  void context(const perf_event_header& record) override {
    symbolizer_.record(record);
    // A process's addresses may mean something else after its mappings or command change.
    if (record.type == PERF_RECORD_MMAP || record.type == PERF_RECORD_MMAP2 || record.type == PERF_RECORD_COMM ||
        record.type == PERF_RECORD_FORK || record.type == PERF_RECORD_EXIT)
      forget_places();
    if (record.type == PERF_RECORD_COMM || record.type == PERF_RECORD_FORK || record.type == PERF_RECORD_EXIT) {
      thread_comms_.clear();
      last_comm_ = nullptr;
    }
  }
  void sample(std::size_t event, const perfmon::Sample& sample) override {
    const bool kernel =
        sample.record != nullptr && (sample.record->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
    const Named& leaf = name(sample.pid, sample.ip, kernel);
    SampleRow row{sample.time,
                  sample.pid,
                  sample.tid,
                  static_cast<std::uint16_t>(sample.cpu),
                  static_cast<std::uint16_t>(event),
                  leaf.mapping,
                  sample.ip,
                  sample.period,
                  leaf.symbol,
                  leaf.dso,
                  comm_id(sample.tid),
                  0,
                  frame_ips_.size()};
    if (callchains_ && !sample.callchain.empty()) {
      perfmon::Symbolizer::for_each_frame(symbolizer_.callchain(event, sample), kernel,
                                          [&](std::uint64_t ip, bool in_kernel) {
                                            frame_ips_.push_back(ip);
                                            frame_symbols_.push_back(name(sample.pid, ip, in_kernel).symbol);
                                            ++row.chain_length;
                                          });
    }
    rows_.push_back(row);
  }

  // Another share's samples after these, their ids made this one's (the tables are this one's, the
  // other's names added where new).
  void absorb(ArrayCollector& other) {
    std::vector<std::int32_t> dsos(other.dsos_.size()), comms(other.comms_.size()),
        symbols(other.symbols_table_.size()), mappings(other.mappings_.size());
    for (std::size_t k = 0; k < other.dsos_.size(); ++k) dsos[k] = dso_id(other.dsos_[k]);
    for (std::size_t k = 0; k < other.comms_.size(); ++k) comms[k] = named_comm_id(other.comms_[k]);
    for (std::size_t k = 0; k < other.symbol_functions_.size(); ++k)  // in the order they were met
      symbols[k] =
          symbol_id(other.symbol_functions_[k], dsos[static_cast<std::size_t>(other.symbols_table_[k].second)]);
    for (std::size_t k = 0; k < other.mappings_.size(); ++k) {
      MappingRow mapping = other.mappings_[k];
      mapping.dso = dsos[static_cast<std::size_t>(mapping.dso)];
      mappings[k] = mapping_id(mapping);
    }
    auto mapped = [](const std::vector<std::int32_t>& ids, std::int32_t id) {
      return id < 0 ? id : ids[static_cast<std::size_t>(id)];
    };
    const std::uint64_t frames_before = frame_ips_.size();
    for (SampleRow row : other.rows_) {
      row.symbol = mapped(symbols, row.symbol);
      row.dso = mapped(dsos, row.dso);
      row.comm = mapped(comms, row.comm);
      row.mapping = mapped(mappings, row.mapping);
      row.chain_begin += frames_before;
      rows_.push_back(row);
    }
    frame_ips_.insert(frame_ips_.end(), other.frame_ips_.begin(), other.frame_ips_.end());
    for (std::int32_t symbol : other.frame_symbols_) frame_symbols_.push_back(mapped(symbols, symbol));
    lost_ += other.lost_;
  }

  std::vector<SampleRow> rows_;
  std::vector<std::uint64_t> frame_ips_;
  std::vector<std::int32_t> frame_symbols_;
  std::vector<std::pair<std::string, std::int32_t>> symbols_table_;  // name, dso
  std::vector<std::string> dsos_, comms_;
  std::vector<MappingRow> mappings_;
  std::vector<const std::string_view*> symbol_functions_;  // by symbol id: the function's, in the symbol tables
  perfmon::RecordLoss lost_;

 private:
  void forget_places() {
    named_.clear();
    last_named_ = nullptr;
  }
  // An address's symbol, file and mapping, named once while its process's mappings stay as they
  // are: a profile's samples come back to the same places again and again.
  const Named& name(std::uint32_t pid, std::uint64_t ip, bool kernel) {
    static const Named unnamed;
    if (!symbols_) return unnamed;
    const PlaceKey place{ip, pid, kernel};
    if (last_named_ != nullptr && last_named_->first == place) return last_named_->second;  // where the last one was
    const auto [cached, added] = named_.try_emplace(place);
    if (added) cached->second = name_anew(pid, ip, kernel);
    last_named_ = &*cached;
    return cached->second;
  }
  Named name_anew(std::uint32_t pid, std::uint64_t ip, bool kernel) {
    const perfmon::NamedAddress named = symbolizer_.name(pid, ip, kernel);
    Named ids;
    ids.dso = dso_id(named.place.file);
    if (named.place.mapping_end != 0)
      ids.mapping = mapping_id({named.kernel ? -1 : static_cast<std::int32_t>(pid), ids.dso, named.place.mapping_start,
                                named.place.mapping_end, named.place.mapping_offset});
    if (named.function != nullptr) ids.symbol = symbol_id(named.function, ids.dso);
    return ids;
  }
  // Ids in this collector's tables, a name added where new.
  std::int32_t dso_id(const std::string& file) {
    const auto [found, added] = dso_ids_.try_emplace(file, static_cast<std::int32_t>(dsos_.size()));
    if (added) dsos_.push_back(file);
    return found->second;
  }
  std::int32_t named_comm_id(const std::string& comm) {
    const auto [found, added] = comm_ids_.try_emplace(comm, static_cast<std::int32_t>(comms_.size()));
    if (added) comms_.push_back(comm);
    return found->second;
  }
  std::int32_t symbol_id(const std::string_view* function, std::int32_t dso) {
    const auto [found, added] =
        symbol_ids_.try_emplace(SymbolKey{function, dso}, static_cast<std::int32_t>(symbols_table_.size()));
    if (added) {
      symbols_table_.emplace_back(std::string(*function), dso);
      symbol_functions_.push_back(function);
    }
    return found->second;
  }
  std::int32_t mapping_id(const MappingRow& mapping) {
    const auto [found, added] = mapping_ids_.try_emplace(mapping, static_cast<std::int32_t>(mappings_.size()));
    if (added) mappings_.push_back(mapping);
    return found->second;
  }
  // A thread's command, named once while no COMM, FORK or EXIT record comes.
  std::int32_t comm_id(std::uint32_t tid) {
    if (last_comm_ != nullptr && last_comm_->first == tid) return last_comm_->second;
    const auto [cached, added] = thread_comms_.try_emplace(tid, 0);
    last_comm_ = &*cached;
    if (!added) return cached->second;
    return cached->second = named_comm_id(symbolizer_.spaces().command(tid));
  }

  struct MappingHash {
    std::size_t operator()(const MappingRow& mapping) const noexcept {
      return std::hash<std::uint64_t>()(mapping.start ^ (mapping.end << 1) ^
                                        (std::uint64_t(std::uint32_t(mapping.pid)) << 40));
    }
  };
  struct PlaceKey {
    std::uint64_t ip;
    std::uint32_t pid;
    bool kernel;
    bool operator==(const PlaceKey&) const = default;
  };
  struct PlaceKeyHash {
    std::size_t operator()(const PlaceKey& key) const noexcept {
      return std::hash<std::uint64_t>()(key.ip ^ (std::uint64_t{key.pid} << 40) ^ (std::uint64_t{key.kernel} << 63));
    }
  };
  struct SymbolKey {
    const std::string_view* function;
    std::int32_t dso;
    bool operator==(const SymbolKey&) const = default;
  };
  struct SymbolKeyHash {
    std::size_t operator()(const SymbolKey& key) const noexcept {
      return std::hash<const void*>()(key.function) * 31 + static_cast<std::size_t>(key.dso);
    }
  };

  bool callchains_, symbols_;
  perfmon::Symbolizer symbolizer_;
  std::unordered_map<PlaceKey, Named, PlaceKeyHash> named_;
  std::unordered_map<MappingRow, std::int32_t, MappingHash> mapping_ids_;
  std::unordered_map<SymbolKey, std::int32_t, SymbolKeyHash> symbol_ids_;
  std::unordered_map<std::uint32_t, std::int32_t> thread_comms_;
  const std::pair<const PlaceKey, Named>* last_named_ = nullptr;
  const std::pair<const std::uint32_t, std::int32_t>* last_comm_ = nullptr;
  std::unordered_map<std::string, std::int32_t> dso_ids_, comm_ids_;
};

}  // namespace perfmonpy
