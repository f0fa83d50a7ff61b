#include "micro/core/rules/request.hpp"

#include "micro/core/rules/request_ascii.hpp"

namespace gatebench::rules {

bool find_header(const RequestView& request, std::string_view lower_name, std::string_view& value) {
  for (const HeaderView& h : request.headers) {
    if (equals_lower(h.name, lower_name)) {
      value = h.value;
      return true;
    }
  }
  return false;
}

}  // namespace gatebench::rules
