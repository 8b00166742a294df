// Byte streams over TCP with deadlines and cancellation: the transport under
// the HTTP/1.1 layer (http_message.h, message_reader.h), for servers and
// clients alike.
//
// A Stream is what the HTTP layer reads and writes; Socket is the plain TCP
// one. A TLS stream (OpenSSL over a Socket) can implement the same interface
// beside it without changing the HTTP code.
//
// Deadlines are std::chrono::steady_clock time points: these are network
// timeouts, measured in real time (poll(2) waits for them), not the injected
// util::Clock the scheduler's logic runs on.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "pkg/util/status.h"

namespace ksched::net {

using Deadline = std::chrono::steady_clock::time_point;
// Wait as long as it takes (until Shutdown()).
inline constexpr Deadline kNoDeadline = Deadline::max();

// Deadline `timeout` from now.
inline Deadline DeadlineAfter(std::chrono::nanoseconds timeout) {
  return std::chrono::steady_clock::now() + timeout;
}

// A bidirectional byte stream.
//
// Thread-safety: one thread may read while another writes; Shutdown() may be
// called from any thread at any time. Two concurrent readers (or writers) are
// not allowed.
//
// Errors: kDeadlineExceeded when the deadline passed first, kCancelled after
// Shutdown(), kUnavailable for I/O errors (connection reset, broken pipe).
class Stream {
 public:
  virtual ~Stream() = default;

  // Reads at most `n` (> 0) bytes into `buf`, waiting until at least one is
  // available. Returns the number read, or 0 when the peer closed its side
  // (end of stream).
  virtual util::StatusOr<size_t> ReadSome(char* buf, size_t n, Deadline deadline) = 0;
  // Writes all of `data`. On error, some prefix of it may have been sent.
  virtual util::Status WriteAll(std::string_view data, Deadline deadline) = 0;
  // Writes what it can of `data` without waiting and returns how many bytes
  // went out (0 when the stream would block). Streams that cannot write
  // without blocking (this default) always return 0: callers then fall back
  // to WriteAll.
  virtual util::StatusOr<size_t> TryWrite(std::string_view data) {
    (void)data;
    return size_t{0};
  }
  // Makes a read or write blocked on another thread return kCancelled
  // promptly, and every later one too. Idempotent, non-blocking.
  virtual void Shutdown() = 0;
  // Whether bytes have arrived that no read has returned yet, so the next
  // read would not wait for the peer. A hint (bytes may arrive the moment
  // after); streams that cannot tell (this default) say false.
  virtual bool HasInput() const { return false; }
  // A hint that nothing can have arrived yet (a request was just sent): the
  // next read waits for input before it reads, instead of first trying a
  // read that finds nothing. Call it from the reading thread. Streams whose
  // reads cost nothing extra when empty (this default) ignore it.
  virtual void WaitBeforeNextRead() {}
};

// TCP keepalive of connected client sockets: a silent peer is probed after
// this idle time, then every interval; unanswered probes end the connection
// (reads then fail with kUnavailable).
inline constexpr int kKeepAliveIdleSeconds = 30;
inline constexpr int kKeepAliveIntervalSeconds = 10;
inline constexpr int kKeepAliveProbes = 3;

// A connected TCP socket (non-blocking fd; waits are poll(2) on the fd and an
// eventfd that Shutdown() signals). Owns both fds; the destructor closes
// them, so no other thread may be using the Socket by then.
class Socket final : public Stream {
 public:
  // Connects to host:port. `host` is a name, an IPv4 address or an IPv6
  // address (with or without brackets); every resolved address is tried in
  // order. Sets TCP_NODELAY and keepalive (above). Errors: kUnavailable (refused, unreachable,
  // unknown host), kDeadlineExceeded.
  static util::StatusOr<std::unique_ptr<Socket>> Connect(const std::string& host, uint16_t port,
                                                          Deadline deadline);
  // Takes ownership of a connected stream socket `fd` (closed on error too)
  // and makes it non-blocking.
  static util::StatusOr<std::unique_ptr<Socket>> Adopt(int fd);

  ~Socket() override;
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  util::StatusOr<size_t> ReadSome(char* buf, size_t n, Deadline deadline) override;
  util::Status WriteAll(std::string_view data, Deadline deadline) override;
  util::StatusOr<size_t> TryWrite(std::string_view data) override;
  void Shutdown() override;
  // One ioctl (FIONREAD). Call it from the reading thread.
  bool HasInput() const override;
  // The next ReadSome polls before its recv: one system call fewer when the
  // reply is not there yet, one more when it already is. A read that
  // drains the socket (gets fewer bytes than it asked for) sets the same
  // hint: what comes next has usually not arrived yet.
  void WaitBeforeNextRead() override { wait_before_read_ = true; }

  // The peer's address, "127.0.0.1:54321" or "[::1]:54321" ("" if unknown).
  std::string PeerAddress() const;
  int fd() const { return fd_; }

 private:
  Socket(int fd, int cancel_fd) : fd_(fd), cancel_fd_(cancel_fd) {}
  // Waits until `fd_` is ready for `events`, the deadline passes or the
  // socket is shut down.
  util::Status Wait(short events, Deadline deadline);

  const int fd_;
  const int cancel_fd_;  // eventfd, readable once Shutdown() was called
  std::atomic<bool> cancelled_{false};
  // The reading thread's alone (HasInput clears it: input is there).
  mutable bool wait_before_read_ = false;
};

// A listening TCP socket.
//
// Thread-safety: Accept() from one thread; Shutdown() from any thread makes
// a blocked Accept() return kCancelled.
class Listener {
 public:
  // Binds `host` ("127.0.0.1", "0.0.0.0", "::1", "::", "localhost", with or
  // without brackets) on `port` (0: a free port, see port()) and listens.
  // Errors: kInvalidArgument (address does not resolve), kUnavailable (bind
  // or listen failed, e.g. the port is taken). SO_REUSEADDR is always set
  // (as Go's listeners do); `reuse_port` adds SO_REUSEPORT, so several
  // processes that all set it can bind the same address and port.
  static util::StatusOr<std::unique_ptr<Listener>> Listen(const std::string& host, uint16_t port,
                                                           int backlog = 128, bool reuse_port = false);
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  // The next connection (TCP_NODELAY set). Errors: kCancelled after
  // Shutdown(), kDeadlineExceeded, kUnavailable (e.g. out of fds: callers
  // should pause before trying again).
  util::StatusOr<std::unique_ptr<Socket>> Accept(Deadline deadline = kNoDeadline);
  void Shutdown();

  uint16_t port() const { return port_; }

 private:
  Listener(int fd, int cancel_fd, uint16_t port) : fd_(fd), cancel_fd_(cancel_fd), port_(port) {}

  const int fd_;
  const int cancel_fd_;
  const uint16_t port_;
  std::atomic<bool> cancelled_{false};
};

}  // namespace ksched::net
