#include "macro/driver/results/load_json.hpp"

#include <nlohmann/json.hpp>

#include "macro/common/json_field.hpp"
#include "macro/common/usage_error.hpp"

namespace gatebench::macro {

using nlohmann::json;

namespace {

using common::JsonField;

// Fields the generator may leave out (a run without responses has no percentiles).
std::optional<double> optional_at(const JsonField& object, const char* key) {
  const JsonField field = object.child(key);
  if (!field.present() || !field.json().is_number()) return std::nullopt;
  return field.json().get<double>();
}

uint64_t error_statuses(const json& status) {
  uint64_t n = 0;
  if (!status.is_object()) return 0;
  for (const auto& [code, count] : status.items()) {
    if (count.is_number_unsigned() && std::atoi(code.c_str()) >= 400) n += count.get<uint64_t>();
  }
  return n;
}

// HTTP/2 runs (gatebench-load --h2): streams reset by the server, GOAWAY frames and refused
// requests sent again, as counts, which macro.json adds up over rounds with the others.
void read_h2(const JsonField& root, LoadResult& r) {
  const JsonField h2 = root.child("h2");
  if (!h2.present() || !h2.json().is_object()) return;
  auto total = [&](const char* key) {
    double n = 0;
    const JsonField f = h2.child(key);
    if (f.present() && f.json().is_object())
      for (const auto& [code, count] : f.json().items())
        if (count.is_number()) n += count.get<double>();
    return n;
  };
  r.counts["h2_rst_stream"] = total("rst_stream");
  r.counts["h2_goaway"] = total("goaway");
  if (auto retried = optional_at(h2, "retried")) r.counts["h2_retried"] = *retried;
  if (auto stream_errors = optional_at(root.child("errors"), "stream"))
    r.counts["h2_stream_errors"] = *stream_errors;
}

LoadResult read_load_json(const json& j, const std::string& source, std::string* invalid_reasons) {
  const JsonField root(j, source);
  if (!j.is_object() || j.value("schema", "") != "gatebench.load/1") {
    root.child("schema").fail("expected gatebench.load/1");
  }
  LoadResult r;
  r.rps = root.child("requests_per_s").number();
  r.duration_s = root.child("elapsed_s").number();
  r.requests = static_cast<uint64_t>(root.child("requests").number());
  const JsonField lat = root.child("latency_us");
  r.p50_us = optional_at(lat, "p50");
  r.p90_us = optional_at(lat, "p90");
  r.p99_us = optional_at(lat, "p99");
  r.p999_us = optional_at(lat, "p999");
  r.mean_us = optional_at(lat, "mean");
  if (root.has("errors"))
    r.errors = static_cast<uint64_t>(root.child("errors").child("total").number());
  if (j.contains("templates") && j["templates"].is_array()) {
    for (const auto& t : j["templates"]) {
      const std::string name = t.value("name", "request");
      uint64_t unexpected = t.value("unexpected", uint64_t{0});
      uint64_t as_expected = t.value("as_expected", uint64_t{0});
      if (!t.contains("expect_status") || t["expect_status"].is_null()) {
        uint64_t bad = t.contains("status") ? error_statuses(t["status"]) : 0;
        unexpected += bad;
        as_expected -= std::min(as_expected, bad);
      }
      r.errors += unexpected;
      r.counts[name + ".as_expected"] = static_cast<double>(as_expected);
      r.counts[name + ".unexpected"] = static_cast<double>(unexpected);
    }
  }
  const JsonField handshakes = root.child("handshakes");
  if (auto per_s = optional_at(handshakes, "per_s")) r.counts["handshakes_per_s"] = *per_s;
  const auto full = optional_at(handshakes, "full"), resumed = optional_at(handshakes, "resumed");
  if (full && resumed && *full >= 0 && *resumed >= 0) {
    r.handshakes_full = static_cast<uint64_t>(*full);
    r.handshakes_resumed = static_cast<uint64_t>(*resumed);
    r.counts["handshakes_full"] = *full;
    r.counts["handshakes_resumed"] = *resumed;
  }
  const JsonField config = root.child("config");
  if (auto threads = optional_at(config, "threads"); threads && *threads >= 1)
    r.threads = static_cast<int>(*threads);
  if (config.has("mode") && config.child("mode").json().is_string())
    r.closed_loop = config.child("mode").json().get<std::string>() != "open";
  if (config.has("close") && config.child("close").json().is_boolean())
    r.new_connections = config.child("close").json().get<bool>();
  if (auto opened = optional_at(root, "connections_opened"))
    r.counts["connections_opened"] = *opened;
  if (auto missed = optional_at(root, "missed")) r.counts["missed"] = *missed;
  read_h2(root, r);
  if (const JsonField counted = root.child("header_counts");
      counted.present() && counted.json().is_object()) {
    for (const std::string& name : counted.keys()) {
      const JsonField values = counted.child(name);
      values.expect_object();
      for (const std::string& value : values.keys())
        r.header_counts[name][value] = static_cast<uint64_t>(values.child(value).number(0, 1e18));
    }
  }
  if (auto offered = optional_at(root, "offered_rate")) r.counts["offered_rate"] = *offered;
  if (j.contains("window") && j["window"].is_object()) {
    const json& w = j["window"];
    if (w.contains("start_ns") && w["start_ns"].is_number_unsigned() && w.contains("end_ns") &&
        w["end_ns"].is_number_unsigned() &&
        w["end_ns"].get<uint64_t>() >= w["start_ns"].get<uint64_t>()) {
      r.window_start_ns = w["start_ns"].get<uint64_t>();
      r.window_end_ns = w["end_ns"].get<uint64_t>();
    }
  }
  if (j.contains("series") && j["series"].is_array()) {
    for (std::size_t i = 0; i < j["series"].size(); ++i) {
      const JsonField sec = root.child("series").at(i);
      r.per_second.push_back({sec.child("t").number(), sec.child("rps").number(),
                              optional_at(sec, "p99_us"), optional_at(sec, "errors").value_or(0)});
    }
  }
  if (j.contains("valid") && j["valid"].is_boolean() && !j["valid"].get<bool>()) {
    r.counts["invalid"] = 1;
    if (invalid_reasons != nullptr && j.contains("invalid_reasons") &&
        j["invalid_reasons"].is_array()) {
      for (const auto& reason : j["invalid_reasons"]) {
        if (!reason.is_string()) continue;
        if (!invalid_reasons->empty()) *invalid_reasons += "; ";
        *invalid_reasons += reason.get<std::string>();
      }
    }
  }
  return r;
}

}  // namespace

LoadResult parse_load_json(const std::string& text, const std::string& source,
                           std::string* invalid_reasons) {
  // Output of the load generator, not the user's input: a scenario failure, not exit 2.
  try {
    return read_load_json(common::parse_json_text(text, source), source, invalid_reasons);
  } catch (const common::UsageError& e) {
    throw LoadParseError(e.what());
  }
}

}  // namespace gatebench::macro
