// Registration of the benchmarks over --input files, one function per hot path, each defined in
// that hot path's *_bench.cpp so the input cases run the same code as the seeded ones. Called
// from main before benchmark::Initialize; each takes ownership of its loaded input.
#pragma once

#include <memory>
#include <vector>

#include "micro/bench/input_access_log.hpp"
#include "micro/bench/input_tokens.hpp"
#include "micro/core/cidr/prefix.hpp"
#include "micro/core/rules/set.hpp"

namespace gatebench::bench {

// access_log/<impl>/<format>_input
void register_access_log_input(AccessLogInput input);

// cidr/<impl>/input
void register_cidr_input(std::vector<cidr::CidrEntry> entries);

// rules/<impl>/input/<seeded traffic> when rule_set is given; rules/<impl>/<seeded set>/input
// when traffic_input (traffic("input") is set, bench_traffic.hpp); rules/<impl>/input/input
// with both.
void register_rules_inputs(std::unique_ptr<rules::RuleSet> rule_set, bool traffic_input);

// token/<impl>/{admission,pass}_input and jwt/<impl>/hs256_input, for the kinds the file has.
void register_token_input(std::unique_ptr<TokenCorpus> corpus);

// exploit/<impl>/input and rules/modsecurity/crs/input over traffic("input").
void register_exploit_input();
void register_modsecurity_input();

}  // namespace gatebench::bench
