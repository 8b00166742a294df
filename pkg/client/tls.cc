#include "pkg/client/tls.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509_vfy.h>

#include <vector>

#include "pkg/client/file.h"

namespace ksched::client {

namespace {

util::Status LoadOne(const std::string& data, const std::string& file, const char* what, std::string* out) {
  if (!data.empty()) {
    *out = data;
    return util::Status::Ok();
  }
  if (file.empty()) return util::Status::Ok();
  util::StatusOr<std::string> content = ReadFileToString(file);
  if (!content.ok()) return util::InvalidArgument(std::string(what) + ": " + content.status().message());
  *out = std::move(content).value();
  return util::Status::Ok();
}

struct BioDeleter {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Deleter {
  void operator()(X509* x) const { X509_free(x); }
};
using X509Ptr = std::unique_ptr<X509, X509Deleter>;

std::unique_ptr<BIO, BioDeleter> PemBio(const std::string& pem) {
  return std::unique_ptr<BIO, BioDeleter>(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

// Every certificate in a PEM bundle; empty when none parses.
std::vector<X509Ptr> ReadCertificates(const std::string& pem) {
  std::vector<X509Ptr> out;
  auto bio = PemBio(pem);
  while (X509* x = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) out.emplace_back(x);
  ERR_clear_error();  // the read that ended the loop queued "no start line"
  return out;
}

}  // namespace

std::string TakeOpenSslErrors(const std::string& fallback) {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? fallback : out;
}

util::StatusOr<SslCtxPtr> NewClientSslContext(const TlsMaterial& material, bool verify_peer) {
  SslCtxPtr ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx) return util::Internal("TLS: " + TakeOpenSslErrors("cannot create a context"));
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  // Idle pooled connections keep no record buffers.
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_RELEASE_BUFFERS);
  SSL_CTX_set_verify(ctx.get(), verify_peer ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nullptr);
  if (!material.ca_pem.empty()) {
    // A store of its own: a kubeconfig CA is the only root, as in client-go.
    std::vector<X509Ptr> cas = ReadCertificates(material.ca_pem);
    if (cas.empty()) return util::InvalidArgument("certificate authority: not a PEM certificate bundle");
    X509_STORE* store = X509_STORE_new();
    for (const X509Ptr& ca : cas) X509_STORE_add_cert(store, ca.get());
    SSL_CTX_set_cert_store(ctx.get(), store);  // takes ownership
  } else if (SSL_CTX_set_default_verify_paths(ctx.get()) != 1) {
    ERR_clear_error();  // no system roots: verification will fail with a clear error
  }
  if (!material.cert_pem.empty()) {
    std::vector<X509Ptr> chain = ReadCertificates(material.cert_pem);
    if (chain.empty() || SSL_CTX_use_certificate(ctx.get(), chain[0].get()) != 1) {
      return util::InvalidArgument("client certificate: not a PEM certificate: " + TakeOpenSslErrors("no certificate"));
    }
    for (size_t i = 1; i < chain.size(); ++i) SSL_CTX_add1_chain_cert(ctx.get(), chain[i].get());
    auto bio = PemBio(material.key_pem);
    EVP_PKEY* key = PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr);
    bool ok = key != nullptr && SSL_CTX_use_PrivateKey(ctx.get(), key) == 1 && SSL_CTX_check_private_key(ctx.get()) == 1;
    EVP_PKEY_free(key);
    if (!ok) {
      return util::InvalidArgument("client key: not a PEM key matching the certificate: " +
                                   TakeOpenSslErrors("no key"));
    }
  }
  return ctx;
}

util::StatusOr<TlsMaterial> LoadTlsMaterial(const RestConfig& config) {
  TlsMaterial m;
  util::Status s = LoadOne(config.ca_data, config.ca_file, "certificate authority", &m.ca_pem);
  if (s.ok()) s = LoadOne(config.cert_data, config.cert_file, "client certificate", &m.cert_pem);
  if (s.ok()) s = LoadOne(config.key_data, config.key_file, "client key", &m.key_pem);
  if (!s.ok()) return s;
  if (m.cert_pem.empty() != m.key_pem.empty()) {
    return util::InvalidArgument("a client certificate needs a client key and the reverse");
  }
  // Build a context once now, so that bad PEM is a start-up error with a
  // clear message instead of a failure on the first connection.
  util::StatusOr<SslCtxPtr> probe = NewClientSslContext(m, /*verify_peer=*/true);
  if (!probe.ok()) return probe.status();
  return m;
}

}  // namespace ksched::client
