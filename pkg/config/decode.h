// Decoding a KubeSchedulerConfiguration from YAML or JSON text.
//
// Accepts apiVersion kubescheduler.config.k8s.io/v1 and (converting)
// kubescheduler.config.k8s.io/v1beta3; rejects any other version or kind with
// an error that says so. Decoding is strict, as kube-scheduler's is: an
// unknown or duplicate field, a value of the wrong type or an unparsable
// duration is an error, and so is text that is not UTF-8 (go-yaml's rule)
// or a stream yaml-cpp cannot get through (yaml_documents.h). Every error
// names the file, line, column and field path; decoding goes on after an
// error so that one run reports all of them.
//
// Plugin args are decoded by the codec the plugin registered in `known`
// (decode_pluginargs.h); an `apiVersion`/`kind` inside args must name the
// codec's args kind. Args of a plugin without a codec are kept as
// UntypedArgs for validation to judge.
//
// Nothing is defaulted or validated here (see defaults.h, validate.h).
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pkg/config/errors.h"
#include "pkg/config/known_plugins.h"
#include "pkg/config/types.h"

namespace ksched::config {

struct DecodeResult {
  KubeSchedulerConfiguration config;
  ConfigSource source;  // field path -> position, for locating later errors
  ErrorList errors;     // empty on success

  bool ok() const { return errors.empty(); }
};

// Decodes text holding exactly one document; `file_name` is used in errors.
// An empty stream, or one with several documents, is an error.
DecodeResult DecodeConfig(std::string_view text, std::string_view file_name, const KnownPlugins& known);

// Decodes every non-empty document of a "---" separated stream on its own
// (a YAML syntax error yields a single failed result).
std::vector<DecodeResult> DecodeConfigDocuments(std::string_view text, std::string_view file_name,
                                                const KnownPlugins& known);

}  // namespace ksched::config
