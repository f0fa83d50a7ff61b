// gatebench-micro --input tokens=FILE on a file of admission, pass and JWT tokens the test mints,
// and its bad lines: exit 2 before anything runs, the file and line named.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "fixtures/token_fixtures.hpp"
#include "micro/core/tokens/base64url.hpp"
#include "micro/core/tokens/token.hpp"
#include "tests/micro/bench/micro_run.hpp"

namespace gatebench::bench::test {
namespace {

constexpr std::uint32_t kNow = 1'900'000'000;

std::vector<std::uint8_t> secret(std::uint8_t fill) {
  return std::vector<std::uint8_t>(32, fill);
}

std::string hex(const std::vector<std::uint8_t>& bytes) {
  static constexpr char kHex[] = "0123456789ABCDEF";  // upper case is accepted too
  std::string s;
  for (const std::uint8_t b : bytes) s += {kHex[b >> 4], kHex[b & 15]};
  return s;
}

std::string jwt(const std::string& kid, std::uint32_t exp, const std::vector<std::uint8_t>& key,
                const std::string& subject = "user-1") {
  const std::string header =
      kid.empty() ? R"({"alg":"HS256"})" : R"({"alg":"HS256","kid":")" + kid + R"("})";
  return fixtures::make_jwt(
      header, R"({"sub":")" + subject + R"(","exp":)" + std::to_string(exp) + "}", key);
}

// What the limit counts for a JWT: ceil((signing input + 9) / 64) inner blocks + the outer one.
double compressions(const std::string& token) {
  return static_cast<double>((token.rfind('.') + 9 + 63) / 64 + 1);
}

struct TokenFile {
  std::string text;
  double mean_compressions = 0;  // of its JWTs
};

// Two token keys (hex and base64url secrets) and two JWT keys; tokens under both keys of each.
TokenFile token_file() {
  TokenFile f;
  tokens::TokenKeyRing ring;
  ring.rotate(7, secret(0x11));
  std::string lines = "\n# admission and pass tokens, then JWTs\n";
  for (int i = 0; i < 6; ++i) {
    if (i == 2) ring.rotate(9, secret(0x22));
    lines += "admission " +
             std::string(tokens::mint_admission(ring, kNow + 600, 3, 1000 + i).view()) + "\n";
    const std::uint32_t client = 0xC0000200 + i;  // 192.0.2.i
    lines += "pass\t" +
             std::string(tokens::mint_pass(ring, kNow + 600, client, "Mozilla/5.0 (X11)").view()) +
             "  192.0.2." + std::to_string(i) + " Mozilla/5.0 (X11)\r\n";
  }
  const std::string jwts[] = {
      jwt("a", kNow + 60, secret(0x33)), jwt("b", kNow + 60, secret(0x44)),
      jwt("", kNow + 60, secret(0x44)),                           // no kid: the current key
      jwt("b", kNow + 60, secret(0x44), std::string(300, 'u'))};  // more inner blocks
  for (const std::string& t : jwts) {
    lines += "jwt " + t + "\n";
    f.mean_compressions += compressions(t) / std::size(jwts);
  }
  f.text = "key 7 hex:" + hex(secret(0x11)) +
           "\nkey 9 base64url:" + tokens::base64url_encode(secret(0x22)) +
           "\njwt_key a hex:" + hex(secret(0x33)) + "\njwt_key b hex:" + hex(secret(0x44)) +
           "\nnow " + std::to_string(kNow) + "\n" + lines;
  return f;
}

TEST(InputTokens, EveryKindRunsBesideItsPeersAndLimit) {
  const auto dir = scratch_dir("tokens");
  const TokenFile file = token_file();
  write_text(dir / "tokens.txt", file.text);
  const MicroRun run = run_micro(dir, "--input tokens=" + (dir / "tokens.txt").string());
  ASSERT_EQ(run.exit_code, 0) << run.stderr_text;
  const auto& context = run.json.at("context");
  EXPECT_EQ(context.at("gatebench_input_tokens_path"), (dir / "tokens.txt").string());
  EXPECT_EQ(context.at("gatebench_input_tokens_size"), std::to_string(file.text.size()));
  EXPECT_EQ(context.at("gatebench_input_tokens_sha256"), sha256_hex(file.text));
  for (const char* name :
       {"token/gatecore/admission_input", "token/hmac_oneshot/admission_input",
        "token/evp_mac/admission_input", "token/limit/admission_input", "token/gatecore/pass_input",
        "token/hmac_oneshot/pass_input", "token/evp_mac/pass_input", "token/limit/pass_input",
        "jwt/gatecore/hs256_input", "jwt/nlohmann/hs256_input", "jwt/limit/hs256_input"}) {
    const auto r = row(run.json, name);
    ASSERT_FALSE(r.is_null()) << name << " missing";
    EXPECT_FALSE(r.contains("error_occurred")) << r.dump();
    EXPECT_GT(r.at("items_per_second").get<double>(), 0) << name;
  }
  // Each token's own count, not the largest one's for all.
  EXPECT_NEAR(row(run.json, "jwt/limit/hs256_input").at("compressions").get<double>(),
              file.mean_compressions, 1e-6);
  std::filesystem::remove_all(dir);
}

TEST(InputTokens, AFileOfOneKindAddsThatKindOnly) {
  const auto dir = scratch_dir("tokens-jwt");
  write_text(dir / "jwt.txt", "jwt_key x hex:" + hex(secret(0x55)) + "\nnow " +
                                  std::to_string(kNow) + "\njwt " +
                                  jwt("x", kNow + 1, secret(0x55)) + "\n");
  const std::string list = list_micro(dir, "--input tokens=" + (dir / "jwt.txt").string());
  EXPECT_NE(list.find("jwt/gatecore/hs256_input\n"), std::string::npos) << list;
  EXPECT_EQ(list.find("token/gatecore/admission_input"), std::string::npos);
  EXPECT_NE(list.find("token/gatecore/admission\n"), std::string::npos);  // the seeded stay
  std::filesystem::remove_all(dir);
}

TEST(InputTokens, BadLinesNameFileAndLine) {
  const auto dir = scratch_dir("tokens-bad");
  const TokenFile good = token_file();
  const std::string keys = "key 7 hex:" + hex(secret(0x11)) + "\n";
  tokens::TokenKeyRing ring;
  ring.rotate(7, secret(0x11));
  const std::string admission(tokens::mint_admission(ring, kNow + 600, 1, 2).view());
  std::string forged = admission;
  forged[10] = forged[10] == 'A' ? 'B' : 'A';
  const std::string pass(tokens::mint_pass(ring, kNow + 600, 0x0A000001, "ua").view());
  struct Case {
    std::string text;
    int line;
    const char* what;
  } cases[] = {
      {keys + "now 1900000000\nadmission " + forged + "\n", 3, "bad_signature"},
      {keys + "admission " + admission + "\nnow 1900000601\n", 2, "expired at now 1900000601"},
      {good.text + "now 1\n",
       static_cast<int>(std::count(good.text.begin(), good.text.end(), '\n')) + 1,
       "'now' given twice"},
      {keys + "pass " + pass + " 10.0.0\n", 2, "client address '10.0.0': fewer than 4 octets"},
      {keys + "now 1900000000\npass " + pass + " 10.0.0.2 ua\n", 3, "wrong_binding"},
      {keys + "key 8 hex:0011\n", 2, "token key 8: secret has 2 bytes, at least 32 expected"},
      {keys + "key 7 hex:" + hex(secret(0x99)) + "\n", 2, "id already in the key ring"},
      {keys + "key 8 hex:" + hex(secret(1)).substr(1) + "\n", 2, "even number of hex digits"},
      {keys + "key 8 base64url:" + tokens::base64url_encode(secret(1)) + "=\n", 2,
       "not canonical base64url"},
      {keys + "jwt_key a\"b hex:" + hex(secret(1)) + "\n", 2, "kid must be at most 64"},
      {keys + "key 8 hex:" + hex(secret(1)) + "\nkey 9 hex:" + hex(secret(2)) + "\n", 3,
       "a third key"},
      {keys + "key 300 hex:" + hex(secret(1)) + "\n", 2, "0 to 255"},
      {keys + "jwt " + jwt("", kNow + 1, secret(0x11)) + "\n", 2, "no jwt_key line"},
      {"# nothing but a key\n" + keys, 1, "no admission, pass or jwt token"},
      {keys + "cookie abc\n", 2, "unknown line 'cookie'"},
      {keys + "admission " + admission + " extra\n", 2, "unexpected 'extra'"},
  };
  for (const Case& c : cases) {
    write_text(dir / "tokens.txt", c.text);
    const MicroRun run = run_micro(dir, "--input tokens=" + (dir / "tokens.txt").string());
    EXPECT_EQ(run.exit_code, 2) << c.what;
    const std::string where = (dir / "tokens.txt").string() + ":" + std::to_string(c.line) + ":";
    EXPECT_NE(run.stderr_text.find(where), std::string::npos) << c.what << ": " << run.stderr_text;
    EXPECT_NE(run.stderr_text.find(c.what), std::string::npos) << run.stderr_text;
    EXPECT_TRUE(run.json.is_null()) << c.what;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gatebench::bench::test
