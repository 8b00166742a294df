#include "pkg/config/load.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "pkg/config/decode.h"
#include "pkg/config/defaults.h"
#include "pkg/config/validate.h"

namespace ksched::config {

namespace {

// File order reads best; errors without a position go last, in their order.
void SortByPosition(ErrorList* errors) {
  auto key = [](const FieldError& e) {
    return e.pos.known() ? std::pair<int, int>(e.pos.line, e.pos.column)
                         : std::pair<int, int>(std::numeric_limits<int>::max(), 0);
  };
  std::stable_sort(errors->begin(), errors->end(),
                   [&](const FieldError& a, const FieldError& b) { return key(a) < key(b); });
}

}  // namespace

LoadResult LoadConfig(std::string_view text, std::string_view source_name, const KnownPlugins& known) {
  LoadResult result;
  DecodeResult decoded = DecodeConfig(text, source_name, known);
  if (!decoded.ok()) {
    result.errors = std::move(decoded.errors);
    return result;
  }
  SetDefaults(&decoded.config, known);
  result.errors = Validate(decoded.config, known, &decoded.source, &result.warnings);
  SortByPosition(&result.errors);
  SortByPosition(&result.warnings);
  if (result.errors.empty()) result.config = std::move(decoded.config);
  return result;
}

util::StatusOr<KubeSchedulerConfiguration> LoadConfigFile(const std::string& path, const KnownPlugins& known) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return util::NotFound("cannot read scheduler configuration " + path + ": " + std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  LoadResult result = LoadConfig(text.str(), path, known);
  for (const FieldError& w : result.warnings) spdlog::warn("scheduler configuration: {}", w.ToString());
  if (!result.errors.empty()) return util::InvalidArgument(JoinErrors(result.errors));
  return std::move(*result.config);
}

}  // namespace ksched::config
