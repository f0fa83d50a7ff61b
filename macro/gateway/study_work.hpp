// Study-only work per request (calibrate.hpp; docs/gateway.md "Calibration"): the calibration
// knob's chain of mixes and the injected costs, run at the start of every request when switched
// on. The part owns the chain's state and the injections' descriptor and copy buffer, so the
// request path tests one flag whatever is switched on.
#pragma once

#include <cstdint>
#include <vector>

#include "macro/gateway/calibrate.hpp"
#include "macro/gateway/connection.hpp"

namespace gatebench::gateway {

class StudyWork {
 public:
  // `null_fd`: the descriptor the `write` injection writes to.
  StudyWork(std::uint32_t mixes, const StudyInjections& inject, int null_fd)
      : mixes_(mixes), on_(mixes != 0 || inject.any()), inject_(inject), null_fd_(null_fd) {}

  bool on() const { return on_; }
  // The work for the request whose head `c` has just parsed.
  void run(const Client& c);
  // The chain's result: the loop uses it once at the end, so the compiler cannot drop the work.
  std::uint64_t state() const { return state_; }

 private:
  std::uint32_t mixes_ = 0;
  std::uint64_t state_ = 0;
  bool on_ = false;
  StudyInjections inject_;
  int null_fd_ = -1;
  std::vector<char> copy_;  // sized once, to the largest head copied
};

}  // namespace gatebench::gateway
