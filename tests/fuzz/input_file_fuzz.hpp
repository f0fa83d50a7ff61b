// What the input-file fuzz targets share: the driver's and tools' file readers promise one error
// type for bad input, with a message that starts with the name of the file (and then the line or
// JSON pointer), so `gatebench` can report it and exit 2. Any other exception escapes
// LLVMFuzzerTestOneInput and libFuzzer reports it as a crash.
#pragma once

#include <cstdlib>
#include <string>
#include <string_view>

namespace gatebench::fuzz {

inline void check(bool ok) {
  if (!ok) std::abort();
}

// Runs read(); an Error it throws must name `file` first. True when read() returned.
template <class Error, class Read>
bool reads_or_names_file(const std::string& file, Read read) {
  try {
    read();
    return true;
  } catch (const Error& e) {
    check(std::string_view(e.what()).starts_with(file));
    return false;
  }
}

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace gatebench::fuzz
