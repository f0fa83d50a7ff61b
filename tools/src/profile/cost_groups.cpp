#include "tools/src/profile/cost_groups.hpp"

#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <stdexcept>

#include "tools/src/profile/callgrind_file.hpp"

namespace gatebench::tools {

namespace {

bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

bool starts_with_any(std::string_view s, std::initializer_list<std::string_view> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](std::string_view p) { return s.starts_with(p); });
}

// glibc names its variants __memcpy_avx_unaligned_erms, __strlen_avx2, ...
bool is_copying(std::string_view fn) {
  while (fn.starts_with('_')) fn.remove_prefix(1);
  return starts_with_any(fn, {"memcpy", "memmove", "mempcpy", "memset", "memcmp", "memchr",
                              "rawmemchr", "strlen", "strnlen", "strcpy", "stpcpy", "strncpy",
                              "strcmp", "strncmp", "strchr", "strrchr", "strcasecmp", "wmem"});
}

bool is_allocation(std::string_view fn) {
  return starts_with_any(
      fn, {"malloc", "free", "calloc", "realloc", "cfree", "_int_malloc", "_int_free",
           "_int_realloc", "malloc_consolidate", "unlink_chunk", "tcache_", "sysmalloc",
           "__libc_malloc", "__libc_free", "operator new", "operator delete"});
}

std::string base_name(const std::string& object) {
  return std::filesystem::path(object).filename().string();
}

}  // namespace

// "ns::f(args) const" -> "ns::f": parameter types name other namespaces (a writer taking an
// http1::ResponseHead is no parser). "(anonymous namespace)" is part of the name.
std::string_view without_parameters(std::string_view fn) {
  static constexpr std::string_view kAnonymous = "(anonymous namespace)";
  for (std::size_t at = fn.find('('); at != std::string_view::npos; at = fn.find('(', at + 1)) {
    if (fn.substr(at, kAnonymous.size()) == kAnonymous) continue;
    if (at > 0) return fn.substr(0, at);
    break;
  }
  return fn;
}

std::string key_of(const FunctionDelta& f) {
  return f.object + "\n" + f.function;
}

std::string_view cost_group(std::string_view object, std::string_view signature) {
  const std::string_view function = without_parameters(signature);
  if (contains(object, "libssl") || contains(object, "libcrypto")) return "OpenSSL";
  if (contains(function, "access_log::") || contains(function, "AccessLogSink")) return "logging";
  if (starts_with_any(function, {"gatebench::cidr::", "gatebench::rules::", "gatebench::tokens::",
                                 "gatebench::cache::"}))
    return "hot path";
  if (contains(function, "gatebench::http1::") || contains(function, "parse") ||
      contains(function, "from_chars"))
    return "parsing";
  if (is_allocation(function)) return "allocation";
  const bool libc = contains(object, "libc.so") || contains(object, "ld-linux") ||
                    contains(object, "vdso") || contains(object, "vgpreload");
  if (libc && is_copying(function)) return "copying";
  if (libc) return "libc/syscalls";
  if (contains(function, "gatebench::")) return "gateway";
  return "other";
}

std::vector<FunctionDelta> per_request_functions(const ScenarioInstructionCount& s) {
  if (s.runs.size() != 2 || s.runs[0].callgrind_files.empty() || s.runs[1].callgrind_files.empty())
    throw std::runtime_error(s.name + ": instructions.json has no two callgrind files");
  const double n =
      static_cast<double>(s.runs[1].requests) - static_cast<double>(s.runs[0].requests);
  if (n <= 0) throw std::runtime_error(s.name + ": the second run has no more requests");
  std::map<std::string, std::size_t> index;
  std::vector<FunctionDelta> out;
  for (int run = 0; run < 2; ++run) {
    const double sign = run == 0 ? -1.0 : 1.0;
    // A process tree's files add up: the same function in two processes is one row.
    for (const auto& file : s.runs[static_cast<std::size_t>(run)].callgrind_files) {
      for (const auto& c : callgrind_self_costs(file)) {
        FunctionDelta f{base_name(c.object), c.function, cost_group(c.object, c.function), 0};
        const auto [it, fresh] = index.emplace(key_of(f), out.size());
        if (fresh) out.push_back(std::move(f));
        out[it->second].per_request += sign * c.self / n;
      }
    }
  }
  return out;
}

}  // namespace gatebench::tools
