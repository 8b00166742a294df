#include "pkg/client/tls_stream.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <climits>

#include "pkg/client/tls.h"

namespace ksched::client {

namespace {

constexpr size_t kIoChunk = 16 * 1024;

bool IsIpAddress(const std::string& host) {
  unsigned char buf[sizeof(struct in6_addr)];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

util::Status HandshakeError(const std::string& why) {
  return util::Status(util::StatusCode::kUnavailable, "TLS handshake failed: " + why);
}

}  // namespace

TlsStream::TlsStream(std::unique_ptr<net::Socket> socket, SSL* ssl, BIO* network)
    : socket_(std::move(socket)), ssl_(ssl), network_(network) {}

TlsStream::~TlsStream() {
  SSL_free(ssl_);
  BIO_free(network_);
}

util::StatusOr<std::unique_ptr<TlsStream>> TlsStream::New(std::unique_ptr<net::Socket> socket, SSL_CTX* ctx) {
  ERR_clear_error();
  SSL* ssl = SSL_new(ctx);
  BIO* internal = nullptr;
  BIO* network = nullptr;
  if (ssl == nullptr || BIO_new_bio_pair(&internal, 0, &network, 0) != 1) {
    SSL_free(ssl);
    return util::Internal("TLS: " + TakeOpenSslErrors("cannot create a connection"));
  }
  SSL_set_bio(ssl, internal, internal);
  return std::unique_ptr<TlsStream>(new TlsStream(std::move(socket), ssl, network));
}

util::StatusOr<std::unique_ptr<TlsStream>> TlsStream::Handshake(std::unique_ptr<net::Socket> socket, SSL_CTX* ctx,
                                                                const std::string& server_name, bool verify_peer,
                                                                net::Deadline deadline) {
  util::StatusOr<std::unique_ptr<TlsStream>> stream = New(std::move(socket), ctx);
  if (!stream.ok()) return stream.status();
  SSL* ssl = (*stream)->ssl_;
  const std::string host =
      server_name.size() >= 2 && server_name.front() == '[' ? server_name.substr(1, server_name.size() - 2)
                                                            : server_name;
  if (IsIpAddress(host)) {
    if (verify_peer) X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host.c_str());
  } else {
    SSL_set_tlsext_host_name(ssl, host.c_str());
    if (verify_peer) SSL_set1_host(ssl, host.c_str());
  }
  SSL_set_connect_state(ssl);
  util::Status st = (*stream)->RunHandshake(deadline, "server");
  if (!st.ok()) return st;
  return stream;
}

util::StatusOr<std::unique_ptr<TlsStream>> TlsStream::ServerSide(std::unique_ptr<net::Socket> socket,
                                                                 SSL_CTX* ctx) {
  util::StatusOr<std::unique_ptr<TlsStream>> stream = New(std::move(socket), ctx);
  if (!stream.ok()) return stream.status();
  SSL_set_accept_state((*stream)->ssl_);
  return stream;
}

util::Status TlsStream::AcceptHandshake(net::Deadline deadline) { return RunHandshake(deadline, "client"); }

util::Status TlsStream::RunHandshake(net::Deadline deadline, const char* peer) {
  for (;;) {
    ERR_clear_error();
    int r = SSL_do_handshake(ssl_);
    util::Status flushed = Flush(deadline);
    if (r == 1) return flushed;
    int err = SSL_get_error(ssl_, r);
    if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE) {
      long verify = SSL_get_verify_result(ssl_);
      if (verify != X509_V_OK) return HandshakeError(X509_verify_cert_error_string(verify));
      return HandshakeError(TakeOpenSslErrors("protocol error"));
    }
    if (!flushed.ok()) return flushed;
    if (err == SSL_ERROR_WANT_READ) {
      util::StatusOr<size_t> got = Fill(deadline);
      if (!got.ok()) {
        if (got.status().code() == util::StatusCode::kUnavailable) return HandshakeError(got.status().message());
        return got.status();
      }
      if (*got == 0) return HandshakeError(std::string("the ") + peer + " closed the connection");
    }
  }
}

std::shared_ptr<X509> TlsStream::PeerCertificate() const {
  X509* cert = SSL_get1_peer_certificate(ssl_);  // a new reference
  return std::shared_ptr<X509>(cert, X509_free);
}

bool TlsStream::PeerCertificateVerified() const {
  X509* cert = SSL_get0_peer_certificate(ssl_);
  return cert != nullptr && SSL_get_verify_result(ssl_) == X509_V_OK;
}

std::shared_ptr<STACK_OF(X509)> TlsStream::PeerIntermediates() const {
  STACK_OF(X509)* sent = SSL_get_peer_cert_chain(ssl_);
  STACK_OF(X509)* out = sk_X509_new_null();
  if (out == nullptr) return nullptr;
  // A server's view of the client's chain leaves the leaf out; a client's
  // view of the server's includes it.
  X509* leaf = SSL_get0_peer_certificate(ssl_);
  for (int i = 0; sent != nullptr && i < sk_X509_num(sent); ++i) {
    X509* c = sk_X509_value(sent, i);
    if (c == leaf || X509_up_ref(c) != 1) continue;
    sk_X509_push(out, c);
  }
  return std::shared_ptr<STACK_OF(X509)>(out, [](STACK_OF(X509)* s) { sk_X509_pop_free(s, X509_free); });
}

util::Status TlsStream::Flush(net::Deadline deadline) {
  char buf[kIoChunk];
  while (BIO_ctrl_pending(network_) > 0) {
    int n = BIO_read(network_, buf, sizeof(buf));
    if (n <= 0) break;
    util::Status s = socket_->WriteAll(std::string_view(buf, static_cast<size_t>(n)), deadline);
    if (!s.ok()) return s;
  }
  return util::Status::Ok();
}

util::StatusOr<size_t> TlsStream::Fill(net::Deadline deadline) {
  // Never read more than the pair can take, so nothing read is dropped.
  size_t room = std::min(kIoChunk, BIO_ctrl_get_write_guarantee(network_));
  if (room == 0) return util::Internal("TLS: input buffer full");
  char buf[kIoChunk];
  util::StatusOr<size_t> got = socket_->ReadSome(buf, room, deadline);
  if (!got.ok() || *got == 0) return got;
  BIO_write(network_, buf, static_cast<int>(*got));
  return got;
}

util::StatusOr<size_t> TlsStream::ReadSome(char* buf, size_t n, net::Deadline deadline) {
  for (;;) {
    ERR_clear_error();
    int r = SSL_read(ssl_, buf, static_cast<int>(std::min<size_t>(n, INT_MAX)));
    if (r > 0) return static_cast<size_t>(r);
    int err = SSL_get_error(ssl_, r);
    if (err == SSL_ERROR_ZERO_RETURN) return size_t{0};  // close_notify
    if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE) {
      return util::Status(util::StatusCode::kUnavailable, "TLS read: " + TakeOpenSslErrors("protocol error"));
    }
    // TLS 1.3 post-handshake messages may need an answer before more data.
    util::Status flushed = Flush(deadline);
    if (!flushed.ok()) return flushed;
    if (err == SSL_ERROR_WANT_READ) {
      util::StatusOr<size_t> got = Fill(deadline);
      if (!got.ok()) return got.status();
      // A close without close_notify: end of stream; HTTP framing tells a
      // truncated body from a complete one.
      if (*got == 0) return size_t{0};
    }
  }
}

util::Status TlsStream::WriteAll(std::string_view data, net::Deadline deadline) {
  while (!data.empty()) {
    ERR_clear_error();
    int r = SSL_write(ssl_, data.data(), static_cast<int>(std::min<size_t>(data.size(), kIoChunk)));
    if (r > 0) {
      data.remove_prefix(static_cast<size_t>(r));
      util::Status flushed = Flush(deadline);
      if (!flushed.ok()) return flushed;
      continue;
    }
    int err = SSL_get_error(ssl_, r);
    if (err == SSL_ERROR_WANT_WRITE) {
      util::Status flushed = Flush(deadline);
      if (!flushed.ok()) return flushed;
    } else if (err == SSL_ERROR_WANT_READ) {
      util::StatusOr<size_t> got = Fill(deadline);
      if (!got.ok()) return got.status();
      if (*got == 0) return util::Status(util::StatusCode::kUnavailable, "TLS write: connection closed");
    } else {
      return util::Status(util::StatusCode::kUnavailable, "TLS write: " + TakeOpenSslErrors("protocol error"));
    }
  }
  return util::Status::Ok();
}

}  // namespace ksched::client
