// Body decoders (micro/core/rules/body_fields.hpp): form, JSON and multipart fields, chunked
// framing, cut bodies and the errors.
#include "micro/core/rules/body_fields.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gatebench::rules {
namespace {

struct Decoded {
  BodyStatus status;
  std::string text;
};

Decoded decode(std::string_view content_type, std::string_view body, bool complete = true) {
  std::string_view boundary;
  const BodyFormat format = body_format(content_type, boundary);
  std::vector<char> buf(body.size() + 1);
  std::string_view text;
  const BodyStatus st = decode_body_fields(format, boundary, body, complete, buf.data(), text);
  return {st, std::string(text)};
}

TEST(BodyFields, Formats) {
  std::string_view b;
  EXPECT_EQ(body_format("application/x-www-form-urlencoded", b), BodyFormat::kForm);
  EXPECT_EQ(body_format("Application/JSON; charset=utf-8", b), BodyFormat::kJson);
  EXPECT_EQ(body_format("application/vnd.api+json", b), BodyFormat::kJson);
  EXPECT_EQ(body_format("multipart/form-data; boundary=\"xyz\"", b), BodyFormat::kMultipart);
  EXPECT_EQ(b, "xyz");
  EXPECT_EQ(body_format("multipart/form-data; charset=x; Boundary=abc", b), BodyFormat::kMultipart);
  EXPECT_EQ(b, "abc");
  EXPECT_EQ(body_format("text/plain", b), BodyFormat::kRaw);
  EXPECT_EQ(body_format("", b), BodyFormat::kRaw);
}

TEST(BodyFields, FormIsDecodedTwiceWithPlusAsSpace) {
  const Decoded d = decode("application/x-www-form-urlencoded",
                           "user=bob&q=1%27+UNION%2520SELECT+x&note=%3C%3Fphp");
  EXPECT_EQ(d.status, BodyStatus::kOk);
  EXPECT_EQ(d.text, "user=bob&q=1' UNION SELECT x&note=<?php");
  EXPECT_EQ(decode("application/x-www-form-urlencoded", "a=%zz").status, BodyStatus::kBadEncoding);
  // Cut inside an escape at the inspection limit: the prefix before it.
  const Decoded cut = decode("application/x-www-form-urlencoded", "a=1&b=%2", false);
  EXPECT_EQ(cut.status, BodyStatus::kOk);
  EXPECT_EQ(cut.text, "a=1&b=");
}

TEST(BodyFields, JsonScalarsWithMemberNamesAndEscapes) {
  Decoded d = decode("application/json",
                     R"({"user": "o\u0027brien", "n": 12.5e3, "ok": true, "tags": ["a", null],
                        "deep": {"x": {"y": "\"<?php\" \\ \/"}}, "e": {}, "f": []})");
  EXPECT_EQ(d.status, BodyStatus::kOk);
  EXPECT_EQ(d.text, "user=o'brien&n=12.5e3&ok=true&tags=a&null&deep=x=y=\"<?php\" \\ /&e=f=");
  d = decode("application/json", R"(["\u00e9\u20ac\ud83d\ude00\ud800"])");
  EXPECT_EQ(d.status, BodyStatus::kOk);
  EXPECT_EQ(d.text, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbd&");
  EXPECT_EQ(decode("application/json", "42").text, "42&");
}

TEST(BodyFields, JsonErrors) {
  for (std::string_view bad :
       {"", "{", "{\"a\" 1}", "{\"a\":}", "[1,]", "[1 2]", "{a:1}", "\"\\x\"", "\"a\nb\"", "tru",
        "1 2", "[\"\\u12\"]", "{\"a\":1,}", "]"}) {
    EXPECT_EQ(decode("application/json", bad).status, BodyStatus::kBadJson) << bad;
  }
  std::string deep(kMaxJsonDepth, '[');
  deep += std::string(kMaxJsonDepth, ']');
  EXPECT_EQ(decode("application/json", deep).status, BodyStatus::kOk);
  std::string deeper(kMaxJsonDepth + 1, '[');
  deeper += std::string(kMaxJsonDepth + 1, ']');
  EXPECT_EQ(decode("application/json", deeper).status, BodyStatus::kBadJson);
  // A body cut at the limit is scanned as far as it goes.
  const Decoded cut = decode("application/json", R"({"a": "x", "b": "union sel)", false);
  EXPECT_EQ(cut.status, BodyStatus::kOk);
  EXPECT_EQ(cut.text, "a=x&b=union sel");
}

TEST(BodyFields, MultipartPartsAndFileNames) {
  const std::string body =
      "preamble\r\n--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nhello "
      "world\r\n--XyZ\r\ncontent-disposition: form-data; name=\"file\"; "
      "filename=\"shell.php\"\r\nContent-Type: application/octet-stream\r\n\r\n<?php "
      "system($_GET[1]); "
      "?>\r\n--XyZ--\r\nepilogue";
  const Decoded d = decode("multipart/form-data; boundary=XyZ", body);
  EXPECT_EQ(d.status, BodyStatus::kOk);
  EXPECT_EQ(d.text, "title=hello world&shell.php&file=<?php system($_GET[1]); ?>&");
  EXPECT_EQ(decode("multipart/form-data", body).status, BodyStatus::kBadMultipart);
  EXPECT_EQ(decode("multipart/form-data; boundary=other", body).status, BodyStatus::kBadMultipart);
  const std::string open = body.substr(0, body.find("--XyZ--"));
  EXPECT_EQ(decode("multipart/form-data; boundary=XyZ", open).status, BodyStatus::kBadMultipart);
  const Decoded cut = decode("multipart/form-data; boundary=XyZ", open, false);
  EXPECT_EQ(cut.status, BodyStatus::kOk);
  EXPECT_NE(cut.text.find("<?php"), std::string::npos);
}

TEST(BodyFields, RawBodiesAreThemselves) {
  const Decoded d = decode("text/plain", "a%41+b");
  EXPECT_EQ(d.status, BodyStatus::kOk);
  EXPECT_EQ(d.text, "a%41+b");
}

TEST(BodyFields, ChunkedDataWithoutFraming) {
  const std::string framed = "5;ext=1\r\nhello\r\n1\r\n \r\n6\r\nworld!\r\n0\r\nTrailer: x\r\n\r\n";
  std::vector<char> buf(framed.size());
  EXPECT_EQ(chunked_data(framed, buf.data()), "hello world!");
  EXPECT_EQ(chunked_data(framed.substr(0, 20), buf.data()), "hello ");
  EXPECT_EQ(chunked_data("", buf.data()), "");
}

}  // namespace
}  // namespace gatebench::rules
