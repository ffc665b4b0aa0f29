#include "events/suggest.hpp"

#include <gtest/gtest.h>

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

TEST(Suggest, Sentence) {
  EXPECT_EQ(did_you_mean({}), "");
  EXPECT_EQ(did_you_mean({"a"}), "; did you mean 'a'?");
  EXPECT_EQ(did_you_mean({"a", "b", "c"}), "; did you mean 'a', 'b' or 'c'?");
}

}  // namespace
}  // namespace perfmon::events
