// SPDX-License-Identifier: Apache-2.0
#include "perfmon/marker_results.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "kernel/fd.hpp"
#include "perfmon/error.hpp"
#include "perfmon/output_file.hpp"

namespace perfmon {

namespace {

constexpr off_t kLargestFile = off_t{64} << 20;

using Json = nlohmann::json;

[[noreturn]] void malformed(const std::string& what) {
  throw Error(ErrorKind::InvalidArgument, "the marker results are malformed: " + what + ".", EINVAL);
}

// A member of `object` of the kind `is` checks, or `fallback` where it is missing.
template <typename T, typename Check>
T member(const Json& object, const char* name, const std::string& where, Check is, T fallback, const char* kind) {
  const auto found = object.find(name);
  if (found == object.end()) return fallback;
  if (!is(*found)) malformed(where + "'s '" + name + "' is not " + kind);
  return found->template get<T>();
}

std::uint64_t count_of(const Json& object, const char* name, const std::string& where) {
  return member<std::uint64_t>(
      object, name, where, [](const Json& v) { return v.is_number_unsigned(); }, 0, "a count");
}

int integer_of(const Json& object, const char* name, const std::string& where, int fallback) {
  const auto is_int = [](const Json& v) {
    return v.is_number_integer() && v.get<std::int64_t>() >= -1 && v.get<std::int64_t>() <= INT32_MAX;
  };
  return member<int>(object, name, where, is_int, fallback, "an integer from -1");
}

MarkedRegionResult region_of(const Json& region, std::size_t index, std::size_t groups) {
  const std::string where = "region " + std::to_string(index + 1);
  if (!region.is_object()) malformed(where + " is not an object");
  MarkedRegionResult result;
  result.tag = member<std::string>(
      region, "tag", where, [](const Json& v) { return v.is_string(); }, "", "a string");
  result.group = count_of(region, "group", where);
  if (result.group >= std::max<std::size_t>(groups, 1))
    malformed(where + " is of group " + std::to_string(result.group + 1) + ", but there are " + std::to_string(groups));
  result.thread = count_of(region, "thread", where);
  result.tid = integer_of(region, "tid", where, 0);
  result.cpu = integer_of(region, "cpu", where, -1);
  result.count = count_of(region, "count", where);
  result.seconds = member<double>(
      region, "seconds", where, [](const Json& v) { return v.is_number(); }, 0.0, "a number");
  result.emulated = member<bool>(
      region, "emulated", where, [](const Json& v) { return v.is_boolean(); }, false, "true or false");
  const auto values = region.find("values");
  if (values == region.end()) return result;
  if (!values->is_array()) malformed(where + "'s 'values' is not a list");
  for (const Json& value : *values) {
    const std::string at = where + "'s value " + std::to_string(result.values.size() + 1);
    if (!value.is_object()) malformed(at + " is not an object");
    result.values.push_back(
        CounterValue{count_of(value, "raw", at), count_of(value, "enabled", at), count_of(value, "running", at), 0});
  }
  return result;
}

}  // namespace

MarkerResults parse_marker_results(std::string_view json) {
  const Json results = Json::parse(json.begin(), json.end(), nullptr, false);
  if (results.is_discarded()) malformed("not JSON");
  if (!results.is_object()) malformed("not a JSON object");
  MarkerResults parsed;
  if (const auto groups = results.find("groups"); groups != results.end()) {
    if (!groups->is_array()) malformed("'groups' is not a list");
    for (const Json& group : *groups) {
      const std::string where = "group " + std::to_string(parsed.groups.size() + 1);
      if (!group.is_array()) malformed(where + " is not a list of event names");
      std::vector<std::string>& names = parsed.groups.emplace_back();
      for (const Json& name : group) {
        if (!name.is_string()) malformed(where + " has a name that is not a string");
        names.push_back(name.get<std::string>());
      }
    }
  }
  const auto regions = results.find("regions");
  if (regions == results.end()) malformed("it has no 'regions'");
  if (!regions->is_array()) malformed("'regions' is not a list");
  for (const Json& region : *regions)
    parsed.regions.push_back(region_of(region, parsed.regions.size(), parsed.groups.size()));
  return parsed;
}

MarkerResults read_marker_results(const std::string& path) {
  // Non-blocking: a FIFO put in the file's place must not hold perfmon in open().
  const kernel::FileDescriptor file(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC));
  if (!file)
    throw Error(ErrorKind::System, "cannot read the marker results '" + path + "': " + std::strerror(errno) + ".",
                errno);
  struct stat about {};
  if (::fstat(file.get(), &about) != 0)
    throw Error(ErrorKind::System, "cannot read the marker results '" + path + "': " + std::strerror(errno) + ".",
                errno);
  if (!S_ISREG(about.st_mode)) malformed("'" + path + "' is not a regular file");
  if (about.st_size > kLargestFile) malformed("'" + path + "' is larger than 64 MiB");
  std::string text(static_cast<std::size_t>(about.st_size), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(file.get(), text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw Error(ErrorKind::System, "cannot read the marker results '" + path + "': " + std::strerror(errno) + ".",
                  errno);
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  return parse_marker_results(text);
}

std::string marker_results_json(const MarkedRegions& regions) {
  Json groups = Json::array();
  for (std::size_t g = 0; g < regions.group_count(); ++g) groups.push_back(regions.event_names(g));
  std::string text = "{\"groups\":" + groups.dump() + ",\"regions\":[";
  bool first = true;
  for (const MarkedRegionResult& result : regions.results()) {
    Json values = Json::array();
    for (const CounterValue& value : result.values)
      values.push_back({{"raw", value.raw}, {"enabled", value.enabled}, {"running", value.running}});
    const Json region = {{"tag", result.tag},         {"group", result.group}, {"thread", result.thread},
                         {"tid", result.tid},         {"cpu", result.cpu},     {"count", result.count},
                         {"seconds", result.seconds}, {"values", values},      {"emulated", result.emulated}};
    text += (first ? "\n" : ",\n") + region.dump(-1, ' ', false, Json::error_handler_t::replace);
    first = false;
  }
  return text + "]}\n";
}

void write_marker_results(const std::string& path, const MarkedRegions& regions) {
  OutputFile out(path, nullptr);
  out.write(marker_results_json(regions));
  out.commit();
}

}  // namespace perfmon
