// Helpers shared by the tools tests: paths of the checked-in data and of the built `gatebench`,
// running it, and scratch directories.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "macro/common/child_process.hpp"

namespace gatebench::tools::test {

inline std::string data(const std::string& name) {
  return std::string(GATEBENCH_TOOLS_DATA) + "/" + name;
}

// `args` split into words as a shell would for the plain cases the tests write: blanks separate
// words, '...' and "..." keep blanks and are taken literally (no escapes, no expansion).
inline std::vector<std::string> words_of(const std::string& args) {
  std::vector<std::string> out;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const char c = args[i];
    if (c == '\'' || c == '"') {
      const std::size_t close = args.find(c, i + 1);
      if (close == std::string::npos) throw std::invalid_argument("unbalanced quote in: " + args);
      word += args.substr(i + 1, close - i - 1);
      in_word = true;
      i = close;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) out.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) out.push_back(word);
  return out;
}

// Runs `gatebench ARGS` (common::ChildProcess, no shell) with stdout/stderr sent to files; returns
// the exit code (128 + N when killed by signal N).
inline int run_gatebench(const std::string& args, const std::string& out = "/dev/null",
                         const std::string& err = "/dev/null") {
  common::SpawnSpec spec;
  spec.exe = GATEBENCH_EXE;
  spec.args = words_of(args);
  spec.out = common::Stream::to_file(out);
  spec.err = common::Stream::to_file(err);
  return common::run_to_exit(spec);
}

// What headless Chromium made of an HTML file: its exit code, the DOM it dumped and its log
// (console messages appear there as ":CONSOLE" lines).
struct RenderedPage {
  int exit_code = -1;
  std::string dom_file, log_file;
};

// Renders `html` with `chromium` (a path), its profile and outputs under `work`.
inline RenderedPage render_in_chromium(const std::string& chromium, const std::string& html,
                                       const std::filesystem::path& work) {
  const auto profile = work / "profile";
  std::filesystem::create_directories(profile);
  RenderedPage page{-1, (work / "dom.html").string(), (work / "chromium.log").string()};
  page.exit_code = common::run_to_exit(common::command(
      {chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
       "--disable-component-update", "--no-first-run", "--user-data-dir=" + profile.string(),
       "--enable-logging=stderr", "--v=0", "--dump-dom", "file://" + html},
      page.dom_file, page.log_file));
  return page;
}

inline std::filesystem::path scratch_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("gatebench-tools-test-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace gatebench::tools::test
