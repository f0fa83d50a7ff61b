// `--input KIND=FILE` for gatebench-micro (docs/micro-input.md): the user's own files, read and
// fingerprinted before Google Benchmark sees the command line, so a run over them records which
// bytes it measured.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gatebench::bench {

// A bad --input option or file; what() is "FILE:LINE: what" (or "--input: what"). Exit 2.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct InputFile {
  std::string kind;  // access_log.tsv, access_log.combined, access_log.jsonl, rules, cidr, traffic,
                     // tokens
  std::string path;
  std::string bytes;   // the whole file
  std::string sha256;  // lowercase hex of bytes
};

// The kinds --input accepts, in the order their benchmarks are registered.
const std::vector<std::string_view>& input_kinds();

// Removes every `--input KIND=FILE` and `--input=KIND=FILE` from argv (argc shrinks) and reads
// each file. Throws InputError for an unknown kind, a kind given twice, or an unreadable file.
std::vector<InputFile> take_input_options(int& argc, char** argv);

// "FILE:LINE: what", the form every input diagnostic takes.
[[noreturn]] void fail_at(const InputFile& file, std::size_t line, std::string_view what);

// 1-based line of the byte at `offset`.
std::size_t line_of(std::string_view text, std::size_t offset);

// Adds gatebench_input_<kind>_path, _size (bytes) and _sha256 to micro.json's context.
void add_input_context(const InputFile& file);

}  // namespace gatebench::bench
