// Response caching, the whole public API in one include: the request key and its hash (key.hpp),
// HTTP dates (http_date.hpp), Cache-Control directives (cache_control.hpp), the freshness
// decision (freshness.hpp), the bytes of a stored response (entry.hpp) and the bounded per-worker
// store (store.hpp). docs/cache.md describes the rules, the store and the measurements.
#pragma once

#include "micro/core/cache/cache_control.hpp"
#include "micro/core/cache/entry.hpp"
#include "micro/core/cache/freshness.hpp"
#include "micro/core/cache/http_date.hpp"
#include "micro/core/cache/key.hpp"
#include "micro/core/cache/store.hpp"
