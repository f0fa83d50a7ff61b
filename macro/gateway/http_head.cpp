// http_head.hpp is only names for gatecore's HTTP/1 parsers; compiling it alone here keeps it
// self-contained (a missing include fails this file, not some other file of the gateway).
#include "macro/gateway/http_head.hpp"
