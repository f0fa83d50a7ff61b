// --count-header: how often each value of one response header came back, per thread and then
// merged. A cache under test says hit or miss in such a header (X-Cache-Status), and the share
// of hits is what the driver checks a cache scenario against (docs/load.md).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gatebench::load {

class HeaderCounts {
 public:
  // Distinct values kept by name; later ones are counted together as "(other)".
  static constexpr int kMaxValues = 16;
  static constexpr int kOther = kMaxValues;
  static constexpr int kAbsent = kMaxValues + 1;
  static constexpr int kSlots = kMaxValues + 2;

  // The slot of a (trimmed) value: found among the known ones, or added while fewer than
  // kMaxValues are known (the only copy of a value, made once per distinct value and thread),
  // or kOther.
  int slot(std::string_view value);
  void count(int slot) { counts_[static_cast<std::size_t>(slot)] += 1; }

  int values() const { return known_; }
  const std::string& value(int slot) const { return values_[static_cast<std::size_t>(slot)]; }
  std::uint64_t count_of(int slot) const { return counts_[static_cast<std::size_t>(slot)]; }
  std::uint64_t total() const;

  // Adds another thread's counts, value by value (its values may have come in another order).
  void merge(const HeaderCounts& other);

 private:
  std::array<std::string, kMaxValues> values_;
  std::array<std::uint64_t, kSlots> counts_{};
  int known_ = 0;
};

// OWS (spaces and tabs) removed from both ends.
std::string_view trim_value(std::string_view value);

// The value of the first field named `lower_name` (lower case) in an HTTP/1.1 head already
// validated by the parser (status line, CRLF-terminated fields, the empty line), trimmed;
// nothing when no field has that name.
std::optional<std::string_view> find_field(std::string_view head, std::string_view lower_name);

// A header name as --count-header takes it: a token, lower-cased (HTTP/2 sends names in lower
// case; HTTP/1.1 names are compared without case). Throws common::UsageError otherwise.
std::string count_header_name(std::string_view name);

}  // namespace gatebench::load
