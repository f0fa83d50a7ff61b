#include "macro/gateway/request_parts.hpp"

#include <utility>

namespace gatebench::gateway {

void RequestParts::take_request_part(Client& c, SparePool<RequestBuffers>& pool, std::size_t cap) {
  RequestBuffers& b = c.buffers;
  if (b.in) return;
  b = pool.take([cap] {
    // Made whole before the client gets it: the part is held when `in` is set. The parsed head
    // first, so a small head's bytes land on the page its scalars already use.
    RequestBuffers fresh;
    fresh.req = std::make_unique<RequestHead>();
    fresh.in_cap = cap;
    fresh.in = std::make_unique_for_overwrite<char[]>(fresh.in_cap);
    return fresh;
  });
}

void RequestParts::give_request(Client& c) {
  RequestBuffers& b = c.buffers;
  if (!b.in) return;
  // A whole part's window is max_header_bytes + kBodyWindow, never kHeadOnlyCap; one grown for
  // an inspected body (grow_in) is larger still.
  (b.in_cap == kHeadOnlyCap ? head_only_ : request_).give(std::move(b));
  b.in_cap = 0;  // the moved-from pointers are null; the size is not moved
}

void RequestParts::take_response(Client& c) {
  ResponseBuffers& b = c.buffers;
  if (b.out) return;
  b = response_.take([] {
    ResponseBuffers fresh;
    fresh.rh = std::make_unique<ResponseHead>();
    fresh.resp = std::make_unique_for_overwrite<char[]>(kRespCap);
    fresh.out = std::make_unique_for_overwrite<char[]>(kOutCap);
    return fresh;
  });
}

void RequestParts::take_up_head(Client& c) {
  if (c.buffers.up_head) return;
  c.buffers.up_head =
      up_head_.take([this] { return std::make_unique_for_overwrite<char[]>(up_head_cap()); });
}

void RequestParts::give_response(Client& c) {
  ResponseBuffers& b = c.buffers;
  if (b.out) response_.give(std::move(b));
}

void RequestParts::give_up_head(Client& c) {
  if (c.buffers.up_head) up_head_.give(std::move(c.buffers.up_head));
}

void RequestParts::give_exchange(Client& c) {
  give_up_head(c);
  give_response(c);
}

void RequestParts::next_window() {
  request_.next_window();
  head_only_.next_window();
  response_.next_window();
  up_head_.next_window();
}

bool RequestParts::trim() {
  bool released = request_.trim(kSpareRequestBuffers);
  released = head_only_.trim(kSpareRequestBuffers) || released;
  released = response_.trim(kSpareRequestBuffers) || released;
  released = up_head_.trim(kSpareRequestBuffers) || released;
  return released;
}

}  // namespace gatebench::gateway
