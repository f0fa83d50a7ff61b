// Rule loader fuzz target: any text either loads or throws RuleLoadError (nothing else escapes,
// no crash, no sanitizer report); a rule set that loads also compiles and evaluates a request.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "micro/core/rules/engine.hpp"
#include "micro/core/rules/loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gatebench::rules;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  RuleSet set;
  try {
    set = load_rule_set(text, "fuzz");
  } catch (const RuleLoadError&) {
    return 0;
  }
  // Loaded: compiling must not throw, and evaluation must be well defined.
  const CompiledRuleSet compiled(set);
  RuleEvaluator evaluator(compiled);
  static const std::vector<HeaderView> headers = {{"User-Agent", "fuzz/1.0"}, {"Referer", "x"}};
  RequestView request;
  request.method = "GET";
  request.scheme = "https";
  const std::string host =
      set.rules.empty() || set.rules[0].hosts.empty() ? std::string("a") : set.rules[0].hosts[0];
  request.host = host;
  request.path = "/admin/../x";
  request.query = "a=1&b='";
  request.headers = headers;
  request.client_ip = 0x0A000001;
  request.country = "US";
  const Verdict v = evaluator.evaluate(request, 0);
  if (!v.rate_limited && v.decision != decide(v.action, v.exploit, set.exploit_mode))
    __builtin_trap();
  return 0;
}
