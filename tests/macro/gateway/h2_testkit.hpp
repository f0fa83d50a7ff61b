// A raw-frame HTTP/2 client for the gateway's h2 tests: frames are written by hand (HPACK by
// libnghttp2's deflater, so header blocks can say what a real client would refuse to send:
// uppercase names, connection headers, missing pseudo-headers) and the server's frames are read
// one by one, so each RST_STREAM and GOAWAY is seen as sent.
#pragma once

#include <nghttp2/nghttp2.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gwtest {

using Fields = std::vector<std::pair<std::string, std::string>>;

struct H2Result {
  int status = 0;
  std::map<std::string, std::string> headers;
  std::string body;
  bool done = false;      // END_STREAM received
  std::int64_t rst = -1;  // RST_STREAM error code, -1 when none
};

class RawH2 {
 public:
  // `ssl` (owned) when the connection is TLS; `fd` is owned either way.
  explicit RawH2(int fd, SSL* ssl = nullptr) : fd_(fd), ssl_(ssl) {
    nghttp2_hd_deflate_new(&deflater_, 4096);
    nghttp2_hd_inflate_new(&inflater_);
  }
  ~RawH2() {
    nghttp2_hd_deflate_del(deflater_);
    nghttp2_hd_inflate_del(inflater_);
    if (ssl_ != nullptr) SSL_free(ssl_);
    if (fd_ >= 0) ::close(fd_);
  }
  RawH2(const RawH2&) = delete;
  RawH2& operator=(const RawH2&) = delete;

  std::string preface_bytes() const {
    return "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0, "");
  }
  static std::string frame(std::uint8_t type, std::uint8_t flags, std::int32_t id,
                           const std::string& payload) {
    std::string f;
    const std::size_t n = payload.size();
    f += static_cast<char>((n >> 16) & 0xff);
    f += static_cast<char>((n >> 8) & 0xff);
    f += static_cast<char>(n & 0xff);
    f += static_cast<char>(type);
    f += static_cast<char>(flags);
    f += static_cast<char>((id >> 24) & 0x7f);
    f += static_cast<char>((id >> 16) & 0xff);
    f += static_cast<char>((id >> 8) & 0xff);
    f += static_cast<char>(id & 0xff);
    return f + payload;
  }
  std::string headers_frame(std::int32_t id, const Fields& fields, bool end_stream) {
    std::vector<nghttp2_nv> nv;
    for (const auto& [k, v] : fields) {
      nv.push_back({reinterpret_cast<std::uint8_t*>(const_cast<char*>(k.data())),
                    reinterpret_cast<std::uint8_t*>(const_cast<char*>(v.data())), k.size(),
                    v.size(), NGHTTP2_NV_FLAG_NONE});
    }
    std::string block(nghttp2_hd_deflate_bound(deflater_, nv.data(), nv.size()), '\0');
    const ssize_t n =
        nghttp2_hd_deflate_hd(deflater_, reinterpret_cast<std::uint8_t*>(block.data()),
                              block.size(), nv.data(), nv.size());
    block.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    return frame(1, static_cast<std::uint8_t>(0x4 | (end_stream ? 0x1 : 0)), id, block);
  }
  static Fields get(const std::string& authority, const std::string& path) {
    return {{":method", "GET"}, {":scheme", "http"}, {":authority", authority}, {":path", path}};
  }

  bool send(const std::string& bytes) {
    std::size_t off = 0;
    while (off < bytes.size()) {
      const ssize_t n =
          ssl_ != nullptr
              ? SSL_write(ssl_, bytes.data() + off, static_cast<int>(bytes.size() - off))
              : ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += static_cast<std::size_t>(n);
    }
    return true;
  }

  // Reads frames until `until()` holds, the peer closes, or `ms` pass. Returns until().
  bool run(const std::function<bool()>& until, int ms = 2500) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (!until()) {
      if (!parse_frames()) return until();
      if (eof || until()) return until();
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                            deadline - std::chrono::steady_clock::now())
                            .count();
      if (left <= 0) return until();
      if (ssl_ == nullptr || SSL_pending(ssl_) == 0) {
        pollfd p{fd_, POLLIN, 0};
        if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
      }
      char tmp[65536];
      const ssize_t n =
          ssl_ != nullptr ? SSL_read(ssl_, tmp, sizeof tmp) : ::recv(fd_, tmp, sizeof tmp, 0);
      if (n <= 0) {
        if (ssl_ != nullptr) last_error = SSL_get_error(ssl_, static_cast<int>(n));
        eof = true;
        continue;
      }
      in_.append(tmp, static_cast<std::size_t>(n));
    }
    return true;
  }
  bool done(std::int32_t id) {
    auto it = streams.find(id);
    return it != streams.end() && (it->second.done || it->second.rst >= 0);
  }
  bool all_done(const std::vector<std::int32_t>& ids) {
    for (std::int32_t id : ids) {
      if (!done(id)) return false;
    }
    return true;
  }

  std::map<std::int32_t, H2Result> streams;
  bool goaway = false;
  std::uint32_t goaway_code = 0;
  std::int32_t goaway_last = -1;
  bool eof = false;
  bool ack_settings = true;          // false: a frame of its own would break an open header block
  int last_error = 0;                // SSL_get_error of the read that ended the connection
  std::uint32_t max_concurrent = 0;  // the server's SETTINGS_MAX_CONCURRENT_STREAMS
  std::uint64_t connection_credit = 0;  // connection-level WINDOW_UPDATE increments received

 private:
  static std::uint32_t be32(const std::string& s, std::size_t at) {
    return (static_cast<std::uint32_t>(static_cast<std::uint8_t>(s[at])) << 24) |
           (static_cast<std::uint32_t>(static_cast<std::uint8_t>(s[at + 1])) << 16) |
           (static_cast<std::uint32_t>(static_cast<std::uint8_t>(s[at + 2])) << 8) |
           static_cast<std::uint32_t>(static_cast<std::uint8_t>(s[at + 3]));
  }
  // False on an undecodable frame.
  bool parse_frames() {
    while (in_.size() >= 9) {
      const std::size_t len = (static_cast<std::size_t>(static_cast<std::uint8_t>(in_[0])) << 16) |
                              (static_cast<std::size_t>(static_cast<std::uint8_t>(in_[1])) << 8) |
                              static_cast<std::uint8_t>(in_[2]);
      if (in_.size() < 9 + len) return true;
      const std::uint8_t type = static_cast<std::uint8_t>(in_[3]);
      const std::uint8_t flags = static_cast<std::uint8_t>(in_[4]);
      const std::int32_t id = static_cast<std::int32_t>(be32(in_, 5) & 0x7fffffff);
      const std::string payload = in_.substr(9, len);
      in_.erase(0, 9 + len);
      switch (type) {
        case 0:  // DATA
          streams[id].body += payload;
          if (flags & 1) streams[id].done = true;
          if (!payload.empty()) {
            // Credit back for connection and stream, so bodies over 64 KiB arrive.
            std::string inc(4, '\0');
            const std::uint32_t n = static_cast<std::uint32_t>(payload.size());
            inc[0] = static_cast<char>(n >> 24);
            inc[1] = static_cast<char>(n >> 16);
            inc[2] = static_cast<char>(n >> 8);
            inc[3] = static_cast<char>(n);
            send(frame(8, 0, 0, inc) + frame(8, 0, id, inc));
          }
          break;
        case 1:  // HEADERS (the gateway sends neither padding nor priority)
          if (!decode(id, payload)) return false;
          if (flags & 1) streams[id].done = true;
          break;
        case 3:  // RST_STREAM
          streams[id].rst = be32(payload, 0);
          break;
        case 4:  // SETTINGS
          if ((flags & 1) == 0) {
            for (std::size_t i = 0; i + 6 <= payload.size(); i += 6) {
              const unsigned ident =
                  (static_cast<unsigned>(static_cast<std::uint8_t>(payload[i])) << 8) |
                  static_cast<std::uint8_t>(payload[i + 1]);
              if (ident == 3) max_concurrent = be32(payload, i + 2);
            }
            if (ack_settings) send(frame(4, 1, 0, ""));
          }
          break;
        case 8:  // WINDOW_UPDATE
          if (id == 0 && payload.size() == 4) connection_credit += be32(payload, 0) & 0x7fffffff;
          break;
        case 7:  // GOAWAY
          goaway = true;
          goaway_last = static_cast<std::int32_t>(be32(payload, 0) & 0x7fffffff);
          goaway_code = be32(payload, 4);
          break;
        default:
          break;
      }
    }
    return true;
  }
  bool decode(std::int32_t id, const std::string& block) {
    auto* in = reinterpret_cast<const std::uint8_t*>(block.data());
    std::size_t left = block.size();
    for (;;) {
      nghttp2_nv nv;
      int flags = 0;
      const ssize_t n = nghttp2_hd_inflate_hd2(inflater_, &nv, &flags, in, left, 1);
      if (n < 0) return false;
      in += n;
      left -= static_cast<std::size_t>(n);
      if (flags & NGHTTP2_HD_INFLATE_EMIT) {
        const std::string name(reinterpret_cast<char*>(nv.name), nv.namelen);
        const std::string value(reinterpret_cast<char*>(nv.value), nv.valuelen);
        if (name == ":status") streams[id].status = std::stoi(value);
        streams[id].headers[name] = value;
      }
      if (flags & NGHTTP2_HD_INFLATE_FINAL) {
        nghttp2_hd_inflate_end_headers(inflater_);
        return true;
      }
      if ((flags & NGHTTP2_HD_INFLATE_EMIT) == 0 && left == 0) return true;
    }
  }

  int fd_;
  SSL* ssl_;
  nghttp2_hd_deflater* deflater_ = nullptr;
  nghttp2_hd_inflater* inflater_ = nullptr;
  std::string in_;
};

}  // namespace gwtest
