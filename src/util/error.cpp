#include "util/error.h"

namespace asyncsim {

std::string format_location(const std::string& file, int line) {
  if (line <= 0) {
    return file;
  }
  return fmt::format("{}:{}", file, line);
}

}  // namespace asyncsim
