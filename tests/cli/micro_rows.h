// The comparison rows an `asyncsim micro ... --compare` prints, for the micro tests.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace asyncsim::testing {

// The comparison rows (not '#' lines, not the header) split on commas.
inline std::vector<std::vector<std::string>> rows(const std::string& out) {
  std::vector<std::vector<std::string>> r;
  std::stringstream ss(out);
  std::string line;
  bool header = true;
  while (std::getline(ss, line)) {
    if (line.empty() || line[0] == '#') {
      continue;
    }
    if (header) {
      header = false;
      continue;
    }
    std::vector<std::string> f;
    std::stringstream ls(line);
    std::string x;
    while (std::getline(ls, x, ',')) {
      f.push_back(x);
    }
    r.push_back(f);
  }
  return r;
}

inline const std::string kData = std::string(ASYNCSIM_SOURCE_DIR) + "/validation/data/h200/";

}  // namespace asyncsim::testing
