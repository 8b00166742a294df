// Small file helpers shared by the configuration loaders (kubeconfig,
// in-cluster service account, token files, TLS material).
//
// Thread-safety: free functions without shared state.
#pragma once

#include <string>

#include "pkg/util/status.h"

namespace ksched::client {

// Reads a whole file. A missing or unreadable file is kNotFound /
// kInvalidArgument with the path and the OS reason in the message.
util::StatusOr<std::string> ReadFileToString(const std::string& path);

// Resolves `path` against `base_dir` unless it is empty or absolute, the way
// kubeconfig paths are resolved against the kubeconfig's own directory.
std::string ResolvePath(const std::string& base_dir, const std::string& path);

}  // namespace ksched::client
