// Helpers for the --input tests: scratch files, running the built gatebench-micro with its JSON
// written to a file, and the figures the tests check in that JSON.
#pragma once

#include <openssl/evp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace gatebench::bench::test {

inline std::filesystem::path scratch_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("gatebench-micro-input-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline std::string sha256_hex(const std::string& bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr);
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    static constexpr char kHex[] = "0123456789abcdef";
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 15];
  }
  return hex;
}

struct MicroRun {
  int exit_code = -1;
  std::string stderr_text;
  nlohmann::json json;  // null when no JSON was written
};

// Runs `command` through the shell, stdout discarded and stderr into `err`; its exit code, -1 when
// it did not exit.
inline int run_shell(const std::string& command, const std::filesystem::path& err) {
  const int status = std::system((command + " >/dev/null 2>" + err.string()).c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Runs gatebench-micro ARGS on the benchmarks whose name holds "input", as briefly as Google
// Benchmark allows, its JSON written into dir.
inline MicroRun run_micro(const std::filesystem::path& dir, const std::string& args) {
  const auto out = dir / "micro.json";
  const auto err = dir / "stderr.txt";
  std::filesystem::remove(out);
  MicroRun run;
  run.exit_code = run_shell(std::string(GATEBENCH_MICRO_EXE) + " " + args +
                                " --benchmark_filter=input --benchmark_min_time=0.01"
                                " --benchmark_out_format=json --benchmark_out=" +
                                out.string(),
                            err);
  run.stderr_text = read_text(err);
  if (std::filesystem::exists(out)) run.json = nlohmann::json::parse(read_text(out));
  return run;
}

// What gatebench-micro ARGS lists with --benchmark_list_tests: one benchmark name per line.
inline std::string list_micro(const std::filesystem::path& dir, const std::string& args) {
  const auto out = dir / "benchmark_list.txt";
  std::system((std::string(GATEBENCH_MICRO_EXE) + " " + args + " --benchmark_list_tests=true >" +
               out.string() + " 2>/dev/null")
                  .c_str());
  return read_text(out);
}

// The row of benchmark `name`, or null.
inline nlohmann::json row(const nlohmann::json& micro, const std::string& name) {
  for (const auto& b : micro.at("benchmarks"))
    if (b.at("name") == name) return b;
  return nullptr;
}

}  // namespace gatebench::bench::test
