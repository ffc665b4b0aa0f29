// SPDX-License-Identifier: Apache-2.0
#include "perfmon/pass_plan.hpp"

#include <linux/perf_event.h>

#include <algorithm>
#include <cerrno>
#include <optional>

#include "events/counter_placement.hpp"
#include "events/sources/sysfs_pmu.hpp"
#include "perfmon/error.hpp"

namespace perfmon {

namespace {

bool takes_a_counter(const Event& event) {
  return events::is_core_pmu(event.pmu, event.attr.type);
}

// The generic hardware event, for fixed counters (the upper config bits name a hybrid PMU).
std::optional<std::uint64_t> generic_hardware(const Event& event) {
  if (event.attr.type != PERF_TYPE_HARDWARE) return std::nullopt;
  return event.attr.config & 0xffffffffULL;
}

std::string group_text(const EventGroup& group) {
  std::string text;
  for (const Event& event : group.events) text += (text.empty() ? "" : ",") + event.name;
  return group.events.size() > 1 ? "{" + text + "}" : text;
}

// Places the core events of `members` (group, event) on the budget's counters, fixed first.
// Returns each member's counter name, or nothing when they do not fit at once.
struct Placement {
  std::vector<std::string> counters;  // by member
  int general = 0, fixed = 0;
};
std::optional<Placement> place(const std::vector<const Event*>& members, const CounterBudget& budget) {
  Placement placement;
  placement.counters.assign(members.size(), "none");
  std::vector<bool> fixed_taken(budget.fixed_events.size(), false);
  std::vector<std::uint32_t> masks;
  std::vector<std::size_t> general_members;
  for (std::size_t m = 0; m < members.size(); ++m) {
    const Event& event = *members[m];
    if (!takes_a_counter(event)) continue;
    bool fixed = false;
    if (std::optional<std::uint64_t> generic = generic_hardware(event))
      for (std::size_t f = 0; f < budget.fixed_events.size() && !fixed; ++f)
        if (!fixed_taken[f] && budget.fixed_events[f] == *generic) {
          fixed_taken[f] = fixed = true;
          placement.counters[m] = "fixed " + std::to_string(f);
          ++placement.fixed;
        }
    if (fixed) continue;
    masks.push_back(event.counters != 0 ? event.counters : ~std::uint32_t{0});
    general_members.push_back(m);
  }
  if (masks.size() > static_cast<std::size_t>(budget.general)) return std::nullopt;
  const std::vector<unsigned> on = events::place_on_counters(masks, static_cast<unsigned>(budget.general));
  if (on.size() != masks.size()) return std::nullopt;
  for (std::size_t k = 0; k < on.size(); ++k) placement.counters[general_members[k]] = "PMC" + std::to_string(on[k]);
  placement.general = static_cast<int>(on.size());
  return placement;
}

std::vector<const Event*> members_of(const std::vector<std::size_t>& chosen, const std::vector<EventGroup>& groups) {
  std::vector<const Event*> members;
  for (std::size_t g : chosen)
    for (const Event& event : groups[g].events) members.push_back(&event);
  return members;
}

std::string budget_text(const CounterBudget& budget) {
  std::string text = std::to_string(budget.general) + " programmable";
  const auto usable = std::count_if(budget.fixed_events.begin(), budget.fixed_events.end(),
                                    [](std::uint64_t event) { return event != ~std::uint64_t{0}; });
  if (usable > 0) text += " and " + std::to_string(usable) + " fixed";
  return text + " counters (" + budget.source + ")";
}

// Fills the pass's groups' counter names from one placement of all its groups.
void name_counters(Pass& pass, const std::vector<EventGroup>& groups, const CounterBudget& budget) {
  std::vector<std::size_t> chosen;
  for (const PlannedGroup& group : pass.groups) chosen.push_back(group.group);
  const std::optional<Placement> placement = place(members_of(chosen, groups), budget);
  std::size_t m = 0;
  for (PlannedGroup& group : pass.groups) {
    group.events.clear();
    for (std::size_t e = 0; e < groups[group.group].events.size(); ++e, ++m)
      group.events.push_back({e, placement ? placement->counters[m] : "?"});
  }
  if (placement) {
    pass.general_used = placement->general;
    pass.fixed_used = placement->fixed;
  }
}

}  // namespace

std::vector<EventGroup> PassPlan::groups_of(std::size_t pass, const std::vector<EventGroup>& groups) const {
  std::vector<std::size_t> chosen = every_pass;
  for (const PlannedGroup& group : passes[pass].groups) chosen.push_back(group.group);
  std::sort(chosen.begin(), chosen.end());
  chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
  std::vector<EventGroup> out;
  for (std::size_t g : chosen) out.push_back(groups[g]);
  return out;
}

std::vector<std::size_t> PassPlan::passes_of(std::size_t group) const {
  std::vector<std::size_t> found;
  for (std::size_t p = 0; p < passes.size(); ++p) {
    bool in = std::find(every_pass.begin(), every_pass.end(), group) != every_pass.end();
    for (const PlannedGroup& planned : passes[p].groups) in |= planned.group == group;
    if (in) found.push_back(p);
  }
  return found;
}

PassPlan plan_passes(const std::vector<EventGroup>& groups, const CounterBudget& budget) {
  PassPlan plan;
  plan.budget = budget;
  std::vector<std::size_t> counted;  // groups that need a counter
  std::vector<int> need(groups.size(), 0);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (const Event& event : groups[g].events) need[g] += takes_a_counter(event) ? 1 : 0;
    if (need[g] == 0) {
      plan.every_pass.push_back(g);
      continue;
    }
    if (!place(members_of({g}, groups), budget))
      throw Error(ErrorKind::Limit,
                  "the group " + group_text(groups[g]) + " needs " + std::to_string(need[g]) +
                      " counters at once and this CPU gives a measurement " + budget_text(budget) +
                      ": split it into smaller groups, which may then go to different passes.",
                  EINVAL);
    counted.push_back(g);
  }
  // First fit, largest first (ties in the order given).
  std::stable_sort(counted.begin(), counted.end(), [&](std::size_t a, std::size_t b) { return need[a] > need[b]; });
  std::vector<std::vector<std::size_t>> chosen;
  for (std::size_t g : counted) {
    bool placed = false;
    for (std::vector<std::size_t>& pass : chosen) {
      std::vector<std::size_t> trial = pass;
      trial.push_back(g);
      if (place(members_of(trial, groups), budget)) {
        pass = std::move(trial);
        placed = true;
        break;
      }
    }
    if (!placed) chosen.push_back({g});
  }
  if (chosen.empty()) chosen.emplace_back();
  // A group that only takes fixed counters goes into every pass where its counters are free: it
  // costs nothing there, and its spread between passes shows how alike they ran.
  if (chosen.size() > 1) {
    for (std::size_t g : counted) {
      bool fixed_only = true;
      std::optional<Placement> alone = place(members_of({g}, groups), budget);
      fixed_only = alone && alone->general == 0;
      if (!fixed_only) continue;
      bool fits_everywhere = true;
      for (const std::vector<std::size_t>& pass : chosen) {
        if (std::find(pass.begin(), pass.end(), g) != pass.end()) continue;
        std::vector<std::size_t> trial = pass;
        trial.push_back(g);
        fits_everywhere &= place(members_of(trial, groups), budget).has_value();
      }
      if (!fits_everywhere) continue;
      for (std::vector<std::size_t>& pass : chosen)
        if (std::find(pass.begin(), pass.end(), g) == pass.end()) pass.push_back(g);
    }
  }
  for (std::vector<std::size_t>& pass : chosen) {
    std::sort(pass.begin(), pass.end());
    Pass planned;
    for (std::size_t g : pass) planned.groups.push_back({g, {}});
    name_counters(planned, groups, budget);
    plan.passes.push_back(std::move(planned));
  }
  return plan;
}

std::string multiplexing_reason(const std::vector<EventGroup>& groups, const CounterBudget& budget) {
  PassPlan plan;
  try {
    plan = plan_passes(groups, budget);
  } catch (const Error& error) {
    return error.what();
  }
  if (plan.passes.size() <= 1) return "";
  int general = 0;
  for (const EventGroup& group : groups)
    for (const Event& event : group.events) general += takes_a_counter(event) ? 1 : 0;
  return "these events would be multiplexed: " + std::to_string(general) +
         " need a hardware counter and this CPU gives a measurement " + budget_text(budget) + "; count them in " +
         std::to_string(plan.passes.size()) + " passes (one run of the workload each), or with fewer events.";
}

std::string describe_plan(const PassPlan& plan, const std::vector<EventGroup>& groups) {
  std::string out = std::to_string(plan.passes.size()) + (plan.passes.size() == 1 ? " pass" : " passes") + " on " +
                    budget_text(plan.budget) + "\n";
  for (std::size_t p = 0; p < plan.passes.size(); ++p) {
    const Pass& pass = plan.passes[p];
    out += "\npass " + std::to_string(p + 1) + ": " + std::to_string(pass.general_used) + " programmable, " +
           std::to_string(pass.fixed_used) + " fixed\n";
    std::vector<PlannedGroup> shown = pass.groups;
    for (std::size_t g : plan.every_pass) shown.push_back({g, {}});
    std::sort(shown.begin(), shown.end(),
              [](const PlannedGroup& a, const PlannedGroup& b) { return a.group < b.group; });
    for (const PlannedGroup& group : shown) {
      const EventGroup& events = groups[group.group];
      std::string line = "  ";
      for (std::size_t e = 0; e < events.events.size(); ++e) {
        const std::string counter = e < group.events.size() ? group.events[e].counter : "none";
        line += (e == 0 ? "" : ", ") + events.events[e].name + " (" + counter + ")";
      }
      if (events.events.size() > 1) line = "  {" + line.substr(2) + "}";
      if (plan.passes.size() > 1 && plan.passes_of(group.group).size() == plan.passes.size()) line += "  [every pass]";
      out += line + "\n";
    }
  }
  return out;
}

}  // namespace perfmon
