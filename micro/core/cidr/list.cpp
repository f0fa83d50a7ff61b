#include "micro/core/cidr/list.hpp"

#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

#include "micro/core/cidr/ipv4.hpp"

namespace gatebench::cidr {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_upper(char c) {
  return c >= 'A' && c <= 'Z';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view next_token(std::string_view& rest) {
  rest = trim(rest);
  std::size_t n = 0;
  while (n < rest.size() && !is_space(rest[n])) ++n;
  const std::string_view token = rest.substr(0, n);
  rest.remove_prefix(n);
  return token;
}

constexpr const char* kSpacedRange =
    "spaces are not allowed around '-' in a range (write a.b.c.d-e.f.g.h)";

std::string quoted(std::string_view s) {
  return "'" + std::string(s) + "'";
}

// One line's worth of parsing; reports through the callbacks of the list parser below.
class LineParser {
 public:
  LineParser(CidrListParse& out, CidrValue default_value)
      : out_(out), default_value_(default_value) {}

  void parse(std::size_t line, std::string_view text) {
    line_ = line;
    if (const auto hash = text.find('#'); hash != std::string_view::npos)
      text = text.substr(0, hash);
    std::string_view rest = text;
    const std::string_view spec = next_token(rest);
    if (spec.empty()) return;
    const std::string_view value_text = next_token(rest);
    if (!value_text.empty() && value_text.front() == '-') return error(kSpacedRange);
    const std::string_view extra = next_token(rest);
    if (!extra.empty()) return error("unexpected text " + quoted(extra) + " after the value");
    CidrValue value = default_value_;
    if (!value_text.empty() && !parse_value(value_text, value)) return;
    parse_spec(spec, value);
  }

 private:
  void error(std::string message) { out_.errors.push_back({line_, std::move(message)}); }
  void warning(std::string message) { out_.warnings.push_back({line_, std::move(message)}); }

  bool parse_value(std::string_view text, CidrValue& value) {
    if (text.size() == 2 && is_upper(text[0]) && (is_upper(text[1]) || is_digit(text[1]))) {
      value = pack_country(text[0], text[1]);
      return true;
    }
    std::uint64_t n = 0;
    bool digits = true;
    for (const char c : text) {
      if (!is_digit(c) || n > 0xFFFFFFFFull) {
        digits = false;
        break;
      }
      n = n * 10 + static_cast<unsigned>(c - '0');
    }
    if (!digits || n > 0xFFFFFFFFull) {
      error(
          "bad value " + quoted(text) +
          " (expected a decimal number below 4294967295 or a two-character country code like US)");
      return false;
    }
    if (n == kNoMatch) {
      error("value 4294967295 is reserved for 'no match'");
      return false;
    }
    value = static_cast<CidrValue>(n);
    return true;
  }

  bool parse_address(std::string_view text, std::string_view spec, std::uint32_t& address) {
    const Ipv4ParseResult r = parse_ipv4(text);
    if (!r) {
      error(std::string(describe(r.error)) + " in " + quoted(spec));
      return false;
    }
    address = r.address;
    return true;
  }

  void parse_spec(std::string_view spec, CidrValue value) {
    if (const auto slash = spec.find('/'); slash != std::string_view::npos) {
      std::uint32_t address = 0;
      if (!parse_address(spec.substr(0, slash), spec, address)) return;
      const std::string_view length_text = spec.substr(slash + 1);
      if (length_text.empty()) return error("missing prefix length after '/' in " + quoted(spec));
      unsigned length = 0;
      for (const char c : length_text) {
        if (!is_digit(c)) return error("bad prefix length in " + quoted(spec));
        if (length <= 32) length = length * 10 + static_cast<unsigned>(c - '0');
      }
      if (length > 32) {
        return error("prefix length " + std::string(length_text) + " over 32 in " + quoted(spec));
      }
      const std::uint32_t normalised = address & prefix_mask(length);
      const Ipv4Prefix prefix{normalised, static_cast<std::uint8_t>(length)};
      if (normalised != address) {
        warning("host bits set in " + quoted(spec) + ", using " + format_ipv4(normalised) + "/" +
                std::to_string(length));
      }
      return add(prefix, value);
    }
    if (const auto dash = spec.find('-'); dash != std::string_view::npos) {
      if (dash + 1 == spec.size()) {
        return error(kSpacedRange);
      }
      std::uint32_t first = 0, last = 0;
      if (!parse_address(spec.substr(0, dash), spec, first)) return;
      if (!parse_address(spec.substr(dash + 1), spec, last)) return;
      if (first > last) return error("range start after range end in " + quoted(spec));
      prefixes_.clear();
      append_range_prefixes(first, last, prefixes_);
      for (const Ipv4Prefix& p : prefixes_) add(p, value);
      return;
    }
    std::uint32_t address = 0;
    if (!parse_address(spec, spec, address)) return;
    add({address, 32}, value);
  }

  void add(Ipv4Prefix prefix, CidrValue value) {
    const std::uint64_t key = (std::uint64_t{prefix.address} << 6) | prefix.length;
    const auto [it, inserted] = seen_.try_emplace(key, Seen{line_, value});
    if (!inserted) {
      const std::string text = format_ipv4(prefix.address) + "/" + std::to_string(prefix.length);
      if (it->second.value == value) {
        warning(text + " duplicates line " + std::to_string(it->second.line));
      } else {
        warning(text + " also at line " + std::to_string(it->second.line) +
                " with another value; this line's value wins");
      }
      it->second = Seen{line_, value};
    }
    out_.entries.push_back({prefix, value});
  }

  struct Seen {
    std::size_t line;
    CidrValue value;
  };

  CidrListParse& out_;
  const CidrValue default_value_;
  std::size_t line_ = 0;
  std::unordered_map<std::uint64_t, Seen> seen_;
  std::vector<Ipv4Prefix> prefixes_;
};

}  // namespace

CidrListParse parse_cidr_list(std::string_view text, CidrValue default_value) {
  if (default_value == kNoMatch) {
    throw std::invalid_argument("parse_cidr_list: the default value cannot be kNoMatch");
  }
  CidrListParse out;
  LineParser parser(out, default_value);
  std::size_t line = 0;
  while (!text.empty()) {
    ++line;
    const auto newline = text.find('\n');
    std::string_view current = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (!current.empty() && current.back() == '\r') current.remove_suffix(1);
    parser.parse(line, current);
  }
  return out;
}

std::string format_diagnostic(std::string_view source, const CidrDiagnostic& diagnostic) {
  return std::string(source) + ":" + std::to_string(diagnostic.line) + ": " + diagnostic.message;
}

namespace {
std::string summarise(const std::string& source, const std::vector<CidrDiagnostic>& errors) {
  constexpr std::size_t kShown = 5;
  std::string text;
  for (std::size_t i = 0; i < errors.size() && i < kShown; ++i) {
    if (i != 0) text += "\n";
    text += format_diagnostic(source, errors[i]);
  }
  if (errors.size() > kShown) {
    text += "\n" + source + ": " + std::to_string(errors.size() - kShown) + " more errors";
  }
  return text;
}
}  // namespace

CidrListError::CidrListError(std::string source, std::vector<CidrDiagnostic> errors)
    : std::runtime_error(summarise(source, errors)),
      source_(std::move(source)),
      errors_(std::move(errors)) {}

}  // namespace gatebench::cidr
