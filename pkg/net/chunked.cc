#include "pkg/net/chunked.h"

#include <algorithm>

#include "pkg/util/ascii.h"

namespace ksched::net {

namespace {

using util::Status;
using util::StatusCode;

Status MalformedChunkedBody(std::string what) {
  return Status(StatusCode::kInvalidArgument, "malformed chunked body: " + std::move(what));
}

}  // namespace

void AppendChunk(std::string_view data, std::string* out) {
  if (data.empty()) return;
  static constexpr char kHex[] = "0123456789abcdef";
  char size[16];
  int n = 0;
  for (size_t v = data.size(); v != 0; v >>= 4) size[n++] = kHex[v & 0xf];
  out->reserve(out->size() + static_cast<size_t>(n) + data.size() + 4);
  while (n > 0) out->push_back(size[--n]);
  out->append("\r\n").append(data).append("\r\n");
}

Status ChunkedDecoder::EndSizeLine() {
  std::string_view line = line_;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  // chunk-size [ BWS ; extensions ]: the extensions are ignored.
  size_t end = line.find_first_of(";\t ");
  std::string_view digits = line.substr(0, end);
  if (digits.empty()) return MalformedChunkedBody("missing chunk size");
  // 15 hex digits keep the size below 2^60: no overflow, and no sane body
  // is larger.
  if (digits.size() > 15) return MalformedChunkedBody("chunk size too large");
  uint64_t size = 0;
  for (char c : digits) {
    int v = util::HexDigitValue(c);
    if (v < 0) return MalformedChunkedBody("invalid chunk size \"" + std::string(digits.substr(0, 32)) + "\"");
    size = size * 16 + static_cast<uint64_t>(v);
  }
  line_.clear();
  remaining_ = size;
  state_ = size == 0 ? State::kTrailer : State::kData;
  return Status::Ok();
}

util::StatusOr<size_t> ChunkedDecoder::Feed(std::string_view in, std::string* out) {
  size_t i = 0;
  while (i < in.size() && state_ != State::kDone) {
    switch (state_) {
      case State::kSizeLine: {
        size_t nl = in.find('\n', i);
        size_t take = (nl == std::string_view::npos ? in.size() : nl) - i;
        if (line_.size() + take > kMaxLineBytes) return MalformedChunkedBody("chunk size line too long");
        line_.append(in.substr(i, take));
        i += take;
        if (nl == std::string_view::npos) break;
        ++i;  // the '\n'
        Status st = EndSizeLine();
        if (!st.ok()) return st;
        break;
      }
      case State::kData: {
        size_t take = static_cast<size_t>(std::min<uint64_t>(remaining_, in.size() - i));
        out->append(in.substr(i, take));
        i += take;
        remaining_ -= take;
        if (remaining_ == 0) state_ = State::kDataCr;
        break;
      }
      case State::kDataCr:
        // The CRLF after chunk data; a bare LF is tolerated.
        if (in[i] == '\r') {
          state_ = State::kDataLf;
        } else if (in[i] == '\n') {
          state_ = State::kSizeLine;
        } else {
          return MalformedChunkedBody("chunk data not followed by CRLF");
        }
        ++i;
        break;
      case State::kDataLf:
        if (in[i] != '\n') return MalformedChunkedBody("chunk data not followed by CRLF");
        ++i;
        state_ = State::kSizeLine;
        break;
      case State::kTrailer: {
        size_t nl = in.find('\n', i);
        size_t take = (nl == std::string_view::npos ? in.size() : nl) - i;
        trailer_bytes_ += take;
        if (trailer_bytes_ > kMaxTrailerBytes) return MalformedChunkedBody("trailer fields too large");
        line_.append(in.substr(i, take));
        i += take;
        if (nl == std::string_view::npos) break;
        ++i;
        bool blank = line_.empty() || line_ == "\r";
        line_.clear();
        if (blank) state_ = State::kDone;
        break;
      }
      case State::kDone:
        break;
    }
  }
  return i;
}

}  // namespace ksched::net
