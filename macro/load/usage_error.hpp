// Bad command line or input file: the message is shown as is and the process exits 2.
#pragma once

#include <stdexcept>

namespace gatebench::load {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace gatebench::load
