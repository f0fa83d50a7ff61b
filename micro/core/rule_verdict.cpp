#include "micro/core/rule_verdict.hpp"

namespace gatebench::core {

const char* to_string(Decision decision) {
  switch (decision) {
    case Decision::kPass:
      return "pass";
    case Decision::kBlock:
      return "block";
    case Decision::kChallenge:
      return "challenge";
  }
  return "?";
}

}  // namespace gatebench::core
