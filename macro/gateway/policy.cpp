#include "macro/gateway/policy.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "macro/gateway/text_buf.hpp"
#include "micro/core/rules/body_fields.hpp"
#include "micro/core/rules/normalize.hpp"
#include "micro/core/tokens/token.hpp"

namespace gatebench::gateway {
namespace {

using Buf = TextBuf;

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

rules::RequestView make_view(const PolicyRequest& r, std::string_view path, std::string_view query,
                             PolicyScratch& s, std::string_view& content_type) {
  rules::RequestView v;
  v.method = r.req.method;
  v.scheme = r.https ? "https" : "http";
  std::string_view host = r.req.host;
  std::size_t colon = host.rfind(':');
  if (colon != std::string_view::npos) host = host.substr(0, colon);
  v.host = host;
  v.path = path;
  v.query = query;
  for (std::uint16_t i = 0; i < r.req.fields.count; ++i) {
    const HeaderLine& h = r.req.fields.lines[i];
    s.header_views[i] = rules::HeaderView{r.head.substr(h.line_off, h.name_len),
                                          r.head.substr(h.value_off, h.value_len)};
    if (content_type.empty() && iequals_lower(s.header_views[i].name, "content-type")) {
      content_type = s.header_views[i].value;
    }
  }
  v.headers = std::span<const rules::HeaderView>(s.header_views.data(), r.req.fields.count);
  v.client_ip = r.client_ip;
  return v;
}

}  // namespace

std::string_view find_cookie(std::string_view header, std::string_view name) {
  while (!header.empty()) {
    while (!header.empty() && (header.front() == ' ' || header.front() == ';')) {
      header.remove_prefix(1);
    }
    std::size_t end = header.find(';');
    std::string_view pair = header.substr(0, end);
    if (pair.size() > name.size() && pair[name.size()] == '=' &&
        pair.substr(0, name.size()) == name) {
      std::string_view value = pair.substr(name.size() + 1);
      while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
      return value;
    }
    if (end == std::string_view::npos) break;
    header.remove_prefix(end + 1);
  }
  return {};
}

std::string_view safe_return_path(std::string_view query, std::span<char> out) {
  std::string_view raw;
  while (!query.empty()) {
    std::size_t amp = query.find('&');
    std::string_view kv = query.substr(0, amp);
    if (kv.substr(0, 7) == "return=") {
      raw = kv.substr(7);
      break;
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  std::size_t n = 0;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (n == out.size()) return "/";
    char c = raw[i];
    if (c == '%') {
      if (i + 2 >= raw.size() || hex(raw[i + 1]) < 0 || hex(raw[i + 2]) < 0) return "/";
      c = static_cast<char>(hex(raw[i + 1]) * 16 + hex(raw[i + 2]));
      i += 2;
    }
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x21 || u == 0x7f || c == '\\') return "/";  // no header injection, no odd paths
    out[n++] = c;
  }
  std::string_view path(out.data(), n);
  if (path.empty() || path[0] != '/' || (path.size() > 1 && path[1] == '/')) return "/";
  return path;
}

HostPolicy::HostPolicy(const HostConfig& host, const tokens::TokenKeyRing* keys)
    : host_(host), keys_(keys) {
  const HostFeatures& f = *host.features;
  if (f.rules) rules_ = std::make_unique<rules::RuleEvaluator>(*f.rules->compiled);
  if (f.rate_limit) limiter_.emplace(*f.rate_limit);
  if (f.jwt) jwt_ = std::make_unique<tokens::JwtVerifier>(f.jwt->keys);
}

HostPolicy::~HostPolicy() = default;

Decision HostPolicy::block(std::string_view rule_id, PolicyScratch& s) {
  Decision d;
  d.respond = true;
  d.action = access_log::Action::block;
  d.rule_id = rule_id;
  d.response.status = 403;
  d.response.body = (Buf(s.body) << "blocked by rule " << rule_id << "\n").view();
  d.response.extra_headers = (Buf(s.headers) << "X-Gatebench-Rule: " << rule_id << "\r\n").view();
  return d;
}

Decision HostPolicy::bad_request(std::string_view rule_id, std::string_view why, PolicyScratch& s) {
  Decision d;
  d.respond = true;
  d.action = access_log::Action::block;
  d.rule_id = rule_id;
  d.response.status = 400;
  d.response.body = (Buf(s.body) << "bad request: " << why << "\n").view();
  return d;
}

Decision HostPolicy::evaluate(const PolicyRequest& r, PolicyScratch& s) {
  const HostFeatures& f = *host_.features;
  Decision d;
  if (!f.any()) return d;
  std::string_view target = r.req.target;
  std::size_t q = target.find('?');
  std::string_view path = target.substr(0, q);
  std::string_view query = q == std::string_view::npos ? std::string_view() : target.substr(q + 1);

  // 0. Loop detection.
  if (f.loop && !check_loop(r, d, s)) return d;
  // 1. IP lists.
  if (f.ip_lists) {
    cidr::CidrValue v = f.ip_lists->deny->lookup(r.client_ip);
    if (v != cidr::kNoMatch) return block(f.ip_lists->deny_ids[v], s);
    if (f.ip_lists->allow && f.ip_lists->allow->lookup(r.client_ip) == cidr::kNoMatch) {
      return block(f.ip_lists->allow_id, s);
    }
  }
  // 2. Country.
  char country[2] = {0, 0};
  std::string_view country_view;
  if (f.countries) {
    cidr::CidrValue c = f.countries->table->lookup(r.client_ip);
    if (c != cidr::kNoMatch) {
      country[0] = cidr::country_first(c);
      country[1] = cidr::country_second(c);
      country_view = std::string_view(country, 2);
    }
    const auto& codes = f.countries->codes;
    auto it = std::find(codes.begin(), codes.end(), c);
    if (f.countries->allow_mode) {
      if (it == codes.end()) return block(f.countries->ids.front(), s);
    } else if (it != codes.end()) {
      return block(f.countries->ids[static_cast<std::size_t>(it - codes.begin())], s);
    }
  }
  // 2b. Bearer JWT.
  if (jwt_ && !check_jwt(r, d, s)) return d;
  // 3. Block rules and exploit patterns.
  bool challenge_rule = false;
  bool trusted = false;
  bool body_truncated = false;
  if (rules_) {
    std::string_view content_type;
    rules::RequestView view = make_view(r, path, query, s, content_type);
    view.country = country_view;
    if (jwt_) {
      view.headers = std::span<const rules::HeaderView>(s.header_views.data(),
                                                        add_claim_headers(r.req.fields.count, s));
    }
    // Rules match the normalised target; exploit scanning reads the raw one as well.
    if (s.target.size() < path.size() + query.size() + 2) {
      s.target.resize(path.size() + query.size() + 2);
    }
    rules::NormalizeStatus ns = rules::normalize_path(path, s.target.data(), view.path);
    if (ns == rules::NormalizeStatus::kOk) {
      ns = rules::normalize_query(query, s.target.data() + path.size() + 1, view.query);
    }
    if (ns != rules::NormalizeStatus::kOk) {
      return bad_request("invalid-target", rules::to_string(ns), s);
    }
    view.raw_path = path;
    view.raw_query = query;
    if (!r.body.empty()) {
      std::string_view boundary;
      const rules::BodyFormat format = rules::body_format(content_type, boundary);
      if (s.body_fields.size() < r.body.size() + 1) s.body_fields.resize(r.body.size() + 1);
      const rules::BodyStatus bs = rules::decode_body_fields(
          format, boundary, r.body, r.body_complete, s.body_fields.data(), view.body);
      if (bs != rules::BodyStatus::kOk) return bad_request("invalid-body", rules::to_string(bs), s);
      view.raw_body = r.body;
      body_truncated = !r.body_complete;
    }
    rules::Verdict v = rules_->evaluate(view, r.now_ns);
    const RulesFeature& rf = *f.rules;
    std::string_view rule_id = v.rule >= 0
                                   ? std::string_view(rf.rule_ids[static_cast<std::size_t>(v.rule)])
                                   : std::string_view();
    std::string_view exploit_id = rf.exploit_ids[static_cast<std::size_t>(v.exploit)];
    if (v.decision == rules::Decision::kBlock) {
      return block(
          v.action == rules::RuleAction::kBlock || v.exploit == rules::ExploitCategory::kNone
              ? rule_id
              : exploit_id,
          s);
    }
    if (v.decision == rules::Decision::kChallenge) {
      challenge_rule = true;
      d.rule_id = rule_id;
    } else if (v.action == rules::RuleAction::kAllow) {
      // An allow rule vouches for the request: later checks do not run.
      trusted = true;
      d.action = access_log::Action::allow;
      d.rule_id = rule_id;
    } else if (v.exploit != rules::ExploitCategory::kNone) {
      d.action = access_log::Action::detect;  // detect mode: logged, not blocked
      d.rule_id = exploit_id;
    } else if (v.action == rules::RuleAction::kLog) {
      d.action = access_log::Action::detect;
      d.rule_id = rule_id;
    } else if (body_truncated) {
      d.action = access_log::Action::detect;  // the access log says only a prefix was scanned
      d.rule_id = kBodyTruncatedId;
    }
  }
  if (trusted) return d;
  // 4. Rate limit.
  if (limiter_ && !limiter_->allow(r.client_ip, r.now_ns)) {
    d.respond = true;
    d.action = access_log::Action::ratelimit;
    d.rule_id = "ratelimit";
    d.response.status = 429;
    d.response.body = "rate limit exceeded\n";
    d.response.extra_headers = "Retry-After: 1\r\n";
    return d;
  }
  // 5. Access queue.
  if (f.queue) {
    Decision qd = queue(r, path, query, s);
    if (qd.respond) return qd;
  }
  // 6. Challenge.
  if (f.challenge) {
    if (path == kChallengeVerifyPath || f.challenge->scope == ChallengeScope::kAll ||
        challenge_rule) {
      Decision cd = challenge(r, path, query, challenge_rule ? d.rule_id : "challenge", s);
      if (cd.respond) return cd;
    }
  }
  return d;
}

Decision HostPolicy::queue(const PolicyRequest& r, std::string_view path, std::string_view query,
                           PolicyScratch& s) {
  const QueueFeature& qf = *host_.features->queue;
  Decision d;
  tokens::AdmissionClaims claims{};
  std::string_view cookie = find_cookie(r.req.cookie, kQueueCookie);
  bool admitted =
      !cookie.empty() &&
      tokens::verify_bound_admission(*keys_, cookie, r.now_s, r.client_ip, r.req.user_agent,
                                     &claims) == tokens::VerifyStatus::ok &&
      claims.queue_id == qf.queue_id;
  if (path == kQueueStatusPath) {
    d.respond = true;
    d.action = access_log::Action::queue;
    d.rule_id = "queue";
    d.response.status = 200;
    d.response.content_type = "application/json";
    d.response.body =
        (Buf(s.body) << "{\"capacity\":" << std::uint64_t{qf.capacity}
                     << ",\"admitted\":" << qf.store->admitted(r.now_s)
                     << ",\"refresh_s\":" << std::uint64_t{qf.refresh_s}
                     << ",\"admission_ttl_s\":" << std::uint64_t{qf.admission_ttl_s}
                     << ",\"you\":" << (admitted ? "\"admitted\"" : "\"waiting\"") << "}\n")
            .view();
    return d;
  }
  if (admitted && path != kQueueJoinPath) return d;  // the fast path
  d.respond = true;
  d.action = access_log::Action::queue;
  d.rule_id = "queue";
  if (path == kQueueJoinPath) {
    if (admitted) {
      d.response.status = 200;
      d.response.content_type = "application/json";
      d.response.body =
          (Buf(s.body) << "{\"admitted\":true,\"ticket\":" << claims.ticket << "}\n").view();
      return d;
    }
    const QueueStore::Admission admission = qf.store->try_admit(r.now_s, r.client_ip);
    if (admission.result == QueueStore::Result::kClientLimit) {
      // This address holds its share of seats already: it waits for them, not for the queue.
      d.response.status = 429;
      d.response.content_type = "application/json";
      d.response.body =
          (Buf(s.body) << "{\"admitted\":false,\"retry_after\":" << std::uint64_t{qf.refresh_s}
                       << ",\"tickets_per_client\":" << std::uint64_t{qf.tickets_per_client}
                       << "}\n")
              .view();
      d.response.extra_headers =
          (Buf(s.headers) << "Retry-After: " << std::uint64_t{qf.refresh_s} << "\r\n").view();
      return d;
    }
    if (admission.result == QueueStore::Result::kFull) {
      d.response.status = 503;
      d.response.content_type = "application/json";
      d.response.body =
          (Buf(s.body) << "{\"admitted\":false,\"retry_after\":" << std::uint64_t{qf.refresh_s}
                       << ",\"capacity\":" << std::uint64_t{qf.capacity} << "}\n")
              .view();
      d.response.extra_headers =
          (Buf(s.headers) << "Retry-After: " << std::uint64_t{qf.refresh_s} << "\r\n").view();
      return d;
    }
    // 32 bits of ticket number: the other half of the token's ticket field binds the client.
    tokens::TokenText token = tokens::mint_bound_admission(
        *keys_, static_cast<std::uint32_t>(r.now_s + qf.admission_ttl_s), qf.queue_id,
        static_cast<std::uint32_t>(admission.ticket), r.client_ip, r.req.user_agent);
    Buf h(s.headers);
    h << "Set-Cookie: " << kQueueCookie << "=" << token.view()
      << "; Path=/; Max-Age=" << std::uint64_t{qf.admission_ttl_s}
      << "; HttpOnly; SameSite=Lax\r\n";
    if (query.find("return=") != std::string_view::npos) {
      h << "Location: " << safe_return_path(query, s.decoded) << "\r\n";
      d.response.status = 303;
      d.response.body = "admitted\n";
    } else {
      d.response.status = 200;
      d.response.content_type = "application/json";
      d.response.body =
          (Buf(s.body) << "{\"admitted\":true,\"ticket\":" << admission.ticket
                       << ",\"expires_in\":" << std::uint64_t{qf.admission_ttl_s} << "}\n")
              .view();
    }
    d.response.extra_headers = h.view();
    return d;
  }
  // The waiting-room page: polls the join endpoint, which sends the client back here.
  d.response.status = 503;
  d.response.content_type = "text/html; charset=utf-8";
  Buf b(s.body);
  b << "<!doctype html><html><head><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\""
    << std::uint64_t{qf.refresh_s} << ";url=" << kQueueJoinPath << "?return=";
  b.encoded(r.req.target);
  b << "\"><title>Waiting room</title></head><body><h1>You are in the queue</h1><p>This page "
       "tries again every "
    << std::uint64_t{qf.refresh_s} << " s.</p></body></html>\n";
  d.response.body = b.view();
  d.response.extra_headers =
      (Buf(s.headers) << "Retry-After: " << std::uint64_t{qf.refresh_s} << "\r\n").view();
  return d;
}

Decision HostPolicy::challenge(const PolicyRequest& r, std::string_view path,
                               std::string_view query, std::string_view rule_id, PolicyScratch& s) {
  const ChallengeFeature& cf = *host_.features->challenge;
  Decision d;
  std::string_view pass = find_cookie(r.req.cookie, kPassCookie);
  bool passed = !pass.empty() && tokens::verify_pass(*keys_, pass, r.now_s, r.client_ip,
                                                     r.req.user_agent) == tokens::VerifyStatus::ok;
  if (passed && path != kChallengeVerifyPath) return d;
  d.respond = true;
  d.action = access_log::Action::challenge;
  d.rule_id = rule_id;
  if (path == kChallengeVerifyPath) {
    std::string_view nonce = find_cookie(r.req.cookie, kNonceCookie);
    tokens::AdmissionClaims claims{};
    bool ok = passed || (!nonce.empty() &&
                         tokens::verify_admission(*keys_, nonce, r.now_s, &claims) ==
                             tokens::VerifyStatus::ok &&
                         claims.queue_id == cf.nonce_queue_id &&
                         cf.used_nonces->use(claims.ticket, claims.expiry, r.now_s));
    if (!ok) {
      d.action = access_log::Action::block;
      d.rule_id = "challenge-failed";
      d.response.status = 403;
      d.response.body = "challenge failed: no valid challenge cookie\n";
      return d;
    }
    tokens::TokenText token = tokens::mint_pass(
        *keys_, static_cast<std::uint32_t>(r.now_s + cf.pass_ttl_s), r.client_ip, r.req.user_agent);
    Buf h(s.headers);
    h << "Set-Cookie: " << kPassCookie << "=" << token.view()
      << "; Path=/; Max-Age=" << std::uint64_t{cf.pass_ttl_s} << "; HttpOnly; SameSite=Lax\r\n"
      << "Set-Cookie: " << kNonceCookie << "=; Path=/; Max-Age=0\r\n"
      << "Location: " << safe_return_path(query, s.decoded) << "\r\n";
    d.action = access_log::Action::allow;
    d.response.status = 303;
    d.response.body = "challenge passed\n";
    d.response.extra_headers = h.view();
    return d;
  }
  // The challenge page: a short-lived signed nonce in a cookie; a client that keeps cookies and
  // follows the refresh to the verify endpoint earns the pass cookie.
  tokens::TokenText nonce =
      tokens::mint_admission(*keys_, static_cast<std::uint32_t>(r.now_s + cf.nonce_ttl_s),
                             cf.nonce_queue_id, cf.used_nonces->next_id());
  Buf h(s.headers);
  h << "Set-Cookie: " << kNonceCookie << "=" << nonce.view()
    << "; Path=/; Max-Age=" << std::uint64_t{cf.nonce_ttl_s} << "; HttpOnly; SameSite=Lax\r\n";
  d.response.extra_headers = h.view();
  d.response.status = 403;
  d.response.content_type = "text/html; charset=utf-8";
  Buf b(s.body);
  b << "<!doctype html><html><head><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" "
       "content=\"0;url="
    << kChallengeVerifyPath << "?return=";
  b.encoded(r.req.target);
  b << "\"><title>Checking your browser</title></head><body><p>Checking your browser&hellip;"
       "</p></body></html>\n";
  d.response.body = b.view();
  return d;
}

}  // namespace gatebench::gateway
