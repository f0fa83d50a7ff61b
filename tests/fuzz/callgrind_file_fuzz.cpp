// The tools' callgrind reader (tools::parse_callgrind, callgrind_total_instructions, the one
// parser of the format behind `gatebench profile` and the attribution) on arbitrary file text,
// written to a private temporary file since the readers take a path. Promised: a profile or a
// std::runtime_error whose message starts with the file's name (then the line); a profile has a
// name, an object and a self cost per function, and its call edges join functions it has.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "tests/fuzz/input_file_fuzz.hpp"
#include "tools/src/profile/callgrind_file.hpp"
#include "tools/src/profile/callgrind_profile.hpp"

namespace {

// One file for the whole run, made with mkstemp (never a name someone else could have made).
const std::string& scratch_file() {
  static const std::string path = [] {
    std::string p = "/tmp/gatebench-callgrind-fuzz-XXXXXX";
    const int fd = mkstemp(p.data());
    gatebench::fuzz::check(fd >= 0);
    close(fd);
    return p;
  }();
  return path;
}

void write_file(const std::string& path, const std::uint8_t* data, std::size_t size) {
  const int fd = open(path.c_str(), O_WRONLY | O_TRUNC | O_NOFOLLOW);
  gatebench::fuzz::check(fd >= 0);
  for (std::size_t done = 0; done < size;) {
    const ssize_t n = write(fd, data + done, size - done);
    gatebench::fuzz::check(n > 0);
    done += static_cast<std::size_t>(n);
  }
  close(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gatebench;
  const std::string& file = scratch_file();
  write_file(file, data, size);
  fuzz::reads_or_names_file<std::runtime_error>(file, [&] {
    const tools::CallgrindProfile p = tools::parse_callgrind(file);
    const std::size_t n = p.names.size();
    fuzz::check(p.objects.size() == n && p.self.size() == n);
    for (const auto& [edge, cost] : p.calls) {
      fuzz::check(edge.first >= 0 && static_cast<std::size_t>(edge.first) < n);
      fuzz::check(edge.second >= 0 && static_cast<std::size_t>(edge.second) < n);
    }
    for (std::size_t f = 0; f < n && f < 64; ++f) p.inclusive(static_cast<int>(f));
    tools::top_functions(p, true, 10);
  });
  fuzz::reads_or_names_file<std::runtime_error>(file,
                                                [&] { tools::callgrind_total_instructions(file); });
  return 0;
}
