#include "macro/gateway/control_stats.hpp"

#include <nlohmann/json.hpp>
#include <sstream>

#include "macro/gateway/access_log_sink.hpp"
#include "micro/core/access_log/tsv.hpp"

namespace gatebench::gateway {
namespace {

constexpr std::size_t kBatch = 256;

// Prometheus label values escape backslash, double quote and newline.
std::string label(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::pair<std::string_view, std::string_view> split_tab(std::string_view key) {
  std::size_t t = key.find('\t');
  return {key.substr(0, t), key.substr(t + 1)};
}

}  // namespace

ControlStats::ControlStats() : records_buf_(kBatch), errors_buf_(kBatch) {}

void ControlStats::ingest_datagram(std::string_view d) {
  ++datagrams_;
  DatagramHeader h;
  if (!parse_datagram_header(d, h)) {
    ++malformed_;
    return;
  }
  auto it = next_sequence_.find(h.worker);
  if (it == next_sequence_.end()) {
    lost_ += h.sequence;  // the datagrams before the first one seen never arrived
    next_sequence_.emplace(h.worker, h.sequence + 1);
  } else if (h.sequence >= it->second) {
    lost_ += h.sequence - it->second;
    it->second = h.sequence + 1;
  } else {
    ++reordered_;
    if (lost_ > 0) --lost_;  // counted as lost when the gap was seen
  }
  std::string_view body = d.substr(h.length);
  std::size_t parsed = 0;
  std::size_t errors = 0;
  while (!body.empty()) {
    access_log::BatchResult r = access_log::parse_tsv(body, records_buf_, errors_buf_);
    for (std::size_t i = 0; i < r.records; ++i) count(records_buf_[i]);
    parsed += r.records;
    errors += r.errors;
    if (r.consumed == 0) break;
    body.remove_prefix(r.consumed);
  }
  records_ += parsed;
  record_errors_ += errors;
  if (parsed + errors != h.records || errors > 0) ++malformed_;
}

void ControlStats::count(const access_log::AccessLogRecord& r) {
  key_.assign(r.host.empty() ? std::string_view("-") : r.host);
  auto hit = by_host_.find(std::string_view(key_));
  if (hit == by_host_.end()) {
    by_host_.emplace(key_, 1);
  } else {
    ++hit->second;
  }
  key_ += '\t';
  key_ += std::to_string(r.status);
  auto hs = by_host_status_.find(std::string_view(key_));
  if (hs == by_host_status_.end()) {
    by_host_status_.emplace(key_, 1);
  } else {
    ++hs->second;
  }
  ++by_status_[r.status];
  ++by_action_[static_cast<std::size_t>(r.action)];
  if (!r.rule_id.empty()) {
    key_.assign(r.rule_id);
    key_ += '\t';
    key_ += access_log::name(r.action);
    auto rit = by_rule_action_.find(std::string_view(key_));
    if (rit == by_rule_action_.end()) {
      by_rule_action_.emplace(key_, 1);
    } else {
      ++rit->second;
    }
  }
  if (r.request_time_us >= 0) {
    std::size_t b = 0;
    while (b < kBucketsUs.size() && r.request_time_us > kBucketsUs[b]) ++b;
    ++latency_[b];
    latency_sum_us_ += r.request_time_us;
    ++latency_count_;
  }
}

std::string ControlStats::metrics_text() const {
  std::ostringstream o;
  o << "# HELP gatebench_control_datagrams_total Access-log datagrams by outcome.\n"
       "# TYPE gatebench_control_datagrams_total counter\n";
  o << "gatebench_control_datagrams_total{result=\"received\"} " << datagrams_ << "\n";
  o << "gatebench_control_datagrams_total{result=\"malformed\"} " << malformed_ << "\n";
  o << "gatebench_control_datagrams_total{result=\"lost\"} " << lost_ << "\n";
  o << "gatebench_control_datagrams_total{result=\"reordered\"} " << reordered_ << "\n";
  o << "# HELP gatebench_control_records_total Access-log records by outcome.\n"
       "# TYPE gatebench_control_records_total counter\n";
  o << "gatebench_control_records_total{result=\"parsed\"} " << records_ << "\n";
  o << "gatebench_control_records_total{result=\"rejected\"} " << record_errors_ << "\n";
  o << "# HELP gatebench_requests_total Requests by host and status.\n"
       "# TYPE gatebench_requests_total counter\n";
  for (const auto& [key, n] : by_host_status_) {
    auto [host, status] = split_tab(key);
    o << "gatebench_requests_total{host=\"" << label(host) << "\",status=\"" << status << "\"} "
      << n << "\n";
  }
  o << "# HELP gatebench_actions_total Requests by gateway action.\n"
       "# TYPE gatebench_actions_total counter\n";
  for (std::size_t a = 0; a < by_action_.size(); ++a) {
    o << "gatebench_actions_total{action=\"" << access_log::name(static_cast<access_log::Action>(a))
      << "\"} " << by_action_[a] << "\n";
  }
  o << "# HELP gatebench_rule_hits_total Requests a rule decided, by rule id and action.\n"
       "# TYPE gatebench_rule_hits_total counter\n";
  for (const auto& [key, n] : by_rule_action_) {
    auto [rule, action] = split_tab(key);
    o << "gatebench_rule_hits_total{rule=\"" << label(rule) << "\",action=\"" << action << "\"} "
      << n << "\n";
  }
  o << "# HELP gatebench_request_duration_seconds Time from request head to response end.\n"
       "# TYPE gatebench_request_duration_seconds histogram\n";
  std::uint64_t cumulative = 0;
  for (std::size_t b = 0; b < kBucketsUs.size(); ++b) {
    cumulative += latency_[b];
    o << "gatebench_request_duration_seconds_bucket{le=\""
      << static_cast<double>(kBucketsUs[b]) / 1e6 << "\"} " << cumulative << "\n";
  }
  cumulative += latency_.back();
  o << "gatebench_request_duration_seconds_bucket{le=\"+Inf\"} " << cumulative << "\n";
  o << "gatebench_request_duration_seconds_sum " << static_cast<double>(latency_sum_us_) / 1e6
    << "\n";
  o << "gatebench_request_duration_seconds_count " << latency_count_ << "\n";
  return o.str();
}

std::string ControlStats::stats_json() const {
  nlohmann::json j;
  j["datagrams"] = {{"received", datagrams_},
                    {"malformed", malformed_},
                    {"lost", lost_},
                    {"reordered", reordered_}};
  j["records"] = {{"parsed", records_}, {"rejected", record_errors_}};
  nlohmann::json hosts = nlohmann::json::object();
  for (const auto& [host, n] : by_host_) hosts[host]["requests"] = n;
  for (const auto& [key, n] : by_host_status_) {
    auto [host, status] = split_tab(key);
    hosts[std::string(host)]["status"][std::string(status)] = n;
  }
  j["hosts"] = hosts;
  nlohmann::json statuses = nlohmann::json::object();
  for (const auto& [status, n] : by_status_) statuses[std::to_string(status)] = n;
  j["status"] = statuses;
  nlohmann::json actions = nlohmann::json::object();
  for (std::size_t a = 0; a < by_action_.size(); ++a) {
    actions[std::string(access_log::name(static_cast<access_log::Action>(a)))] = by_action_[a];
  }
  j["actions"] = actions;
  nlohmann::json rules = nlohmann::json::object();
  for (const auto& [key, n] : by_rule_action_) {
    auto [rule, action] = split_tab(key);
    rules[std::string(rule)][std::string(action)] = n;
  }
  j["rules"] = rules;
  nlohmann::json buckets = nlohmann::json::array();
  for (std::size_t b = 0; b < kBucketsUs.size(); ++b) {
    buckets.push_back({{"le_us", kBucketsUs[b]}, {"count", latency_[b]}});
  }
  buckets.push_back({{"le_us", nullptr}, {"count", latency_.back()}});
  j["latency"] = {{"count", latency_count_}, {"sum_us", latency_sum_us_}, {"buckets", buckets}};
  return j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace gatebench::gateway
