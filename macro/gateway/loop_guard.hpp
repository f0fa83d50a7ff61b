// Loop detection (docs/gateway.md, "Loop detection"): how many gateways a request has passed,
// from the hop header this gateway adds (X-Gatebench-Hops) and the Via entries that name it, and
// the lines that state the next hop to the upstream. A proxy whose upstream leads back to itself
// then stops at a fixed depth instead of exhausting connections.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "macro/gateway/http_head.hpp"

namespace gatebench::gateway {

inline constexpr std::string_view kHopHeader = "x-gatebench-hops";

// The hops already taken: the largest of the hop header's value and the number of Via entries
// whose received-by is `via_name` (ASCII case-insensitive). nullopt when a hop header is not 1-3
// digits or appears twice (the request is refused rather than guessed at).
std::optional<std::uint32_t> count_hops(const RequestHead& req, std::string_view head,
                                        std::string_view via_name);

// "X-Gatebench-Hops: <hops>\r\nVia: 1.1 <via_name>\r\n" into `out`; the view is empty when it
// does not fit. The extra Via line is how RFC 9110 (7.6.3) appends to a Via list.
std::string_view hop_lines(std::uint32_t hops, std::string_view via_name, std::span<char> out);

}  // namespace gatebench::gateway
