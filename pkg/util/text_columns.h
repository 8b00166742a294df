// TextColumns: rows of cells as left-aligned columns two spaces apart,
// kubectl's table style, each line indented and without trailing spaces.
// Used by `ksched simulate`'s text report and kubectl-ksched.
//
// Thread-safety: a pure function. Complexity: O(total cell length).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

namespace ksched::util {

inline std::string TextColumns(const std::vector<std::vector<std::string>>& rows, const std::string& indent = "") {
  std::vector<size_t> width;
  for (const auto& r : rows) {
    if (width.size() < r.size()) width.resize(r.size(), 0);
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  }
  std::string out;
  for (const auto& r : rows) {
    std::string line = indent;
    for (size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size()) line += std::string(width[i] - r[i].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace ksched::util
