#include "pkg/net/stream.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ksched::net {

namespace {

using util::Status;
using util::StatusCode;
using util::StatusOr;

Status Errno(StatusCode code, const std::string& what, int err) {
  return Status(code, what + ": " + std::strerror(err));
}

Status Cancelled() { return Status(StatusCode::kCancelled, "stream shut down"); }

// Waits for `events` on `fd`, or for `cancel_fd` (-1: none) to become
// readable, or the deadline. ppoll takes a timespec, so deadlines keep sub-millisecond
// precision.
Status WaitFd(int fd, short events, int cancel_fd, const std::atomic<bool>& cancelled,
              Deadline deadline) {
  while (true) {
    if (cancelled.load(std::memory_order_acquire)) return Cancelled();
    pollfd fds[2] = {{fd, events, 0}, {cancel_fd, POLLIN, 0}};
    timespec ts{};
    timespec* timeout = nullptr;
    if (deadline != kNoDeadline) {
      auto left = deadline - std::chrono::steady_clock::now();
      if (left <= std::chrono::nanoseconds::zero()) {
        return Status(StatusCode::kDeadlineExceeded, "deadline exceeded");
      }
      auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
      ts.tv_sec = static_cast<time_t>(ns / 1000000000);
      ts.tv_nsec = static_cast<long>(ns % 1000000000);
      timeout = &ts;
    }
    int n = ::ppoll(fds, 2, timeout, nullptr);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Errno(StatusCode::kInternal, "poll", errno);
    }
    if (fds[1].revents != 0 || cancelled.load(std::memory_order_acquire)) return Cancelled();
    // POLLERR/POLLHUP: the next read or write reports what happened.
    if (fds[0].revents != 0) return Status::Ok();
  }
}

int NewEventFd() { return ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

void Signal(int event_fd) {
  uint64_t one = 1;
  // A full counter (never here) or EAGAIN still leaves it readable.
  [[maybe_unused]] ssize_t n = ::write(event_fd, &one, sizeof(one));
}

void SetNoDelay(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

// A peer that vanished without closing (host down, network cut) is noticed
// after about a minute of silence: probes after 30 s idle (Go's dialer, so
// client-go's, waits 30 s too), then every 10 s, 3 unanswered ones end it.
void SetKeepAlive(int fd) {
  int on = 1;
  int idle = kKeepAliveIdleSeconds;
  int interval = kKeepAliveIntervalSeconds;
  int count = kKeepAliveProbes;
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof(interval));
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof(count));
}

// "[::1]" -> "::1"; other hosts unchanged.
std::string StripBrackets(const std::string& host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    return host.substr(1, host.size() - 2);
  }
  return host;
}

std::string FormatAddress(const sockaddr_storage& addr) {
  char text[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET) {
    const auto& a = reinterpret_cast<const sockaddr_in&>(addr);
    ::inet_ntop(AF_INET, &a.sin_addr, text, sizeof(text));
    return std::string(text) + ":" + std::to_string(ntohs(a.sin_port));
  }
  if (addr.ss_family == AF_INET6) {
    const auto& a = reinterpret_cast<const sockaddr_in6&>(addr);
    ::inet_ntop(AF_INET6, &a.sin6_addr, text, sizeof(text));
    return "[" + std::string(text) + "]:" + std::to_string(ntohs(a.sin6_port));
  }
  return "";
}

struct AddrInfoDeleter {
  void operator()(addrinfo* ai) const { ::freeaddrinfo(ai); }
};
using AddrInfoPtr = std::unique_ptr<addrinfo, AddrInfoDeleter>;

StatusOr<AddrInfoPtr> Resolve(const std::string& host, uint16_t port, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  std::string name = StripBrackets(host);
  addrinfo* result = nullptr;
  int rc = ::getaddrinfo(name.empty() ? nullptr : name.c_str(), std::to_string(port).c_str(),
                         &hints, &result);
  if (rc != 0) {
    return Status(StatusCode::kUnavailable,
                  "resolving \"" + host + "\": " + ::gai_strerror(rc));
  }
  return AddrInfoPtr(result);
}

// Connects one address; returns the connected fd.
StatusOr<int> ConnectOne(const addrinfo& ai, Deadline deadline) {
  int fd = ::socket(ai.ai_family, ai.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai.ai_protocol);
  if (fd < 0) return Errno(StatusCode::kUnavailable, "socket", errno);
  if (::connect(fd, ai.ai_addr, ai.ai_addrlen) == 0) return fd;
  if (errno != EINPROGRESS) {
    Status st = Errno(StatusCode::kUnavailable, "connect", errno);
    ::close(fd);
    return st;
  }
  // No Shutdown() can exist yet: wait on the fd alone (poll skips fd -1).
  std::atomic<bool> never{false};
  Status waited = WaitFd(fd, POLLOUT, -1, never, deadline);
  if (!waited.ok()) {
    ::close(fd);
    return waited;
  }
  int err = 0;
  socklen_t len = sizeof(err);
  if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
  if (err != 0) {
    ::close(fd);
    return Errno(StatusCode::kUnavailable, "connect", err);
  }
  return fd;
}

}  // namespace

StatusOr<std::unique_ptr<Socket>> Socket::Connect(const std::string& host, uint16_t port,
                                                  Deadline deadline) {
  auto resolved = Resolve(host, port, false);
  if (!resolved.ok()) return resolved.status();
  Status last(StatusCode::kUnavailable, "no address for \"" + host + "\"");
  for (const addrinfo* ai = resolved->get(); ai != nullptr; ai = ai->ai_next) {
    auto fd = ConnectOne(*ai, deadline);
    if (fd.ok()) {
      SetNoDelay(*fd);
      SetKeepAlive(*fd);
      return Adopt(*fd);
    }
    last = Status(fd.status().code(), "connecting to " + host + ":" + std::to_string(port) +
                                          ": " + fd.status().message());
    if (last.code() == StatusCode::kDeadlineExceeded) break;
  }
  return last;
}

StatusOr<std::unique_ptr<Socket>> Socket::Adopt(int fd) {
  int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
    Status st = Errno(StatusCode::kInternal, "fcntl", errno);
    ::close(fd);
    return st;
  }
  int cancel_fd = NewEventFd();
  if (cancel_fd < 0) {
    Status st = Errno(StatusCode::kUnavailable, "eventfd", errno);
    ::close(fd);
    return st;
  }
  return std::unique_ptr<Socket>(new Socket(fd, cancel_fd));
}

Socket::~Socket() {
  ::close(fd_);
  ::close(cancel_fd_);
}

StatusOr<size_t> Socket::ReadSome(char* buf, size_t n, Deadline deadline) {
  if (wait_before_read_) {
    wait_before_read_ = false;
    Status st = Wait(POLLIN, deadline);
    if (!st.ok()) return st;
  }
  while (true) {
    if (cancelled_.load(std::memory_order_acquire)) return Cancelled();
    ssize_t got = ::recv(fd_, buf, n, 0);
    if (got >= 0) {
      wait_before_read_ = got > 0 && static_cast<size_t>(got) < n;
      return static_cast<size_t>(got);
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      return Errno(StatusCode::kUnavailable, "read", errno);
    }
    Status st = Wait(POLLIN, deadline);
    if (!st.ok()) return st;
  }
}

Status Socket::WriteAll(std::string_view data, Deadline deadline) {
  while (!data.empty()) {
    if (cancelled_.load(std::memory_order_acquire)) return Cancelled();
    ssize_t sent = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
    if (sent >= 0) {
      data.remove_prefix(static_cast<size_t>(sent));
      continue;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      return Errno(StatusCode::kUnavailable, "write", errno);
    }
    Status st = Wait(POLLOUT, deadline);
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

StatusOr<size_t> Socket::TryWrite(std::string_view data) {
  size_t total = 0;
  while (total < data.size()) {
    if (cancelled_.load(std::memory_order_acquire)) return Cancelled();
    ssize_t sent = ::send(fd_, data.data() + total, data.size() - total, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent >= 0) {
      total += static_cast<size_t>(sent);
      continue;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) break;
    return Errno(StatusCode::kUnavailable, "write", errno);
  }
  return total;
}

void Socket::Shutdown() {
  if (!cancelled_.exchange(true, std::memory_order_acq_rel)) Signal(cancel_fd_);
}

bool Socket::HasInput() const {
  int unread = 0;
  const bool has = ::ioctl(fd_, FIONREAD, &unread) == 0 && unread > 0;
  if (has) wait_before_read_ = false;
  return has;
}

std::string Socket::PeerAddress() const {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  if (::getpeername(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return "";
  return FormatAddress(addr);
}

Status Socket::Wait(short events, Deadline deadline) {
  return WaitFd(fd_, events, cancel_fd_, cancelled_, deadline);
}

StatusOr<std::unique_ptr<Listener>> Listener::Listen(const std::string& host, uint16_t port,
                                                     int backlog, bool reuse_port) {
  auto resolved = Resolve(host, port, true);
  if (!resolved.ok()) {
    return Status(StatusCode::kInvalidArgument, resolved.status().message());
  }
  Status last(StatusCode::kInvalidArgument, "no address for \"" + host + "\"");
  for (const addrinfo* ai = resolved->get(); ai != nullptr; ai = ai->ai_next) {
    int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                      ai->ai_protocol);
    if (fd < 0) {
      last = Errno(StatusCode::kUnavailable, "socket", errno);
      continue;
    }
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (reuse_port && ::setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) != 0) {
      last = Errno(StatusCode::kUnavailable, "setting SO_REUSEPORT", errno);
      ::close(fd);
      continue;
    }
    std::string where = host + ":" + std::to_string(port);
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
      last = Errno(StatusCode::kUnavailable, "binding " + where, errno);
      ::close(fd);
      continue;
    }
    if (::listen(fd, backlog) != 0) {
      last = Errno(StatusCode::kUnavailable, "listening on " + where, errno);
      ::close(fd);
      continue;
    }
    sockaddr_storage bound{};
    socklen_t len = sizeof(bound);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
    uint16_t actual = bound.ss_family == AF_INET6
                          ? ntohs(reinterpret_cast<sockaddr_in6&>(bound).sin6_port)
                          : ntohs(reinterpret_cast<sockaddr_in&>(bound).sin_port);
    int cancel_fd = NewEventFd();
    if (cancel_fd < 0) {
      last = Errno(StatusCode::kUnavailable, "eventfd", errno);
      ::close(fd);
      continue;
    }
    return std::unique_ptr<Listener>(new Listener(fd, cancel_fd, actual));
  }
  return last;
}

Listener::~Listener() {
  ::close(fd_);
  ::close(cancel_fd_);
}

StatusOr<std::unique_ptr<Socket>> Listener::Accept(Deadline deadline) {
  while (true) {
    if (cancelled_.load(std::memory_order_acquire)) return Cancelled();
    int fd = ::accept4(fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
      SetNoDelay(fd);
      return Socket::Adopt(fd);
    }
    if (errno == EINTR || errno == ECONNABORTED) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      return Errno(StatusCode::kUnavailable, "accept", errno);
    }
    Status st = WaitFd(fd_, POLLIN, cancel_fd_, cancelled_, deadline);
    if (!st.ok()) return st;
  }
}

void Listener::Shutdown() {
  if (!cancelled_.exchange(true, std::memory_order_acq_rel)) Signal(cancel_fd_);
}

}  // namespace ksched::net
