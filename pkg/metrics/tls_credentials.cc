#include "pkg/metrics/tls_credentials.h"

#include <arpa/inet.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <ctime>
#include <fstream>
#include <sstream>

namespace ksched::metrics {

namespace {

template <class T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;
using BnPtr = std::unique_ptr<BIGNUM, Deleter<BIGNUM, BN_free>>;
using NamesPtr = std::unique_ptr<GENERAL_NAMES, Deleter<GENERAL_NAMES, GENERAL_NAMES_free>>;
using ExtPtr = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION, X509_EXTENSION_free>>;

std::shared_ptr<X509> OwnX509(X509* x) { return std::shared_ptr<X509>(x, X509_free); }
std::shared_ptr<EVP_PKEY> OwnKey(EVP_PKEY* k) { return std::shared_ptr<EVP_PKEY>(k, EVP_PKEY_free); }

util::Status Fail(const std::string& what) { return util::Internal(what + ": " + OpenSslErrors()); }

// Adds an extension given in OpenSSL's config syntax ("critical,CA:FALSE").
bool AddExtension(X509* cert, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  ExtPtr ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value));
  return ext != nullptr && X509_add_ext(cert, ext.get(), -1) == 1;
}

// Built from GENERAL_NAME objects rather than a config string so that a
// hostname cannot inject extra entries.
util::Status AddSubjectAltNames(X509* cert, const SelfSignedOptions& options) {
  NamesPtr names(sk_GENERAL_NAME_new_null());
  if (!names) return Fail("allocate subjectAltName");
  for (const auto& dns : options.dns_names) {
    ASN1_IA5STRING* ia5 = ASN1_IA5STRING_new();
    GENERAL_NAME* gen = GENERAL_NAME_new();
    if (ia5 == nullptr || gen == nullptr ||
        ASN1_STRING_set(ia5, dns.data(), static_cast<int>(dns.size())) != 1) {
      ASN1_IA5STRING_free(ia5);
      GENERAL_NAME_free(gen);
      return Fail("subjectAltName DNS:" + dns);
    }
    GENERAL_NAME_set0_value(gen, GEN_DNS, ia5);
    sk_GENERAL_NAME_push(names.get(), gen);
  }
  for (const auto& ip : options.ip_addresses) {
    ASN1_OCTET_STRING* octets = a2i_IPADDRESS(ip.c_str());
    if (octets == nullptr) {
      ERR_clear_error();
      return util::InvalidArgument("subjectAltName: \"" + ip + "\" is not an IP address");
    }
    GENERAL_NAME* gen = GENERAL_NAME_new();
    if (gen == nullptr) {
      ASN1_OCTET_STRING_free(octets);
      return Fail("subjectAltName IP:" + ip);
    }
    GENERAL_NAME_set0_value(gen, GEN_IPADD, octets);
    sk_GENERAL_NAME_push(names.get(), gen);
  }
  if (X509_add1_ext_i2d(cert, NID_subject_alt_name, names.get(), 0, X509V3_ADD_DEFAULT) != 1) {
    return Fail("add subjectAltName");
  }
  return util::Status::Ok();
}

}  // namespace

std::string OpenSslErrors() {
  std::string out;
  unsigned long code;
  while ((code = ERR_get_error()) != 0) {
    char buf[256];
    ERR_error_string_n(code, buf, sizeof(buf));
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? "unknown OpenSSL error" : out;
}

std::string TlsCredentials::CertificatePem() const {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || !certificate || PEM_write_bio_X509(bio.get(), certificate.get()) != 1) return "";
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

std::string TlsCredentials::PrivateKeyPem() const {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || !private_key ||
      PEM_write_bio_PrivateKey(bio.get(), private_key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return "";
  }
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

util::StatusOr<TlsCredentials> GenerateSelfSigned(const SelfSignedOptions& options) {
  TlsCredentials creds;
  // P-256: as strong as RSA 3072 and far quicker to generate at start-up.
  creds.private_key = OwnKey(EVP_EC_gen("P-256"));
  if (!creds.private_key) return Fail("generate P-256 key");
  creds.certificate = OwnX509(X509_new());
  X509* cert = creds.certificate.get();
  if (cert == nullptr) return Fail("allocate certificate");

  if (X509_set_version(cert, 2) != 1) return Fail("set certificate version");  // v3
  BnPtr serial(BN_new());
  if (!serial || BN_rand(serial.get(), 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1 ||
      BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert)) == nullptr) {
    return Fail("set certificate serial");
  }
  const std::time_t not_before = std::chrono::system_clock::to_time_t(options.not_before);
  const std::time_t not_after = not_before + static_cast<std::time_t>(options.validity.count());
  if (ASN1_TIME_set(X509_getm_notBefore(cert), not_before) == nullptr ||
      ASN1_TIME_set(X509_getm_notAfter(cert), not_after) == nullptr) {
    return Fail("set certificate validity");
  }
  X509_NAME* name = X509_get_subject_name(cert);
  if (X509_NAME_add_entry_by_txt(
          name, "CN", MBSTRING_UTF8,
          reinterpret_cast<const unsigned char*>(options.common_name.c_str()), -1, -1, 0) != 1 ||
      X509_set_issuer_name(cert, name) != 1) {
    return Fail("set certificate subject");
  }
  if (X509_set_pubkey(cert, creds.private_key.get()) != 1) return Fail("set certificate key");
  if (!AddExtension(cert, NID_basic_constraints, "critical,CA:FALSE") ||
      !AddExtension(cert, NID_key_usage, "critical,digitalSignature,keyEncipherment") ||
      !AddExtension(cert, NID_ext_key_usage, "serverAuth") ||
      !AddExtension(cert, NID_subject_key_identifier, "hash")) {
    return Fail("add certificate extensions");
  }
  if (auto st = AddSubjectAltNames(cert, options); !st.ok()) return st;
  if (X509_sign(cert, creds.private_key.get(), EVP_sha256()) == 0) return Fail("sign certificate");
  return creds;
}

util::StatusOr<TlsCredentials> ParseTlsCredentials(const std::string& cert_pem, const std::string& key_pem,
                                                   const std::string& cert_what, const std::string& key_what) {
  TlsCredentials creds;
  BioPtr cert_bio(BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size())));
  if (!cert_bio) return util::Internal(cert_what + ": " + OpenSslErrors());
  creds.certificate = OwnX509(PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr));
  if (!creds.certificate) {
    return util::InvalidArgument(cert_what + ": no PEM certificate: " + OpenSslErrors());
  }
  while (X509* extra = PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr)) {
    creds.chain.push_back(OwnX509(extra));
  }
  ERR_clear_error();  // the loop ends on "no start line", which is not an error

  BioPtr key_bio(BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size())));
  if (!key_bio) return util::Internal(key_what + ": " + OpenSslErrors());
  creds.private_key = OwnKey(PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr));
  if (!creds.private_key) {
    return util::InvalidArgument(key_what + ": no PEM private key: " + OpenSslErrors());
  }
  if (X509_check_private_key(creds.certificate.get(), creds.private_key.get()) != 1) {
    ERR_clear_error();
    return util::InvalidArgument(key_what + " does not match the certificate in " + cert_what);
  }
  return creds;
}

util::StatusOr<std::string> ReadWholeFile(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return util::InvalidArgument(what + ": cannot read the file");
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) return util::InvalidArgument(what + ": cannot read the file");
  return text.str();
}

util::StatusOr<TlsCredentials> LoadTlsCredentials(const std::string& cert_file,
                                                  const std::string& key_file) {
  util::StatusOr<std::string> cert = ReadWholeFile(cert_file, "--tls-cert-file " + cert_file);
  if (!cert.ok()) return cert.status();
  util::StatusOr<std::string> key = ReadWholeFile(key_file, "--tls-private-key-file " + key_file);
  if (!key.ok()) return key.status();
  return ParseTlsCredentials(*cert, *key, "--tls-cert-file " + cert_file, "--tls-private-key-file " + key_file);
}

util::Status ConfigureServerContext(SSL_CTX* ctx, const TlsCredentials& creds, int min_version,
                                    const std::string& tls12_cipher_list, const std::string& groups_list) {
  if (SSL_CTX_set_min_proto_version(ctx, min_version) != 1) return Fail("set TLS minimum");
  if (!tls12_cipher_list.empty() && SSL_CTX_set_cipher_list(ctx, tls12_cipher_list.c_str()) != 1) {
    return Fail("set cipher suites \"" + tls12_cipher_list + "\"");
  }
  if (!groups_list.empty() && SSL_CTX_set1_groups_list(ctx, groups_list.c_str()) != 1) {
    return Fail("set key exchange groups \"" + groups_list + "\"");
  }
  if (SSL_CTX_use_certificate(ctx, creds.certificate.get()) != 1) return Fail("use certificate");
  for (const auto& c : creds.chain) {
    if (SSL_CTX_add1_chain_cert(ctx, c.get()) != 1) return Fail("add chain certificate");
  }
  if (SSL_CTX_use_PrivateKey(ctx, creds.private_key.get()) != 1 ||
      SSL_CTX_check_private_key(ctx) != 1) {
    return Fail("use private key");
  }
  return util::Status::Ok();
}

std::vector<std::string> SubjectAltNames(X509* cert) {
  std::vector<std::string> out;
  NamesPtr names(static_cast<GENERAL_NAMES*>(
      X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr)));
  if (!names) return out;
  for (int i = 0; i < sk_GENERAL_NAME_num(names.get()); ++i) {
    const GENERAL_NAME* gen = sk_GENERAL_NAME_value(names.get(), i);
    if (gen->type == GEN_DNS) {
      const ASN1_IA5STRING* s = gen->d.dNSName;
      out.push_back("DNS:" + std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                                         static_cast<std::size_t>(ASN1_STRING_length(s))));
    } else if (gen->type == GEN_IPADD) {
      const ASN1_OCTET_STRING* ip = gen->d.iPAddress;
      char buf[INET6_ADDRSTRLEN] = {};
      int len = ASN1_STRING_length(ip);
      int family = len == 4 ? AF_INET : len == 16 ? AF_INET6 : 0;
      if (family != 0 && inet_ntop(family, ASN1_STRING_get0_data(ip), buf, sizeof(buf)) != nullptr) {
        out.push_back(std::string("IP:") + buf);
      }
    }
  }
  return out;
}

}  // namespace ksched::metrics
