// The one error type for malformed user input (files, fields, options). Executables turn it into
// exit code 2; every other failure is exit code 1.
#pragma once

#include <stdexcept>

namespace gatebench::tools {

class BadInput : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace gatebench::tools
