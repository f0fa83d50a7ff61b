// A request on a decision listener (decision.hpp): the JSON form's body is read like an inspected
// body, then the described request is rebuilt, parsed, routed and judged by the host's policy;
// nothing goes upstream.
#include "macro/gateway/clock.hpp"
#include "macro/gateway/decision.hpp"
#include "macro/gateway/text_buf.hpp"
#include "macro/gateway/worker_loop.hpp"

namespace gatebench::gateway {

void WorkerLoop::begin_decision(Client& c) {
  ClientConn& cc = c.conn;
  const std::string_view target = c.req().target;
  const bool json = target.substr(0, target.find('?')) == kDecisionJsonPath;
  if (!json) {
    if (c.req().body != BodyKind::kNone) cc.close_after = true;  // the body is not read
    decide(c, false);
    return;
  }
  if (c.req().method != "POST" || c.req().body != BodyKind::kLength) {
    cc.close_after = true;
    respond(c, c.req().method != "POST" ? 405 : 400, "text/plain",
            "the JSON form is POST with a Content-Length body\n", {});
    return;
  }
  if (c.req().content_length > kDecisionMaxBody) {
    cc.close_after = true;
    respond(c, 413, "text/plain", "decision request body over 16 KiB\n", {});
    return;
  }
  grow_in(c, c.req().head_len + kDecisionMaxBody);
  cc.state = CState::kReadBody;
  cc.deadline_ms = now_ms_ + cfg().client_body_timeout_ms;
}

void WorkerLoop::decide(Client& c, bool json) {
  ClientConn& cc = c.conn;
  const Config& config = *cc.gen->pub->config;
  std::span<char> head_out(decision_head_.get(), kDecisionHeadCap);
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
  if (described.head_len == 0) {
    respond(c, 400, "text/plain", described.error, {});
    return;
  }
  const std::string_view head(decision_head_.get(), described.head_len);
  RequestHead& req = *decision_req_;
  if (parse_request_head(head, config.max_header_bytes, req) != HeadStatus::kComplete) {
    respond(c, 400, "text/plain",
            req.error != nullptr ? req.error : "the described request is not a valid head", {});
    return;
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
    d = cc.gen->policies[static_cast<std::size_t>(host)]->evaluate(pr, *policy_scratch_);
  }
  c.log.decision = d;
  c.log.decision.response = {};  // its views point into scratch the next request reuses
  std::span<char> out(decision_out_.get(), kDecisionOutCap);
  if (json) {
    respond(c, 200, "application/json", decision_json(d, out), {});
    return;
  }
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
  respond(c, status, "text/plain", {}, h.view());
}

}  // namespace gatebench::gateway
