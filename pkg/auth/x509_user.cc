#include "pkg/auth/x509_user.h"

#include <string>

namespace ksched::auth {

namespace {

std::string EntryText(X509_NAME_ENTRY* entry) {
  unsigned char* utf8 = nullptr;
  int n = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(entry));
  if (n < 0) return "";
  std::string s(reinterpret_cast<char*>(utf8), static_cast<size_t>(n));
  OPENSSL_free(utf8);
  return s;
}

}  // namespace

std::optional<UserInfo> UserFromCertificate(X509* cert) {
  if (cert == nullptr) return std::nullopt;
  X509_NAME* subject = X509_get_subject_name(cert);
  UserInfo user;
  for (int i = 0; i < X509_NAME_entry_count(subject); ++i) {
    X509_NAME_ENTRY* e = X509_NAME_get_entry(subject, i);
    int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(e));
    if (nid == NID_commonName) user.name = EntryText(e);
    if (nid == NID_organizationName) user.groups.push_back(EntryText(e));
  }
  if (user.name.empty()) return std::nullopt;
  return user;
}

}  // namespace ksched::auth
