// Fuzz target for net::ChunkedDecoder: any split of the input decodes the
// same way, and what the encoder writes decodes back.
//
// Input: one byte seeding the split, then bytes on the wire. Fed whole, fed
// in random pieces and fed byte by byte (each piece's unconsumed rest is
// fed again, as MessageReader does), the decoder must agree on: error or
// not, the decoded body, whether the body ended, and how many bytes it
// consumed (the rest begins the next message). Then the input, cut into
// pieces, is encoded with AppendChunk + kLastChunk and must decode to
// itself, consuming exactly the encoding.
#include <string>
#include <string_view>
#include <vector>

#include "pkg/net/chunked.h"
#include "test/fuzz/fuzz_target.h"
#include "test/fuzz/split.h"

namespace {

struct Outcome {
  bool ok = true;
  bool done = false;
  size_t consumed = 0;
  std::string body;
};

Outcome Decode(const std::vector<std::string_view>& pieces) {
  ksched::net::ChunkedDecoder decoder;
  Outcome out;
  for (std::string_view piece : pieces) {
    ksched::util::StatusOr<size_t> n = decoder.Feed(piece, &out.body);
    if (!n.ok()) {
      out.ok = false;
      return out;
    }
    KSCHED_FUZZ_CHECK(*n <= piece.size(), "consumed more than it was given");
    out.consumed += *n;
    if (decoder.done()) {
      out.done = true;
      return out;
    }
    KSCHED_FUZZ_CHECK(*n == piece.size(), "left bytes unconsumed before the body ended");
  }
  return out;
}

void CheckSame(const Outcome& a, const Outcome& b, const char* what) {
  KSCHED_FUZZ_CHECK(a.ok == b.ok, what);
  if (!a.ok) return;
  KSCHED_FUZZ_CHECK(a.done == b.done && a.consumed == b.consumed && a.body == b.body, what);
}

}  // namespace

KSCHED_FUZZ_TARGET(chunked) {
  const uint8_t seed = ksched::fuzz::TakeByte(&input);
  const Outcome whole = Decode({input});
  CheckSame(Decode(ksched::fuzz::Split(input, seed, 16)), whole,
            "random pieces decode differently from the whole input");
  CheckSame(Decode(ksched::fuzz::Split(input, 0, 1)), whole,
            "single bytes decode differently from the whole input");

  std::string encoded;
  for (std::string_view piece : ksched::fuzz::Split(input, seed, 64)) ksched::net::AppendChunk(piece, &encoded);
  encoded.append(ksched::net::kLastChunk);
  const Outcome round = Decode({encoded});
  KSCHED_FUZZ_CHECK(round.ok && round.done && round.consumed == encoded.size() && round.body == input,
                    "an encoded body does not decode to itself");
}
