// SPDX-License-Identifier: Apache-2.0
#include "events/suggest.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace perfmon::events {
namespace {

TEST(Suggest, EditDistance) {
  EXPECT_EQ(edit_distance("cycles", "cycles"), 0u);
  EXPECT_EQ(edit_distance("cyclse", "cycles"), 1u);  // a swap of neighbours
  EXPECT_EQ(edit_distance("CYCLES", "cycles"), 0u);
  EXPECT_EQ(edit_distance("instructons", "instructions"), 1u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
}

TEST(Suggest, NearestNamesFirstAndOnlyPlausibleOnes) {
  std::vector<std::string> names = {"cycles", "instructions", "cache-misses", "branch-misses", "task-clock"};
  EXPECT_EQ(nearest_names("cycels", names), std::vector<std::string>{"cycles"});
  EXPECT_EQ(nearest_names("brnch-misses", names).front(), "branch-misses");
  EXPECT_TRUE(nearest_names("zzzzzzzz", names).empty());
}

// The index skips names by length and by character counts, and stops a distance early: none of it
// may drop a name that the plain distance finds plausible, nor change the order.
TEST(Suggest, TheIndexFindsWhatAFullScanFinds) {
  std::mt19937 random(42);
  const std::string alphabet = "abcdeLMNO_.-0123";
  auto word = [&](std::size_t length) {
    std::string text;
    for (std::size_t i = 0; i < length; ++i) text += alphabet[random() % alphabet.size()];
    return text;
  };
  std::vector<std::string> names;
  for (int i = 0; i < 300; ++i) names.push_back(word(1 + random() % 14));
  const NameIndex index(names);
  for (int trial = 0; trial < 2000; ++trial) {
    // A typo of a known name (mostly) or a fresh word.
    std::string unknown = trial % 4 == 0 ? word(random() % 16) : names[random() % names.size()];
    if (trial % 4 != 0) {
      for (int edits = random() % 4; edits > 0 && !unknown.empty(); --edits)
        unknown[random() % unknown.size()] = alphabet[random() % alphabet.size()];
    }
    const std::size_t bound = std::max<std::size_t>(2, unknown.size() / 3);
    std::vector<std::pair<std::size_t, std::size_t>> scored;
    for (std::size_t i = 0; i < names.size(); ++i)
      if (std::size_t d = edit_distance(unknown, names[i]); d <= bound) scored.emplace_back(d, i);
    std::sort(scored.begin(), scored.end());
    std::vector<std::string> expected;
    for (const auto& [distance, i] : scored)
      if (expected.size() < 3 && std::find(expected.begin(), expected.end(), names[i]) == expected.end())
        expected.push_back(names[i]);
    ASSERT_EQ(index.nearest(unknown), expected) << unknown;
  }
}

TEST(Suggest, Sentence) {
  EXPECT_EQ(did_you_mean({}), "");
  EXPECT_EQ(did_you_mean({"a"}), "; did you mean 'a'?");
  EXPECT_EQ(did_you_mean({"a", "b", "c"}), "; did you mean 'a', 'b' or 'c'?");
}

}  // namespace
}  // namespace perfmon::events
