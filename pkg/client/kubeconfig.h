// Loading a RestConfig from a kubeconfig file (clientcmd's format).
//
// Supported: the current context (or an explicit one); the cluster's server,
// certificate-authority / certificate-authority-data,
// insecure-skip-tls-verify and tls-server-name; the user's token / tokenFile,
// client-certificate(-data) + client-key(-data), username / password; the
// context's namespace. Relative file paths resolve against the kubeconfig's
// own directory. A user with both token and tokenFile uses token (the
// documented kubeconfig precedence).
//
// Not supported, and rejected with an error that names the user entry: exec
// credential plugins, auth-provider plugins and impersonation; a cluster
// proxy-url is rejected likewise. Only one file is read (no KUBECONFIG
// merging; see config_loader.h).
//
// Thread-safety: free functions without shared state.
#pragma once

#include <string>
#include <string_view>

#include "pkg/client/rest_config.h"
#include "pkg/util/status.h"

namespace ksched::client {

// Reads `path` and builds the RestConfig for `context` (empty: the file's
// current-context). Errors name the file and the entry at fault.
util::StatusOr<RestConfig> LoadKubeconfig(const std::string& path, const std::string& context = "");

// The same from kubeconfig text already read: `path` names the file in
// errors and its directory resolves relative paths (a tokenFile is still
// read from disk). Any text gives a RestConfig or an error, never a crash.
util::StatusOr<RestConfig> ParseKubeconfig(std::string_view text, const std::string& path,
                                           const std::string& context = "");

}  // namespace ksched::client
