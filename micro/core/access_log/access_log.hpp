// Access-log parsing, the control plane's ingestion hot path: one include for the record type,
// the three format parsers and the decoder of escaped fields. Contract: docs/access-log.md.
#pragma once

#include <span>
#include <string_view>

#include "micro/core/access_log/combined.hpp"
#include "micro/core/access_log/jsonl.hpp"
#include "micro/core/access_log/record.hpp"
#include "micro/core/access_log/tsv.hpp"
#include "micro/core/access_log/unescape.hpp"

namespace gatebench::access_log {

inline BatchResult parse(Format format, std::string_view buffer, std::span<AccessLogRecord> records,
                         std::span<AccessLogError> errors) {
  switch (format) {
    case Format::tsv:
      return parse_tsv(buffer, records, errors);
    case Format::combined:
      return parse_combined(buffer, records, errors);
    case Format::jsonl:
      return parse_jsonl(buffer, records, errors);
  }
  return {};
}

}  // namespace gatebench::access_log
