// A directory only its creator can enter, for what gatebench writes under a shared parent such as
// /tmp. The driver and tools run as root: a predictable name there (`/tmp/gatebench-x-<pid>`) lets
// any local user create it first, or a symlink in its place, and receive root's writes. mkdtemp
// makes a fresh directory with a random suffix and mode 0700 in one step, so nothing that existed
// before is ever used.
#pragma once

#include <filesystem>
#include <string_view>

namespace gatebench::common {

class PrivateDir {
 public:
  // Makes `parent`/`prefix`XXXXXX with mkdtemp. Throws std::system_error when it cannot.
  PrivateDir(const std::filesystem::path& parent, std::string_view prefix);
  // In the system's temporary directory ($TMPDIR, else /tmp).
  explicit PrivateDir(std::string_view prefix);
  ~PrivateDir();  // removes the directory and everything in it, unless keep() was called

  PrivateDir(PrivateDir&& other) noexcept;
  PrivateDir& operator=(PrivateDir&& other) noexcept;
  PrivateDir(const PrivateDir&) = delete;
  PrivateDir& operator=(const PrivateDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // Leaves the directory on disk when this object goes (results the user reads afterwards).
  void keep() { keep_ = true; }

 private:
  void remove() noexcept;

  std::filesystem::path path_;
  bool keep_ = false;
};

}  // namespace gatebench::common
