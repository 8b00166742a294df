#include "pkg/client/tls_stream.h"

#include <poll.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "pkg/client/test_util.h"
#include "pkg/client/tls.h"
#include "pkg/util/heap_in_use.h"

namespace ksched::client {
namespace {

using std::chrono::seconds;

// A client and a server TlsStream over a socketpair, handshaken (the client
// verifies the server's certificate for 127.0.0.1).
struct Connection {
  std::unique_ptr<TlsStream> client;
  std::unique_ptr<TlsStream> server;
};

class TlsStreamTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    pki_ = new testing::TestPki(testing::MakeTestPki(dir_->path() + "/pki", "IP:127.0.0.1"));
  }
  static void TearDownTestSuite() {
    delete pki_;
    delete dir_;
  }

  void SetUp() override {
    server_ctx_.reset(SSL_CTX_new(TLS_server_method()));
    ASSERT_EQ(SSL_CTX_use_certificate_chain_file(server_ctx_.get(), pki_->server_cert.c_str()), 1);
    ASSERT_EQ(SSL_CTX_use_PrivateKey_file(server_ctx_.get(), pki_->server_key.c_str(), SSL_FILETYPE_PEM), 1);
    TlsMaterial material;
    material.ca_pem = testing::ReadFileOrDie(pki_->ca_cert);
    util::StatusOr<SslCtxPtr> client_ctx = NewClientSslContext(material, /*verify_peer=*/true);
    ASSERT_TRUE(client_ctx.ok()) << client_ctx.status().message();
    client_ctx_ = std::move(client_ctx).value();
  }

  Connection Connect() {
    int fds[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    auto client_socket = net::Socket::Adopt(fds[0]);
    auto server_socket = net::Socket::Adopt(fds[1]);
    EXPECT_TRUE(client_socket.ok() && server_socket.ok());
    const net::Deadline deadline = net::DeadlineAfter(seconds(10));
    Connection c;
    auto server = TlsStream::ServerSide(std::move(server_socket).value(), server_ctx_.get());
    EXPECT_TRUE(server.ok()) << server.status().message();
    c.server = std::move(server).value();
    util::Status accepted;
    std::thread accept([&] { accepted = c.server->AcceptHandshake(deadline); });
    auto client =
        TlsStream::Handshake(std::move(client_socket).value(), client_ctx_.get(), "127.0.0.1", true, deadline);
    accept.join();
    EXPECT_TRUE(client.ok()) << client.status().message();
    EXPECT_TRUE(accepted.ok()) << accepted.message();
    if (client.ok()) c.client = std::move(client).value();
    return c;
  }

  // Reads from `stream` until `n` bytes came or the stream ended.
  static std::string ReadN(TlsStream& stream, size_t n) {
    std::string out;
    char buf[4096];
    while (out.size() < n) {
      util::StatusOr<size_t> got = stream.ReadSome(buf, sizeof(buf), net::DeadlineAfter(seconds(10)));
      EXPECT_TRUE(got.ok()) << got.status().message();
      if (!got.ok() || *got == 0) break;
      out.append(buf, *got);
    }
    return out;
  }

  static testing::TempDir* dir_;
  static testing::TestPki* pki_;
  SslCtxPtr server_ctx_;
  SslCtxPtr client_ctx_;
};

testing::TempDir* TlsStreamTest::dir_ = nullptr;
testing::TestPki* TlsStreamTest::pki_ = nullptr;

TEST_F(TlsStreamTest, CarriesBytesBothWaysAcrossManyRecords) {
  Connection c = Connect();
  ASSERT_TRUE(c.client && c.server);
  // 200 KB: a dozen TLS records, more than a socketpair buffers, so the
  // writer blocks until the reader catches up.
  std::string big(200 * 1024, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>('a' + i % 26);
  util::Status written;
  std::thread writer([&] { written = c.server->WriteAll(big, net::DeadlineAfter(seconds(10))); });
  EXPECT_EQ(ReadN(*c.client, big.size()), big);
  writer.join();
  EXPECT_TRUE(written.ok()) << written.message();

  ASSERT_TRUE(c.client->WriteAll("GET / HTTP/1.1\r\n\r\n", net::DeadlineAfter(seconds(10))).ok());
  EXPECT_EQ(ReadN(*c.server, 18), "GET / HTTP/1.1\r\n\r\n");
}

// Decrypted bytes not read yet, or a record read ahead or still in the
// socket, are input.
TEST_F(TlsStreamTest, HasInputWhileARecordIsPartlyReadOrStillInTheSocket) {
  Connection c = Connect();
  ASSERT_TRUE(c.client && c.server);
  ASSERT_TRUE(c.server->WriteAll("hello", net::DeadlineAfter(seconds(10))).ok());  // a record each
  ASSERT_TRUE(c.server->WriteAll("world", net::DeadlineAfter(seconds(10))).ok());
  char buf[3];
  util::StatusOr<size_t> got = c.client->ReadSome(buf, sizeof(buf), net::DeadlineAfter(seconds(10)));
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_EQ(*got, 3u);
  EXPECT_TRUE(c.client->HasInput());  // "lo", decrypted
  EXPECT_EQ(ReadN(*c.client, 2), "lo");
  EXPECT_TRUE(c.client->HasInput());  // "world", read ahead or in the socket
  EXPECT_EQ(ReadN(*c.client, 5), "world");
  EXPECT_FALSE(c.client->HasInput());
}

// The hint reaches the socket under OpenSSL: with a record waiting, a hinted
// read past its deadline still fails, having polled first.
TEST_F(TlsStreamTest, WaitBeforeNextReadReachesTheSocket) {
  Connection c = Connect();
  ASSERT_TRUE(c.client && c.server);
  ASSERT_TRUE(c.server->WriteAll("ping", net::DeadlineAfter(seconds(10))).ok());
  pollfd readable{c.client->socket().fd(), POLLIN, 0};
  ASSERT_EQ(::poll(&readable, 1, 10'000), 1);
  c.client->WaitBeforeNextRead();
  char buf[8];
  util::StatusOr<size_t> early = c.client->ReadSome(buf, sizeof(buf), std::chrono::steady_clock::now());
  EXPECT_EQ(early.status().code(), util::StatusCode::kDeadlineExceeded) << early.status().message();
  EXPECT_EQ(ReadN(*c.client, 4), "ping");
}

// As on a plain socket: a read that times out leaves the connection usable.
TEST_F(TlsStreamTest, AReadPastItsDeadlineCanBeRetried) {
  Connection c = Connect();
  ASSERT_TRUE(c.client && c.server);
  char buf[64];
  util::StatusOr<size_t> early = c.client->ReadSome(buf, sizeof(buf), std::chrono::steady_clock::now());
  EXPECT_EQ(early.status().code(), util::StatusCode::kDeadlineExceeded) << early.status().message();
  ASSERT_TRUE(c.server->WriteAll("later", net::DeadlineAfter(seconds(10))).ok());
  EXPECT_EQ(ReadN(*c.client, 5), "later");
}

TEST_F(TlsStreamTest, APeerGoneWithoutCloseNotifyEndsTheStream) {
  Connection c = Connect();
  ASSERT_TRUE(c.client && c.server);
  ASSERT_TRUE(c.server->WriteAll("last", net::DeadlineAfter(seconds(10))).ok());
  c.server.reset();  // closes the socket without a TLS close_notify
  EXPECT_EQ(ReadN(*c.client, 4), "last");
  char buf[64];
  util::StatusOr<size_t> end = c.client->ReadSome(buf, sizeof(buf), net::DeadlineAfter(seconds(10)));
  ASSERT_TRUE(end.ok()) << end.status().message();
  EXPECT_EQ(*end, 0u);
}

TEST_F(TlsStreamTest, AShutdownCancelsABlockedRead) {
  Connection c = Connect();
  ASSERT_TRUE(c.client && c.server);
  util::StatusOr<size_t> got = size_t{0};
  std::thread reader([&] {
    char buf[64];
    got = c.client->ReadSome(buf, sizeof(buf), net::kNoDeadline);
  });
  c.client->Shutdown();
  reader.join();
  EXPECT_EQ(got.status().code(), util::StatusCode::kCancelled) << got.status().message();
}

// ksched keeps a connection per binding thread, watch and writer (about a
// hundred): an idle one must not hold I/O buffers. Counted by glibc's
// malloc: 19,804 bytes (Debian 12, OpenSSL 3.0); 54,618 with the BIO pair
// that held two 17 KB buffers per connection.
TEST_F(TlsStreamTest, AnIdleClientConnectionStaysSmall) {
  if (!util::kHeapBytesCounted) GTEST_SKIP() << "malloc is not glibc's under a sanitizer";
  constexpr int kConnections = 20;
  Connect();  // lazily built state (statics, the BIO method) is not counted
  std::vector<Connection> connections;
  connections.reserve(kConnections);
  const size_t before = util::HeapBytesInUse();
  for (int i = 0; i < kConnections; ++i) connections.push_back(Connect());
  for (Connection& c : connections) c.server.reset();
  const size_t per_connection = (util::HeapBytesInUse() - before) / kConnections;
  EXPECT_LE(per_connection, size_t{24 * 1024}) << "an idle TLS client connection takes " << per_connection << " bytes";
}

}  // namespace
}  // namespace ksched::client
