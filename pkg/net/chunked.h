// The chunked transfer coding (RFC 9112 section 7.1): an encoder for
// streaming responses (watch streams) and an incremental decoder that can be
// fed whatever a read returned, byte by byte if need be.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "pkg/util/status.h"

namespace ksched::net {

// Appends `data` as one chunk ("<hex size>\r\n<data>\r\n") to `out`. Empty
// data appends nothing: an empty chunk would end the body.
void AppendChunk(std::string_view data, std::string* out);
// The last chunk with no trailer fields: ends a chunked body.
inline constexpr std::string_view kLastChunk = "0\r\n\r\n";

// Decodes one chunked body. Chunk extensions and trailer fields are read and
// ignored. Not thread-safe (one decoder per body being read).
class ChunkedDecoder {
 public:
  // Limits on the parts that are buffered: a chunk-size line (with its
  // extensions) and all trailer fields together.
  static constexpr size_t kMaxLineBytes = 4096;
  static constexpr size_t kMaxTrailerBytes = 16 * 1024;

  // Consumes bytes from the start of `in`, appending decoded body bytes to
  // `out`. Returns how many bytes of `in` were consumed: all of them until
  // the body ends; once done(), the bytes after the last chunk's trailer
  // are not consumed (they start the next message). Errors
  // (kInvalidArgument): a malformed chunk size or framing, an oversized line
  // or trailer. After an error the decoder must not be fed again.
  util::StatusOr<size_t> Feed(std::string_view in, std::string* out);

  // The last chunk and its trailer have been consumed.
  bool done() const { return state_ == State::kDone; }

 private:
  enum class State { kSizeLine, kData, kDataCr, kDataLf, kTrailer, kDone };

  util::Status EndSizeLine();

  State state_ = State::kSizeLine;
  std::string line_;        // partial chunk-size or trailer line
  uint64_t remaining_ = 0;  // data bytes left in the current chunk
  size_t trailer_bytes_ = 0;
};

}  // namespace ksched::net
