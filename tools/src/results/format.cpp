#include "tools/src/results/format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace gatebench::tools {

std::string fmt_fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

namespace {

// Thousands separators on the integer part make req/s columns readable.
std::string group_thousands(const std::string& s) {
  const std::size_t start = s[0] == '-' ? 1 : 0;
  std::size_t end = s.find('.');
  if (end == std::string::npos) end = s.size();
  std::string out = s.substr(0, start);
  for (std::size_t i = start; i < end; ++i) {
    if (i > start && (end - i) % 3 == 0) out += ',';
    out += s[i];
  }
  out += s.substr(end);
  return out;
}

}  // namespace

std::string fmt_sig(double v, int significant) {
  if (v == 0.0 || !std::isfinite(v)) return fmt_fixed(v, 0);
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  const int decimals = std::max(0, significant - 1 - magnitude);
  return group_thousands(fmt_fixed(v, decimals));
}

std::string fmt_count(double v) {
  return group_thousands(fmt_fixed(std::round(v), 0));
}

std::string fmt_time_ns(double ns) {
  if (ns < 1e3) return fmt_sig(ns) + " ns";
  if (ns < 1e6) return fmt_sig(ns / 1e3) + " µs";
  if (ns < 1e9) return fmt_sig(ns / 1e6) + " ms";
  return fmt_sig(ns / 1e9) + " s";
}

std::string fmt_percent(double fraction, bool sign) {
  char buf[64];
  std::snprintf(buf, sizeof buf, sign ? "%+.1f%%" : "%.1f%%", fraction * 100.0);
  return buf;
}

std::string fmt_rate(double per_second) {
  if (per_second >= 1e9) return fmt_sig(per_second / 1e9) + " G/s";
  if (per_second >= 1e6) return fmt_sig(per_second / 1e6) + " M/s";
  if (per_second >= 1e3) return fmt_sig(per_second / 1e3) + " k/s";
  return fmt_sig(per_second) + " /s";
}

std::string fmt_opt(const std::optional<double>& v, int decimals, const char* missing) {
  return v ? fmt_fixed(*v, decimals) : std::string(missing);
}

std::string html_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

namespace {

std::string md_table_text(const std::string& s, bool escape_backticks) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '|' || (escape_backticks && c == '`')) out += '\\';
    out += c == '\n' || c == '\r' ? ' ' : c;
  }
  return out;
}

}  // namespace

std::string md_cell(const std::string& s) {
  return md_table_text(s, true);
}

std::string md_code_cell(const std::string& s) {
  std::size_t longest = 0, run = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  // A space inside the fence keeps a leading or trailing backtick of `s` out of the fence.
  const bool pad = !s.empty() && (s.front() == '`' || s.back() == '`');
  const std::string body = md_table_text(s, false);
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace gatebench::tools
