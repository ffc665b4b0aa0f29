// SPDX-License-Identifier: Apache-2.0
// perfmon: the whole public API in one include. Each header below holds one concept.
#pragma once

#include "perfmon/address_space.hpp"       // AddressSpaces: a recording's commands and mappings
#include "perfmon/annotation.hpp"          // AnnotationSamples: a function's samples by instruction and source line
#include "perfmon/annotation_output.hpp"   // annotate's shapes: text and JSON
#include "perfmon/bench_results.hpp"       // BenchResults: benchmark counts in BMF, compared with a baseline, a CI gate
#include "perfmon/cache_geometry.hpp"      // CacheGeometry: a machine's caches (sysfs, CPUID)
#include "perfmon/catalog.hpp"             // EventCatalog: event strings -> events and groups; listings
#include "perfmon/control_channel.hpp"     // ControlChannel: perf's --control FIFO: enable, disable, named regions
#include "perfmon/counter.hpp"             // CounterValue: raw, enabled, running; scaled()
#include "perfmon/emulated.hpp"            // EmulatedWorkload: counts without a PMU on QEMU's emulated CPU
#include "perfmon/encoding.hpp"            // an event's hardware encodings, and back from a PERFEVTSEL value
#include "perfmon/error.hpp"               // Error: kind, errno, one sentence
#include "perfmon/estimate.hpp"            // SliceStatistics: a multiplexed count and its standard error
#include "perfmon/event.hpp"               // Event: the exact perf_event_attr; EventGroup
#include "perfmon/event_control.hpp"       // control_event: one event held, zeroed, re-periodised (overflow handlers)
#include "perfmon/event_sets.hpp"          // EventSets: perfmon2 event sets, switched on timeouts and overflows
#include "perfmon/likwid_group.hpp"        // LikwidGroup: likwid's performance groups, read from an installed likwid
#include "perfmon/location.hpp"            // Location: a thread or a CPU events are opened at
#include "perfmon/machine_profile.hpp"     // profile_machine: the whole machine sampled, as a pprof profile
#include "perfmon/marked_regions.hpp"      // MarkedRegions: regions a program marks, counted per thread (likwid, PAPI)
#include "perfmon/marker_results.hpp"      // MarkerResults: a marker library's results read back
#include "perfmon/measurement.hpp"         // Measurement, run(): a measurement of any kind run from start to end
#include "perfmon/metric_expression.hpp"   // MetricExpression: perf's metric language, parsed and evaluated
#include "perfmon/metric_table.hpp"        // MetricTable, MetricSet: perf's metric tables, chosen and evaluated
#include "perfmon/metrics.hpp"             // MetricsExporter: counters for Prometheus
#include "perfmon/metrics_server.hpp"      // MetricsServer: /metrics and /debug/pprof/profile over HTTP
#include "perfmon/name_id.hpp"             // NameId: a name kept once, referred to by index
#include "perfmon/nearest_names.hpp"       // nearest_names: "did you mean ...", for a mistyped name
#include "perfmon/notification_queue.hpp"  // NotificationQueue: perfmon2's overflow and end messages
#include "perfmon/output_file.hpp"         // OutputFile: a report written whole, never over a device or the input
#include "perfmon/papi_presets.hpp"        // papi_presets: PAPI's preset events for this CPU, as metrics
#include "perfmon/pass_plan.hpp"           // plan_passes: events split into passes that fit on the counters
#include "perfmon/perf_data.hpp"           // perf.data files: PerfDataWriter, PerfDataReader
#include "perfmon/perfevtsel.hpp"          // PerfEvtSel: x86's event-select register
#include "perfmon/pprof.hpp"               // PprofProfile: samples in pprof's format
#include "perfmon/printable.hpp"           // printable: outside text made safe for a terminal
#include "perfmon/probe.hpp"               // probe_event: can this machine count it
#include "perfmon/profile.hpp"             // Profile: samples summed per command, file, function and stack
#include "perfmon/program_regions.hpp"     // ProgramRegion: a program's own regions, counted under perfmon
#include "perfmon/random_period.hpp"       // RandomPeriod: perfmon2's randomized sampling periods
#include "perfmon/reading.hpp"             // Reading: what any measurement counted, for every report
#include "perfmon/recording.hpp"           // Recording: a sampler recorded into a perf.data file, start to end
#include "perfmon/regions.hpp"             // RegionCounts: what counters counted between begin and end of named regions
#include "perfmon/report_diff.hpp"         // diff_rows: two profiles compared as perf diff compares them
#include "perfmon/report_output.hpp"       // perf report's shapes: table, JSON, folded stacks, flame graph
#include "perfmon/sample.hpp"              // Sample: one PERF_RECORD_SAMPLE, decoded
#include "perfmon/sampler.hpp"             // Sampler: sample events into ring buffers; SampleHandler
#include "perfmon/sampling_format.hpp"     // SamplingFormat; DefaultSamplingFormat: perfmon2's buffer layout
#include "perfmon/scope.hpp"               // ScopedMeasurement: measure one scope
#include "perfmon/script_output.hpp"       // perf script's shapes: a sample's text lines or JSON line
#include "perfmon/session.hpp"             // CounterSession: open, start, stop, read
#include "perfmon/stat.hpp"                // perf stat's figures: rows, metrics, statistics over runs
#include "perfmon/stat_output.hpp"         // perf stat's shapes: table, CSV, JSON
#include "perfmon/symbolizer.hpp"          // Symbolizer: a recording's addresses named, stacks unwound
#include "perfmon/symbols.hpp"             // SymbolTables: function names from ELF files and kallsyms
#include "perfmon/system_info.hpp"         // what this machine and kernel allow
#include "perfmon/target.hpp"              // Target: where events are counted
#include "perfmon/workload.hpp"            // Workload: a command held before its exec
