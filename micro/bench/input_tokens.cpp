#include "micro/bench/input_tokens.hpp"

#include <charconv>
#include <ctime>
#include <optional>
#include <stdexcept>
#include <utility>

#include "micro/core/cidr/ipv4.hpp"
#include "micro/core/tokens/base64url.hpp"
#include "micro/core/tokens/token.hpp"

namespace gatebench::bench {

void TokenCorpus::add_key(std::uint8_t id, std::span<const std::uint8_t> secret) {
  ring.rotate(id, secret);  // first: its checks are the ones the file must pass
  oneshot.add_key(id, secret);
  evp.add_key(id, secret);
}

void TokenCorpus::add_jwt_key(std::string_view kid, std::span<const std::uint8_t> secret) {
  jwt_ring.rotate(kid, secret);
  nlohmann.add_key(kid, secret);
}

namespace {

using tokens::VerifyStatus;

bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

// The next run of non-blank characters of `rest` (empty at the end), consumed with the blanks
// before it.
std::string_view next_field(std::string_view& rest) {
  std::size_t start = 0;
  while (start < rest.size() && is_blank(rest[start])) ++start;
  std::size_t end = start;
  while (end < rest.size() && !is_blank(rest[end])) ++end;
  const std::string_view field = rest.substr(start, end - start);
  rest.remove_prefix(end);
  return field;
}

std::optional<std::vector<std::uint8_t>> decode_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::vector<std::uint8_t> out(hex.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const char* first = hex.data() + 2 * i;
    if (std::from_chars(first, first + 2, out[i], 16).ptr != first + 2) return std::nullopt;
  }
  return out;
}

template <typename Int>
std::optional<Int> decode_decimal(std::string_view text) {
  Int value{};
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

// One line of the file, with its diagnostics.
class TokenLine {
 public:
  TokenLine(const InputFile& file, std::size_t line, std::string_view text)
      : file_(file), line_(line), rest_(text) {}

  [[noreturn]] void fail(const std::string& what) const { fail_at(file_, line_, what); }

  std::string_view field(const char* what) {
    const std::string_view f = next_field(rest_);
    if (f.empty()) fail(std::string("expected ") + what);
    return f;
  }
  void expect_end() {
    if (const std::string_view extra = next_field(rest_); !extra.empty())
      fail("unexpected '" + std::string(extra) + "' after the last field");
  }
  // The rest of the line after the blanks that follow the last field read (may be empty).
  std::string_view rest() const {
    std::size_t start = 0;
    while (start < rest_.size() && is_blank(rest_[start])) ++start;
    return rest_.substr(start);
  }

  // "hex:..." or "base64url:...".
  std::vector<std::uint8_t> secret() {
    const std::string_view text = field("a secret (hex:... or base64url:...)");
    std::optional<std::vector<std::uint8_t>> bytes;
    if (text.starts_with("hex:")) {
      bytes = decode_hex(text.substr(4));
      if (!bytes) fail("secret: expected an even number of hex digits");
    } else if (text.starts_with("base64url:")) {
      const std::string_view b64 = text.substr(10);
      const auto size = tokens::base64url_decoded_size(b64.size());
      bytes.emplace(size.value_or(0));
      if (!size || !tokens::base64url_decode(b64, *bytes))
        fail("secret: not canonical base64url without padding");
    } else {
      fail("secret: expected hex:... or base64url:..., got '" + std::string(text) + "'");
    }
    expect_end();  // the size is the key ring's to check
    return std::move(*bytes);
  }

  void check(std::string_view kind, std::string_view impl, VerifyStatus status,
             std::uint64_t now) const {
    if (status == VerifyStatus::ok) return;
    std::string what = std::string(kind) + " token: " + std::string(impl) + " verifies it as " +
                       std::string(tokens::to_string(status));
    if (status == VerifyStatus::expired || status == VerifyStatus::not_yet_valid)
      what += " at now " + std::to_string(now) + " (a 'now SECONDS' line sets the clock)";
    fail(what);
  }

 private:
  const InputFile& file_;
  std::size_t line_;
  std::string_view rest_;
};

struct PendingToken {
  std::size_t line;
  std::string_view text;  // the line, from its keyword on
};

}  // namespace

std::unique_ptr<TokenCorpus> load_tokens_input(const InputFile& file) {
  auto corpus = std::make_unique<TokenCorpus>();
  std::optional<std::uint64_t> now;
  std::size_t keys = 0, jwt_keys = 0;
  std::vector<PendingToken> pending;
  // Keys and the clock first, wherever they are in the file; then every token against them.
  std::string_view rest = file.bytes;
  for (std::size_t line = 1; !rest.empty(); ++line) {
    const std::size_t end = rest.find('\n');
    std::string_view text = rest.substr(0, end);
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
    if (text.ends_with('\r')) text.remove_suffix(1);
    const std::string_view keyword = next_field(text);
    if (keyword.empty() || keyword.starts_with('#')) continue;
    TokenLine in(file, line, text);
    try {
      if (keyword == "key") {
        const auto id = decode_decimal<std::uint8_t>(in.field("a key id (0-255)"));
        if (!id) in.fail("key id: expected a number from 0 to 255");
        if (++keys > 2) in.fail("a third key: the ring holds the current and the previous one");
        corpus->add_key(*id, in.secret());
      } else if (keyword == "jwt_key") {
        const std::string kid(in.field("a kid"));
        if (++jwt_keys > 2)
          in.fail("a third jwt_key: the ring holds the current and the previous one");
        corpus->add_jwt_key(kid, in.secret());
      } else if (keyword == "now") {
        if (now) in.fail("'now' given twice");
        now = decode_decimal<std::uint64_t>(in.field("unix seconds"));
        if (!now) in.fail("now: expected unix seconds");
        in.expect_end();
      } else if (keyword == "admission" || keyword == "pass" || keyword == "jwt") {
        pending.push_back({line, std::string_view(keyword.data(), text.data() + text.size())});
      } else {
        in.fail("unknown line '" + std::string(keyword) +
                "' (expected key, jwt_key, now, admission, pass or jwt)");
      }
    } catch (const std::invalid_argument& e) {  // the rings' own checks
      in.fail(e.what());
    }
  }
  // Without a 'now' line the tokens are verified at the time of the run.
  corpus->now = now.value_or(static_cast<std::uint64_t>(std::time(nullptr)));
  const std::uint64_t at = corpus->now;
  TokenCorpus& c = *corpus;
  for (const PendingToken& p : pending) {
    std::string_view text = p.text;
    const std::string_view keyword = next_field(text);
    TokenLine in(file, p.line, text);
    const std::string token(in.field("a token"));
    if (keyword == "jwt") {
      in.expect_end();
      if (jwt_keys == 0) in.fail("jwt token, but no jwt_key line in the file");
      in.check(keyword, "gatecore",
               tokens::verify_jwt_hs256(c.jwt_ring, token, static_cast<std::int64_t>(at)), at);
      in.check(keyword, "nlohmann", c.nlohmann.verify(token, static_cast<std::int64_t>(at)), at);
      c.jwt.push_back(token);
      continue;
    }
    if (keys == 0) in.fail(std::string(keyword) + " token, but no key line in the file");
    if (keyword == "admission") {
      in.expect_end();
      in.check(keyword, "gatecore", tokens::verify_admission(c.ring, token, at), at);
      in.check(keyword, "hmac_oneshot", c.oneshot.verify_admission(token, at), at);
      in.check(keyword, "evp_mac", c.evp.verify_admission(token, at), at);
      c.admission.push_back(token);
      continue;
    }
    const std::string_view address = in.field("the client's IPv4 address");
    const cidr::Ipv4ParseResult ip = cidr::parse_ipv4(address);
    if (!ip)
      in.fail("client address '" + std::string(address) + "': " + std::string(describe(ip.error)));
    const std::uint32_t ipv4 = ip.address;
    const std::string_view user_agent = in.rest();
    in.check(keyword, "gatecore", tokens::verify_pass(c.ring, token, at, ipv4, user_agent), at);
    in.check(keyword, "hmac_oneshot", c.oneshot.verify_pass(token, at, ipv4, user_agent), at);
    in.check(keyword, "evp_mac", c.evp.verify_pass(token, at, ipv4, user_agent), at);
    c.pass.push_back(token);
    c.clients.push_back({ipv4, std::string(user_agent)});
  }
  if (pending.empty()) fail_at(file, 1, "no admission, pass or jwt token in the file");
  return corpus;
}

}  // namespace gatebench::bench
