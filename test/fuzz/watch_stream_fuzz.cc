// Fuzz target for client::WatchStreamDecoder: any split of a watch stream
// decodes to the same events.
//
// Input: one byte choosing the line limit (small limits reach the
// over-long-line path) and the raw mode, one byte seeding the split, then
// the stream. The stream is decoded three ways: fed whole, fed in random
// pieces, fed byte by byte; each then finished. Every way must yield the
// same sequence of events (type and object) and errors (status code; the
// message's excerpt may show a different piece of an over-long line).
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "pkg/client/watch_decoder.h"
#include "test/fuzz/fuzz_target.h"
#include "test/fuzz/split.h"

namespace {

using ksched::client::WatchEvent;
using ksched::client::WatchStreamDecoder;

std::vector<std::string> Decode(const std::vector<std::string_view>& pieces, size_t limit, bool raw) {
  std::vector<std::string> seen;
  const ksched::client::WatchEventSink sink = [&seen](ksched::util::StatusOr<WatchEvent> e) {
    if (!e.ok()) {
      seen.push_back("error " + std::to_string(static_cast<int>(e.status().code())));
      return;
    }
    seen.push_back(e->type + " " + (e->object_text.empty() ? e->object.dump() : e->object_text));
  };
  WatchStreamDecoder decoder(limit, raw);
  for (std::string_view piece : pieces) decoder.Feed(piece, sink);
  decoder.Finish(sink);
  KSCHED_FUZZ_CHECK(decoder.buffered_bytes() == 0, "Finish left bytes buffered");
  return seen;
}

}  // namespace

KSCHED_FUZZ_TARGET(watch_stream) {
  const uint8_t mode = ksched::fuzz::TakeByte(&input);
  const uint8_t seed = ksched::fuzz::TakeByte(&input);
  const bool raw = (mode & 1) != 0;
  // Limits from 1 to 64 bytes, or the default 64 MiB.
  const size_t limit = (mode & 0x80) != 0 ? 1 + ((mode >> 1) & 0x3f) : size_t{64} << 20;

  const std::vector<std::string> whole = Decode({input}, limit, raw);
  const std::vector<std::string> pieces = Decode(ksched::fuzz::Split(input, seed, 32), limit, raw);
  KSCHED_FUZZ_CHECK(pieces == whole, "random pieces decode differently from the whole stream");
  const std::vector<std::string> bytes = Decode(ksched::fuzz::Split(input, 0, 1), limit, raw);
  KSCHED_FUZZ_CHECK(bytes == whole, "single bytes decode differently from the whole stream");
}
