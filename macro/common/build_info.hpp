// What the running binary is: the commit it was built from, the version and the compiler
// (gatebench_build_info, macro/common/CMakeLists.txt; every value comes from CMake, once).
// Recorded in macro.json's env, in gatebench-micro's context and in gatebench-load's results, so
// a result names the code that produced it rather than whatever the checkout held when it ran.
#pragma once

#include <string_view>

namespace gatebench {

// 40 hex digits of `git rev-parse HEAD` at build time, or "unknown" (no git, not a checkout).
std::string_view build_commit();
// Tracked files differed from that commit at build time (`git diff --quiet HEAD` failed).
bool build_dirty();
// The source tree the binary was built from (where build presets and fixtures live).
std::string_view build_source_dir();
// The project's version (CMake's project(VERSION)), e.g. "0.1.0".
std::string_view build_version();
// "<compiler id> <version>" of the C++ compiler, e.g. "GNU 12.2.0".
std::string_view build_compiler();

}  // namespace gatebench
