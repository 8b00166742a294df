// Socket and Listener over loopback: connect/accept on IPv4 and IPv6, reads
// and writes, deadlines that have already passed, and Shutdown() unblocking
// a read or an accept waiting on another thread.
#include "pkg/net/stream.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <future>
#include <thread>

namespace ksched::net {
namespace {

using util::StatusCode;

struct Pair {
  std::unique_ptr<Socket> client;
  std::unique_ptr<Socket> server;
};

Pair Connected(const std::string& host) {
  auto listener = Listener::Listen(host, 0);
  EXPECT_TRUE(listener.ok()) << listener.status().message();
  if (!listener.ok()) return {};
  EXPECT_NE((*listener)->port(), 0);
  auto client = Socket::Connect(host, (*listener)->port(), DeadlineAfter(std::chrono::seconds(10)));
  EXPECT_TRUE(client.ok()) << client.status().message();
  auto server = (*listener)->Accept(DeadlineAfter(std::chrono::seconds(10)));
  EXPECT_TRUE(server.ok()) << server.status().message();
  if (!client.ok() || !server.ok()) return {};
  return {std::move(*client), std::move(*server)};
}

std::string ReadExactly(Stream& s, size_t n) {
  std::string out(n, '\0');
  size_t got = 0;
  while (got < n) {
    auto r = s.ReadSome(out.data() + got, n - got, DeadlineAfter(std::chrono::seconds(10)));
    if (!r.ok() || *r == 0) break;
    got += *r;
  }
  out.resize(got);
  return out;
}

TEST(SocketTest, EchoBothWaysOverIPv4) {
  Pair p = Connected("127.0.0.1");
  ASSERT_TRUE(p.client && p.server);
  ASSERT_TRUE(p.client->WriteAll("ping", kNoDeadline).ok());
  EXPECT_EQ(ReadExactly(*p.server, 4), "ping");
  // Larger than the socket buffers: WriteAll waits for the reader.
  std::string big(4 << 20, 'x');
  auto reader = std::async(std::launch::async, [&] { return ReadExactly(*p.client, big.size()); });
  ASSERT_TRUE(p.server->WriteAll(big, DeadlineAfter(std::chrono::seconds(30))).ok());
  EXPECT_EQ(reader.get(), big);
  EXPECT_EQ(p.server->PeerAddress().rfind("127.0.0.1:", 0), 0u);
}

TEST(SocketTest, HasInputWhileArrivedBytesWaitUnread) {
  Pair p = Connected("127.0.0.1");
  ASSERT_TRUE(p.client && p.server);
  EXPECT_FALSE(p.server->HasInput());
  ASSERT_TRUE(p.client->WriteAll("ab", kNoDeadline).ok());
  pollfd readable{p.server->fd(), POLLIN, 0};
  ASSERT_EQ(::poll(&readable, 1, 10'000), 1);
  EXPECT_TRUE(p.server->HasInput());
  EXPECT_EQ(ReadExactly(*p.server, 1), "a");
  EXPECT_TRUE(p.server->HasInput());
  EXPECT_EQ(ReadExactly(*p.server, 1), "b");
  EXPECT_FALSE(p.server->HasInput());
}

// A hinted read polls before it reads, so a deadline that has passed fails
// it even with bytes waiting; the hint covers one read only.
TEST(SocketTest, WaitBeforeNextReadPollsFirstOnce) {
  Pair p = Connected("127.0.0.1");
  ASSERT_TRUE(p.client && p.server);
  ASSERT_TRUE(p.client->WriteAll("ab", kNoDeadline).ok());
  pollfd readable{p.server->fd(), POLLIN, 0};
  ASSERT_EQ(::poll(&readable, 1, 10'000), 1);
  const Deadline passed = std::chrono::steady_clock::now();
  char buf[8];
  p.server->WaitBeforeNextRead();
  EXPECT_EQ(p.server->ReadSome(buf, sizeof(buf), passed).status().code(), StatusCode::kDeadlineExceeded);
  util::StatusOr<size_t> got = p.server->ReadSome(buf, sizeof(buf), passed);  // reads first again
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(std::string(buf, *got), "ab");
  p.server->WaitBeforeNextRead();
  ASSERT_TRUE(p.client->WriteAll("c", kNoDeadline).ok());
  EXPECT_EQ(ReadExactly(*p.server, 1), "c");
}

// A read that drains the socket makes the next one poll first, unless
// HasInput saw more arrive.
TEST(SocketTest, AReadThatDrainsTheSocketMakesTheNextPollFirst) {
  Pair p = Connected("127.0.0.1");
  ASSERT_TRUE(p.client && p.server);
  pollfd readable{p.server->fd(), POLLIN, 0};
  char buf[8];
  auto arrive = [&](std::string_view bytes) {
    ASSERT_TRUE(p.client->WriteAll(bytes, kNoDeadline).ok());
    ASSERT_EQ(::poll(&readable, 1, 10'000), 1);
  };
  arrive("ab");
  util::StatusOr<size_t> got = p.server->ReadSome(buf, sizeof(buf), kNoDeadline);  // 2 of 8: drained
  ASSERT_TRUE(got.ok() && *got == 2) << got.status().message();
  arrive("c");
  const Deadline passed = std::chrono::steady_clock::now();
  EXPECT_EQ(p.server->ReadSome(buf, sizeof(buf), passed).status().code(), StatusCode::kDeadlineExceeded);
  got = p.server->ReadSome(buf, sizeof(buf), passed);
  ASSERT_TRUE(got.ok() && *got == 1) << got.status().message();
  arrive("d");
  EXPECT_TRUE(p.server->HasInput());
  got = p.server->ReadSome(buf, sizeof(buf), passed);
  ASSERT_TRUE(got.ok() && *got == 1) << got.status().message();
  EXPECT_EQ(buf[0], 'd');
  ASSERT_TRUE(p.client->WriteAll("efghijkl", kNoDeadline).ok());  // exactly what the next read asks
  ASSERT_EQ(ReadExactly(*p.server, 8), "efghijkl");
  arrive("m");
  got = p.server->ReadSome(buf, sizeof(buf), passed);  // a full read did not drain: no poll first
  EXPECT_TRUE(got.ok()) << got.status().message();
}

int SocketOption(int fd, int level, int name) {
  int value = -1;
  socklen_t len = sizeof(value);
  EXPECT_EQ(::getsockopt(fd, level, name, &value, &len), 0);
  return value;
}

// A peer that vanished (host gone, network cut) never closes the connection:
// keepalive probes notice it in about a minute of silence.
TEST(SocketTest, ConnectedSocketsProbeIdlePeersWithKeepalive) {
  Pair p = Connected("127.0.0.1");
  ASSERT_TRUE(p.client && p.server);
  int fd = p.client->fd();
  EXPECT_EQ(SocketOption(fd, SOL_SOCKET, SO_KEEPALIVE), 1);
  EXPECT_EQ(SocketOption(fd, IPPROTO_TCP, TCP_KEEPIDLE), 30);
  EXPECT_EQ(SocketOption(fd, IPPROTO_TCP, TCP_KEEPINTVL), 10);
  EXPECT_EQ(SocketOption(fd, IPPROTO_TCP, TCP_KEEPCNT), 3);
}

TEST(SocketTest, ConnectsOverIPv6WhenAvailable) {
  auto listener = Listener::Listen("::1", 0);
  if (!listener.ok()) GTEST_SKIP() << "no IPv6 loopback: " << listener.status().message();
  auto client = Socket::Connect("[::1]", (*listener)->port(), DeadlineAfter(std::chrono::seconds(10)));
  ASSERT_TRUE(client.ok()) << client.status().message();
  auto server = (*listener)->Accept(DeadlineAfter(std::chrono::seconds(10)));
  ASSERT_TRUE(server.ok());
  ASSERT_TRUE((*client)->WriteAll("v6", kNoDeadline).ok());
  EXPECT_EQ(ReadExactly(**server, 2), "v6");
  EXPECT_EQ((*server)->PeerAddress().rfind("[::1]:", 0), 0u);
}

TEST(SocketTest, EndOfStreamWhenThePeerCloses) {
  Pair p = Connected("127.0.0.1");
  ASSERT_TRUE(p.client && p.server);
  p.client.reset();
  char buf[8];
  auto r = p.server->ReadSome(buf, sizeof(buf), DeadlineAfter(std::chrono::seconds(10)));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 0u);
  // Writing to a closed peer fails (at the latest on the second write, once
  // the peer's reset arrived) instead of raising SIGPIPE.
  util::Status st;
  for (int i = 0; i < 100 && st.ok(); ++i) {
    st = p.server->WriteAll(std::string(64 * 1024, 'x'), DeadlineAfter(std::chrono::seconds(10)));
  }
  EXPECT_EQ(st.code(), StatusCode::kUnavailable);
}

TEST(SocketTest, PassedDeadlines) {
  Pair p = Connected("127.0.0.1");
  ASSERT_TRUE(p.client && p.server);
  char buf[8];
  auto now = std::chrono::steady_clock::now();
  auto r = p.server->ReadSome(buf, sizeof(buf), now);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kDeadlineExceeded);
  // The peer never reads: once the socket buffers are full the write times out.
  util::Status st;
  std::string chunk(1 << 20, 'x');
  for (int i = 0; i < 256 && st.ok(); ++i) st = p.server->WriteAll(chunk, now);
  EXPECT_EQ(st.code(), StatusCode::kDeadlineExceeded);
  // Data already there is returned even with a passed deadline.
  ASSERT_TRUE(p.client->WriteAll("x", kNoDeadline).ok());
  EXPECT_EQ(ReadExactly(*p.server, 1), "x");
}

TEST(SocketTest, ShutdownUnblocksAReadOnAnotherThread) {
  Pair p = Connected("127.0.0.1");
  ASSERT_TRUE(p.client && p.server);
  auto blocked = std::async(std::launch::async, [&] {
    char buf[8];
    return p.server->ReadSome(buf, sizeof(buf), kNoDeadline).status().code();
  });
  p.server->Shutdown();
  EXPECT_EQ(blocked.get(), StatusCode::kCancelled);
  // Every later call fails too, and Shutdown is idempotent.
  p.server->Shutdown();
  EXPECT_EQ(p.server->WriteAll("x", kNoDeadline).code(), StatusCode::kCancelled);
}

TEST(SocketTest, ShutdownUnblocksAWriteOnAnotherThread) {
  Pair p = Connected("127.0.0.1");
  ASSERT_TRUE(p.client && p.server);
  auto blocked = std::async(std::launch::async, [&] {
    std::string chunk(1 << 20, 'x');
    util::Status st;
    // The client never reads: this blocks once the buffers are full.
    while (st.ok()) st = p.server->WriteAll(chunk, kNoDeadline);
    return st.code();
  });
  p.server->Shutdown();
  EXPECT_EQ(blocked.get(), StatusCode::kCancelled);
}

// TryWrite sends what fits and never waits: with a reader that does not
// read, it stops at the socket buffers and then returns 0.
TEST(SocketTest, TryWriteSendsWhatFitsWithoutWaiting) {
  Pair p = Connected("127.0.0.1");
  ASSERT_TRUE(p.client && p.server);
  auto small = p.server->TryWrite("hello");
  ASSERT_TRUE(small.ok()) << small.status().message();
  EXPECT_EQ(*small, 5u);
  EXPECT_EQ(ReadExactly(*p.client, 5), "hello");
  std::string big(64 << 20, 'x');
  auto partial = p.server->TryWrite(big);
  ASSERT_TRUE(partial.ok());
  EXPECT_GT(*partial, 0u);
  EXPECT_LT(*partial, big.size());
  auto none = p.server->TryWrite(big);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, 0u);
  p.server->Shutdown();
  EXPECT_EQ(p.server->TryWrite("x").status().code(), StatusCode::kCancelled);
}

TEST(ListenerTest, ShutdownUnblocksAccept) {
  auto listener = Listener::Listen("127.0.0.1", 0);
  ASSERT_TRUE(listener.ok());
  auto blocked = std::async(std::launch::async,
                            [&] { return (*listener)->Accept(kNoDeadline).status().code(); });
  (*listener)->Shutdown();
  EXPECT_EQ(blocked.get(), StatusCode::kCancelled);
}

TEST(ListenerTest, ReusePortLetsListenersShareAPort) {
  auto first = Listener::Listen("127.0.0.1", 0, 128, /*reuse_port=*/true);
  ASSERT_TRUE(first.ok()) << first.status().message();
  auto second = Listener::Listen("127.0.0.1", (*first)->port(), 128, /*reuse_port=*/true);
  EXPECT_TRUE(second.ok()) << second.status().message();
  // Every socket on the port must have asked for sharing.
  auto third = Listener::Listen("127.0.0.1", (*first)->port());
  EXPECT_FALSE(third.ok());
}

TEST(ListenerTest, ErrorsAreClear) {
  auto first = Listener::Listen("127.0.0.1", 0);
  ASSERT_TRUE(first.ok());
  auto taken = Listener::Listen("127.0.0.1", (*first)->port());
  ASSERT_FALSE(taken.ok());
  EXPECT_EQ(taken.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(taken.status().message().find("binding"), std::string::npos);
  auto bad = Listener::Listen("not an address!", 0);
  EXPECT_FALSE(bad.ok());
  // Nobody listens on the first listener's port once it is gone.
  uint16_t port = (*first)->port();
  first->reset();
  auto refused = Socket::Connect("127.0.0.1", port, DeadlineAfter(std::chrono::seconds(10)));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace ksched::net
