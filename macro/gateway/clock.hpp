// Clocks of the request path: the monotonic one times requests and upstream exchanges, the wall
// one stamps access-log records and the policy's time-based checks.
#pragma once

#include <cstdint>

namespace gatebench::gateway {

std::int64_t mono_us();
std::int64_t wall_us();

}  // namespace gatebench::gateway
