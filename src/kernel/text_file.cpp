#include "kernel/text_file.hpp"

#include <fstream>

namespace perfmon::kernel {

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace perfmon::kernel
