// JSON lines: one object per line with the fields of the tsv record under fixed keys, in any
// order (docs/access-log.md).
#pragma once

#include <span>
#include <string_view>

#include "micro/core/access_log/record.hpp"

namespace gatebench::access_log {

// Same contract as parse_tsv. String values are views of the raw bytes between the quotes
// (escape sequences left in place and flagged in AccessLogRecord::escaped); null stands for
// empty / absent. Keys the format does not define are skipped when their value is a scalar.
BatchResult parse_jsonl(std::string_view buffer, std::span<AccessLogRecord> records,
                        std::span<AccessLogError> errors);

}  // namespace gatebench::access_log
