#include "micro/bench/input_options.hpp"

#include <benchmark/benchmark.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>

namespace gatebench::bench {
namespace {

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw InputError("--input: SHA-256 failed");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 15];
  }
  return hex;
}

InputFile read_input(std::string_view option) {
  const std::size_t eq = option.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == option.size())
    throw InputError("--input: expected KIND=FILE, got '" + std::string(option) + "'");
  InputFile file;
  file.kind = std::string(option.substr(0, eq));
  file.path = std::string(option.substr(eq + 1));
  const auto& kinds = input_kinds();
  if (std::find(kinds.begin(), kinds.end(), file.kind) == kinds.end()) {
    std::string list;
    for (std::string_view k : kinds) list += (list.empty() ? "" : ", ") + std::string(k);
    throw InputError("--input: unknown kind '" + file.kind + "' (expected one of: " + list + ")");
  }
  std::ifstream in(file.path, std::ios::binary);
  if (!in) throw InputError(file.path + ": cannot open (--input " + file.kind + ")");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(file.path + ": read error");
  file.bytes = std::move(text).str();
  if (file.bytes.empty()) fail_at(file, 1, "empty file");
  file.sha256 = sha256_hex(file.bytes);
  return file;
}

}  // namespace

const std::vector<std::string_view>& input_kinds() {
  static const std::vector<std::string_view> kinds = {
      "access_log.tsv", "access_log.combined", "access_log.jsonl", "rules", "traffic", "cidr",
      "tokens"};
  return kinds;
}

std::vector<InputFile> take_input_options(int& argc, char** argv) {
  std::vector<InputFile> files;
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    std::string_view value;
    if (arg == "--input") {
      if (i + 1 == argc) throw InputError("--input: expected KIND=FILE after it");
      value = argv[++i];
    } else if (arg.starts_with("--input=")) {
      value = arg.substr(std::strlen("--input="));
    } else {
      argv[out++] = argv[i];
      continue;
    }
    InputFile file = read_input(value);
    for (const InputFile& seen : files) {
      if (seen.kind == file.kind) throw InputError("--input: kind '" + file.kind + "' given twice");
    }
    files.push_back(std::move(file));
  }
  argc = out;
  argv[argc] = nullptr;
  // Registration order follows input_kinds(), whatever order the options came in.
  const auto& kinds = input_kinds();
  std::sort(files.begin(), files.end(), [&](const InputFile& a, const InputFile& b) {
    return std::find(kinds.begin(), kinds.end(), a.kind) <
           std::find(kinds.begin(), kinds.end(), b.kind);
  });
  return files;
}

void fail_at(const InputFile& file, std::size_t line, std::string_view what) {
  throw InputError(file.path + ":" + std::to_string(line) + ": " + std::string(what));
}

std::size_t line_of(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + offset, '\n'));
}

void add_input_context(const InputFile& file) {
  const std::string key = "gatebench_input_" + file.kind;
  benchmark::AddCustomContext(key + "_path", file.path);
  benchmark::AddCustomContext(key + "_size", std::to_string(file.bytes.size()));
  benchmark::AddCustomContext(key + "_sha256", file.sha256);
}

}  // namespace gatebench::bench
