// The one error type for bad input: a command line, a scenario, configuration or result file that
// cannot be used as given. The message names the option, or the file and the JSON pointer of the
// field; every executable prints it after its name and exits with kUsageExit. Every other failure
// exits 1.
#pragma once

#include <stdexcept>

namespace gatebench::common {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr int kUsageExit = 2;

}  // namespace gatebench::common
