// The commit the running binary was built from (gatebench_build_info, build_info/CMakeLists.txt).
// Recorded in macro.json's env and in gatebench-micro's context, so a result names the code that
// produced it rather than whatever the checkout held when it ran.
#pragma once

#include <string_view>

namespace gatebench {

// 40 hex digits of `git rev-parse HEAD` at build time, or "unknown" (no git, not a checkout).
std::string_view build_commit();
// Tracked files differed from that commit at build time (`git diff --quiet HEAD` failed).
bool build_dirty();
// The source tree the binary was built from (where build presets and fixtures live).
std::string_view build_source_dir();

}  // namespace gatebench
