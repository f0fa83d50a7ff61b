// What an epoll event's data.ptr points at: every registered object starts with a Pollable, so
// the loop dispatches on its kind without a lookup.
#pragma once

#include <cstdint>

namespace gatebench::gateway {

enum class Kind : std::uint8_t { kListener, kClient, kUpstream, kWake, kRedis };

struct Pollable {
  Kind kind;
};

}  // namespace gatebench::gateway
