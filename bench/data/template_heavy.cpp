// SPDX-License-Identifier: Apache-2.0
// A template-heavy translation unit (<map>, <regex>, <functional>): the compile bench/report_medium.sh
// samples for a medium-sized profile (issue 47).
#include <functional>
#include <map>
#include <regex>
#include <string>
#include <vector>
std::map<std::string, std::function<int(const std::smatch&)>> table;
int run(const std::string& text) {
  std::regex pattern(R"((\w+)=(\d+))");
  int sum = 0;
  for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it)
    if (auto found = table.find((*it)[1]); found != table.end()) sum += found->second(*it);
  return sum;
}
