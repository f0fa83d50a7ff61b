// A worker's pools of the parts of request sets (connection.hpp): the request part, the response
// part and the upstream head, each taken from its pool when a connection first needs it and given
// back as soon as it does not, so memory follows what requests are doing, not how many are open.
// The pools are free lists (spare_pool.hpp): a request allocates nothing in steady state.
#pragma once

#include <cstddef>
#include <memory>

#include "macro/gateway/connection.hpp"
#include "macro/gateway/spare_pool.hpp"

namespace gatebench::gateway {

inline constexpr std::size_t kBodyWindow = 16384;
inline constexpr std::size_t kRespCap = 16384;
inline constexpr std::size_t kOutCap = kRespCap + 4096;
// The request part of an HTTP/2 stream whose request is its head alone (END_STREAM on its HEADERS,
// as every GET's): room for the head and no body window. Each of hundreds of streams in flight
// touches a page of its part; a whole part's window spreads the head and the parsed head over
// two pages about half the time, where small parts share theirs.
inline constexpr std::size_t kHeadOnlyCap = 2048;
// Spare parts kept for reuse in each pool; the others are freed on the tick (trim).
inline constexpr std::size_t kSpareRequestBuffers = 16;

class RequestParts {
 public:
  // `max_header_bytes` sizes the whole request part's window (with kBodyWindow) and the upstream
  // head (with 1 KiB); only a restart changes it.
  explicit RequestParts(std::size_t max_header_bytes) : max_header_bytes_(max_header_bytes) {}

  // The request part for a connection that has bytes to work on, and back to its pool once it
  // has none. No-ops when already held or already given back, as are the others.
  void take_request(Client& c) { take_request_part(c, request_, max_header_bytes_ + kBodyWindow); }
  // A request part with kHeadOnlyCap bytes of window, for a stream without a body.
  void take_head_only(Client& c) { take_request_part(c, head_only_, kHeadOnlyCap); }
  void give_request(Client& c);
  // The response part, taken when upstream bytes or a local answer are about to be written, and
  // the upstream head, taken to be written; both go back when the request ends (the upstream
  // head once it is sent).
  void take_response(Client& c);
  void take_up_head(Client& c);
  void give_response(Client& c);
  void give_up_head(Client& c);
  void give_exchange(Client& c);
  std::size_t up_head_cap() const { return max_header_bytes_ + 1024; }

  // A peak window ends (spare_pool.hpp).
  void next_window();
  // Frees spare parts beyond kSpareRequestBuffers and what the last peak windows used; true when
  // any was freed.
  bool trim();

 private:
  static void take_request_part(Client& c, SparePool<RequestBuffers>& pool, std::size_t cap);

  std::size_t max_header_bytes_;
  SparePool<RequestBuffers> request_;
  SparePool<RequestBuffers> head_only_;  // parts of kHeadOnlyCap
  SparePool<ResponseBuffers> response_;
  SparePool<std::unique_ptr<char[]>> up_head_;
};

}  // namespace gatebench::gateway
