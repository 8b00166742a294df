// Fuzz target for the KubeSchedulerConfiguration decoder (pkg/config).
//
// The input is a configuration file (or a ConfigMap's stream of documents).
// Properties: decoding, defaulting and validating any text ends in a
// configuration or a list of errors (never a crash or an exception), every
// error renders; and a configuration that loads writes out (YAML and JSON,
// encode.h) to text that decodes back to the same configuration.
#include <string>
#include <string_view>
#include <vector>

#include "pkg/config/decode.h"
#include "pkg/config/encode.h"
#include "pkg/config/load.h"
#include "pkg/scheduler/plugins/registry.h"
#include "test/fuzz/fuzz_target.h"

namespace {

using ksched::config::DecodeResult;

void CheckRoundTrip(const ksched::config::KubeSchedulerConfiguration& c, const std::string& text,
                    const char* what) {
  const DecodeResult again = ksched::config::DecodeConfig(text, "encoded", ksched::scheduler::plugins::InTreePlugins());
  KSCHED_FUZZ_CHECK(again.ok(), what);
  KSCHED_FUZZ_CHECK(ksched::config::ToJson(again.config) == ksched::config::ToJson(c), what);
}

}  // namespace

KSCHED_FUZZ_TARGET(scheduler_config) {
  const ksched::config::KnownPlugins& known = ksched::scheduler::plugins::InTreePlugins();
  for (const DecodeResult& doc : ksched::config::DecodeConfigDocuments(input, "fuzz.yaml", known)) {
    for (const auto& e : doc.errors) (void)e.ToString();
  }
  const ksched::config::LoadResult loaded =
      ksched::config::LoadConfig(input, "fuzz.yaml", known);
  KSCHED_FUZZ_CHECK(loaded.config.has_value() == loaded.errors.empty(),
                    "a load has both a configuration and errors, or neither");
  (void)ksched::config::JoinErrors(loaded.errors);
  (void)ksched::config::JoinErrors(loaded.warnings);
  if (!loaded.config) return;
  CheckRoundTrip(*loaded.config, ksched::config::EncodeYaml(*loaded.config),
                 "a loaded configuration's YAML does not decode to it");
  CheckRoundTrip(*loaded.config, ksched::config::EncodeJson(*loaded.config),
                 "a loaded configuration's JSON does not decode to it");
}
