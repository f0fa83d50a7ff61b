#include "macro/gateway/redis_store.hpp"

#include <arpa/inet.h>
#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#include <sys/epoll.h>

#include <charconv>
#include <cstring>

#include "macro/gateway/connection.hpp"

namespace gatebench::gateway {
namespace {

// hiredis' event hooks: reads stay registered (level-triggered, hiredis reads once per call);
// writes are gathered and made after the batch of events (RedisStore::flush), so commands queued
// by several clients go out in one write and no epoll_ctl is spent per command.
RedisConn& conn_of(void* data) {
  return *static_cast<RedisConn*>(data);
}
void add_read(void* d) {
  conn_of(d).store->want(conn_of(d), EPOLLIN, true);
}
void del_read(void* d) {
  conn_of(d).store->want(conn_of(d), EPOLLIN, false);
}
void add_write(void* d) {
  conn_of(d).store->schedule_write(conn_of(d));
}
void del_write(void* d) {
  RedisConn& c = conn_of(d);
  c.write_wanted = false;
  c.store->want(c, EPOLLOUT, false);
}
void cleanup(void* d) {
  RedisConn& c = conn_of(d);
  c.store->want(c, EPOLLIN | EPOLLOUT, false);
}

void on_connect(const redisAsyncContext* ac, int status) {
  RedisConn& c = conn_of(ac->data);
  if (status == REDIS_OK) c.connected = true;
  // On failure hiredis frees the context after this returns; on_disconnect is not called.
  if (status != REDIS_OK) c.store->lost(c);
}

void on_disconnect(const redisAsyncContext* ac, int /*status*/) {
  conn_of(ac->data).store->lost(conn_of(ac->data));
}

void on_reply(redisAsyncContext* /*ac*/, void* reply_ptr, void* privdata) {
  auto& l = *static_cast<RedisLookup*>(privdata);
  std::string_view value;
  const RedisResult result = reply_result(static_cast<const redisReply*>(reply_ptr), value);
  l.store->finish(l, result, value);
}

}  // namespace

RedisResult reply_result(const redisReply* reply, std::string_view& value) {
  value = {};
  if (reply == nullptr || reply->type == REDIS_REPLY_ERROR) return RedisResult::kFailed;
  if (reply->type != REDIS_REPLY_STRING) return RedisResult::kNotFound;
  value = std::string_view(reply->str, reply->len);
  return RedisResult::kValue;
}

RedisStore::RedisStore(const CacheConfig& config, int epfd, std::vector<Client*>& ready)
    : timeout_ms_(config.redis_timeout_ms),
      pool_size_(config.redis_connections),
      epfd_(epfd),
      ready_(ready) {
  char ip[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &config.redis_addr.sin_addr, ip, sizeof ip);
  host_ = ip;
  port_ = ntohs(config.redis_addr.sin_port);
  for (std::uint32_t i = 0; i < pool_size_; ++i) {
    auto c = std::make_unique<RedisConn>();
    c->kind = Kind::kRedis;
    c->store = this;
    conns_.push_back(std::move(c));
  }
  for (auto& c : conns_) connect(*c, 0);
}

RedisStore::~RedisStore() {
  // Freeing a context runs the callbacks of its lookups: no client may hear of them any more.
  for (auto& l : lookups_) l->client = nullptr;
  head_ = tail_ = nullptr;
  for (auto& c : conns_) {
    if (c->ac != nullptr) redisAsyncFree(c->ac);
  }
}

bool RedisStore::serves(const CacheConfig& config) const {
  char ip[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &config.redis_addr.sin_addr, ip, sizeof ip);
  return host_ == ip && port_ == ntohs(config.redis_addr.sin_port) &&
         timeout_ms_ == config.redis_timeout_ms && pool_size_ == config.redis_connections;
}

void RedisStore::connect(RedisConn& c, std::uint64_t now_ms) {
  c.connected = false;
  c.write_wanted = false;
  c.events = 0;
  c.retry_at_ms = now_ms + kRetryMs;
  redisAsyncContext* ac = redisAsyncConnect(host_.c_str(), port_);
  if (ac == nullptr) return;
  if (ac->err != 0) {
    redisAsyncFree(ac);
    return;
  }
  c.ac = ac;
  c.fd = ac->c.fd;
  ac->data = &c;
  ac->ev.data = &c;
  ac->ev.addRead = add_read;
  ac->ev.delRead = del_read;
  ac->ev.addWrite = add_write;
  ac->ev.delWrite = del_write;
  ac->ev.cleanup = cleanup;
  redisAsyncSetDisconnectCallback(ac, on_disconnect);
  // Asks for a write event: the first one tells that the connect finished.
  redisAsyncSetConnectCallback(ac, on_connect);
}

void RedisStore::want(RedisConn& c, std::uint32_t bit, bool on) {
  const std::uint32_t next = on ? (c.events | bit) : (c.events & ~bit);
  if (next == c.events || c.fd < 0) return;
  epoll_event ev{};
  ev.events = next;
  ev.data.ptr = &c;
  const int op = c.events == 0 ? EPOLL_CTL_ADD : next == 0 ? EPOLL_CTL_DEL : EPOLL_CTL_MOD;
  epoll_ctl(epfd_, op, c.fd, &ev);
  c.events = next;
}

void RedisStore::schedule_write(RedisConn& c) {
  c.write_wanted = true;
  if (!c.flush_listed) {
    c.flush_listed = true;
    flush_list_.push_back(&c);
  }
}

void RedisStore::flush() {
  // Listed connections stay listed while they are written, so hiredis asking for another write
  // event from inside the write adds no second entry.
  for (std::size_t i = 0; i < flush_list_.size(); ++i) {
    RedisConn& c = *flush_list_[i];
    if (c.ac != nullptr && c.write_wanted) {
      redisAsyncHandleWrite(c.ac);
      // Not all written (or still connecting): wait for the socket.
      if (c.ac != nullptr && c.write_wanted) want(c, EPOLLOUT, true);
    }
    c.flush_listed = false;
  }
  flush_list_.clear();
}

void RedisStore::on_event(RedisConn& c, std::uint32_t events) {
  if (c.ac == nullptr) return;
  if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) redisAsyncHandleRead(c.ac);
  if (c.ac != nullptr && (events & EPOLLOUT)) redisAsyncHandleWrite(c.ac);
}

void RedisStore::lost(RedisConn& c) {
  // hiredis frees the context after this callback (and runs the pending replies' callbacks
  // with no reply, each a failed lookup); its descriptor is closed with it.
  c.ac = nullptr;
  c.fd = -1;
  c.events = 0;
  c.connected = false;
  c.write_wanted = false;
  c.retry_at_ms = now_ms_ + kRetryMs;
}

RedisConn* RedisStore::pick() {
  for (std::size_t n = 0; n < conns_.size(); ++n) {
    RedisConn& c = *conns_[next_conn_];
    next_conn_ = (next_conn_ + 1) % conns_.size();
    if (c.ac != nullptr && c.connected) return &c;
  }
  return nullptr;
}

bool RedisStore::lookup(Client& client, std::string_view key, std::uint64_t now_ms) {
  now_ms_ = now_ms;
  RedisConn* c = pick();
  if (c == nullptr) return false;
  RedisLookup* l;
  if (!free_lookups_.empty()) {
    l = free_lookups_.back();
    free_lookups_.pop_back();
  } else {
    lookups_.push_back(std::make_unique<RedisLookup>());
    l = lookups_.back().get();
  }
  *l = RedisLookup{};
  l->store = this;
  l->conn = c;
  const char* argv[2] = {"GET", key.data()};
  const std::size_t lens[2] = {3, key.size()};
  if (redisAsyncCommandArgv(c->ac, on_reply, l, 2, argv, lens) != REDIS_OK) {
    free_lookups_.push_back(l);
    return false;
  }
  l->client = &client;
  l->deadline_ms = now_ms + timeout_ms_;
  l->waiting = true;
  l->prev = tail_;
  if (tail_ != nullptr) tail_->next = l;
  tail_ = l;
  if (head_ == nullptr) head_ = l;
  client.px.redis_lookup = l;
  return true;
}

void RedisStore::store(std::string_view key, std::string_view value, std::uint64_t ttl_ms) {
  RedisConn* c = pick();
  if (c == nullptr || ttl_ms == 0) return;
  char ttl[24];
  const auto r = std::to_chars(ttl, ttl + sizeof ttl, ttl_ms);
  const char* argv[5] = {"SET", key.data(), value.data(), "PX", ttl};
  const std::size_t lens[5] = {3, key.size(), value.size(), 2,
                               static_cast<std::size_t>(r.ptr - ttl)};
  redisAsyncCommandArgv(c->ac, nullptr, nullptr, 5, argv, lens);
}

void RedisStore::unlink(RedisLookup& l) {
  if (!l.waiting) return;
  l.waiting = false;
  (l.prev != nullptr ? l.prev->next : head_) = l.next;
  (l.next != nullptr ? l.next->prev : tail_) = l.prev;
  l.prev = l.next = nullptr;
}

void RedisStore::cancel(Client& client) {
  RedisLookup* l = client.px.redis_lookup;
  if (l == nullptr) return;
  client.px.redis_lookup = nullptr;
  l->client = nullptr;
  unlink(*l);
}

void RedisStore::finish(RedisLookup& l, RedisResult result, std::string_view value) {
  unlink(l);
  if (Client* c = l.client) {
    l.client = nullptr;
    c->px.redis_lookup = nullptr;
    c->px.redis_result = result;
    if (result == RedisResult::kValue) {
      std::vector<char>& copy = c->buffers.redis_value;
      if (copy.size() < value.size()) copy.resize(value.size());
      if (!value.empty()) std::memcpy(copy.data(), value.data(), value.size());
      c->px.redis_value_len = value.size();
    }
    ready_.push_back(c);
  }
  // hiredis runs each callback once: the object is free for the next lookup.
  free_lookups_.push_back(&l);
}

void RedisStore::tick(std::uint64_t now_ms) {
  now_ms_ = now_ms;
  while (head_ != nullptr && head_->deadline_ms <= now_ms) {
    RedisLookup& l = *head_;
    if (Client* c = l.client) {
      l.client = nullptr;
      c->px.redis_lookup = nullptr;
      c->px.redis_result = RedisResult::kTimedOut;
      ready_.push_back(c);
    }
    unlink(l);
    // A server that does not answer in time is treated as down: freeing the connection fails
    // its other lookups at once (their callbacks run now) instead of each waiting its timeout.
    if (RedisConn* conn = l.conn; conn->ac != nullptr) {
      redisAsyncFree(conn->ac);
      lost(*conn);  // hiredis reports no disconnect for a context it had not connected yet
    }
  }
  for (auto& c : conns_) {
    if (c->ac == nullptr && now_ms >= c->retry_at_ms) connect(*c, now_ms);
  }
}

}  // namespace gatebench::gateway
