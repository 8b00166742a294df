#include "pkg/config/utf8_check.h"

#include <set>
#include <utility>
#include <vector>

namespace ksched::config {

bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t n = 0;
    unsigned char lo = 0x80, hi = 0xbf;  // range of the second byte
    if (c >= 0xc2 && c <= 0xdf) {
      n = 1;
    } else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      if (c == 0xe0) lo = 0xa0;  // overlong
      if (c == 0xed) hi = 0x9f;  // surrogates
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      if (c == 0xf0) lo = 0x90;  // overlong
      if (c == 0xf4) hi = 0x8f;  // above U+10FFFF
    } else {
      return false;
    }
    if (s.size() - i <= n) return false;
    const auto second = static_cast<unsigned char>(s[i + 1]);
    if (second < lo || second > hi) return false;
    for (size_t k = 2; k <= n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if (b < 0x80 || b > 0xbf) return false;
    }
    i += n + 1;
  }
  return true;
}

std::optional<YAML::Mark> FindInvalidUtf8(const YAML::Node& root) {
  // Explicit stack: yaml-cpp bounds nesting, but not to a depth that is
  // cheap to recurse through under the sanitizers.
  std::vector<YAML::Node> stack = {root};
  std::set<std::pair<int, int>> visited;  // collections, by start position
  while (!stack.empty()) {
    const YAML::Node node = stack.back();
    stack.pop_back();
    if (!node.IsDefined()) continue;
    if (node.IsScalar()) {
      if (!IsValidUtf8(node.Scalar())) return node.Mark();
      continue;
    }
    if (!node.IsSequence() && !node.IsMap()) continue;
    const YAML::Mark mark = node.Mark();
    if (!visited.insert({mark.pos, node.IsMap() ? 1 : 0}).second) continue;
    // Pushed in reverse so that the first offender in the text is found.
    std::vector<YAML::Node> children;
    if (node.IsSequence()) {
      for (const YAML::Node& item : node) children.push_back(item);
    } else {
      for (const auto& kv : node) {
        children.push_back(kv.first);
        children.push_back(kv.second);
      }
    }
    for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
  }
  return std::nullopt;
}

}  // namespace ksched::config
