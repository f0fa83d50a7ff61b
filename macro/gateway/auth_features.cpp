// Configuration of the two request-identity features of a host: the bearer JWT it requires and
// its loop detection (docs/gateway.md, "JWT" and "Loop detection"). Keys are loaded here, once.
#include <optional>
#include <stdexcept>

#include "macro/gateway/config_json.hpp"
#include "macro/gateway/features.hpp"

namespace gatebench::gateway {

JwtFeature load_jwt(const Field& jwt) {
  jwt.allow_keys({"keys", "issuer", "audience", "leeway_s"});
  auto keys = std::make_shared<tokens::JwtKeySet>();
  Field arr = jwt.required("keys");
  arr.expect_array();
  if (arr.size() == 0) arr.fail("expected at least one key");
  for (std::size_t i = 0; i < arr.size(); ++i) {
    Field k = arr.at(i);
    k.allow_keys({"kid", "alg", "secret_hex", "public_key"});
    const std::string kid = k.required("kid").string();
    const std::string alg = k.required("alg").string();
    try {
      if (alg == "HS256") {
        if (k.has("public_key")) k.child("public_key").fail("only with \"alg\": \"ES256\"");
        keys->add_hs256(kid, hex_secret(k.required("secret_hex"), 32));
      } else if (alg == "ES256") {
        if (k.has("secret_hex")) k.child("secret_hex").fail("only with \"alg\": \"HS256\"");
        Field pem = k.required("public_key");
        const std::string path = pem.path_string();
        const std::string text = pem.file_text(path);
        std::optional<tokens::Es256PublicKey> key;
        try {
          key = tokens::Es256PublicKey::from_pem(text);
        } catch (const std::invalid_argument& e) {
          pem.fail(path + ": " + e.what());
        }
        keys->add_es256(kid, std::move(*key));
      } else {
        k.child("alg").fail("expected \"HS256\" or \"ES256\"");
      }
    } catch (const std::invalid_argument& e) {
      k.child("kid").fail(e.what());
    }
  }
  JwtFeature f;
  f.keys = std::move(keys);
  f.required.issuer = jwt.string_or("issuer", "");
  f.required.audience = jwt.string_or("audience", "");
  f.required.leeway_s = jwt.integer_or("leeway_s", 0, 0, 3600);
  return f;
}

LoopFeature load_loop(const Field& loop) {
  loop.allow_keys({"max_hops", "via"});
  LoopFeature f;
  f.max_hops = static_cast<std::uint32_t>(loop.integer_or("max_hops", 8, 1, 255));
  f.via_name = loop.string_or("via", "gatebench-gateway");
  if (f.via_name.empty() || f.via_name.size() > 64) {
    loop.child("via").fail("expected a name of 1-64 characters");
  }
  for (char c : f.via_name) {
    const bool token = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '-' || c == '.' || c == '_';
    if (!token) loop.child("via").fail("expected letters, digits, '-', '.' or '_'");
  }
  return f;
}

}  // namespace gatebench::gateway
