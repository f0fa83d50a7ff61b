#include "macro/gateway/h2_front.hpp"

#include <algorithm>
#include <cstring>

#include "micro/core/rules/request_ascii.hpp"

namespace gatebench::gateway {
namespace {

using http1::BodyKind;
using http1::HeadStatus;
using http1::KnownHeader;

std::string_view view(const std::uint8_t* p, std::size_t n) {
  return {reinterpret_cast<const char*>(p), n};
}

bool is(std::string_view name, std::string_view lit) {
  return name == lit;
}

// Response fields that have no meaning (or are forbidden) in HTTP/2 (RFC 9113 8.2.2).
bool hop_by_hop(const http1::HeaderLine& l) {
  switch (l.kind) {
    case KnownHeader::kConnection:
    case KnownHeader::kKeepAlive:
    case KnownHeader::kProxyConnection:
    case KnownHeader::kTransferEncoding:
    case KnownHeader::kUpgrade:
    case KnownHeader::kTe:
    case KnownHeader::kTrailer:
      return true;
    default:
      return l.named_in_connection;
  }
}

// Chunked de-framing states (H2Stream::chunk_state).
enum : std::uint8_t { kSize, kExt, kData, kDataCr, kDataLf, kTrailerStart, kTrailerLine, kDone };

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

// nghttp2's callbacks: each records what happened on the H2Front and returns; the handler is
// called later from dispatch().
struct H2Callbacks {
  static H2Front& front(void* user) { return *static_cast<H2Front*>(user); }
  static H2Stream* stream(nghttp2_session* session, std::int32_t id) {
    return static_cast<H2Stream*>(nghttp2_session_get_stream_user_data(session, id));
  }

  static int on_begin_headers(nghttp2_session* session, const nghttp2_frame* frame, void* user) {
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
    H2Front& f = front(user);
    H2Stream* s = f.acquire(frame->hd.stream_id);
    nghttp2_session_set_stream_user_data(session, frame->hd.stream_id, s);
    ++f.open_;
    return 0;
  }

  static int on_header(nghttp2_session* session, const nghttp2_frame* frame,
                       const std::uint8_t* name_p, std::size_t name_len,
                       const std::uint8_t* value_p, std::size_t value_len, std::uint8_t,
                       void* user) {
    H2Stream* s = stream(session, frame->hd.stream_id);
    if (s == nullptr || s->head_done) return 0;  // trailers are not forwarded
    s->list_bytes +=
        static_cast<std::uint32_t>(std::min<std::size_t>(name_len + value_len + 32, 1u << 24));
    if (s->list_bytes > front(user).max_header_list_) s->too_large = true;
    if (s->too_large) return 0;
    const std::string_view name = view(name_p, name_len);
    const std::string_view value = view(value_p, value_len);
    if (!name.empty() && name[0] == ':') {
      if (is(name, ":method")) {
        s->method.assign(value);
        s->is_head = value == "HEAD";
      } else if (is(name, ":path")) {
        s->path.assign(value);
      } else if (is(name, ":authority")) {
        s->authority.assign(value);
      }
      return 0;  // :scheme: the connection says whether it was TLS
    }
    if (is(name, "host")) {
      if (s->authority.empty()) s->authority.assign(value);
      return 0;
    }
    if (is(name, "cookie")) {
      // RFC 9113 8.2.3: crumbs are joined for an HTTP/1.1 hop.
      if (!s->cookie.empty()) s->cookie.append("; ");
      s->cookie.append(value);
      return 0;
    }
    // TE (only "trailers" passes nghttp2) is hop-by-hop; Expect has no interim answer here.
    if (is(name, "te") || is(name, "expect")) return 0;
    if (is(name, "content-length")) s->has_length = true;
    s->lines.append(name).append(": ").append(value).append("\r\n");
    return 0;
  }

  static void request_end(H2Stream& s) {
    if (s.req_end) return;
    s.req_end = true;
    if (s.chunked_req) s.body.append("0\r\n\r\n");
  }

  static int on_frame_recv(nghttp2_session* session, const nghttp2_frame* frame, void* user) {
    if (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) return 0;
    H2Stream* s = stream(session, frame->hd.stream_id);
    if (s == nullptr) return 0;
    const bool end = (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;
    if (frame->hd.type == NGHTTP2_HEADERS && !s->head_done) H2Front::build_head(*s, end);
    if (end) request_end(*s);
    if (s->head_done) front(user).enqueue(*s);
    return 0;
  }

  static int on_data_chunk(nghttp2_session* session, std::uint8_t, std::int32_t id,
                           const std::uint8_t* data, std::size_t len, void* user) {
    H2Stream* s = stream(session, id);
    if (s == nullptr) return 0;
    s->body_unacked += len;
    if (s->too_large || len == 0 || (s->handed && s->user == nullptr)) {
      // Nobody reads this body: give the credit back at once.
      nghttp2_session_consume(session, id, len);
      s->body_unacked -= len;
      return 0;
    }
    if (s->chunked_req) {
      char size[24];
      int n = std::snprintf(size, sizeof size, "%zx\r\n", len);
      s->body.append(size, static_cast<std::size_t>(n));
    }
    s->body.append(reinterpret_cast<const char*>(data), len);
    if (s->chunked_req) s->body.append("\r\n");
    front(user).enqueue(*s);
    return 0;
  }

  static int on_stream_close(nghttp2_session* session, std::int32_t id, std::uint32_t, void* user) {
    H2Stream* s = stream(session, id);
    if (s == nullptr) return 0;
    H2Front& f = front(user);
    nghttp2_session_set_stream_user_data(session, id, nullptr);
    s->closed = true;
    --f.open_;
    f.closing_.push_back(s);
    return 0;
  }

  // A response complete before its request (an early 413...): RFC 9113 8.1 asks for
  // RST_STREAM NO_ERROR so the client stops sending the rest.
  static int on_frame_send(nghttp2_session* session, const nghttp2_frame* frame, void*) {
    if ((frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) ||
        (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) == 0) {
      return 0;
    }
    H2Stream* s = stream(session, frame->hd.stream_id);
    if (s != nullptr && !s->req_end) {
      nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, frame->hd.stream_id, NGHTTP2_NO_ERROR);
    }
    return 0;
  }

  static ssize_t read_data(nghttp2_session*, std::int32_t, std::uint8_t* buf, std::size_t length,
                           std::uint32_t* flags, nghttp2_data_source* source, void* user) {
    H2Stream& s = *static_cast<H2Stream*>(source->ptr);
    const std::size_t avail = s.resp.size() - s.resp_off;
    const std::size_t n = std::min(avail, length);
    std::memcpy(buf, s.resp.data() + s.resp_off, n);
    s.resp_off += n;
    if (s.resp_off == s.resp.size()) {
      s.resp.clear();
      s.resp_off = 0;
    }
    if (s.blocked) {
      s.blocked = false;
      front(user).enqueue(s);
    }
    if (s.resp_off == s.resp.size() && s.resp_end) {
      *flags |= NGHTTP2_DATA_FLAG_EOF;
      return static_cast<ssize_t>(n);
    }
    if (n == 0) {
      s.deferred = true;
      return NGHTTP2_ERR_DEFERRED;
    }
    return static_cast<ssize_t>(n);
  }

  static nghttp2_session_callbacks* make() {
    nghttp2_session_callbacks* cbs = nullptr;
    nghttp2_session_callbacks_new(&cbs);
    nghttp2_session_callbacks_set_on_begin_headers_callback(cbs, &on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(cbs, &on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, &on_frame_recv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs, &on_data_chunk);
    nghttp2_session_callbacks_set_on_stream_close_callback(cbs, &on_stream_close);
    nghttp2_session_callbacks_set_on_frame_send_callback(cbs, &on_frame_send);
    return cbs;
  }
};

H2Front::H2Front(H2Handler& handler, const H2Settings& settings)
    : handler_(handler), max_header_list_(settings.max_header_list) {
  // Built once: nghttp2 copies the table into each session.
  static nghttp2_session_callbacks* const callbacks = H2Callbacks::make();
  nghttp2_option* opt = nullptr;
  nghttp2_option_new(&opt);
  // Window credit goes back as the worker reads the body (read_body), not as frames arrive.
  nghttp2_option_set_no_auto_window_update(opt, 1);
  // A server session otherwise keeps up to SETTINGS_MAX_CONCURRENT_STREAMS closed streams for
  // RFC 7540's priority tree, which the response scheduling here never needs: each is a
  // stream object nghttp2 keeps, so a connection that served many streams held that many.
  nghttp2_option_set_no_closed_streams(opt, 1);
  nghttp2_session_server_new2(&session_, callbacks, this, opt);
  nghttp2_option_del(opt);
  const nghttp2_settings_entry entries[] = {
      {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, settings.max_concurrent_streams},
      {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, settings.max_header_list},
  };
  nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, entries, std::size(entries));
  nv_.reserve(http1::kMaxHeaderFields + 1);
}

H2Front::~H2Front() {
  nghttp2_session_del(session_);
}

bool H2Front::feed(std::string_view in) {
  if (failed_) return false;
  const ssize_t r = nghttp2_session_mem_recv(
      session_, reinterpret_cast<const std::uint8_t*>(in.data()), in.size());
  if (r < 0) failed_ = true;
  dispatch();
  return !failed_;
}

std::size_t H2Front::produce(char* out, std::size_t cap) {
  std::size_t n = 0;
  for (;;) {
    while (n < cap) {
      if (pending_len_ == 0) {
        // Asking when nothing is queued still costs a full pass of nghttp2's frame scheduler.
        if (nghttp2_session_want_write(session_) == 0) break;
        const ssize_t r = nghttp2_session_mem_send(session_, &pending_);
        if (r <= 0) {
          if (r < 0) failed_ = true;
          break;
        }
        pending_len_ = static_cast<std::size_t>(r);
      }
      const std::size_t take = std::min(pending_len_, cap - n);
      std::memcpy(out + n, pending_, take);
      pending_ += take;
      pending_len_ -= take;
      n += take;
    }
    // Streams woken by what was sent (room in their window) may write at once: their frames
    // belong in this batch, or nobody would ask for them until the next socket event.
    const bool woke = !ready_.empty() || !closing_.empty();
    dispatch();
    if (!woke || n == cap || failed_) return n;
  }
}

bool H2Front::alive() const {
  if (failed_) return pending_len_ > 0;
  return pending_len_ > 0 || nghttp2_session_want_read(session_) != 0 ||
         nghttp2_session_want_write(session_) != 0;
}

H2Stream* H2Front::acquire(std::int32_t id) {
  H2Stream* s;
  if (!free_.empty()) {
    s = free_.back();
    free_.pop_back();
  } else {
    store_.push_back(std::make_unique<H2Stream>());
    s = store_.back().get();
  }
  s->id = id;
  return s;
}

// Scalars back to their defaults, strings emptied but kept with their capacity.
void H2Front::recycle(H2Stream& s) {
  drop_body(s);
  s.id = 0;
  s.user = nullptr;
  s.head.clear();
  s.head_done = s.too_large = s.handed = s.req_end = s.chunked_req = s.has_length = false;
  s.is_head = false;
  s.list_bytes = 0;
  s.method.clear();
  s.path.clear();
  s.authority.clear();
  s.lines.clear();
  s.cookie.clear();
  s.resp.clear();
  s.resp_off = 0;
  s.resp_head_done = s.resp_end = s.deferred = s.blocked = false;
  s.resp_kind = BodyKind::kNone;
  s.resp_left = 0;
  s.chunk_state = kSize;
  s.chunk_left = 0;
  s.queued = s.closed = false;
  free_.push_back(&s);
}

void H2Front::enqueue(H2Stream& s) {
  if (s.queued) return;
  s.queued = true;
  ready_.push_back(s.id);
}

void H2Front::dispatch() {
  while (!ready_.empty() || !closing_.empty()) {
    closing_work_.swap(closing_);
    for (H2Stream* s : closing_work_) {
      handler_.on_closed(*this, *s);
      recycle(*s);
    }
    closing_work_.clear();
    ready_work_.swap(ready_);
    for (std::int32_t id : ready_work_) {
      // Looked up again: the stream may have closed since it was queued.
      auto* s = static_cast<H2Stream*>(nghttp2_session_get_stream_user_data(session_, id));
      if (s == nullptr || s->closed) continue;
      s->queued = false;
      if (s->handed && s->user == nullptr) {
        drop_body(*s);  // answered already: what still comes is not a new request
        continue;
      }
      s->handed = true;
      handler_.on_ready(*this, *s);
    }
    ready_work_.clear();
  }
}

void H2Front::build_head(H2Stream& s, bool end_stream) {
  s.head_done = true;
  if (s.too_large) return;
  s.head.clear();
  s.head.append(s.method).append(" ").append(s.path).append(" HTTP/1.1\r\n");
  if (!s.authority.empty()) s.head.append("Host: ").append(s.authority).append("\r\n");
  s.head.append(s.lines);
  if (!s.cookie.empty()) s.head.append("Cookie: ").append(s.cookie).append("\r\n");
  if (!end_stream && !s.has_length) {
    s.chunked_req = true;
    s.head.append("Transfer-Encoding: chunked\r\n");
  }
  s.head.append("\r\n");
}

std::size_t H2Front::read_body(H2Stream& s, char* buf, std::size_t len) {
  const std::size_t n = std::min(len, s.body.size() - s.body_read);
  std::memcpy(buf, s.body.data() + s.body_read, n);
  s.body_read += n;
  if (s.body_read == s.body.size()) drop_body(s);
  return n;
}

// With automatic window updates off, every DATA byte handed to on_data_chunk must be consumed
// here, read or not: the connection's window is shared, so bytes kept unconsumed on streams that
// ended would stall every later upload on the connection.
void H2Front::drop_body(H2Stream& s) {
  s.body.clear();
  s.body_read = 0;
  if (s.body_unacked == 0) return;
  if (s.closed) {
    nghttp2_session_consume_connection(session_, s.body_unacked);
  } else {
    nghttp2_session_consume(session_, s.id, s.body_unacked);
  }
  s.body_unacked = 0;
}

H2Front::HeadResult H2Front::submit_head(H2Stream& s) {
  http1::ResponseHead& rh = *rh_;
  HeadStatus st;
  for (;;) {
    st = http1::parse_response_head(s.resp, kRespHeadCap, s.is_head, rh);
    if (st != HeadStatus::kComplete || rh.status >= 200) break;
    s.resp.erase(0, rh.head_len);  // an interim response has no HTTP/2 use here
  }
  if (st == HeadStatus::kIncomplete && s.resp.size() < kRespHeadCap) return HeadResult::kIncomplete;
  if (st != HeadStatus::kComplete) return HeadResult::kFailed;
  std::size_t names_len = 0;
  for (std::size_t i = 0; i < rh.fields.count; ++i) names_len += rh.fields.lines[i].name_len;
  names_.resize(names_len);  // sized first: nv_ points into it
  // Three digits by hand: snprintf is a format interpreter, called once per response.
  const unsigned code = static_cast<unsigned>(rh.status % 1000);
  char status[3] = {static_cast<char>('0' + code / 100), static_cast<char>('0' + code / 10 % 10),
                    static_cast<char>('0' + code % 10)};
  nv_.clear();
  nv_.push_back({reinterpret_cast<std::uint8_t*>(const_cast<char*>(":status")),
                 reinterpret_cast<std::uint8_t*>(status), 7, 3, NGHTTP2_NV_FLAG_NONE});
  std::size_t at = 0;
  const char* base = s.resp.data();
  for (std::size_t i = 0; i < rh.fields.count; ++i) {
    const http1::HeaderLine& l = rh.fields.lines[i];
    if (hop_by_hop(l)) continue;
    char* name = names_.data() + at;
    rules::lower_into({base + l.line_off, l.name_len}, name);
    at += l.name_len;
    nv_.push_back({reinterpret_cast<std::uint8_t*>(name),
                   reinterpret_cast<std::uint8_t*>(const_cast<char*>(base + l.value_off)),
                   l.name_len, l.value_len, NGHTTP2_NV_FLAG_NONE});
  }
  s.resp_kind = rh.body;
  s.resp_left = rh.content_length;
  const bool bodyless =
      rh.body == BodyKind::kNone || (rh.body == BodyKind::kLength && rh.content_length == 0);
  nghttp2_data_provider prd{};
  prd.source.ptr = &s;
  prd.read_callback = &H2Callbacks::read_data;
  if (nghttp2_submit_response(session_, s.id, nv_.data(), nv_.size(), bodyless ? nullptr : &prd) !=
      0) {
    return HeadResult::kFailed;
  }
  s.resp_head_done = true;
  tail_.assign(s.resp, rh.head_len);
  s.resp.clear();
  s.resp_off = 0;
  if (bodyless) {
    s.resp_end = true;
    return HeadResult::kSubmitted;
  }
  decode_body(s, tail_.data(), tail_.size());
  return HeadResult::kSubmitted;
}

void H2Front::decode_body(H2Stream& s, const char* in, std::size_t n) {
  const std::size_t before = s.resp.size();
  switch (s.resp_kind) {
    case BodyKind::kNone:
      break;
    case BodyKind::kLength: {
      const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(n, s.resp_left));
      s.resp.append(in, take);
      s.resp_left -= take;
      if (s.resp_left == 0) s.resp_end = true;
      break;
    }
    case BodyKind::kUntilClose:
      s.resp.append(in, n);
      break;
    case BodyKind::kChunked:
      for (std::size_t i = 0; i < n && s.chunk_state != kDone;) {
        const char ch = in[i];
        switch (s.chunk_state) {
          case kSize: {
            const int v = hex_value(ch);
            if (v >= 0 && s.chunk_left < (std::uint64_t{1} << 56)) {
              s.chunk_left = s.chunk_left * 16 + static_cast<std::uint64_t>(v);
            } else if (ch == '\n') {
              s.chunk_state = s.chunk_left == 0 ? kTrailerStart : kData;
            } else {
              s.chunk_state = kExt;
            }
            ++i;
            break;
          }
          case kExt:
            if (ch == '\n') s.chunk_state = s.chunk_left == 0 ? kTrailerStart : kData;
            ++i;
            break;
          case kData: {
            const std::size_t take =
                static_cast<std::size_t>(std::min<std::uint64_t>(n - i, s.chunk_left));
            s.resp.append(in + i, take);
            s.chunk_left -= take;
            i += take;
            if (s.chunk_left == 0) s.chunk_state = kDataCr;
            break;
          }
          case kDataCr:
            s.chunk_state = ch == '\n' ? kSize : kDataLf;
            ++i;
            break;
          case kDataLf:
            if (ch == '\n') s.chunk_state = kSize;
            ++i;
            break;
          case kTrailerStart:
            if (ch == '\n') {
              s.chunk_state = kDone;
              s.resp_end = true;
            } else if (ch != '\r') {
              s.chunk_state = kTrailerLine;
            }
            ++i;
            break;
          case kTrailerLine:
            if (ch == '\n') s.chunk_state = kTrailerStart;
            ++i;
            break;
          default:
            i = n;
            break;
        }
      }
      break;
  }
  if (s.resp.size() != before || s.resp_end) resume(s);
}

void H2Front::resume(H2Stream& s) {
  if (!s.deferred || s.closed) return;
  s.deferred = false;
  nghttp2_session_resume_data(session_, s.id);
}

std::size_t H2Front::write_response(H2Stream& s, std::string_view bytes) {
  if (s.closed || s.resp_end) return bytes.size();  // nobody reads these any more
  if (!s.resp_head_done) {
    const std::size_t take = std::min(bytes.size(), kRespHeadCap - s.resp.size());
    if (take < bytes.size()) s.blocked = true;
    s.resp.append(bytes.data(), take);
    switch (submit_head(s)) {
      case HeadResult::kIncomplete:
        return take;
      case HeadResult::kSubmitted:
        return take;
      case HeadResult::kFailed:
        reset_stream(s, NGHTTP2_INTERNAL_ERROR);
        s.resp_end = true;
        return bytes.size();
    }
  }
  if (s.resp_off > 0) {
    s.resp.erase(0, s.resp_off);
    s.resp_off = 0;
  }
  if (s.resp.size() >= kRespWindow) {
    s.blocked = true;
    return 0;
  }
  const std::size_t take = std::min(bytes.size(), kRespWindow - s.resp.size());
  if (take < bytes.size()) s.blocked = true;  // the writer waits for on_ready
  decode_body(s, bytes.data(), take);
  return take;
}

void H2Front::end_response(H2Stream& s) {
  if (s.closed) return;
  if (!s.resp_head_done || (s.resp_kind == BodyKind::kLength && s.resp_left > 0) ||
      (s.resp_kind == BodyKind::kChunked && s.chunk_state != kDone)) {
    reset_stream(s, NGHTTP2_INTERNAL_ERROR);  // a response cut short must not look complete
    return;
  }
  s.resp_end = true;
  resume(s);
}

void H2Front::reset_stream(H2Stream& s, std::uint32_t error_code) {
  if (s.closed) return;
  nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, s.id, error_code);
}

void H2Front::shutdown() {
  nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE,
                        nghttp2_session_get_last_proc_stream_id(session_), NGHTTP2_NO_ERROR,
                        nullptr, 0);
}

}  // namespace gatebench::gateway
