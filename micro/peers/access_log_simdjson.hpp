// simdjson on-demand as the jsonl peer: one document per line (so a bad line is rejected alone,
// as the batch contract requires), string fields as raw views into the input like gatecore.
// Same record type and batch contract as access_log::parse_jsonl, except that the reason of a
// rejected line is always bad_syntax and its offset the line start.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>

#include "micro/core/access_log/record.hpp"

namespace gatebench::peers {

class SimdjsonAccessLogParser {
 public:
  // simdjson reads up to this many bytes past the end of what it parses.
  static constexpr std::size_t kPadding = 64;

  SimdjsonAccessLogParser();
  ~SimdjsonAccessLogParser();
  SimdjsonAccessLogParser(const SimdjsonAccessLogParser&) = delete;
  SimdjsonAccessLogParser& operator=(const SimdjsonAccessLogParser&) = delete;

  // `buffer` must be followed by kPadding readable bytes (e.g. a std::string whose capacity
  // exceeds its size by kPadding). Not thread-safe: the parser is reused.
  access_log::BatchResult parse(std::string_view buffer,
                                std::span<access_log::AccessLogRecord> records,
                                std::span<access_log::AccessLogError> errors);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gatebench::peers
