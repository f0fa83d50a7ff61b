// Number formatting shared by the Markdown, HTML and console outputs: fixed rules so golden files
// stay stable across libstdc++ versions (printf-based, never locale-dependent streams).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gatebench::tools {

std::string fmt_fixed(double v, int decimals);
std::string fmt_sig(double v, int significant = 3);  // 3 significant digits, thousands separated
std::string fmt_count(double v);                     // 522745 -> "522,745" (rounded)
std::string fmt_time_ns(double ns);                  // "12.3 ns", "4.56 µs", "1.20 ms"
std::string fmt_percent(double fraction, bool sign = true);  // 0.0523 -> "+5.2%"
std::string fmt_rate(double per_second);                     // "1.23 G/s", "456 k/s"
std::string fmt_opt(const std::optional<double>& v, int decimals, const char* missing = "–");
std::string html_escape(const std::string& s);
// Text for one Markdown table cell: '|' and '`' escaped, line breaks as spaces (a driver's reason
// or a benchmark name may hold any of them).
std::string md_cell(const std::string& s);
// The same text as a code span in a table cell: the fence is one backtick longer than the longest
// run of backticks in `s` (a backslash does not escape inside a code span), '|' still escaped.
std::string md_code_cell(const std::string& s);

// The items of a comma-separated option value ("a,b,,c" -> a, b, c: empty items dropped).
std::vector<std::string> split_list(const std::string& list);

}  // namespace gatebench::tools
