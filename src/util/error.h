// Error types shared by every component. Input errors carry where they happened; the CLI maps
// them to exit codes (2 = bad input, 3 = deadlock) without ever printing partial results.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace asyncsim {

// Bad input: a malformed program, an unknown config key, an impossible resource request.
// `where` names the file:line or flag; `what` says what was expected.
class InputError : public std::runtime_error {
 public:
  InputError(std::string where, const std::string& message)
      : std::runtime_error(where.empty() ? message : where + ": " + message),
        m_where(std::move(where)) {}
  const std::string& where() const { return m_where; }

 private:
  std::string m_where;
};

// The simulated kernel can make no progress: every live warpgroup waits on something that
// nothing will ever signal. The message lists the blocked warpgroups and barrier states.
class DeadlockError : public std::runtime_error {
 public:
  explicit DeadlockError(const std::string& report) : std::runtime_error(report) {}
};

template <typename... Args>
[[noreturn]] void throw_input_error(std::string where, fmt::format_string<Args...> f,
                                    Args&&... args) {
  throw InputError(std::move(where), fmt::format(f, std::forward<Args>(args)...));
}

std::string format_location(const std::string& file, int line);

}  // namespace asyncsim
