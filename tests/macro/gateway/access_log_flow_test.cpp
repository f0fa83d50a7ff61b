// Access-log path from the gateway's sink to the control plane's counters, over a real UDP
// socket on loopback: records round-trip through gatecore's TSV parser, lost and malformed
// datagrams are counted.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "macro/gateway/access_log_sink.hpp"
#include "macro/gateway/control_stats.hpp"
#include "micro/core/access_log/tsv.hpp"
#include "micro/core/access_log/unescape.hpp"
#include "tests/macro/gateway/gateway_testkit.hpp"

namespace gw = gatebench::gateway;

namespace {

using gwtest::UdpReceiver;

namespace al = gatebench::access_log;

al::AccessLogRecord record(std::string_view host, std::uint16_t status, std::string_view rule = {},
                           al::Action action = al::Action::none) {
  al::AccessLogRecord f;
  f.time_us = 1'700'000'000'123'456;
  f.request_time_us = 1500;
  f.upstream_time_us = status == 200 ? 1200 : -1;
  f.bytes_sent = 120;
  f.client_ip = 0x7F000001;
  f.status = status;
  f.method = al::Method::get;
  f.scheme = al::Scheme::http;
  f.host = host;
  f.path = "/a\tb";  // escaped on the wire
  f.query = "x=1";
  f.user_agent = "curl/8";
  f.rule_id = rule;
  f.action = action;
  return f;
}

TEST(AccessLogFlow, RecordsReachTheCountersInBatchesOf100) {
  UdpReceiver rx;
  gw::AccessLogSink sink(7, rx.addr(), 1000);
  gw::ControlStats stats;
  for (int i = 0; i < 250; ++i) {
    sink.add(
        i % 5 == 0 ? record("b.test", 403, "no-admin", al::Action::block) : record("a.test", 200),
        "GET", 0);
  }
  sink.flush();
  for (int i = 0; i < 3; ++i) {
    std::string d = rx.receive();
    ASSERT_FALSE(d.empty());
    stats.ingest_datagram(d);
  }
  EXPECT_EQ(sink.datagrams_sent(), 3u);  // 100 + 100 + 50
  EXPECT_EQ(stats.records(), 250u);
  EXPECT_EQ(stats.record_errors(), 0u);
  EXPECT_EQ(stats.malformed_datagrams(), 0u);
  EXPECT_EQ(stats.lost_datagrams(), 0u);
  auto j = nlohmann::json::parse(stats.stats_json());
  EXPECT_EQ(j["hosts"]["a.test"]["status"]["200"], 200);
  EXPECT_EQ(j["hosts"]["b.test"]["status"]["403"], 50);
  EXPECT_EQ(j["rules"]["no-admin"]["block"], 50);
  EXPECT_EQ(j["latency"]["count"], 250);
  std::string m = stats.metrics_text();
  EXPECT_NE(m.find("gatebench_requests_total{host=\"a.test\",status=\"200\"} 200"),
            std::string::npos);
  EXPECT_NE(m.find("gatebench_rule_hits_total{rule=\"no-admin\",action=\"block\"} 50"),
            std::string::npos);
  EXPECT_NE(m.find("gatebench_request_duration_seconds_count 250"), std::string::npos);
}

TEST(AccessLogFlow, DashAndEmptyFieldsStayDistinct) {
  // "-" on the wire means empty, so a field whose value is "-" must travel escaped.
  UdpReceiver rx;
  gw::AccessLogSink sink(1, rx.addr(), 1000);
  al::AccessLogRecord f = record("a.test", 200);
  f.referer = "-";
  f.user_agent = "";
  sink.add(f, "GET", 5000);
  sink.flush();
  const std::string datagram = rx.receive();
  const auto body = std::string_view(datagram).substr(datagram.find('\n') + 1);
  al::AccessLogRecord rec[2];
  al::AccessLogError err[2];
  const al::BatchResult r = al::parse_tsv(body, rec, err);
  ASSERT_EQ(r.records, 1u);
  ASSERT_EQ(r.errors, 0u);
  EXPECT_EQ(al::unescape_copy(al::Format::tsv, rec[0].referer), "-");
  EXPECT_TRUE(rec[0].user_agent.empty());
}

TEST(AccessLogFlow, TickFlushesAfterTheInterval) {
  UdpReceiver rx;
  gw::AccessLogSink sink(1, rx.addr(), 1000);
  sink.add(record("a.test", 200), "GET", 5000);
  sink.tick(5999);
  EXPECT_EQ(sink.datagrams_sent(), 0u);
  sink.tick(6000);
  EXPECT_EQ(sink.datagrams_sent(), 1u);
  EXPECT_FALSE(rx.receive().empty());
}

TEST(AccessLogFlow, LostAndMalformedDatagramsAreCounted) {
  UdpReceiver rx;
  gw::AccessLogSink sink(3, rx.addr(), 1000);
  gw::ControlStats stats;
  std::vector<std::string> sent;
  for (int i = 0; i < 4; ++i) {
    sink.add(record("a.test", 200), "GET", 0);
    sink.flush();
    sent.push_back(rx.receive());
  }
  stats.ingest_datagram(sent[0]);
  stats.ingest_datagram(sent[3]);  // 1 and 2 never arrive
  EXPECT_EQ(stats.lost_datagrams(), 2u);
  stats.ingest_datagram("not a gatebench datagram");
  EXPECT_EQ(stats.malformed_datagrams(), 1u);
  // A header promising more records than the body holds, and a broken record.
  stats.ingest_datagram("#gatebench-log v1 9 0 2\n" + sent[0].substr(sent[0].find('\n') + 1));
  EXPECT_EQ(stats.malformed_datagrams(), 2u);
  stats.ingest_datagram("#gatebench-log v1 9 1 1\nthis\tis\tnot\ta\trecord\n");
  EXPECT_EQ(stats.malformed_datagrams(), 3u);
  EXPECT_EQ(stats.record_errors(), 1u);
  EXPECT_EQ(stats.records(), 3u);
}

TEST(AccessLogFlow, DatagramHeaderParser) {
  gw::DatagramHeader h;
  ASSERT_TRUE(gw::parse_datagram_header("#gatebench-log v1 12 345 100\nrest", h));
  EXPECT_EQ(h.worker, 12u);
  EXPECT_EQ(h.sequence, 345u);
  EXPECT_EQ(h.records, 100u);
  EXPECT_EQ(h.length, 29u);
  EXPECT_FALSE(gw::parse_datagram_header("#gatebench-log v2 1 2 3\n", h));
  EXPECT_FALSE(gw::parse_datagram_header("#gatebench-log v1 1 2\n", h));
  EXPECT_FALSE(gw::parse_datagram_header("#gatebench-log v1 1 2 3", h));
  EXPECT_FALSE(gw::parse_datagram_header("#gatebench-log v1 1 x 3\n", h));
}

}  // namespace
