#include "macro/common/json_field.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>

#include "macro/common/usage_error.hpp"

namespace gatebench::common {
namespace {

using nlohmann::json;

const json kDoc = json::parse(R"({
  "name": "x", "load": {"rate": "fast", "port": 80, "big": 18446744073709551615, "close": 1},
  "list": ["a", 2], "env": {"A": "1", "B": false}, "a/b": {"c~d": 1}, "opt": null
})");

std::string error_of(const std::function<void(const JsonField&)>& read) {
  try {
    read(JsonField(kDoc, "macro/scenarios/x.json"));
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

TEST(JsonField, ReadsValues) {
  const JsonField root(kDoc, "f.json");
  EXPECT_EQ(root.child("name").string(), "x");
  EXPECT_EQ(root.child("load").child("port").integer(1, 65535), 80);
  EXPECT_EQ(root.string_or("missing", "d"), "d");
  EXPECT_EQ(root.child("load").integer_or("missing", 7, 0, 10), 7);
  EXPECT_EQ(root.child("load").number_or("port", 0, 0, 100), 80);
  EXPECT_TRUE(root.boolean_or("missing", true));
  EXPECT_FALSE(root.child("opt").optional_string());
  EXPECT_FALSE(root.child("missing").optional_number());
  EXPECT_TRUE(root.child("missing").strings().empty());
  EXPECT_EQ(root.child("load").keys().size(), 4u);
  EXPECT_EQ(root.child("a/b").child("c~d").pointer(), "/a~1b/c~0d");
  EXPECT_FALSE(root.child("missing").present());
  EXPECT_EQ(root.child("list").size(), 2u);
}

TEST(JsonField, ErrorsNameFileAndPointer) {
  EXPECT_EQ(error_of([](const JsonField& f) { f.child("load").child("rate").number(); }),
            "macro/scenarios/x.json: /load/rate: expected a number");
  EXPECT_EQ(error_of([](const JsonField& f) { f.child("load").child("nope").string(); }),
            "macro/scenarios/x.json: /load/nope: missing (expected a string)");
  EXPECT_EQ(
      error_of([](const JsonField& f) { f.child("load").child("port").integer(1024, 65535); }),
      "macro/scenarios/x.json: /load/port: expected an integer from 1024 to 65535");
  EXPECT_EQ(error_of([](const JsonField& f) { f.child("load").child("big").integer(0, 10); }),
            "macro/scenarios/x.json: /load/big: expected an integer from 0 to 10");
  EXPECT_EQ(error_of([](const JsonField& f) { f.child("load").child("port").number(0.5, 1.5); }),
            "macro/scenarios/x.json: /load/port: expected a number from 0.5 to 1.5");
  EXPECT_EQ(error_of([](const JsonField& f) { f.child("name").integer(0, 1); }),
            "macro/scenarios/x.json: /name: expected an integer");
  EXPECT_EQ(error_of([](const JsonField& f) { f.child("load").boolean_or("close", false); }),
            "macro/scenarios/x.json: /load/close: expected true or false");
  EXPECT_EQ(error_of([](const JsonField& f) { f.child("list").strings(); }),
            "macro/scenarios/x.json: /list/1: expected a string");
  EXPECT_EQ(error_of([](const JsonField& f) { f.child("name").strings(); }),
            "macro/scenarios/x.json: /name: expected an array of strings");
  EXPECT_EQ(error_of([](const JsonField& f) { f.child("env").string_map(); }),
            "macro/scenarios/x.json: /env/B: expected a string");
  EXPECT_EQ(error_of([](const JsonField& f) {
              f.allow_only({"name", "load"});
            }),
            "macro/scenarios/x.json: /a~1b: unknown field");
  EXPECT_EQ(error_of([](const JsonField& f) { f.child("ready").expect_object(); }),
            "macro/scenarios/x.json: /ready: missing (expected an object)");
  EXPECT_EQ(error_of([](const JsonField& f) { f.child("name").expect_array(); }),
            "macro/scenarios/x.json: /name: expected an array");
  EXPECT_EQ(error_of([](const JsonField& f) { f.child("list").at(0).fail("too short"); }),
            "macro/scenarios/x.json: /list/0: too short");
}

// The readers of the formats between processes: absent and null give the fallback, a value is
// read and checked as the plain getters do.
TEST(JsonField, OrDefaultReadersKeepTheFallbackForAbsentAndNull) {
  const JsonField root(kDoc, "f.json");
  const JsonField load = root.child("load");
  EXPECT_EQ(root.child("opt").string_or_default("d"), "d");
  EXPECT_EQ(root.child("missing").string_or_default(), "");
  EXPECT_EQ(root.child("name").string_or_default("d"), "x");
  EXPECT_EQ(root.child("opt").number_or_default(1.5), 1.5);
  EXPECT_EQ(root.child("missing").number_or_default(), 0);
  EXPECT_EQ(load.child("port").number_or_default(1.5), 80);
  EXPECT_TRUE(root.child("opt").boolean_or_default(true));
  EXPECT_FALSE(root.child("missing").boolean_or_default());
  EXPECT_FALSE(root.child("env").child("B").boolean_or_default(true));
  EXPECT_EQ(root.child("opt").integer_or_default(7, 0, 10), 7);
  EXPECT_EQ(load.child("port").integer_or_default(7, 0, 100), 80);
  EXPECT_EQ(root.child("opt").count_or_default(), 0u);
  EXPECT_EQ(root.child("missing").count_or_default(3), 3u);
  EXPECT_EQ(load.child("port").count_or_default(), 80u);
  EXPECT_EQ(error_of([](const JsonField& f) { f.child("load").child("rate").number_or_default(); }),
            "macro/scenarios/x.json: /load/rate: expected a number");
  EXPECT_EQ(
      error_of([](const JsonField& f) { f.child("load").child("close").boolean_or_default(); }),
      "macro/scenarios/x.json: /load/close: expected true or false");
  EXPECT_EQ(error_of([](const JsonField& f) { f.child("list").string_or_default(); }),
            "macro/scenarios/x.json: /list: expected a string");
  EXPECT_EQ(error_of([](const JsonField& f) {
              f.child("load").child("port").integer_or_default(1, 0, 10);
            }),
            "macro/scenarios/x.json: /load/port: expected an integer from 0 to 10");
  // Above LONG_MAX, and below 0: no count.
  EXPECT_EQ(error_of([](const JsonField& f) { f.child("load").child("big").count_or_default(); }),
            "macro/scenarios/x.json: /load/big: expected an integer from 0 to " +
                std::to_string(std::numeric_limits<long>::max()));
  const json negative = json::parse(R"({"n": -1})");
  EXPECT_THROW(JsonField(negative, "n.json").child("n").count_or_default(), UsageError);
}

TEST(JsonField, TheRootIsTheTopLevel) {
  const json array = json::array();
  try {
    JsonField(array, "f.json").expect_object();
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "f.json: (top level): expected an object");
  }
}

// The ordered reader keeps the file's member order and reports as the plain one does.
TEST(JsonField, OrderedFieldsKeepTheDocumentOrder) {
  const auto doc =
      parse_json_text<nlohmann::ordered_json>(R"({"z": 1, "a": {"y": "s", "b": 2}})", "o.json");
  const OrderedJsonField root(doc, "o.json");
  EXPECT_EQ(root.keys(), (std::vector<std::string>{"z", "a"}));
  EXPECT_EQ(root.child("a").keys(), (std::vector<std::string>{"y", "b"}));
  EXPECT_EQ(JsonField(json::parse(doc.dump()), "o.json").keys(),
            (std::vector<std::string>{"a", "z"}));
  EXPECT_EQ(root.child("a").child("y").string(), "s");
  try {
    root.child("a").child("b").string();
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "o.json: /a/b: expected a string");
  }
  try {
    parse_json_text<nlohmann::ordered_json>("{", "o.json");
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("o.json: not valid JSON", 0), 0u) << e.what();
  }
}

TEST(JsonField, FilesThatCannotBeReadOrParsed) {
  const auto dir = std::filesystem::temp_directory_path() / "gatebench-json-field-test";
  std::filesystem::create_directories(dir);
  const std::string bad = (dir / "bad.json").string();
  std::ofstream(bad) << "{\"a\": ";
  try {
    read_json_file(bad);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(bad + ": not valid JSON", 0), 0u) << e.what();
  }
  try {
    read_json_file((dir / "missing.json").string());
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "missing.json").string() + ": cannot read");
  }
  const std::string good = (dir / "good.json").string();
  std::ofstream(good) << R"({"a": [1]})";
  EXPECT_EQ(read_json_file(good)["a"][0], 1);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gatebench::common
