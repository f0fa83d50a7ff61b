// Non-blocking I/O on a client connection, plain or TLS, for the edge-triggered worker loop.
//
// Each call says what happened as an IoStatus and keeps the readiness flags right: a short
// plain read or write, EAGAIN, or TLS's WANT_READ / WANT_WRITE clears the flag of the direction
// that must wait for epoll's next edge.
#pragma once

#include <openssl/ssl.h>
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <span>

namespace gatebench::gateway {

enum class IoStatus : std::uint8_t {
  kOk,          // `bytes` moved (> 0 for reads)
  kWouldBlock,  // wait for the readiness flag that was cleared
  kClosed,      // the peer ended the stream (EOF, TLS close_notify)
  kError,       // reset or TLS failure: the connection is unusable
};

struct IoResult {
  IoStatus status = IoStatus::kOk;
  std::size_t bytes = 0;
};

// The socket side of a client connection. `ssl` (owned by the connection) is null for plain
// HTTP. The flags start true: edge-triggered epoll only reports a change, so the first attempt
// is made without waiting for one.
struct ClientIo {
  int fd = -1;
  SSL* ssl = nullptr;
  bool readable = true;
  bool writable = true;
  // epoll reported the peer's end (EPOLLRDHUP/EPOLLHUP). No edge follows it, so a short read
  // must not clear `readable`: the next read finds the end at once, not at the next timeout.
  bool peer_closed = false;
};

IoResult client_read(ClientIo& io, char* buf, std::size_t len);

// Writes the buffers in order. TLS copies head and body into `scratch` when they fit, so they go
// out as one record instead of two.
IoResult client_writev(ClientIo& io, const iovec* iov, int cnt, std::span<char> scratch);

enum class HandshakeStatus : std::uint8_t { kDone, kWouldBlock, kFailed };
HandshakeStatus client_handshake(ClientIo& io);

}  // namespace gatebench::gateway
