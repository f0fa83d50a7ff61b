// A request on a decision listener (decision.hpp): the JSON form's body is read like an inspected
// body, then the described request is rebuilt, parsed, routed and judged by the host's policy;
// nothing goes upstream.
#include "macro/gateway/decision_flow.hpp"

#include <span>

#include "macro/gateway/clock.hpp"
#include "macro/gateway/decision.hpp"
#include "macro/gateway/text_buf.hpp"

namespace gatebench::gateway {

LocalResponse DecisionFlow::begin(Client& c, PolicyScratch& scratch) {
  ClientConn& cc = c.conn;
  const std::string_view target = c.req().target;
  const bool json = target.substr(0, target.find('?')) == kDecisionJsonPath;
  if (!json) {
    if (c.req().body != BodyKind::kNone) cc.close_after = true;  // the body is not read
    return decide(c, false, scratch);
  }
  if (c.req().method != "POST" || c.req().body != BodyKind::kLength) {
    cc.close_after = true;
    return {c.req().method != "POST" ? std::uint16_t{405} : std::uint16_t{400},
            "text/plain",
            "the JSON form is POST with a Content-Length body\n",
            {}};
  }
  if (c.req().content_length > kDecisionMaxBody) {
    cc.close_after = true;
    return {413, "text/plain", "decision request body over 16 KiB\n", {}};
  }
  return {0, {}, {}, {}};
}

LocalResponse DecisionFlow::decide(Client& c, bool json, PolicyScratch& scratch) {
  ClientConn& cc = c.conn;
  const Config& config = *cc.gen->pub->config;
  std::span<char> head_out(head_.get(), kDecisionHeadCap);
  Described described;
  if (json) {
    const std::string_view body(c.buffers.in.get() + c.req().head_len,
                                static_cast<std::size_t>(c.req().content_length));
    c.log.local_body = static_cast<std::uint32_t>(c.req().content_length);
    described = describe_from_json(body, cc.ip, head_out);
  } else {
    described = describe_from_original(
        c.req(), std::string_view(c.buffers.in.get(), c.req().head_len), cc.ip, head_out);
  }
  if (described.head_len == 0) return {400, "text/plain", described.error, {}};
  const std::string_view head(head_.get(), described.head_len);
  RequestHead& req = *req_;
  if (parse_request_head(head, config.max_header_bytes, req) != HeadStatus::kComplete) {
    return {400,
            "text/plain",
            req.error != nullptr ? req.error : "the described request is not a valid head",
            {}};
  }
  const int host = find_host(config, req.host);
  Decision d;
  if (host < 0) {
    d.respond = true;
    d.action = access_log::Action::block;
    d.rule_id = "unknown-host";
    d.response.status = config.unknown_host_status;
  } else {
    const PolicyRequest pr{req,
                           head,
                           described.client_ip,
                           described.https,
                           static_cast<std::uint64_t>(c.log.start_us) * 1000,
                           static_cast<std::uint64_t>(wall_us() / 1000000),
                           {},
                           true};
    d = cc.gen->policies[static_cast<std::size_t>(host)]->evaluate(pr, scratch);
  }
  c.log.decision = d;
  c.log.decision.response = {};  // its views point into scratch the next request reuses
  std::span<char> out(out_.get(), kDecisionOutCap);
  if (json) return {200, "application/json", decision_json(d, out), {}};
  // auth_request knows three answers: 2xx (allow), 401 and 403; the verdict and the status the
  // gateway would have sent ride in headers (auth_request_set reads them).
  const Verdict v = verdict_of(d);
  const std::uint16_t status = v == Verdict::kAllow ? 200 : d.response.status == 401 ? 401 : 403;
  TextBuf h(out);
  h << "X-Gatebench-Verdict: " << to_string(v)
    << "\r\nX-Gatebench-Status: " << std::uint64_t{v == Verdict::kAllow ? 200u : d.response.status}
    << "\r\n";
  const std::string_view extra = d.respond ? d.response.extra_headers : std::string_view();
  if (!d.rule_id.empty() && extra.find("X-Gatebench-Rule:") == std::string_view::npos) {
    h << "X-Gatebench-Rule: " << d.rule_id << "\r\n";
  }
  h << extra;
  return {status, "text/plain", {}, h.view()};
}

}  // namespace gatebench::gateway
