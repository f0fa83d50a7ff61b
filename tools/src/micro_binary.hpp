// Where gatebench-micro is: --bench, $GATEBENCH_MICRO, the build tree this gatebench belongs to
// (build/X/tools/src/gatebench -> build/X/micro/bench/gatebench-micro), then
// build/release/micro/bench/gatebench-micro under the current directory.
#pragma once

#include <optional>
#include <string>

namespace gatebench::tools {

// Throws BadInput naming every place tried when none holds an executable.
std::string locate_micro_binary(const std::optional<std::string>& explicit_path);

}  // namespace gatebench::tools
