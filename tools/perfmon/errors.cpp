#include "errors.hpp"

#include <cerrno>
#include <cstdio>

namespace perfmon::cli {

namespace {
const char* advice(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::UnknownEvent:
      return "Run 'perfmon list' for the events this machine knows, 'perfmon list --pmu MODEL' for a CPU model's.";
    case ErrorKind::OtherCpuModel:
      return "Run 'perfmon encode --pmu MODEL EVENT' for its encoding on that CPU model.";
    default:
      return nullptr;
  }
}
}  // namespace

int report_error(std::string_view command, const Error& error, int status) {
  std::fprintf(stderr, "perfmon %.*s: %s\n", static_cast<int>(command.size()), command.data(),
               printable(error.what()).c_str());
  if (const char* next = advice(error.kind())) std::fprintf(stderr, "%s\n", next);
  return status;
}

int report_run_error(std::string_view command, const Error& error) {
  const int status = error.kind() != ErrorKind::CommandFailed ? 1 : error.errnum() == ENOENT ? 127 : 126;
  return report_error(command, error, status);
}

std::string printable(std::string_view text) {
  std::string out;
  char escaped[8];
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
    if (c < 0x20 || c == 0x7f) {
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
    } else if (c == 0xc2 && next >= 0x80 && next <= 0x9f) {  // U+0080 to U+009F, the C1 controls
      std::snprintf(escaped, sizeof escaped, "\\u%04x", next);
      out += escaped;
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace perfmon::cli
