#include "micro/core/rules/set.hpp"

namespace gatebench::rules {

const char* to_string(RuleAction action) {
  switch (action) {
    case RuleAction::kNone:
      return "none";
    case RuleAction::kBlock:
      return "block";
    case RuleAction::kAllow:
      return "allow";
    case RuleAction::kChallenge:
      return "challenge";
    case RuleAction::kLog:
      return "log";
  }
  return "?";
}

const char* to_string(RuleField field) {
  switch (field) {
    case RuleField::kMethod:
      return "method";
    case RuleField::kScheme:
      return "scheme";
    case RuleField::kHost:
      return "host";
    case RuleField::kPath:
      return "path";
    case RuleField::kQuery:
      return "query";
    case RuleField::kHeader:
      return "header";
    case RuleField::kClientIp:
      return "client_ip";
    case RuleField::kCountry:
      return "country";
    case RuleField::kBody:
      return "body";
  }
  return "?";
}

const char* to_string(RuleOperator op) {
  switch (op) {
    case RuleOperator::kEquals:
      return "equals";
    case RuleOperator::kPrefix:
      return "prefix";
    case RuleOperator::kSuffix:
      return "suffix";
    case RuleOperator::kContains:
      return "contains";
    case RuleOperator::kRegex:
      return "regex";
    case RuleOperator::kInList:
      return "in_list";
    case RuleOperator::kInSet:
      return "in_set";
  }
  return "?";
}

const char* to_string(ExploitMode mode) {
  switch (mode) {
    case ExploitMode::kOff:
      return "off";
    case ExploitMode::kDetect:
      return "detect";
    case ExploitMode::kBlock:
      return "block";
  }
  return "?";
}

}  // namespace gatebench::rules
