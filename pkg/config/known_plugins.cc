#include "pkg/config/known_plugins.h"

#include <algorithm>
#include <cctype>

namespace ksched::config {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

const ArgsCodec* KnownPlugins::Codec(std::string_view name) const {
  auto it = plugins_.find(name);
  return it == plugins_.end() ? nullptr : it->second;
}

std::vector<std::string> KnownPlugins::Names() const {
  std::vector<std::string> out;
  out.reserve(plugins_.size());
  for (const auto& [name, codec] : plugins_) out.push_back(name);
  return out;
}

bool IsRemovedPlugin(std::string_view name) {
  return name == "AzureDiskLimits" || name == "CinderLimits" || name == "EBSLimits" || name == "GCEPDLimits";
}

std::string ClosestName(std::string_view name, const std::vector<std::string>& candidates) {
  std::string lower = Lower(name);
  std::string best;
  size_t best_distance = 3;  // accept at most two edits
  for (const std::string& c : candidates) {
    if (Lower(c) == lower) return c;
    // Short names are too easily "close" to each other to be useful hints.
    if (c.size() < 4 || name.size() < 4) continue;
    size_t d = EditDistance(lower, Lower(c));
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

}  // namespace ksched::config
