#include "macro/gateway/study_work.hpp"

#include <unistd.h>

#include <cstring>
#include <memory>

namespace gatebench::gateway {

void StudyWork::run(const Client& c) {
  if (mixes_ != 0) state_ = calibrate_mix(state_, mixes_);
  const char* head = c.buffers.in.get();
  const std::size_t head_len = head != nullptr ? c.req().head_len : 0;
  if (inject_.alloc) {
    auto block = std::make_unique<char[]>(64);
    // The block escapes, so the allocation and its free stay in the code.
    asm volatile("" : : "r"(block.get()) : "memory");
  }
  if (inject_.write && head_len > 0) {
    // A system call's cost is the point; /dev/null takes the byte whatever happens.
    [[maybe_unused]] const ssize_t n = ::write(null_fd_, head, 1);
  }
  if (inject_.copy && head_len > 0) {
    if (copy_.size() < head_len) copy_.resize(head_len);
    std::memcpy(copy_.data(), head, head_len);
    asm volatile("" : : "r"(copy_.data()) : "memory");
  }
}

}  // namespace gatebench::gateway
