#include "macro/load/connection.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "macro/load/socket_io.hpp"

namespace gatebench::load {

Connector::Connector(const Options& options, const Target& target, const WorkerPlan& plan,
                     Stats& stats, std::size_t slots, bool h2)
    : target_(target), plan_(plan), stats_(stats) {
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0)
    throw std::runtime_error(std::string("epoll_create1: ") + std::strerror(errno));
  // One more than the slots: room for every socket and an io_uring's watch of the set.
  events_.resize(slots + 1);
  if (target_.tls) tls_ = std::make_unique<TlsClient>(target_, options.tls_resume, slots, h2);
}

Connector::~Connector() {
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
}

bool Connector::open(Transport& t) {
  t.fd = open_connecting_socket(target_);
  if (t.fd < 0) return false;
  t.phase = Phase::kConnecting;
  epoll_event ev{};
  ev.events = EPOLLOUT;
  ev.data.u64 = event_key(t.index, t.generation);
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, t.fd, &ev);
  t.events = EPOLLOUT;
  return true;
}

SetUp Connector::connected(Transport& t, std::uint64_t now) {
  if (!connect_succeeded(t.fd)) return SetUp::kConnectFailed;
  if (now >= plan_.measure_start_ns) stats_.connects += 1;
  if (!tls_) {
    t.phase = Phase::kOpen;
    return SetUp::kOpen;
  }
  t.ssl = tls_->open(t.fd, t.index);
  if (!t.ssl) return SetUp::kTlsFailed;
  t.phase = Phase::kHandshaking;
  return handshake(t);
}

SetUp Connector::handshake(Transport& t) {
  switch (handshake_step(t.ssl.get())) {
    case Handshake::kDone:
      break;
    case Handshake::kWantRead:
      watch(t, EPOLLIN);
      return SetUp::kWaiting;
    case Handshake::kWantWrite:
      watch(t, EPOLLOUT);
      return SetUp::kWaiting;
    case Handshake::kNoApplicationProtocol:
      return SetUp::kNoApplicationProtocol;
    case Handshake::kFailed:
      return SetUp::kTlsFailed;
  }
  record_handshake(stats_, plan_, SSL_session_reused(t.ssl.get()) != 0, monotonic_ns());
  t.phase = Phase::kOpen;
  return SetUp::kOpen;
}

void Connector::modify(Transport& t, std::uint32_t events) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = event_key(t.index, t.generation);
  epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, t.fd, &ev);
  t.events = events;
}

void Connector::unwatch(Transport& t) {
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, t.fd, nullptr);
  t.events = 0;
}

void Connector::close(Transport& t, bool clean, bool shut_down) {
  if (t.ssl) {
    end_tls(t.ssl.get(), clean && tls_->resume());
    t.ssl.reset();
  }
  if (t.fd >= 0) {
    if (shut_down) shutdown(t.fd, SHUT_RDWR);
    ::close(t.fd);
  }
  t.fd = -1;
  t.events = 0;
  t.generation += 1;
  t.phase = Phase::kClosed;
}

int Connector::poll() {
  return epoll_wait(epoll_fd_, events_.data(), static_cast<int>(events_.size()), 0);
}

}  // namespace gatebench::load
