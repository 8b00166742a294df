// Standard base64 (RFC 4648's alphabet with '+' and '/'), as Go's
// base64.StdEncoding writes it.
//
// Thread-safety: free functions without shared state.
#pragma once

#include <string>
#include <string_view>

#include "pkg/util/status.h"

namespace ksched::util {

// Padded with '='.
std::string EncodeBase64(std::string_view bytes);
// Whitespace is ignored and padding is optional (kubeconfig *-data fields
// are wrapped by some tools); anything else is kInvalidArgument.
StatusOr<std::string> DecodeBase64(std::string_view text);

}  // namespace ksched::util
