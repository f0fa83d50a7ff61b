#include "macro/driver/load_json.hpp"

#include <nlohmann/json.hpp>

namespace gatebench::macro {

using nlohmann::json;

namespace {

double number_at(const json& object, const char* key, const std::string& source) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_number()) {
    throw LoadParseError(source + ": " + key + ": expected a number");
  }
  return object[key].get<double>();
}

std::optional<double> optional_at(const json& object, const char* key) {
  if (object.is_object() && object.contains(key) && object[key].is_number()) {
    return object[key].get<double>();
  }
  return std::nullopt;
}

uint64_t error_statuses(const json& status) {
  uint64_t n = 0;
  if (!status.is_object()) return 0;
  for (const auto& [code, count] : status.items()) {
    if (count.is_number_unsigned() && std::atoi(code.c_str()) >= 400) n += count.get<uint64_t>();
  }
  return n;
}

}  // namespace

LoadResult parse_load_json(const std::string& text, const std::string& source,
                           std::string* invalid_reasons) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw LoadParseError(source + ": not valid JSON: " + e.what());
  }
  if (!j.is_object() || j.value("schema", "") != "gatebench.load/1") {
    throw LoadParseError(source + ": schema: expected gatebench.load/1");
  }
  LoadResult r;
  r.rps = number_at(j, "requests_per_s", source);
  r.duration_s = number_at(j, "elapsed_s", source);
  r.requests = static_cast<uint64_t>(number_at(j, "requests", source));
  const json& lat = j.contains("latency_us") ? j["latency_us"] : json();
  r.p50_us = optional_at(lat, "p50");
  r.p90_us = optional_at(lat, "p90");
  r.p99_us = optional_at(lat, "p99");
  r.p999_us = optional_at(lat, "p999");
  r.mean_us = optional_at(lat, "mean");
  if (j.contains("errors"))
    r.errors = static_cast<uint64_t>(number_at(j["errors"], "total", source));
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
  if (auto handshakes =
          j.contains("handshakes") ? optional_at(j["handshakes"], "per_s") : std::nullopt) {
    r.counts["handshakes_per_s"] = *handshakes;
  }
  if (auto opened = optional_at(j, "connections_opened")) r.counts["connections_opened"] = *opened;
  if (auto missed = optional_at(j, "missed")) r.counts["missed"] = *missed;
  if (auto offered = optional_at(j, "offered_rate")) r.counts["offered_rate"] = *offered;
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
      const json& sec = j["series"][i];
      const std::string where = source + ": series/" + std::to_string(i);
      r.per_second.push_back({number_at(sec, "t", where), number_at(sec, "rps", where),
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

}  // namespace gatebench::macro
