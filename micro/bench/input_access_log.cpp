#include "micro/bench/input_access_log.hpp"

#include <string_view>
#include <vector>

#include "micro/core/access_log/access_log.hpp"

namespace gatebench::bench {

AccessLogInput load_access_log_input(InputFile&& file) {
  AccessLogInput in;
  // take_input_options() accepted only access_log.<a format name>.
  const std::string_view format = std::string_view(file.kind).substr(file.kind.find('.') + 1);
  for (access_log::Format f :
       {access_log::Format::tsv, access_log::Format::combined, access_log::Format::jsonl})
    if (access_log::name(f) == format) in.format = f;
  in.log = std::move(file.bytes);
  // The parsers take whole lines; a last line without its newline is still a line.
  if (in.log.back() != '\n') in.log += '\n';
  std::vector<access_log::AccessLogRecord> records(1024);
  std::vector<access_log::AccessLogError> errors(1024);
  std::size_t valid = 0;
  std::string_view rest = in.log;
  while (!rest.empty()) {
    const access_log::BatchResult res = access_log::parse(in.format, rest, records, errors);
    const std::size_t base = static_cast<std::size_t>(rest.data() - in.log.data());
    for (std::size_t i = 0; i < res.errors; ++i) {
      if (in.named_rejects.size() == AccessLogInput::kNamedRejects) break;
      in.named_rejects.push_back(file.path + ":" +
                                 std::to_string(line_of(in.log, base + errors[i].line_offset)) +
                                 ": " + std::string(access_log::name(errors[i].reason)));
    }
    valid += res.records;
    in.rejected += res.errors;
    rest.remove_prefix(res.consumed);
  }
  in.lines = valid + in.rejected;
  // The file is not empty (read_input_file refuses that), so a file without a valid record has a
  // first rejected line to name.
  if (valid == 0)
    throw InputError(in.named_rejects.front() + " (no valid " + std::string(format) +
                     " record: all " + std::to_string(in.lines) + " lines rejected)");
  return in;
}

}  // namespace gatebench::bench
