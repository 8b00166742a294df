// TlsCredentials: the certificate and key the secure port serves, either
// loaded from --tls-cert-file/--tls-private-key-file or, when those are not
// given, a self-signed certificate generated in memory at start-up (as
// kube-scheduler does): ECDSA P-256 key, X.509 v3, one year of validity,
// serverAuth, with the given DNS names and IP addresses as
// subjectAltNames. Nothing is written to disk.
//
// Everything is checked when the credentials are built (file readable, PEM
// valid, key matches certificate) so the daemon reports a bad flag at
// start-up instead of failing TLS handshakes later.
//
// Ownership: the OpenSSL objects are reference-counted through shared_ptr
// with their OpenSSL free functions; copies share them. Thread-safety:
// immutable after construction, safe to share across threads.
#pragma once

#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "pkg/util/clock.h"
#include "pkg/util/status.h"

namespace ksched::metrics {

struct TlsCredentials {
  std::shared_ptr<X509> certificate;
  // Intermediate certificates that followed the leaf in the certificate file.
  std::vector<std::shared_ptr<X509>> chain;
  std::shared_ptr<EVP_PKEY> private_key;

  // The leaf certificate as PEM.
  std::string CertificatePem() const;
  // The private key as unencrypted PKCS#8 PEM.
  std::string PrivateKeyPem() const;
};

struct SelfSignedOptions {
  std::string common_name;
  std::vector<std::string> dns_names;
  std::vector<std::string> ip_addresses;  // IPv4 or IPv6 literals
  util::WallTime not_before;
  std::chrono::seconds validity = std::chrono::hours(24 * 365);
};

util::StatusOr<TlsCredentials> GenerateSelfSigned(const SelfSignedOptions& options);

// Reads a PEM certificate file (leaf first, then optional intermediates) and
// a PEM private key file, and checks that the key matches the certificate.
util::StatusOr<TlsCredentials> LoadTlsCredentials(const std::string& cert_file,
                                                  const std::string& key_file);
// The same from PEM text; errors name `cert_what` / `key_what`.
util::StatusOr<TlsCredentials> ParseTlsCredentials(const std::string& cert_pem, const std::string& key_pem,
                                                   const std::string& cert_what, const std::string& key_what);
// The bytes of `path`; an error naming `what` when it cannot be read.
util::StatusOr<std::string> ReadWholeFile(const std::string& path, const std::string& what);

// Installs `creds` in `ctx` and restricts it to `min_version` (an OpenSSL
// protocol version; default TLS 1.2, kube's minimum) or newer, and, when
// `tls12_cipher_list` is not empty, the TLS <= 1.2 cipher suites to it, and
// when `groups_list` is not empty (OpenSSL group names, ':'-separated), the
// key exchange groups to those.
util::Status ConfigureServerContext(SSL_CTX* ctx, const TlsCredentials& creds, int min_version = TLS1_2_VERSION,
                                    const std::string& tls12_cipher_list = "",
                                    const std::string& groups_list = "");

// The subjectAltNames of `cert` as "DNS:<name>" / "IP:<address>".
std::vector<std::string> SubjectAltNames(X509* cert);

// The drained OpenSSL error queue as text, for error messages.
std::string OpenSslErrors();

}  // namespace ksched::metrics
