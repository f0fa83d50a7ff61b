#include "macro/load/uring.hpp"

#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

namespace gatebench::load {

Uring::Uring(unsigned entries) {
  io_uring_params p;
  std::memset(&p, 0, sizeof p);
  // Completions are processed only when the owning thread waits (kernel 6.1+): no interrupting
  // task work while the loop runs, and the whole turn's work lands in one batch. The ring is
  // created disabled because a single-issuer ring belongs to the thread that enables it (the
  // worker thread, in start()), not to the one that creates it.
  // CLAMP: more connections than the kernel's largest ring only means earlier submits.
  p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_R_DISABLED |
            IORING_SETUP_CLAMP;
  if (io_uring_queue_init_params(entries, &ring_, &p) == 0) {
    ok_ = true;
    disabled_ = true;
    poll_first_ = true;
    return;
  }
  std::memset(&p, 0, sizeof p);
  p.flags = IORING_SETUP_CLAMP;
  ok_ = io_uring_queue_init_params(entries, &ring_, &p) == 0;
}

void Uring::start() {
  // liburing 2.3 (Debian 12) declares io_uring_enable_rings but does not export it.
  if (disabled_)
    syscall(__NR_io_uring_register, ring_.ring_fd, IORING_REGISTER_ENABLE_RINGS, nullptr, 0);
  disabled_ = false;
  // A registered ring fd spares each io_uring_enter the descriptor lookup, which in a process
  // with several threads is a pair of atomic reference-count updates (kernel 5.18+; without it
  // liburing keeps using the plain fd). Registration is per thread, so it happens here.
  io_uring_register_ring_fd(&ring_);
}

Uring::~Uring() {
  if (ok_) io_uring_queue_exit(&ring_);
}

io_uring_sqe* Uring::next_sqe() {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (sqe == nullptr) {
    // The submission queue is full: hand what is queued to the kernel now.
    io_uring_submit(&ring_);
    sqe = io_uring_get_sqe(&ring_);
  }
  return sqe;
}

bool Uring::recv(int fd, char* buf, std::size_t len, std::uint64_t user_data) {
  io_uring_sqe* sqe = next_sqe();
  if (sqe == nullptr) return false;
  io_uring_prep_recv(sqe, fd, buf, len, 0);
  // The receive is armed right after its request is sent, before the server can have answered,
  // so a first non-blocking attempt would fail every time; POLL_FIRST (kernel 5.19+) waits for
  // readiness directly. Only on rings that have DEFER_TASKRUN (6.1+): kernels before 5.19 reject
  // the flag.
  if (poll_first_) sqe->ioprio |= IORING_RECVSEND_POLL_FIRST;
  io_uring_sqe_set_data64(sqe, user_data);
  return true;
}

bool Uring::send(int fd, const char* data, std::size_t len, std::uint64_t user_data) {
  io_uring_sqe* sqe = next_sqe();
  if (sqe == nullptr) return false;
  io_uring_prep_send(sqe, fd, data, len, MSG_NOSIGNAL);
  io_uring_sqe_set_data64(sqe, user_data);
  sends_since_wait_ += 1;
  return true;
}

bool Uring::poll_multishot(int fd, unsigned events, std::uint64_t user_data) {
  io_uring_sqe* sqe = next_sqe();
  if (sqe == nullptr) return false;
  io_uring_prep_poll_multishot(sqe, fd, events);
  io_uring_sqe_set_data64(sqe, user_data);
  return true;
}

}  // namespace gatebench::load
