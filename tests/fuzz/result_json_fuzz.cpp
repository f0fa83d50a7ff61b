// The tools' reader of result files (tools::parse_result_set: Google Benchmark JSON, macro.json,
// report.json and instruction counts, docs/compare.md) on arbitrary text. One target for the
// four: the kind is read from the content ("schema", or "benchmarks" with "context"), so the
// fuzzer moves between them by editing one field. Promised: a result set of the detected kind or
// a common::UsageError whose message starts with the file's name (then the JSON pointer), never
// another exception (a type error from the JSON library, a number out of an integer's range);
// instruction counts read back what instructions_to_json writes.
#include <cstddef>
#include <cstdint>

#include "macro/common/json_field.hpp"
#include "macro/common/usage_error.hpp"
#include "tests/fuzz/input_file_fuzz.hpp"
#include "tools/src/results/results.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gatebench;
  const std::string text = fuzz::text_of(data, size);
  fuzz::reads_or_names_file<common::UsageError>("result.json", [&] {
    const nlohmann::json doc = common::parse_json_text(text, "result.json");
    const tools::ResultSet set = tools::parse_result_set(doc, "result.json");
    fuzz::check(set.file == "result.json");
    fuzz::check(set.kind == "gbench" || set.kind == "instructions" || set.kind == "macro" ||
                set.kind == "report");
    if (set.instructions) {
      const nlohmann::json written = tools::instructions_to_json(*set.instructions);
      const tools::InstructionRun again =
          tools::parse_instructions_json(common::JsonField(written, "again.json"));
      fuzz::check(tools::instructions_to_json(again) == written);
    }
  });
  return 0;
}
