// TLS material for RestClient: the CA bundle and client certificate/key,
// read once into memory, and the OpenSSL client context built from them.
//
// Server verification (the peer's chain against the CA, and its name
// against the URL host or tls_server_name) is configured per connection in
// tls_stream.h.
//
// Thread-safety: TlsMaterial is an immutable value once loaded. An SSL_CTX
// is safe to share between connections once built (OpenSSL reference-counts
// it and only reads it while connecting).
#pragma once

#include <openssl/ssl.h>

#include <memory>
#include <string>

#include "pkg/client/rest_config.h"
#include "pkg/util/status.h"

namespace ksched::client {

struct TlsMaterial {
  std::string ca_pem;    // empty: the system roots
  std::string cert_pem;  // client certificate chain; empty: none
  std::string key_pem;
};

// Reads ca/cert/key data or files from `config` (data wins over file) and
// checks that they parse and that the key matches the certificate.
util::StatusOr<TlsMaterial> LoadTlsMaterial(const RestConfig& config);

struct SslCtxDeleter {
  void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};
using SslCtxPtr = std::unique_ptr<SSL_CTX, SslCtxDeleter>;

// A TLS client context (TLS 1.2 or later): with `verify_peer`, the server's
// chain must lead to the CA of `material` (only that CA, as in client-go)
// or, without one, to the system roots; the client chain and key are loaded
// when present. kInvalidArgument names the part that does not parse.
util::StatusOr<SslCtxPtr> NewClientSslContext(const TlsMaterial& material, bool verify_peer);

// The queued OpenSSL errors of this thread as one line (and clears them);
// `fallback` when there are none.
std::string TakeOpenSslErrors(const std::string& fallback);

}  // namespace ksched::client
