#include "micro/core/rules/loader.hpp"

#include <re2/re2.h>

#include <charconv>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "micro/core/cidr/ipv4.hpp"
#include "micro/core/rules/request_ascii.hpp"

namespace gatebench::rules {
namespace {

using nlohmann::json;

constexpr std::uint32_t kMaxTableEntries = 1u << 26;

class Loader {
 public:
  explicit Loader(std::string_view source) : source_(source) {}

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw RuleLoadError(source_ + ": " + where + ": " + what);
  }

  static std::string describe(const json& j) {
    std::string s = j.dump();
    if (s.size() > 60) s = s.substr(0, 57) + "...";
    return s;
  }

  void expect_keys(const json& obj, const std::string& where,
                   std::initializer_list<std::string_view> allowed) const {
    for (const auto& [key, _] : obj.items()) {
      bool ok = false;
      for (std::string_view a : allowed) ok = ok || key == a;
      if (!ok) {
        std::string list;
        for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        fail(where, "unknown key \"" + key + "\" (expected one of: " + list + ")");
      }
    }
  }

  const std::string& get_string(const json& obj, const std::string& where, const char* key,
                                bool required) const {
    static const std::string kEmpty;
    auto it = obj.find(key);
    if (it == obj.end()) {
      if (required) fail(where, std::string("missing \"") + key + "\" (expected a string)");
      return kEmpty;
    }
    if (!it->is_string()) {
      fail(where + "." + key, "expected a string, got " + describe(*it));
    }
    return it->get_ref<const std::string&>();
  }

  bool get_bool(const json& obj, const std::string& where, const char* key) const {
    auto it = obj.find(key);
    if (it == obj.end()) return false;
    if (!it->is_boolean()) fail(where + "." + key, "expected true or false, got " + describe(*it));
    return it->get<bool>();
  }

  std::vector<std::string> get_string_array(const json& obj, const std::string& where,
                                            const char* key, bool non_empty) const {
    std::vector<std::string> out;
    auto it = obj.find(key);
    if (it == obj.end()) {
      if (non_empty)
        fail(where, std::string("missing \"") + key + "\" (expected an array of strings)");
      return out;
    }
    const std::string here = where + "." + key;
    if (!it->is_array()) fail(here, "expected an array of strings, got " + describe(*it));
    if (non_empty && it->empty()) fail(here, "expected at least one string");
    for (std::size_t i = 0; i < it->size(); ++i) {
      const json& e = (*it)[i];
      if (!e.is_string()) {
        fail(here + "[" + std::to_string(i) + "]", "expected a string, got " + describe(e));
      }
      out.push_back(e.get<std::string>());
    }
    return out;
  }

  RuleSet load(std::string_view text) {
    json root;
    try {
      root = json::parse(text.begin(), text.end());
    } catch (const json::exception& e) {  // parse_error, and out_of_range for huge numbers
      fail("(document)", std::string("invalid JSON: ") + e.what());
    }
    if (!root.is_object()) fail("(document)", "expected an object, got " + describe(root));
    expect_keys(root, "(document)", {"ip_lists", "exploit", "rate_limit", "rules"});
    RuleSet set;
    if (auto it = root.find("ip_lists"); it != root.end()) load_ip_lists(*it, set);
    if (auto it = root.find("exploit"); it != root.end()) load_exploit(*it, set);
    if (auto it = root.find("rate_limit"); it != root.end()) load_rate_limit(*it, set);
    auto rules = root.find("rules");
    if (rules == root.end()) fail("(document)", "missing \"rules\" (expected an array of rules)");
    if (!rules->is_array()) fail("rules", "expected an array of rules, got " + describe(*rules));
    std::set<std::string> ids;
    for (std::size_t i = 0; i < rules->size(); ++i) {
      set.rules.push_back(load_rule((*rules)[i], "rules[" + std::to_string(i) + "]", set));
      if (!ids.insert(set.rules.back().id).second) {
        fail("rules[" + std::to_string(i) + "].id",
             "expected a unique id, \"" + set.rules.back().id + "\" is used by an earlier rule");
      }
    }
    return set;
  }

 private:
  void load_ip_lists(const json& j, RuleSet& set) {
    if (!j.is_object()) fail("ip_lists", "expected an object of name -> array of CIDRs");
    for (const auto& [name, entries] : j.items()) {
      const std::string where = "ip_lists." + name;
      if (name.empty()) fail("ip_lists", "expected non-empty list names");
      if (!entries.is_array())
        fail(where, "expected an array of CIDR strings, got " + describe(entries));
      std::vector<cidr::Ipv4Prefix>& out = set.ip_lists[name];
      for (std::size_t i = 0; i < entries.size(); ++i) {
        const json& e = entries[i];
        const std::string here = where + "[" + std::to_string(i) + "]";
        cidr::Ipv4Prefix c;
        if (!e.is_string() || !parse_rule_cidr(e.get_ref<const std::string&>(), c)) {
          fail(here,
               "expected \"a.b.c.d\" or \"a.b.c.d/len\" with host bits clear, got " + describe(e));
        }
        out.push_back(c);
      }
    }
  }

  void load_exploit(const json& j, RuleSet& set) {
    if (!j.is_object()) fail("exploit", "expected an object like {\"mode\": \"block\"}");
    expect_keys(j, "exploit", {"mode", "headers"});
    set.exploit_headers = get_bool(j, "exploit", "headers");
    const std::string& mode = get_string(j, "exploit", "mode", true);
    if (mode == "off") {
      set.exploit_mode = ExploitMode::kOff;
    } else if (mode == "detect") {
      set.exploit_mode = ExploitMode::kDetect;
    } else if (mode == "block") {
      set.exploit_mode = ExploitMode::kBlock;
    } else {
      fail("exploit.mode", "expected one of off, detect, block; got \"" + mode + "\"");
    }
  }

  void load_rate_limit(const json& j, RuleSet& set) {
    if (!j.is_object())
      fail("rate_limit", "expected an object like {\"rate\": 100, \"burst\": 10}");
    expect_keys(j, "rate_limit", {"rate", "burst", "table_entries"});
    RateLimitConfig& rl = set.rate_limit;
    auto rate = j.find("rate");
    if (rate == j.end() || !rate->is_number() || !(rate->get<double>() > 0) ||
        !(rate->get<double>() <= 1e9)) {
      fail("rate_limit.rate", "expected a number of requests per second in (0, 1e9]");
    }
    rl.rate_per_second = rate->get<double>();
    auto burst = j.find("burst");
    if (burst != j.end()) {
      if (!burst->is_number_unsigned() || burst->get<std::uint64_t>() > 1000000000u) {
        fail("rate_limit.burst", "expected an integer in [0, 1e9], got " + describe(*burst));
      }
      rl.burst = burst->get<std::uint32_t>();
    }
    auto entries = j.find("table_entries");
    if (entries != j.end()) {
      if (!entries->is_number_unsigned() || entries->get<std::uint64_t>() == 0 ||
          entries->get<std::uint64_t>() > kMaxTableEntries) {
        fail("rate_limit.table_entries", "expected an integer in [1, " +
                                             std::to_string(kMaxTableEntries) + "], got " +
                                             describe(*entries));
      }
      rl.table_entries = entries->get<std::uint32_t>();
    }
    rl.enabled = true;
  }

  Rule load_rule(const json& j, const std::string& where, const RuleSet& set) {
    if (!j.is_object()) fail(where, "expected a rule object, got " + describe(j));
    expect_keys(j, where, {"id", "action", "hosts", "when"});
    Rule rule;
    rule.id = get_string(j, where, "id", true);
    if (rule.id.empty()) fail(where + ".id", "expected a non-empty string");
    const std::string& action = get_string(j, where, "action", true);
    if (action == "block") {
      rule.action = RuleAction::kBlock;
    } else if (action == "allow") {
      rule.action = RuleAction::kAllow;
    } else if (action == "challenge") {
      rule.action = RuleAction::kChallenge;
    } else if (action == "log") {
      rule.action = RuleAction::kLog;
    } else {
      fail(where + ".action",
           "expected one of block, allow, challenge, log; got \"" + action + "\"");
    }
    rule.hosts = get_string_array(j, where, "hosts", false);
    for (std::size_t i = 0; i < rule.hosts.size(); ++i) {
      std::string& h = rule.hosts[i];
      if (h.empty()) fail(where + ".hosts[" + std::to_string(i) + "]", "expected a non-empty host");
      for (char& c : h) c = lower_ascii(c);
    }
    auto when = j.find("when");
    if (when != j.end()) {
      if (!when->is_array())
        fail(where + ".when", "expected an array of conditions, got " + describe(*when));
      for (std::size_t i = 0; i < when->size(); ++i) {
        rule.conditions.push_back(
            load_condition((*when)[i], where + ".when[" + std::to_string(i) + "]", set));
      }
    }
    return rule;
  }

  RuleCondition load_condition(const json& j, const std::string& where, const RuleSet& set) {
    if (!j.is_object()) fail(where, "expected a condition object, got " + describe(j));
    expect_keys(
        j, where,
        {"field", "name", "op", "value", "values", "list", "negate", "case_insensitive", "match"});
    RuleCondition c;
    const std::string& field = get_string(j, where, "field", true);
    static const std::pair<const char*, RuleField> kFields[] = {
        {"method", RuleField::kMethod},      {"scheme", RuleField::kScheme},
        {"host", RuleField::kHost},          {"path", RuleField::kPath},
        {"query", RuleField::kQuery},        {"header", RuleField::kHeader},
        {"user_agent", RuleField::kHeader},  {"referer", RuleField::kHeader},
        {"client_ip", RuleField::kClientIp}, {"country", RuleField::kCountry},
        {"body", RuleField::kBody}};
    bool known = false;
    for (const auto& [name, f] : kFields) {
      if (field == name) {
        c.field = f;
        known = true;
      }
    }
    if (!known) {
      fail(where + ".field",
           "expected one of method, scheme, host, path, query, header, user_agent, referer, "
           "client_ip, country, body; got \"" +
               field + "\"");
    }
    if (field == "header") {
      c.header = get_string(j, where, "name", true);
      if (c.header.empty()) fail(where + ".name", "expected a non-empty header name");
      for (char& ch : c.header) {
        if (static_cast<unsigned char>(ch) <= ' ' || ch == ':' ||
            static_cast<unsigned char>(ch) >= 0x7f) {
          fail(where + ".name",
               "expected a header name (visible ASCII without ':'), got \"" + c.header + "\"");
        }
        ch = lower_ascii(ch);
      }
    } else {
      if (j.contains("name")) fail(where + ".name", "only allowed with \"field\": \"header\"");
      if (field == "user_agent") c.header = "user-agent";
      if (field == "referer") c.header = "referer";
    }
    const std::string& op = get_string(j, where, "op", true);
    static const std::pair<const char*, RuleOperator> kOps[] = {
        {"equals", RuleOperator::kEquals}, {"prefix", RuleOperator::kPrefix},
        {"suffix", RuleOperator::kSuffix}, {"contains", RuleOperator::kContains},
        {"regex", RuleOperator::kRegex},   {"in_list", RuleOperator::kInList},
        {"in_set", RuleOperator::kInSet}};
    known = false;
    for (const auto& [name, o] : kOps) {
      if (op == name) {
        c.op = o;
        known = true;
      }
    }
    if (!known) {
      fail(where + ".op",
           "expected one of equals, prefix, suffix, contains, regex, in_list, in_set; got \"" + op +
               "\"");
    }
    if ((c.field == RuleField::kClientIp) != (c.op == RuleOperator::kInList)) {
      fail(where + ".op", c.field == RuleField::kClientIp
                              ? "field client_ip expects op in_list, got \"" + op + "\""
                              : "op in_list expects field client_ip, got \"" + field + "\"");
    }
    c.negate = get_bool(j, where, "negate");
    c.case_insensitive = get_bool(j, where, "case_insensitive");
    if (j.contains("match")) {
      const std::string& match = get_string(j, where, "match", true);
      if (match == "raw") {
        c.raw = true;
      } else if (match != "normalized") {
        fail(where + ".match", "expected \"normalized\" or \"raw\", got \"" + match + "\"");
      }
      if (c.raw && c.field != RuleField::kPath && c.field != RuleField::kQuery &&
          c.field != RuleField::kBody) {
        fail(where + ".match", "\"raw\" only applies to path, query and body");
      }
    }
    switch (c.op) {
      case RuleOperator::kInList: {
        c.list = get_string(j, where, "list", true);
        if (!set.ip_lists.contains(c.list)) {
          fail(where + ".list",
               "expected the name of an entry of ip_lists, got \"" + c.list + "\"");
        }
        if (c.case_insensitive) fail(where + ".case_insensitive", "not allowed with in_list");
        if (j.contains("value") || j.contains("values")) {
          fail(where, "in_list takes \"list\", not \"value\"/\"values\"");
        }
        break;
      }
      case RuleOperator::kInSet: {
        c.values = get_string_array(j, where, "values", true);
        if (j.contains("value") || j.contains("list"))
          fail(where, "in_set takes \"values\", not \"value\"/\"list\"");
        break;
      }
      default: {
        c.value = get_string(j, where, "value", true);
        if (j.contains("values") || j.contains("list")) {
          fail(where, std::string(to_string(c.op)) + " takes \"value\", not \"values\"/\"list\"");
        }
        if (c.op == RuleOperator::kRegex) {
          RE2::Options options;
          options.set_log_errors(false);
          options.set_case_sensitive(!c.case_insensitive);
          RE2 re(c.value, options);
          if (!re.ok()) fail(where + ".value", "expected an RE2 regular expression: " + re.error());
        }
        break;
      }
    }
    return c;
  }

  std::string source_;
};

}  // namespace

bool parse_rule_cidr(std::string_view text, cidr::Ipv4Prefix& out) {
  const std::size_t slash = text.find('/');
  const cidr::Ipv4ParseResult addr = cidr::parse_ipv4(text.substr(0, slash));
  if (!addr) return false;
  unsigned len = 32;
  if (slash != std::string_view::npos) {
    const std::string_view digits = text.substr(slash + 1);
    if (digits.empty() || digits.size() > 2 || (digits.size() == 2 && digits[0] == '0'))
      return false;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), len);
    if (ec != std::errc() || ptr != digits.data() + digits.size() || len > 32) return false;
  }
  if ((addr.address & ~cidr::prefix_mask(len)) != 0) return false;
  out.address = addr.address;
  out.length = static_cast<std::uint8_t>(len);
  return true;
}

RuleSet load_rule_set(std::string_view json_text, std::string_view source) {
  return Loader(source).load(json_text);
}

RuleSet load_rule_set_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw RuleLoadError(path + ": cannot open rule file");
  std::ostringstream buf;
  buf << in.rdbuf();
  return load_rule_set(buf.str(), path);
}

}  // namespace gatebench::rules
