// SPDX-License-Identifier: Apache-2.0
// perfmon: counting every event 100% of the time. More events than a CPU has counters are either
// multiplexed (each counted part of the time, then extrapolated) or split into passes: the
// workload is run once per pass, each pass holding only what fits on the counters at once.
//
//   std::optional<perfmon::CounterBudget> budget = perfmon::counter_budget();
//   perfmon::PassPlan plan = perfmon::plan_passes(catalog.parse("cycles,instructions,..."), *budget);
//   for (const perfmon::Pass& pass : plan.passes) run the workload with plan.groups_of(pass, groups);
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "perfmon/event.hpp"
#include "perfmon/system_info.hpp"

namespace perfmon {

// Where one event of a planned group counts.
struct PlannedEvent {
  std::size_t event = 0;  // index within its group
  std::string counter;    // "fixed 0", "PMC2", or "none" (software events, tracepoints: no counter)
};

struct PlannedGroup {
  std::size_t group = 0;  // index in the list that was planned
  std::vector<PlannedEvent> events;
};

// Groups that the PMU counts all at once: no event of a pass is ever multiplexed.
struct Pass {
  std::vector<PlannedGroup> groups;
  int general_used = 0;
  int fixed_used = 0;
};

struct PassPlan {
  CounterBudget budget;
  std::vector<Pass> passes;  // the fewest found; at least one
  // Groups counted in every pass, because they take no programmable counter (software events,
  // tracepoints, events on fixed counters left free): the spread of their counts between passes
  // says how alike the runs were.
  std::vector<std::size_t> every_pass;

  // The groups a pass opens, every_pass ones included, in the order they were given.
  std::vector<EventGroup> groups_of(std::size_t pass, const std::vector<EventGroup>& groups) const;
  // In which passes group g is counted.
  std::vector<std::size_t> passes_of(std::size_t group) const;
};

// Splits the groups into the fewest passes whose groups fit on the counters at once (a group is
// kept whole; events limited to some counters get one of theirs; fixed counters are used first).
// Greedy (first fit, largest group first), which is optimal for groups of one event. Throws
// perfmon::Error when one group alone needs more counters than the budget has.
PassPlan plan_passes(const std::vector<EventGroup>& groups, const CounterBudget& budget);

// Strict mode: "" when the groups fit on the counters at once, else why they would be multiplexed
// (a sentence that says what to do).
std::string multiplexing_reason(const std::vector<EventGroup>& groups, const CounterBudget& budget);

// The plan as perfmon stat --plan prints it: a block per pass, a line per group with each event's
// counter.
std::string describe_plan(const PassPlan& plan, const std::vector<EventGroup>& groups);

}  // namespace perfmon
