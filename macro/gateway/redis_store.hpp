// A worker's connections to one Redis server for the response cache (docs/gateway.md "Response
// cache"): hiredis' asynchronous API driven by the worker's epoll loop, a small pool of
// connections used in turn, and lookups bounded by a timeout. Nothing here blocks: a lookup is a
// GET written after the current batch of events, and its reply (or its timeout, or the
// connection's loss) puts the client on the worker's ready list with a result.
//
// Outages: a connection that fails, closes, or lets a lookup pass its timeout is freed (every
// lookup on it fails at once) and reconnected after kRetryMs; while no connection is up a lookup
// fails without being sent. A failed lookup is a miss for the client, never an error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "macro/gateway/config.hpp"
#include "macro/gateway/event_tag.hpp"

struct redisAsyncContext;
struct redisReply;

namespace gatebench::gateway {

struct Client;
class RedisStore;

struct RedisConn : Pollable {
  RedisStore* store = nullptr;
  redisAsyncContext* ac = nullptr;  // null while down
  bool connected = false;
  bool write_wanted = false;  // hiredis has bytes to write
  bool flush_listed = false;
  std::uint32_t events = 0;  // registered with epoll (0: not registered)
  int fd = -1;
  std::uint64_t retry_at_ms = 0;
};

// A lookup in flight: the privdata of its hiredis callback, kept until the callback ran.
struct RedisLookup {
  RedisStore* store = nullptr;
  RedisConn* conn = nullptr;
  Client* client = nullptr;  // null once the client stopped waiting (timeout, closed)
  std::uint64_t deadline_ms = 0;
  RedisLookup* prev = nullptr;  // the waiting list, in the order sent (= deadline order)
  RedisLookup* next = nullptr;
  bool waiting = false;
};

enum class RedisResult : std::uint8_t { kNone, kValue, kNotFound, kFailed, kTimedOut };

// What a GET's reply means for its lookup: a string is a value (its bytes into `value`, valid while
// the reply lives), nil or another type no entry, an error or no reply (the connection went) a
// failed lookup. Apart from the callback so the fuzz target reads replies as a lookup does.
RedisResult reply_result(const redisReply* reply, std::string_view& value);

class RedisStore {
 public:
  static constexpr std::uint32_t kRetryMs = 500;

  // `ready` is the worker's list of clients whose lookup is done (result in client.px).
  RedisStore(const CacheConfig& config, int epfd, std::vector<Client*>& ready);
  ~RedisStore();
  RedisStore(const RedisStore&) = delete;
  RedisStore& operator=(const RedisStore&) = delete;

  // Whether this pool serves `config` (same server, timeout and pool size).
  bool serves(const CacheConfig& config) const;

  // Sends GET `key` for the client; false (nothing sent) when no connection is up.
  bool lookup(Client& c, std::string_view key, std::uint64_t now_ms);
  // SET key value PX ttl, reply ignored; dropped when no connection is up.
  void store(std::string_view key, std::string_view value, std::uint64_t ttl_ms);
  // The client no longer waits (it is being closed): its reply will be dropped.
  void cancel(Client& c);

  void on_event(RedisConn& conn, std::uint32_t events);
  // Writes the commands queued since the last call (after each batch of events).
  void flush();
  // Fails lookups past their deadline (and frees their connection); reconnects when due.
  void tick(std::uint64_t now_ms);
  // The earliest deadline of a waiting lookup, or 0.
  std::uint64_t next_deadline_ms() const { return head_ ? head_->deadline_ms : 0; }

  // hiredis glue (redis_store.cpp).
  void want(RedisConn& conn, std::uint32_t bit, bool on);
  void schedule_write(RedisConn& conn);
  void lost(RedisConn& conn);
  void finish(RedisLookup& l, RedisResult result, std::string_view value);

 private:
  void connect(RedisConn& conn, std::uint64_t now_ms);
  void unlink(RedisLookup& l);
  RedisConn* pick();

  std::string host_;
  int port_ = 0;
  std::uint32_t timeout_ms_ = 0;
  std::uint32_t pool_size_ = 0;
  int epfd_ = -1;
  std::vector<Client*>& ready_;
  std::vector<std::unique_ptr<RedisConn>> conns_;
  std::vector<RedisConn*> flush_list_;
  std::vector<std::unique_ptr<RedisLookup>> lookups_;
  std::vector<RedisLookup*> free_lookups_;
  RedisLookup* head_ = nullptr;
  RedisLookup* tail_ = nullptr;
  std::size_t next_conn_ = 0;
  std::uint64_t now_ms_ = 0;
};

}  // namespace gatebench::gateway
