// nginx's predefined `combined` log format (escape=default):
//   $remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent
//   "$http_referer" "$http_user_agent"
// Field by field in docs/access-log.md.
#pragma once

#include <span>
#include <string_view>

#include "micro/core/access_log/record.hpp"

namespace gatebench::access_log {

// Same contract as parse_tsv. Combined carries no host, scheme, durations, rule or action
// (empty / none / kAbsent); $remote_user and the protocol are validated but not kept; time has
// whole seconds only.
BatchResult parse_combined(std::string_view buffer, std::span<AccessLogRecord> records,
                           std::span<AccessLogError> errors);

}  // namespace gatebench::access_log
