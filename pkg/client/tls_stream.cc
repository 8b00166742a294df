#include "pkg/client/tls_stream.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "pkg/client/tls.h"

namespace ksched::client {

namespace {

bool IsIpAddress(const std::string& host) {
  unsigned char buf[sizeof(struct in6_addr)];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

util::Status HandshakeError(const std::string& why) {
  return util::Status(util::StatusCode::kUnavailable, "TLS handshake failed: " + why);
}

}  // namespace

TlsStream::~TlsStream() { SSL_free(ssl_); }

BIO_METHOD* TlsStream::SocketBioMethod() {
  // Built once, never freed: OpenSSL keeps a pointer to it in every BIO.
  static BIO_METHOD* const method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "ksched socket");
    if (m != nullptr) {
      BIO_meth_set_write_ex(m, &TlsStream::BioWrite);
      BIO_meth_set_read_ex(m, &TlsStream::BioRead);
      BIO_meth_set_ctrl(m, &TlsStream::BioCtrl);
    }
    return m;
  }();
  return method;
}

int TlsStream::BioWrite(BIO* bio, const char* data, size_t len, size_t* written) {
  auto* self = static_cast<TlsStream*>(BIO_get_data(bio));
  BIO_clear_retry_flags(bio);
  util::Status s = self->socket_->WriteAll(std::string_view(data, len), self->deadline_);
  if (!s.ok()) {
    // A deadline leaves the connection usable, as on a plain socket.
    if (s.code() == util::StatusCode::kDeadlineExceeded) BIO_set_retry_write(bio);
    self->io_error_ = std::move(s);
    return 0;
  }
  *written = len;
  return 1;
}

int TlsStream::BioRead(BIO* bio, char* buf, size_t len, size_t* read) {
  auto* self = static_cast<TlsStream*>(BIO_get_data(bio));
  BIO_clear_retry_flags(bio);
  util::StatusOr<size_t> got = self->socket_->ReadSome(buf, len, self->deadline_);
  if (!got.ok()) {
    if (got.status().code() == util::StatusCode::kDeadlineExceeded) BIO_set_retry_read(bio);
    self->io_error_ = got.status();
    return 0;
  }
  if (*got == 0) {
    self->eof_ = true;
    return 0;
  }
  *read = *got;
  return 1;
}

long TlsStream::BioCtrl(BIO* bio, int cmd, long /*num*/, void* /*ptr*/) {
  switch (cmd) {
    case BIO_CTRL_FLUSH:  // writes are never buffered here
      return 1;
    case BIO_CTRL_EOF:
      return static_cast<TlsStream*>(BIO_get_data(bio))->eof_ ? 1 : 0;
    default:
      return 0;
  }
}

void TlsStream::BeginIo(net::Deadline deadline) {
  deadline_ = deadline;
  io_error_ = util::Status::Ok();
  ERR_clear_error();
}

util::StatusOr<std::unique_ptr<TlsStream>> TlsStream::New(std::unique_ptr<net::Socket> socket, SSL_CTX* ctx) {
  ERR_clear_error();
  std::unique_ptr<TlsStream> stream(new TlsStream(std::move(socket)));
  BIO_METHOD* method = SocketBioMethod();
  stream->ssl_ = SSL_new(ctx);
  BIO* bio = method != nullptr && stream->ssl_ != nullptr ? BIO_new(method) : nullptr;
  if (bio == nullptr) return util::Internal("TLS: " + TakeOpenSslErrors("cannot create a connection"));
  BIO_set_data(bio, stream.get());
  BIO_set_init(bio, 1);
  SSL_set_bio(stream->ssl_, bio, bio);
  // Without read-ahead each record costs two socket reads (its header,
  // then its body).
  SSL_set_read_ahead(stream->ssl_, 1);
  return stream;
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
  BeginIo(deadline);
  if (SSL_do_handshake(ssl_) == 1) return util::Status::Ok();
  // A failed verification first: the alert that reports it may fail to go out.
  const long verify = SSL_get_verify_result(ssl_);
  if (verify != X509_V_OK) return HandshakeError(X509_verify_cert_error_string(verify));
  // The peer's end of stream before an I/O failure: OpenSSL answers the end
  // with an alert, whose write then fails.
  if (eof_) return HandshakeError(std::string("the ") + peer + " closed the connection");
  if (!io_error_.ok()) {
    if (io_error_.code() == util::StatusCode::kUnavailable) return HandshakeError(io_error_.message());
    return io_error_;
  }
  return HandshakeError(TakeOpenSslErrors("protocol error"));
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

bool TlsStream::HasInput() const { return SSL_has_pending(ssl_) == 1 || socket_->HasInput(); }

util::StatusOr<size_t> TlsStream::ReadSome(char* buf, size_t n, net::Deadline deadline) {
  BeginIo(deadline);
  size_t got = 0;
  if (SSL_read_ex(ssl_, buf, n, &got) == 1) return got;
  if (SSL_get_error(ssl_, 0) == SSL_ERROR_ZERO_RETURN) return size_t{0};  // close_notify
  if (eof_) {
    // A close without close_notify: end of stream (HTTP framing tells a
    // truncated body from a complete one), even if the alert OpenSSL
    // answers it with could not be sent.
    ERR_clear_error();
    return size_t{0};
  }
  if (!io_error_.ok()) return io_error_;
  return util::Status(util::StatusCode::kUnavailable, "TLS read: " + TakeOpenSslErrors("protocol error"));
}

util::Status TlsStream::WriteAll(std::string_view data, net::Deadline deadline) {
  BeginIo(deadline);
  if (data.empty()) return util::Status::Ok();
  size_t wrote = 0;
  // Without SSL_MODE_ENABLE_PARTIAL_WRITE a success has written everything.
  if (SSL_write_ex(ssl_, data.data(), data.size(), &wrote) == 1) return util::Status::Ok();
  if (eof_) return util::Status(util::StatusCode::kUnavailable, "TLS write: connection closed");
  if (!io_error_.ok()) return io_error_;
  return util::Status(util::StatusCode::kUnavailable, "TLS write: " + TakeOpenSslErrors("protocol error"));
}

}  // namespace ksched::client
