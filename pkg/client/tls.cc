#include "pkg/client/tls.h"

#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include <boost/asio/ssl.hpp>

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

}  // namespace

void ConfigureSslContext(boost::asio::ssl::context& ctx, const TlsMaterial& material) {
  if (!material.ca_pem.empty()) {
    // A fresh store drops the default verify paths cpprestsdk loaded, so a
    // kubeconfig CA is the only root, as in client-go.
    X509_STORE* store = X509_STORE_new();
    SSL_CTX_set_cert_store(ctx.native_handle(), store);
    ctx.add_certificate_authority(boost::asio::buffer(material.ca_pem));
  }
  if (!material.cert_pem.empty()) {
    ctx.use_certificate_chain(boost::asio::buffer(material.cert_pem));
    ctx.use_private_key(boost::asio::buffer(material.key_pem), boost::asio::ssl::context::pem);
  }
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
  // Parse once now so that bad PEM is a start-up error with a clear message
  // instead of an exception inside cpprestsdk on the first connection.
  boost::asio::ssl::context probe(boost::asio::ssl::context::tls_client);
  try {
    if (!m.ca_pem.empty()) {
      X509_STORE* store = X509_STORE_new();
      SSL_CTX_set_cert_store(probe.native_handle(), store);
      probe.add_certificate_authority(boost::asio::buffer(m.ca_pem));
    }
  } catch (const boost::system::system_error& e) {
    return util::InvalidArgument(std::string("certificate authority: not a PEM certificate bundle: ") + e.what());
  }
  if (!m.cert_pem.empty()) {
    try {
      probe.use_certificate_chain(boost::asio::buffer(m.cert_pem));
    } catch (const boost::system::system_error& e) {
      return util::InvalidArgument(std::string("client certificate: not a PEM certificate: ") + e.what());
    }
    try {
      probe.use_private_key(boost::asio::buffer(m.key_pem), boost::asio::ssl::context::pem);
    } catch (const boost::system::system_error& e) {
      return util::InvalidArgument(std::string("client key: not a PEM key matching the certificate: ") + e.what());
    }
  }
  return m;
}

}  // namespace ksched::client
