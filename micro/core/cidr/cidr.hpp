// IPv4 CIDR matching, the whole public API in one include: prefixes and values
// (prefix.hpp), the list text format (list.hpp) and the compiled table
// (table.hpp). docs/cidr.md describes the format, semantics and layout.
#pragma once

#include "micro/core/cidr/ipv4.hpp"
#include "micro/core/cidr/list.hpp"
#include "micro/core/cidr/prefix.hpp"
#include "micro/core/cidr/table.hpp"
