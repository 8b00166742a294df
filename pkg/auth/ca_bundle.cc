#include "pkg/auth/ca_bundle.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

namespace ksched::auth {

util::StatusOr<std::shared_ptr<const CaBundle>> CaBundle::Parse(const std::string& pem, const std::string& what) {
  std::shared_ptr<CaBundle> b(new CaBundle());
  b->pem_ = pem;
  b->store_ = X509_STORE_new();
  b->certs_ = sk_X509_new_null();
  if (b->store_ == nullptr || b->certs_ == nullptr) return util::Internal(what + ": out of memory");
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())),
                                                BIO_free);
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    X509_STORE_add_cert(b->store_, cert);
    sk_X509_push(b->certs_, cert);  // takes the reference
    ++b->count_;
  }
  // Reading stops at the end or at a block that does not parse: only the
  // end is fine.
  const unsigned long err = ERR_peek_last_error();
  ERR_clear_error();
  if (ERR_GET_REASON(err) != PEM_R_NO_START_LINE && err != 0) {
    return util::InvalidArgument(what + ": a PEM certificate does not parse");
  }
  if (b->count_ == 0) return util::InvalidArgument(what + ": no PEM certificate found");
  return std::shared_ptr<const CaBundle>(std::move(b));
}

CaBundle::~CaBundle() {
  if (store_ != nullptr) X509_STORE_free(store_);
  if (certs_ != nullptr) sk_X509_pop_free(certs_, X509_free);
}

bool CaBundle::Verify(X509* leaf, STACK_OF(X509) * chain) const {
  if (leaf == nullptr) return false;
  std::unique_ptr<X509_STORE_CTX, decltype(&X509_STORE_CTX_free)> ctx(X509_STORE_CTX_new(), X509_STORE_CTX_free);
  if (!ctx || X509_STORE_CTX_init(ctx.get(), store_, leaf, chain) != 1) return false;
  X509_STORE_CTX_set_purpose(ctx.get(), X509_PURPOSE_SSL_CLIENT);
  const bool ok = X509_verify_cert(ctx.get()) == 1;
  ERR_clear_error();
  return ok;
}

void CaBundle::AddSubjectsTo(STACK_OF(X509_NAME) * names) const {
  for (int i = 0; i < sk_X509_num(certs_); ++i) {
    if (X509_NAME* n = X509_NAME_dup(X509_get_subject_name(sk_X509_value(certs_, i)))) sk_X509_NAME_push(names, n);
  }
}

std::string CommonName(X509* cert) {
  if (cert == nullptr) return "";
  X509_NAME* subject = X509_get_subject_name(cert);
  int i = X509_NAME_get_index_by_NID(subject, NID_commonName, -1);
  if (i < 0) return "";
  unsigned char* utf8 = nullptr;
  int n = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, i)));
  if (n < 0) return "";
  std::string s(reinterpret_cast<char*>(utf8), static_cast<size_t>(n));
  OPENSSL_free(utf8);
  return s;
}

}  // namespace ksched::auth
