// nghttp2's memory, served from per-thread free lists of a few block sizes.
//
// An HTTP/2 session allocates per stream (the stream, its outbound frames, the copied header
// list) and frees it all when the stream closes: with malloc, several malloc/free pairs per
// request. Here a freed block goes back to its size's list and the next stream takes it, so a
// worker past its first streams allocates nothing per request. Requests above the largest size
// go to malloc. A block may be freed on any thread: its header says its size.
#pragma once

#include <nghttp2/nghttp2.h>

#include <cstddef>

namespace gatebench::gateway {

// The allocator to give nghttp2_session_server_new3. The pool is the calling thread's.
nghttp2_mem* h2_block_pool();

// Blocks the calling thread's pool keeps free, all sizes (for tests).
std::size_t h2_block_pool_free_blocks();

}  // namespace gatebench::gateway
