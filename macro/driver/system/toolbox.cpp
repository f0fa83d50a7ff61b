#include "macro/driver/system/toolbox.hpp"

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "macro/common/child_process.hpp"
#include "macro/driver/system/children.hpp"

namespace gatebench::macro {
namespace fs = std::filesystem;

namespace {

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
  std::vector<fs::path> candidates;
  if (name.starts_with("gatebench-")) {
    if (!bin_dir_.empty()) candidates.push_back(fs::path(bin_dir_) / name);
    for (auto& c : build_tree_candidates(name)) candidates.push_back(c);
  }
  fs::path hit;
  for (const auto& c : candidates) {
    if (common::is_executable_file(c.string())) {
      hit = c;
      break;
    }
  }
  // Daemons (nginx, haproxy) live in sbin, which a user's PATH often leaves out.
  if (hit.empty()) hit = common::find_on_path(name, {"/usr/sbin", "/sbin", "/usr/local/sbin"});
  std::optional<std::string> found;
  if (!hit.empty()) {
    std::error_code ec;
    const fs::path absolute = fs::absolute(hit, ec);
    found = (ec ? hit : absolute).lexically_normal().string();
  }
  cache_[name] = found;
  return found;
}

std::string Toolbox::missing_reason(const std::string& name) {
  if (name.starts_with("gatebench-")) return name + " not built";
  return name + " not installed";
}

std::optional<common::LoadCapabilities> Toolbox::capabilities(const std::string& name) const {
  if (auto it = capabilities_cache_.find(name); it != capabilities_cache_.end()) return it->second;
  std::optional<common::LoadCapabilities> caps;
  if (auto exe = find(name)) {
    try {
      caps = common::parse_load_capabilities(
          run_capture(*exe, {"--capabilities"}, std::chrono::milliseconds(5000)).output);
    } catch (const SpawnError&) {
      caps.reset();
    }
  }
  capabilities_cache_[name] = caps;
  return caps;
}

}  // namespace gatebench::macro
