#include "macro/common/private_dir.hpp"

#include <stdlib.h>

#include <cerrno>
#include <string>
#include <system_error>
#include <utility>

namespace gatebench::common {

PrivateDir::PrivateDir(const std::filesystem::path& parent, std::string_view prefix) {
  std::string pattern = (parent / prefix).string() + "XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr)
    throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
  path_ = pattern;
}

PrivateDir::PrivateDir(std::string_view prefix)
    : PrivateDir(std::filesystem::temp_directory_path(), prefix) {}

PrivateDir::~PrivateDir() {
  remove();
}

PrivateDir::PrivateDir(PrivateDir&& other) noexcept
    : path_(std::exchange(other.path_, {})), keep_(other.keep_) {}

PrivateDir& PrivateDir::operator=(PrivateDir&& other) noexcept {
  if (this != &other) {
    remove();
    path_ = std::exchange(other.path_, {});
    keep_ = other.keep_;
  }
  return *this;
}

void PrivateDir::remove() noexcept {
  if (path_.empty() || keep_) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);  // a destructor cannot report; nothing else holds it
}

}  // namespace gatebench::common
