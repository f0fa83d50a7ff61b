#include "macro/driver/toolbox.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "macro/driver/children.hpp"

namespace gatebench::macro {
namespace fs = std::filesystem;

namespace {

bool executable(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && access(path.c_str(), X_OK) == 0;
}

// Where each gatebench binary lands in a CMake build tree, relative to macro/driver/.
std::vector<fs::path> build_tree_candidates(const std::string& name) {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  fs::path dir = self.parent_path();
  // The test executables live in tests/macro/driver of the same build tree.
  fs::path build_root = dir.parent_path().parent_path();
  if (dir.parent_path().parent_path().filename() == "tests") build_root = build_root.parent_path();
  return {dir / name, build_root / "macro" / "load" / name, build_root / "macro" / "gateway" / name,
          build_root / "macro" / "driver" / name, build_root / "tools" / name};
}

}  // namespace

Toolbox::Toolbox(std::string bin_dir) : bin_dir_(std::move(bin_dir)) {
  if (bin_dir_.empty()) {
    if (const char* env = std::getenv("GATEBENCH_BIN_DIR")) bin_dir_ = env;
  }
}

std::optional<std::string> Toolbox::find(const std::string& name) const {
  if (auto it = cache_.find(name); it != cache_.end()) return it->second;
  std::optional<std::string> found;
  std::vector<fs::path> candidates;
  if (name.starts_with("gatebench-")) {
    if (!bin_dir_.empty()) candidates.push_back(fs::path(bin_dir_) / name);
    for (auto& c : build_tree_candidates(name)) candidates.push_back(c);
  }
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin";
  path += ":/usr/sbin:/sbin:/usr/local/sbin";
  for (size_t start = 0; start <= path.size();) {
    size_t colon = path.find(':', start);
    if (colon == std::string::npos) colon = path.size();
    if (colon > start) candidates.push_back(fs::path(path.substr(start, colon - start)) / name);
    start = colon + 1;
  }
  for (const auto& c : candidates) {
    if (executable(c)) {
      std::error_code ec;
      fs::path absolute = fs::absolute(c, ec);
      found = (ec ? c : absolute).lexically_normal().string();
      break;
    }
  }
  cache_[name] = found;
  return found;
}

std::string Toolbox::missing_reason(const std::string& name) {
  if (name.starts_with("gatebench-")) return name + " not built";
  return name + " not installed";
}

std::string Toolbox::help_text(const std::string& name) const {
  if (auto it = help_cache_.find(name); it != help_cache_.end()) return it->second;
  std::string text;
  if (auto exe = find(name)) {
    try {
      text = run_capture(*exe, {"--help"}, std::chrono::milliseconds(5000)).output;
    } catch (const SpawnError&) {
      text.clear();
    }
  }
  help_cache_[name] = text;
  return text;
}

}  // namespace gatebench::macro
