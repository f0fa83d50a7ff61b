// A rule file (--input rules=FILE, docs/rules.md's JSON) and a traffic file (--input
// traffic=FILE, one request per line as JSON, docs/micro-input.md), loaded with gatecore's rule
// loader and IPv4 parser.
#pragma once

#include "fixtures/traffic.hpp"
#include "micro/bench/input_options.hpp"
#include "micro/core/rules/set.hpp"

namespace gatebench::bench {

// Throws InputError with the loader's message (the file, then the rule and field).
rules::RuleSet load_rules_input(const InputFile& file);

// Throws InputError "FILE:LINE: what" at the first bad request line.
fixtures::Traffic load_traffic_input(const InputFile& file);

}  // namespace gatebench::bench
