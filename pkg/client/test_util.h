// Test helpers for pkg/client: a temporary directory removed on destruction,
// file writing, a fake environment, and self-signed certificates made by the
// openssl command-line tool.
//
// Thread-safety: none needed; tests use these from one thread.
#pragma once

#include <map>
#include <string>

#include "pkg/client/rest_config.h"

namespace ksched::client::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // Writes `content` to path()/name (creating parent directories) and
  // returns the full path.
  std::string Write(const std::string& name, const std::string& content) const;

 private:
  std::string path_;
};

// An Environment backed by a map, with the service-account directory given.
Environment FakeEnvironment(std::map<std::string, std::string> vars, std::string service_account_dir = "");

// PEM files made by `openssl`: a CA, a server certificate signed by it for
// the given DNS/IP names, and a client certificate signed by it.
struct TestPki {
  std::string dir;
  std::string ca_cert, ca_key;          // paths
  std::string server_cert, server_key;  // paths
  std::string client_cert, client_key;  // paths
  std::string other_ca_cert;            // a CA that signed nothing here
};

// Creates the PKI in `dir`; `server_names` is an openssl subjectAltName list
// such as "IP:127.0.0.1,DNS:localhost". Fails the calling test on error.
TestPki MakeTestPki(const std::string& dir, const std::string& server_names);

std::string ReadFileOrDie(const std::string& path);

}  // namespace ksched::client::testing
