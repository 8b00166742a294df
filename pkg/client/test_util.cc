#include "pkg/client/test_util.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ksched::client::testing {

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "ksched-client-XXXXXX").string();
  char* made = mkdtemp(pattern.data());
  EXPECT_NE(made, nullptr) << "mkdtemp failed";
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string TempDir::Write(const std::string& name, const std::string& content) const {
  std::filesystem::path p = std::filesystem::path(path_) / name;
  std::filesystem::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << content;
  EXPECT_TRUE(out.good()) << "writing " << p;
  return p.string();
}

Environment FakeEnvironment(std::map<std::string, std::string> vars, std::string service_account_dir) {
  Environment env;
  env.getenv = [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
  if (!service_account_dir.empty()) env.service_account_dir = std::move(service_account_dir);
  return env;
}

std::string ReadFileOrDie(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "reading " << path;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

namespace {

void Run(const std::string& cmd) {
  int rc = std::system((cmd + " >/dev/null 2>&1").c_str());
  ASSERT_EQ(rc, 0) << "command failed: " << cmd;
}

// EC P-256 keys: generated in milliseconds, unlike RSA.
void MakeCa(const std::string& dir, const std::string& name) {
  Run("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=" + name +
      " -keyout " + dir + "/" + name + ".key -out " + dir + "/" + name + ".crt");
}

void MakeLeaf(const std::string& dir, const std::string& name, const std::string& ca, const std::string& cn,
              const std::string& ext) {
  std::string base = dir + "/" + name;
  Run("openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=" + cn + " -keyout " + base +
      ".key -out " + base + ".csr");
  std::ofstream(base + ".ext") << ext << "\n";
  Run("openssl x509 -req -in " + base + ".csr -CA " + dir + "/" + ca + ".crt -CAkey " + dir + "/" + ca +
      ".key -CAcreateserial -days 2 -extfile " + base + ".ext -out " + base + ".crt");
}

}  // namespace

TestPki MakeTestPki(const std::string& dir, const std::string& server_names) {
  TestPki pki;
  pki.dir = dir;
  std::filesystem::create_directories(dir);
  MakeCa(dir, "ca");
  MakeCa(dir, "other-ca");
  MakeLeaf(dir, "server", "ca", "kube-apiserver",
           "subjectAltName=" + server_names + "\nextendedKeyUsage=serverAuth");
  MakeLeaf(dir, "client", "ca", "ksched", "extendedKeyUsage=clientAuth");
  pki.ca_cert = dir + "/ca.crt";
  pki.ca_key = dir + "/ca.key";
  pki.server_cert = dir + "/server.crt";
  pki.server_key = dir + "/server.key";
  pki.client_cert = dir + "/client.crt";
  pki.client_key = dir + "/client.key";
  pki.other_ca_cert = dir + "/other-ca.crt";
  return pki;
}

}  // namespace ksched::client::testing
