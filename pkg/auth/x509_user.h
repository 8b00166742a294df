// The user a verified client certificate names, as kube's x509
// authenticator reads it: the subject's CommonName is the user name, each
// Organization a group.
//
// Thread-safety: a pure function.
#pragma once

#include <openssl/x509.h>

#include <optional>

#include "pkg/auth/reviewers.h"

namespace ksched::auth {

// nullopt when the subject has no (or an empty) CommonName.
std::optional<UserInfo> UserFromCertificate(X509* cert);

}  // namespace ksched::auth
