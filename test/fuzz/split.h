// Splitting fuzz input into pieces, for the split-invariance properties of
// the incremental decoders: the pieces' sizes come from a seed taken from
// the input, so libFuzzer explores splits along with contents.
//
// Thread-safety: value types.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace ksched::fuzz {

// Takes the first byte of *input (0 when empty) and removes it.
inline uint8_t TakeByte(std::string_view* input) {
  if (input->empty()) return 0;
  const auto b = static_cast<uint8_t>(input->front());
  input->remove_prefix(1);
  return b;
}

// Cuts `data` into pieces of 1 to `max_piece` bytes (max_piece >= 1), sizes
// drawn from a small linear congruential generator seeded with `seed`. The
// pieces concatenate to `data`.
inline std::vector<std::string_view> Split(std::string_view data, uint32_t seed, size_t max_piece) {
  std::vector<std::string_view> pieces;
  uint32_t state = seed * 2654435761u + 1;
  while (!data.empty()) {
    state = state * 1664525u + 1013904223u;
    const size_t n = std::min(data.size(), 1 + (state >> 8) % max_piece);
    pieces.push_back(data.substr(0, n));
    data.remove_prefix(n);
  }
  return pieces;
}

}  // namespace ksched::fuzz
