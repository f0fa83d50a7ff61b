// Where gatebench-micro (and gatebench-macro) is: --bench, $GATEBENCH_MICRO, the build tree this
// gatebench belongs to (build/X/tools/src/gatebench -> build/X/micro/bench/gatebench-micro), then
// build/release/micro/bench/gatebench-micro under the current directory.
#pragma once

#include <optional>
#include <string>

namespace gatebench::tools {

// Throws common::UsageError naming every place tried when none holds an executable.
std::string locate_micro_binary(const std::optional<std::string>& explicit_path);

// The same search for gatebench-macro ($GATEBENCH_MACRO, .../macro/driver/gatebench-macro).
std::string locate_macro_binary(const std::optional<std::string>& explicit_path);

}  // namespace gatebench::tools
