// Fuzz target for the kubeconfig loader (client::ParseKubeconfig).
//
// The input is a kubeconfig file's text, loaded for its current context and
// for a context named "fuzz". Properties: any text gives a RestConfig or an
// error, never a crash or an exception; a RestConfig has a server and passes
// ValidateRestConfig. The file sits in a directory that does not exist, so
// relative certificate and token paths resolve to nothing.
#include <string>
#include <string_view>

#include "pkg/client/kubeconfig.h"
#include "pkg/client/rest_config.h"
#include "test/fuzz/fuzz_target.h"

KSCHED_FUZZ_TARGET(kubeconfig) {
  for (const char* context : {"", "fuzz"}) {
    ksched::util::StatusOr<ksched::client::RestConfig> config =
        ksched::client::ParseKubeconfig(input, "/nonexistent/ksched-fuzz/kubeconfig", context);
    if (!config.ok()) {
      KSCHED_FUZZ_CHECK(!config.status().message().empty(), "an error without a message");
      continue;
    }
    KSCHED_FUZZ_CHECK(!config->host.empty(), "a RestConfig without a server");
    KSCHED_FUZZ_CHECK(ksched::client::ValidateRestConfig(*config).ok(), "a RestConfig that does not validate");
  }
}
