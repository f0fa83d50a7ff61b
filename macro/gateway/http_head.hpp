// The gateway's names for gatecore's HTTP/1 parsers (micro/core/http1, docs/http1.md): the
// request-head, response-head and chunked-body rules live there, shared with the load generator
// and measured in gatebench-micro; the gateway's code keeps calling them by these names.
#pragma once

#include "micro/core/http1/chunked.hpp"
#include "micro/core/http1/message.hpp"
#include "micro/core/http1/request_head.hpp"
#include "micro/core/http1/response_head.hpp"

namespace gatebench::gateway {

using http1::BodyKind;
using http1::HeaderLine;
using http1::HeadFields;
using http1::HeadStatus;
using http1::iequals_lower;
using http1::kMaxHeaderFields;
using http1::KnownHeader;
using http1::parse_request_head;
using http1::parse_response_head;
using http1::RequestHead;
using http1::ResponseHead;
// The proxy forwards chunked bodies as they are, so for it the decoder only finds their end.
using ChunkedScanner = http1::ChunkedDecoder;

}  // namespace gatebench::gateway
