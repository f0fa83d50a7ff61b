// IPv4 CIDR matching, the whole public API in one include: prefixes and values
// (cidr_prefix.hpp), the list text format (cidr_list.hpp) and the compiled table
// (cidr_table.hpp). docs/cidr.md describes the format, semantics and layout.
#pragma once

#include "micro/core/cidr_list.hpp"
#include "micro/core/cidr_prefix.hpp"
#include "micro/core/cidr_table.hpp"
#include "micro/core/ipv4.hpp"
