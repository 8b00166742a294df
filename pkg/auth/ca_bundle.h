// CaBundle: a set of CA certificates (a --client-ca-file or
// --requestheader-client-ca-file bundle) that client certificates are
// verified against, as kube's x509 authenticators do per request: the
// chain the client sent (leaf plus intermediates) must lead to one of them,
// with the leaf usable for client authentication (no extendedKeyUsage, or
// one that includes clientAuth).
//
// Ownership: owns its OpenSSL objects. Thread-safety: immutable after
// Parse(); Verify() may be called from many threads at once (OpenSSL locks
// its store).
#pragma once

#include <openssl/x509.h>

#include <memory>
#include <string>

#include "pkg/util/status.h"

namespace ksched::auth {

class CaBundle {
 public:
  // Every PEM certificate of `pem`; an error (naming `what`) when there is
  // none or one does not parse.
  static util::StatusOr<std::shared_ptr<const CaBundle>> Parse(const std::string& pem, const std::string& what);
  ~CaBundle();
  CaBundle(const CaBundle&) = delete;
  CaBundle& operator=(const CaBundle&) = delete;

  // Whether `leaf` (with the untrusted intermediates `chain`, may be null)
  // chains to this bundle for client authentication.
  bool Verify(X509* leaf, STACK_OF(X509) * chain) const;
  // The certificates' subjects, appended to `names` (a TLS server's list of
  // acceptable client CAs).
  void AddSubjectsTo(STACK_OF(X509_NAME) * names) const;
  // The bundle as given (to compare with a re-read file).
  const std::string& pem() const { return pem_; }
  int size() const { return count_; }

 private:
  CaBundle() = default;
  X509_STORE* store_ = nullptr;
  STACK_OF(X509)* certs_ = nullptr;
  std::string pem_;
  int count_ = 0;
};

// The CommonName of `cert`'s subject ("" when none).
std::string CommonName(X509* cert);

}  // namespace ksched::auth
