#include "macro/common/macro_instructions.hpp"

#include <filesystem>

#include "macro/common/json_field.hpp"

namespace gatebench::common {

using nlohmann::json;

namespace {

json optional_number(const std::optional<double>& v) {
  return v ? json(*v) : json(nullptr);
}

json run_json(const MacroCountRun& r) {
  json out = {{"requests", r.requests},
              {"instructions", r.instructions},
              // The first file under its old name: readers from before process trees read it.
              {"callgrind_file", r.callgrind_files.empty() ? "" : r.callgrind_files.front()},
              {"callgrind_files", r.callgrind_files}};
  if (r.syscalls) out["syscalls"] = *r.syscalls;
  if (r.wait_syscalls) out["wait_syscalls"] = *r.wait_syscalls;
  if (!r.syscalls_by_name.empty()) out["syscalls_by_name"] = r.syscalls_by_name;
  return out;
}

std::string resolved(const std::string& path, const std::string& file) {
  if (path.empty() || !std::filesystem::path(path).is_relative()) return path;
  return (std::filesystem::path(file).parent_path() / path).string();
}

MacroCountRun parse_run(const JsonField& r) {
  MacroCountRun out;
  out.requests = static_cast<uint64_t>(r.child("requests").integer(1, 1'000'000'000'000));
  out.instructions = r.has("instructions") ? r.child("instructions").number(0, 1e18) : 0;
  if (r.has("callgrind_files")) {
    for (const auto& f : r.child("callgrind_files").strings())
      out.callgrind_files.push_back(resolved(f, r.file()));
  } else if (auto f = r.child("callgrind_file").optional_string(); f && !f->empty()) {
    out.callgrind_files.push_back(resolved(*f, r.file()));
  }
  auto count = [&](const char* key) -> std::optional<uint64_t> {
    if (!r.has(key) || r.child(key).is_null()) return std::nullopt;
    return static_cast<uint64_t>(r.child(key).integer(0, 1'000'000'000'000'000));
  };
  out.syscalls = count("syscalls");
  out.wait_syscalls = count("wait_syscalls");
  if (r.has("syscalls_by_name")) {
    const JsonField names = r.child("syscalls_by_name");
    names.expect_object();
    for (const auto& key : names.keys())
      out.syscalls_by_name[key] =
          static_cast<uint64_t>(names.child(key).integer(0, 1'000'000'000'000'000));
  }
  return out;
}

}  // namespace

const MacroScenarioCount* MacroCountFile::find(const std::string& name) const {
  for (const auto& s : scenarios)
    if (s.name == name) return &s;
  return nullptr;
}

std::optional<double> per_request_difference(std::optional<double> earlier,
                                             std::optional<double> later, uint64_t requests_earlier,
                                             uint64_t requests_later) {
  if (!earlier || !later || requests_later <= requests_earlier) return std::nullopt;
  return (*later - *earlier) / static_cast<double>(requests_later - requests_earlier);
}

json to_json(const MacroCountFile& file) {
  json list = json::array();
  for (const auto& s : file.scenarios) {
    json runs = json::array();
    for (const auto& r : s.runs) runs.push_back(run_json(r));
    const bool ok = s.status == "ok";
    list.push_back(
        {{"name", s.name},
         {"status", s.status},
         {"reason", s.reason},
         {"method", s.method},
         {"runs", runs},
         {"instructions_per_request", ok ? optional_number(s.instructions_per_request) : nullptr},
         {"syscalls_per_request", ok ? optional_number(s.syscalls_per_request) : nullptr},
         {"wait_syscalls_per_request",
          ok ? optional_number(s.wait_syscalls_per_request) : nullptr}});
  }
  return {{"schema", kMacroInstructionsSchema},
          {"env", file.env},
          {"method", file.method},
          {"interrupted", file.interrupted},
          {"scenarios", list}};
}

MacroCountFile parse_macro_count(const json& doc, const std::string& file) {
  const JsonField root(doc, file);
  root.expect_object();
  const std::string schema = root.child("schema").string();
  if (schema != kMacroInstructionsSchema)
    root.child("schema").fail(std::string("expected ") + kMacroInstructionsSchema + ", got '" +
                              schema + "'");
  MacroCountFile out;
  if (root.has("env")) out.env = root.child("env").json();
  if (root.has("method")) out.method = root.child("method").json();
  out.interrupted = root.boolean_or("interrupted", false);
  const JsonField list = root.child("scenarios");
  list.expect_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const JsonField s = list.at(i);
    s.expect_object();
    MacroScenarioCount c;
    c.name = s.child("name").string();
    c.status = s.child("status").string();
    c.reason = s.child("reason").optional_string().value_or("");
    c.method = s.child("method").optional_string().value_or("");
    if (c.status == "ok") {
      c.instructions_per_request = s.child("instructions_per_request").number(0, 1e12);
      c.syscalls_per_request = s.child("syscalls_per_request").optional_number();
      c.wait_syscalls_per_request = s.child("wait_syscalls_per_request").optional_number();
    }
    if (s.has("runs")) {
      const JsonField runs = s.child("runs");
      runs.expect_array();
      for (std::size_t k = 0; k < runs.size(); ++k) c.runs.push_back(parse_run(runs.at(k)));
    }
    out.scenarios.push_back(std::move(c));
  }
  return out;
}

}  // namespace gatebench::common
