// The naive peer of access-log parsing: one RE2 regular expression per format with a capture
// per field, the way a control plane is usually first written. Oracle of the differential
// tests and the "re2" column of the benchmarks. Same record type and batch contract as
// micro/core/access_log/access_log.hpp, except that a rejected line's reason is always bad_syntax
// and its offset is the line start (a regex cannot say which field failed).
#pragma once

#include <re2/re2.h>

#include <memory>
#include <span>
#include <string_view>

#include "micro/core/access_log/record.hpp"

namespace gatebench::peers {

class Re2AccessLogParser {
 public:
  // Compiles the format's expression (configuration time; throws std::runtime_error if RE2
  // rejects it).
  explicit Re2AccessLogParser(access_log::Format format);
  ~Re2AccessLogParser();
  Re2AccessLogParser(const Re2AccessLogParser&) = delete;
  Re2AccessLogParser& operator=(const Re2AccessLogParser&) = delete;

  access_log::BatchResult parse(std::string_view buffer,
                                std::span<access_log::AccessLogRecord> records,
                                std::span<access_log::AccessLogError> errors) const;

 private:
  bool parse_line(std::string_view line, access_log::AccessLogRecord& r) const;

  access_log::Format format_;
  std::unique_ptr<re2::RE2> line_;
  std::unique_ptr<re2::RE2> request_;  // combined: the parts of "$request"
};

}  // namespace gatebench::peers
