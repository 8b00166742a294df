// TlsStream: a TLS client connection (OpenSSL) over a net::Socket, as a
// net::Stream the HTTP layer reads and writes like a plain socket.
//
// OpenSSL works on memory buffers here (a BIO pair): the socket's own
// deadline- and cancellation-aware I/O moves the encrypted bytes, so a TLS
// read or write honours deadlines and Shutdown() exactly as a plain socket
// does.
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
  TlsStream(std::unique_ptr<net::Socket> socket, SSL* ssl, BIO* network);
  // Creates the SSL object and its BIO pair over `socket`.
  static util::StatusOr<std::unique_ptr<TlsStream>> New(std::unique_ptr<net::Socket> socket, SSL_CTX* ctx);
  // Drives SSL_do_handshake to its end (either side).
  util::Status RunHandshake(net::Deadline deadline, const char* peer);
  // Sends what OpenSSL has encrypted so far.
  util::Status Flush(net::Deadline deadline);
  // Reads encrypted bytes from the socket into OpenSSL; 0 at end of stream.
  util::StatusOr<size_t> Fill(net::Deadline deadline);

  std::unique_ptr<net::Socket> socket_;
  SSL* ssl_;      // owns the internal half of the BIO pair
  BIO* network_;  // the network half: what we move to and from the socket
};

}  // namespace ksched::client
