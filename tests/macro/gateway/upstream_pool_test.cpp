// UpstreamConns: recycled connection objects and the per-generation LIFO idle pools, capped by
// the host's pool_size, emptied when a generation retires.
#include "macro/gateway/upstream_pool.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <vector>

#include "macro/gateway/config.hpp"

namespace gw = gatebench::gateway;

namespace {

gw::WorkerGen make_gen(int pool_size) {
  auto pub = std::make_shared<gw::Published>();
  pub->config = gw::parse_config(R"({"listeners": [{"port": 8080}], "hosts": [
      {"names": ["a"], "upstream": "127.0.0.1:81", "pool_size": )" +
                                     std::to_string(pool_size) + R"(},
      {"names": ["b"], "upstream": "127.0.0.1:82"}]})",
                                 "test.json");
  gw::WorkerGen g;
  g.pub = pub;
  g.idle.resize(pub->config->hosts.size());
  g.use.resize(pub->config->hosts.size());
  return g;
}

int open_fd() {
  return ::open("/dev/null", O_RDONLY | O_CLOEXEC);
}

bool fd_open(int fd) {
  return fcntl(fd, F_GETFD) != -1;
}

TEST(UpstreamPool, ReleasedConnectionsComeBackLastInFirstOutPerHost) {
  gw::WorkerGen g = make_gen(4);
  gw::UpstreamConns ups;
  gw::UpConn* a = ups.open(open_fd(), &g, 0);
  gw::UpConn* b = ups.open(open_fd(), &g, 0);
  EXPECT_EQ(a->kind, gw::Kind::kUpstream);
  EXPECT_FALSE(a->reused);
  ups.release(*a, true, false);
  ups.release(*b, true, false);
  EXPECT_EQ(gw::UpstreamConns::take_idle(g, 1), nullptr);  // the other host's pool is empty
  gw::UpConn* first = gw::UpstreamConns::take_idle(g, 0);
  EXPECT_EQ(first, b);
  EXPECT_TRUE(first->reused);
  EXPECT_EQ(gw::UpstreamConns::take_idle(g, 0), a);
  EXPECT_EQ(gw::UpstreamConns::take_idle(g, 0), nullptr);
}

TEST(UpstreamPool, AFullPoolOrAnUnusableConnectionIsClosed) {
  gw::WorkerGen g = make_gen(1);
  gw::UpstreamConns ups;
  gw::UpConn* a = ups.open(open_fd(), &g, 0);
  ups.release(*a, true, false);
  // One in use at a time: the pool keeps pool_size (1), a is idle, b comes back to a full pool.
  gw::UpConn* b = ups.open(open_fd(), &g, 0);
  int bfd = b->fd;
  ups.release(*b, true, false);
  EXPECT_TRUE(b->dead);
  EXPECT_FALSE(fd_open(bfd));
  gw::UpConn* c = ups.open(open_fd(), &g, 0);
  int cfd = c->fd;
  ups.release(*c, false, false);  // not reusable
  EXPECT_TRUE(c->dead);
  EXPECT_FALSE(fd_open(cfd));
  EXPECT_EQ(g.idle[0].size(), 1u);
  gw::UpConn* again = gw::UpstreamConns::take_idle(g, 0);
  ASSERT_EQ(again, a);
  ups.release(*again, true, true);  // stopping: nothing is pooled
  EXPECT_TRUE(again->dead);
  EXPECT_TRUE(g.idle[0].empty());
}

// Four requests in flight at once against a pool_size of 1 (HTTP/2 streams on one worker): all
// four connections come back to the pool, so the next burst connects nothing; two windows
// without such a peak close the three beyond pool_size, the least recently used first.
TEST(UpstreamPool, ThePoolFollowsThePeakInFlightForTwoWindows) {
  gw::WorkerGen g = make_gen(1);
  gw::UpstreamConns ups;
  std::vector<gw::UpConn*> conns;
  for (int i = 0; i < 4; ++i) conns.push_back(ups.open(open_fd(), &g, 0));
  EXPECT_EQ(g.use[0].busy, 4u);
  for (gw::UpConn* u : conns) ups.release(*u, true, false);
  EXPECT_EQ(g.idle[0].size(), 4u);
  EXPECT_EQ(g.use[0].busy, 0u);
  // The next burst takes them all back: no connect.
  for (int i = 0; i < 4; ++i) EXPECT_NE(gw::UpstreamConns::take_idle(g, 0), nullptr);
  EXPECT_EQ(g.use[0].busy, 4u);
  for (gw::UpConn* u : conns) ups.release(*u, true, false);
  ups.next_window(g);  // the peak of 4 is the previous window's: still kept
  EXPECT_EQ(g.idle[0].size(), 4u);
  const int oldest_fd = conns[0]->fd;
  ups.next_window(g);  // no peak left: pool_size
  ASSERT_EQ(g.idle[0].size(), 1u);
  EXPECT_EQ(g.idle[0][0], conns[3]);
  EXPECT_TRUE(conns[0]->dead);
  EXPECT_FALSE(fd_open(oldest_fd));
  // The other host saw no traffic: nothing to count or close.
  EXPECT_EQ(g.use[1].busy, 0u);
  EXPECT_TRUE(g.idle[1].empty());
}

TEST(UpstreamPool, RetiredGenerationsPoolNothingAndCloseIdleEmptiesThem) {
  gw::WorkerGen g = make_gen(8);
  gw::UpstreamConns ups;
  gw::UpConn* a = ups.open(open_fd(), &g, 0);
  gw::UpConn* b = ups.open(open_fd(), &g, 1);
  int afd = a->fd;
  ups.release(*a, true, false);
  ups.release(*b, true, false);
  ups.close_idle(g);
  EXPECT_TRUE(g.idle[0].empty());
  EXPECT_TRUE(g.idle[1].empty());
  EXPECT_TRUE(a->dead);
  EXPECT_FALSE(fd_open(afd));
  g.retired = true;
  gw::UpConn* c = ups.open(open_fd(), &g, 0);
  ups.release(*c, true, false);
  EXPECT_TRUE(c->dead);
}

TEST(UpstreamPool, DropIdleTakesOneConnectionOutOfItsPool) {
  gw::WorkerGen g = make_gen(8);
  gw::UpstreamConns ups;
  gw::UpConn* a = ups.open(open_fd(), &g, 0);
  gw::UpConn* b = ups.open(open_fd(), &g, 0);
  gw::UpConn* c = ups.open(open_fd(), &g, 0);
  for (gw::UpConn* u : {a, b, c}) ups.release(*u, true, false);
  ups.drop_idle(*a);
  EXPECT_TRUE(a->dead);
  ASSERT_EQ(g.idle[0].size(), 2u);
  EXPECT_NE(g.idle[0][0], a);
  EXPECT_NE(g.idle[0][1], a);
}

TEST(UpstreamPool, ClosedObjectsAreReusedOnlyAfterReap) {
  gw::WorkerGen g = make_gen(8);
  gw::UpstreamConns ups;
  gw::UpConn* a = ups.open(open_fd(), &g, 0);
  ups.close(*a);
  gw::UpConn* b = ups.open(open_fd(), &g, 0);
  EXPECT_NE(a, b);  // a may still be named by events of this epoll round
  ups.reap();
  gw::UpConn* c = ups.open(open_fd(), &g, 1);
  EXPECT_EQ(c, a);
  EXPECT_FALSE(c->dead);
  EXPECT_EQ(c->host, 1);
  EXPECT_EQ(c->owner, nullptr);
}

// A connection whose last read filled the response window (readable still set) may have bytes
// of a response nobody asked for, or the upstream's close, waiting: it is pooled only when the
// socket has nothing to read.
TEST(UpstreamPool, AConnectionWithUnreadBytesOrEofIsClosedNotPooled) {
  gw::WorkerGen g = make_gen(8);
  gw::UpstreamConns ups;
  int bytes[2];
  int eof[2];
  int quiet[2];
  for (int* p : {bytes, eof, quiet})
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, p), 0);
  ASSERT_EQ(::write(bytes[1], "HTTP/1.1 200 OK\r\n", 17), 17);
  ::close(eof[1]);
  gw::UpConn* with_bytes = ups.open(bytes[0], &g, 0);
  gw::UpConn* with_eof = ups.open(eof[0], &g, 0);
  gw::UpConn* drained = ups.open(quiet[0], &g, 0);
  for (gw::UpConn* u : {with_bytes, with_eof, drained}) {
    u->readable = true;
    ups.release(*u, true, false);
  }
  EXPECT_TRUE(with_bytes->dead);
  EXPECT_TRUE(with_eof->dead);
  EXPECT_FALSE(drained->dead);
  EXPECT_EQ(gw::UpstreamConns::take_idle(g, 0), drained);
  EXPECT_EQ(gw::UpstreamConns::take_idle(g, 0), nullptr);
  ::close(bytes[1]);
  ::close(quiet[1]);
}

}  // namespace
