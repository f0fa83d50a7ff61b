#include "macro/load/header_count.hpp"

#include "macro/common/usage_error.hpp"
#include "micro/core/http1/message.hpp"

namespace gatebench::load {

namespace {

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool is_token_char(char c) {
  return c > ' ' && c < 127 &&
         std::string_view("()<>@,;:\\\"/[]?={}").find(c) == std::string_view::npos;
}

}  // namespace

int HeaderCounts::slot(std::string_view value) {
  for (int i = 0; i < known_; ++i)
    if (values_[static_cast<std::size_t>(i)] == value) return i;
  if (known_ == kMaxValues) return kOther;
  values_[static_cast<std::size_t>(known_)] = value;
  return known_++;
}

std::uint64_t HeaderCounts::total() const {
  std::uint64_t n = 0;
  for (std::uint64_t c : counts_) n += c;
  return n;
}

void HeaderCounts::merge(const HeaderCounts& other) {
  for (int i = 0; i < other.known_; ++i) {
    if (other.count_of(i) == 0) continue;
    counts_[static_cast<std::size_t>(slot(other.value(i)))] += other.count_of(i);
  }
  counts_[kOther] += other.count_of(kOther);
  counts_[kAbsent] += other.count_of(kAbsent);
}

std::string_view trim_value(std::string_view value) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  return value;
}

std::optional<std::string_view> find_field(std::string_view head, std::string_view lower_name) {
  std::size_t pos = head.find("\r\n");
  while (pos != std::string_view::npos) {
    pos += 2;
    const std::size_t end = head.find("\r\n", pos);
    if (end == std::string_view::npos || end == pos) return std::nullopt;  // the empty line
    const std::string_view line = head.substr(pos, end - pos);
    if (line.size() > lower_name.size() && line[lower_name.size()] == ':' &&
        http1::iequals_lower(line.substr(0, lower_name.size()), lower_name)) {
      return trim_value(line.substr(lower_name.size() + 1));
    }
    pos = end;
  }
  return std::nullopt;
}

std::string count_header_name(std::string_view name) {
  if (name.empty()) throw common::UsageError("--count-header: expected a header name");
  std::string out;
  for (char c : name) {
    if (!is_token_char(c))
      throw common::UsageError("--count-header '" + std::string(name) +
                               "': invalid character in the header name");
    out += lower(c);
  }
  return out;
}

}  // namespace gatebench::load
