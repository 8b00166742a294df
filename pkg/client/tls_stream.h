// TlsStream: a TLS client connection (OpenSSL) over a net::Socket, as a
// net::Stream the HTTP layer reads and writes like a plain socket.
//
// OpenSSL's BIO here is the socket itself: its reads and writes call the
// socket's deadline- and cancellation-aware I/O with the deadline of the
// TLS call in progress, so a TLS read or write honours deadlines and
// Shutdown() exactly as a plain socket does. The BIO has no buffer of its
// own (a BIO pair kept two 17 KB buffers per connection for its whole
// life); OpenSSL reads ahead into its record buffer, which
// SSL_MODE_RELEASE_BUFFERS frees while the connection is idle.
//
// Verification: with `verify_peer` the handshake fails unless the server's
// chain leads to a root of the context and the certificate names
// `server_name` (a DNS name, or an IP address matched against IP SANs).
// `server_name` is also sent as SNI when it is a DNS name.
//
// Server side: ServerSide() wraps an accepted socket (no I/O, so a server
// can register the stream for cancellation first) and AcceptHandshake()
// runs the server handshake; the client certificate, if the context asked for
// one and the client sent it, is then available with its verification
// result (the context's verify callback decides whether a bad one fails the
// handshake or is left to the caller).
//
// Thread-safety: stricter than net::Stream: reads and writes must come from
// one thread at a time (OpenSSL's connection state is not shared safely);
// Shutdown() may be called from any thread at any time. RestClient uses a
// connection from one thread at a time.
#pragma once

#include <openssl/ssl.h>

#include <memory>
#include <string>
#include <string_view>

#include "pkg/net/stream.h"
#include "pkg/util/status.h"

namespace ksched::client {

class TlsStream final : public net::Stream {
 public:
  // Runs the client handshake over `socket`. Errors: kUnavailable with
  // "TLS handshake failed: <reason>" (verification, protocol or the peer
  // closing), and the socket's kDeadlineExceeded / kCancelled.
  static util::StatusOr<std::unique_ptr<TlsStream>> Handshake(std::unique_ptr<net::Socket> socket, SSL_CTX* ctx,
                                                              const std::string& server_name, bool verify_peer,
                                                              net::Deadline deadline);
  // A server connection over `socket` with the server context `ctx`; call
  // AcceptHandshake() before reading or writing.
  static util::StatusOr<std::unique_ptr<TlsStream>> ServerSide(std::unique_ptr<net::Socket> socket, SSL_CTX* ctx);
  // Runs the server handshake. Errors as Handshake()'s.
  util::Status AcceptHandshake(net::Deadline deadline);
  ~TlsStream() override;
  TlsStream(const TlsStream&) = delete;
  TlsStream& operator=(const TlsStream&) = delete;

  util::StatusOr<size_t> ReadSome(char* buf, size_t n, net::Deadline deadline) override;
  util::Status WriteAll(std::string_view data, net::Deadline deadline) override;
  void Shutdown() override { socket_->Shutdown(); }
  // Bytes OpenSSL holds (decrypted, or records read ahead) or the socket
  // does (perhaps only part of a record, or one without data: a hint, as
  // Stream says).
  bool HasInput() const override;
  // Passed to the socket: OpenSSL's next read from it waits first (a read
  // that OpenSSL serves from its buffers leaves the hint for a later one).
  void WaitBeforeNextRead() override { socket_->WaitBeforeNextRead(); }

  // The peer's leaf certificate (null when it sent none), and whether its
  // chain verified against the context's trust store.
  std::shared_ptr<X509> PeerCertificate() const;
  bool PeerCertificateVerified() const;
  // The certificates the peer sent after its leaf (intermediates), for a
  // caller that verifies the chain itself; empty when none. A new
  // reference to each.
  std::shared_ptr<STACK_OF(X509)> PeerIntermediates() const;
  net::Socket& socket() { return *socket_; }

 private:
  explicit TlsStream(std::unique_ptr<net::Socket> socket) : socket_(std::move(socket)) {}
  // Creates the SSL object over `socket`, with the socket BIO below.
  static util::StatusOr<std::unique_ptr<TlsStream>> New(std::unique_ptr<net::Socket> socket, SSL_CTX* ctx);
  // Runs SSL_do_handshake to its end (either side).
  util::Status RunHandshake(net::Deadline deadline, const char* peer);
  // Starts a TLS call: the socket BIO's I/O gets `deadline`, and what it
  // records of a failure or the end of stream is reset.
  void BeginIo(net::Deadline deadline);

  // The socket BIO's callbacks (BIO_get_data is the TlsStream).
  static int BioWrite(BIO* bio, const char* data, size_t len, size_t* written);
  static int BioRead(BIO* bio, char* buf, size_t len, size_t* read);
  static long BioCtrl(BIO* bio, int cmd, long num, void* ptr);
  static BIO_METHOD* SocketBioMethod();

  std::unique_ptr<net::Socket> socket_;
  SSL* ssl_ = nullptr;  // owns the socket BIO
  // The current TLS call's: its deadline, and what its socket I/O met
  // (a failure, or the peer's end of stream).
  net::Deadline deadline_ = net::kNoDeadline;
  util::Status io_error_;
  bool eof_ = false;
};

}  // namespace ksched::client
