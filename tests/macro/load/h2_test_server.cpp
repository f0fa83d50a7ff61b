#include "tests/macro/load/h2_test_server.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <string_view>

#include "tests/macro/load/test_server.hpp"

namespace gatebench::load::testing {
namespace {

constexpr std::string_view kBody = "ok\n";

struct SessionDeleter {
  void operator()(nghttp2_session* s) const { nghttp2_session_del(s); }
  void operator()(nghttp2_session_callbacks* c) const { nghttp2_session_callbacks_del(c); }
};

ssize_t read_body(nghttp2_session*, std::int32_t, std::uint8_t* buf, std::size_t length,
                  std::uint32_t* data_flags, nghttp2_data_source*, void*) {
  const std::size_t n = std::min(length, kBody.size());
  std::memcpy(buf, kBody.data(), n);
  *data_flags |= NGHTTP2_DATA_FLAG_EOF;
  return static_cast<ssize_t>(n);
}

int on_frame_recv(nghttp2_session* session, const nghttp2_frame* frame, void* user_data) {
  const bool request = frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA;
  if (request && (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0)
    static_cast<H2TestServer*>(user_data)->answer(session, frame->hd.stream_id);
  return 0;
}

// Hands everything nghttp2 has to send to the socket; false when the peer is gone.
bool send_pending(nghttp2_session* session, int fd) {
  for (;;) {
    const std::uint8_t* data = nullptr;
    const ssize_t n = nghttp2_session_mem_send(session, &data);
    if (n < 0) return false;
    if (n == 0) return true;
    if (!send_all(
            fd, std::string_view(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n))))
      return false;
  }
}

}  // namespace

H2TestServer::H2TestServer() : acceptor_([this](int fd) { serve(fd); }) {}

std::string H2TestServer::url() const {
  return "http://127.0.0.1:" + std::to_string(acceptor_.port()) + "/";
}

void H2TestServer::answer(void* session, std::int32_t stream_id) {
  const std::uint64_t n = requests_.fetch_add(1) + 1;
  if (n == stall_at_) std::this_thread::sleep_for(std::chrono::milliseconds(stall_ms_));
  const std::string length = std::to_string(kBody.size());
  nghttp2_nv headers[] = {
      {const_cast<std::uint8_t*>(reinterpret_cast<const std::uint8_t*>(":status")),
       const_cast<std::uint8_t*>(reinterpret_cast<const std::uint8_t*>("200")), 7, 3,
       NGHTTP2_NV_FLAG_NONE},
      {const_cast<std::uint8_t*>(reinterpret_cast<const std::uint8_t*>("content-length")),
       const_cast<std::uint8_t*>(reinterpret_cast<const std::uint8_t*>(length.data())), 14,
       length.size(), NGHTTP2_NV_FLAG_NONE}};
  nghttp2_data_provider body{};
  body.read_callback = &read_body;
  nghttp2_submit_response(static_cast<nghttp2_session*>(session), stream_id, headers, 2, &body);
}

void H2TestServer::serve(int fd) {
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  nghttp2_session_callbacks* cbs = nullptr;
  nghttp2_session_callbacks_new(&cbs);
  std::unique_ptr<nghttp2_session_callbacks, SessionDeleter> callbacks(cbs);
  nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, &on_frame_recv);
  nghttp2_session* raw = nullptr;
  nghttp2_session_server_new(&raw, cbs, this);
  std::unique_ptr<nghttp2_session, SessionDeleter> session(raw);
  nghttp2_submit_settings(raw, NGHTTP2_FLAG_NONE, nullptr, 0);
  std::uint8_t buf[16384];
  while (!acceptor_.stopping() && send_pending(raw, fd) &&
         (nghttp2_session_want_read(raw) || nghttp2_session_want_write(raw))) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 20) <= 0) continue;
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0 || nghttp2_session_mem_recv(raw, buf, static_cast<std::size_t>(n)) < 0) break;
  }
  close(fd);
}

}  // namespace gatebench::load::testing
