#include "micro/core/rules/verdict.hpp"

namespace gatebench::rules {

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

}  // namespace gatebench::rules
