// Properties shared by the request-head and response-head fuzz targets.
//
// MessageReader parses the buffer again after every read, so a head arrives
// as a growing prefix of the bytes on the wire. A verdict other than
// "incomplete" on a prefix must therefore be final: the whole buffer gets
// the same verdict (and, when complete, the same head, ending at the same
// byte); and a complete head of n bytes is incomplete on every shorter
// prefix.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pkg/net/http_message.h"
#include "test/fuzz/fuzz_target.h"
#include "test/fuzz/split.h"

namespace ksched::fuzz {

// Limits from one input byte: small ones reach the too-large paths.
inline net::HeadLimits LimitsFromByte(uint8_t b) {
  net::HeadLimits limits;
  if ((b & 0x80) == 0) return limits;
  limits.max_head_bytes = 16 + (b & 0x3f) * 8;
  limits.max_headers = (b >> 6) & 1 ? 2 : 8;
  return limits;
}

inline bool SameHeaders(const net::Headers& a, const net::Headers& b) { return a.entries() == b.entries(); }

// `parse(buffer, limits, &head)` is ParseRequestHead or ParseResponseHead;
// `same(a, b)` compares two heads. `whole` is the parse of all of `input`.
template <class Head, class Parse, class Same>
void CheckPrefixes(std::string_view input, const net::HeadLimits& limits, const net::HeadParse& whole,
                   const Head& whole_head, uint8_t seed, Parse parse, Same same) {
  using State = net::HeadParse::State;
  // Every prefix ending at a line end, and a few cut anywhere.
  size_t checked = 0;
  for (size_t end = 0; end <= input.size() && checked < 64; ++end) {
    const bool line_end = end > 0 && input[end - 1] == '\n';
    const bool drawn = (((end * 2654435761u) >> 4) & 0xff) == seed;
    const bool near_end = end + 1 == whole.consumed || end == whole.consumed;
    if (!line_end && !drawn && !near_end) continue;
    ++checked;
    Head head;
    const net::HeadParse p = parse(input.substr(0, end), limits, &head);
    if (whole.state == State::kComplete) {
      if (end < whole.consumed) {
        KSCHED_FUZZ_CHECK(p.state == State::kIncomplete, "a prefix of a complete head is not incomplete");
      } else {
        KSCHED_FUZZ_CHECK(p.state == State::kComplete && p.consumed == whole.consumed && same(head, whole_head),
                          "a prefix holding the whole head does not parse to it");
      }
      continue;
    }
    if (p.state == State::kIncomplete) continue;
    KSCHED_FUZZ_CHECK(p.state == whole.state, "a prefix's verdict changes when more bytes arrive");
  }
}

}  // namespace ksched::fuzz
