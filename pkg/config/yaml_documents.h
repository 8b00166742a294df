// YAML::LoadAll without yaml-cpp 0.7's endless loop.
//
// yaml-cpp 0.7.0 (Debian 12's) never returns from LoadAll, and allocates
// until memory runs out, on a stream whose next token cannot start a node
// (`"a",` or a stray `,`): its parser reports one more empty document each
// time without consuming anything (fixed upstream after 0.8.0).
// LoadDocuments first walks the stream's parse events and, where the parser
// stops making progress, throws YAML::ParserException at that position, as
// go-yaml rejects such a stream; otherwise it returns what LoadAll returns.
//
// Thread-safety: pure function. Cost: the text is parsed twice.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace ksched::config {

// Throws YAML::Exception (ParserException among others) on bad YAML.
std::vector<YAML::Node> LoadDocuments(const std::string& text);

}  // namespace ksched::config
