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
  std::vector<access_log::AccessLogError> errors(1);
  std::string_view rest = in.log;
  while (!rest.empty()) {
    const access_log::BatchResult res = access_log::parse(in.format, rest, records, errors);
    if (res.errors != 0) {
      const std::size_t at = static_cast<std::size_t>(rest.data() - in.log.data());
      fail_at(file, line_of(in.log, at + errors[0].line_offset),
              "not a " + std::string(format) + " record (" +
                  std::string(access_log::name(errors[0].reason)) + ")");
    }
    rest.remove_prefix(res.consumed);
  }
  return in;
}

}  // namespace gatebench::bench
