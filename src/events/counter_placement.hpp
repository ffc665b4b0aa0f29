// SPDX-License-Identifier: Apache-2.0
// Events that only some programmable counters can count (the pmc.core table's PMC0-only and
// PMC1-only events): placing a group's events on the counters, one each, before the kernel is asked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "perfmon/event.hpp"

namespace perfmon::events {

// "PMC0", "PMC1", "PMC0 or PMC1" for a mask whose bit n stands for PMCn.
std::string describe_counters(std::uint32_t counters);

// Places events, each allowed on the counters of its mask, onto `counter_count` counters, one per
// counter. Returns each event's counter, or an empty vector when no placement exists.
std::vector<unsigned> place_on_counters(const std::vector<std::uint32_t>& masks, unsigned counter_count);

// A group counts all its events at once, so events restricted to some counters must each find one
// of their own (software events take no counter). Throws perfmon::Error naming the events and their
// counters when they cannot.
void check_counter_placement(const EventGroup& group);

}  // namespace perfmon::events
