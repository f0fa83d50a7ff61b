// nlohmann::json as a jsonl peer: the DOM parser most C++ control planes start with. One
// document per line; decoded strings are copied into an arena the parser owns, so record views
// stay valid until the next parse call and no field is ever flagged escaped. Reasons and
// offsets as for the RE2 peer (bad_syntax at the line start). Duplicate keys: the last wins.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "micro/core/access_log/record.hpp"

namespace gatebench::peers {

class NlohmannAccessLogParser {
 public:
  access_log::BatchResult parse(std::string_view buffer,
                                std::span<access_log::AccessLogRecord> records,
                                std::span<access_log::AccessLogError> errors);

 private:
  std::string arena_;
};

}  // namespace gatebench::peers
