// TLS material for RestClient: the CA bundle and client certificate/key,
// read once into memory, and the code that installs them into the
// boost::asio::ssl::context cpprestsdk creates for each new connection.
//
// Server verification itself (verify_peer, hostname check against the URL
// host or tls_server_name, SNI) is done by cpprestsdk; see rest_client.cc.
//
// Thread-safety: TlsMaterial is an immutable value once loaded;
// ConfigureSslContext only touches the context it is given.
#pragma once

#include <string>

#include "pkg/client/rest_config.h"
#include "pkg/util/status.h"

namespace boost::asio::ssl {
class context;
}  // namespace boost::asio::ssl

namespace ksched::client {

struct TlsMaterial {
  std::string ca_pem;    // empty: the system roots
  std::string cert_pem;  // client certificate chain; empty: none
  std::string key_pem;
};

// Reads ca/cert/key data or files from `config` (data wins over file) and
// checks that they parse and that the key matches the certificate.
util::StatusOr<TlsMaterial> LoadTlsMaterial(const RestConfig& config);

// Installs `material` into `ctx`: when a CA is given it replaces the
// context's trust store (so only that CA is trusted); the client chain and key
// are loaded when present. Throws boost::system::system_error on bad PEM,
// which LoadTlsMaterial has already ruled out.
void ConfigureSslContext(boost::asio::ssl::context& ctx, const TlsMaterial& material);

}  // namespace ksched::client
