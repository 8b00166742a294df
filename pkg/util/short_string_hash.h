// ShortStringHash: a fast hash for the short strings a scheduling cycle
// looks up once per node (label values, node names).
//
// std::hash (murmur, byte-oriented) costs about 65 instructions for a
// 20-byte node name; this one reads eight bytes per step and costs about a
// quarter of that. Like std::hash it is unseeded and not built to resist
// chosen collisions. Both halves of the result are mixed, so a caller may
// take a table index from the low bits and a tag from the high ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace ksched::util {

inline uint64_t ShortStringHash(std::string_view s) {
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ULL;
  const char* p = s.data();
  size_t n = s.size();
  uint64_t h = (n + 1) * kMul;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * kMul;
    h ^= h >> 32;
  }
  if (n > 0) {
    uint64_t w;
    if (n >= 4) {  // two overlapping four-byte reads cover 4..7 bytes
      uint32_t lo;
      uint32_t hi;
      std::memcpy(&lo, p, 4);
      std::memcpy(&hi, p + n - 4, 4);
      w = (uint64_t{hi} << 32) | lo;
    } else {  // 1..3 bytes: the first, the middle and the last
      w = (uint64_t{static_cast<unsigned char>(p[0])} << 16) |
          (uint64_t{static_cast<unsigned char>(p[n / 2])} << 8) | static_cast<unsigned char>(p[n - 1]);
    }
    h = (h ^ w) * kMul;
  }
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ULL;
  h ^= h >> 32;
  return h;
}

}  // namespace ksched::util
