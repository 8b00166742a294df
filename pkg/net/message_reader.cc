#include "pkg/net/message_reader.h"

#include <algorithm>
#include <cstring>
#include <memory>

namespace ksched::net {

namespace {

using util::Status;
using util::StatusCode;
using util::StatusOr;

// Bytes asked of the stream per read.
constexpr size_t kReadSize = 16 * 1024;

}  // namespace

MessageReader::MessageReader(Stream& stream, HeadLimits limits)
    : stream_(stream), limits_(limits) {}

StatusOr<size_t> MessageReader::Fill(Deadline deadline) {
  // Drop consumed bytes before growing, so the buffer stays about as large
  // as one message head or one read.
  if (pos_ > 0 && (pos_ == size_ || pos_ >= kReadSize)) {
    std::memmove(buffer_.get(), buffer_.get() + pos_, size_ - pos_);
    size_ -= pos_;
    pos_ = 0;
  }
  if (capacity_ - size_ < kReadSize) {
    const size_t capacity = std::max(2 * capacity_, size_ + kReadSize);
    auto grown = std::make_unique_for_overwrite<char[]>(capacity);
    if (size_ > 0) std::memcpy(grown.get(), buffer_.get(), size_);
    buffer_ = std::move(grown);
    capacity_ = capacity;
  }
  StatusOr<size_t> n = stream_.ReadSome(buffer_.get() + size_, kReadSize, deadline);
  if (n.ok()) size_ += *n;
  return n;
}

void MessageReader::Consume(size_t n) {
  pos_ += n;
  if (pos_ == size_) size_ = pos_ = 0;
}

template <class Head, class Parse>
StatusOr<bool> MessageReader::ReadHead(Head* out, Deadline deadline, Parse parse) {
  head_too_large_ = false;
  while (true) {
    if (!Pending().empty()) {
      HeadParse p = parse(Pending(), limits_, out);
      switch (p.state) {
        case HeadParse::State::kComplete:
          Consume(p.consumed);
          return true;
        case HeadParse::State::kMalformed:
          return Status(StatusCode::kInvalidArgument, p.error);
        case HeadParse::State::kTooLarge:
          head_too_large_ = true;
          return Status(StatusCode::kInvalidArgument, p.error);
        case HeadParse::State::kIncomplete:
          break;
      }
    }
    bool started = !Pending().empty();
    StatusOr<size_t> n = Fill(deadline);
    if (!n.ok()) return n.status();
    if (*n == 0) {
      if (!started) return false;
      return Status(StatusCode::kUnavailable, "connection closed in the middle of a message head");
    }
  }
}

StatusOr<bool> MessageReader::ReadRequestHead(RequestHead* out, Deadline deadline) {
  return ReadHead(out, deadline, ParseRequestHead);
}

StatusOr<bool> MessageReader::ReadResponseHead(ResponseHead* out, Deadline deadline) {
  return ReadHead(out, deadline, ParseResponseHead);
}

void MessageReader::BeginBody(const BodyFraming& framing) {
  framing_ = framing;
  body_left_ = framing.length;
  chunked_ = ChunkedDecoder();
  body_too_large_ = false;
  body_done_ = framing.kind == BodyFraming::Kind::kNone ||
               (framing.kind == BodyFraming::Kind::kContentLength && framing.length == 0);
}

StatusOr<bool> MessageReader::ReadBodySome(std::string* out, Deadline deadline) {
  while (!body_done_) {
    if (!Pending().empty()) {
      switch (framing_.kind) {
        case BodyFraming::Kind::kContentLength: {
          size_t take = static_cast<size_t>(std::min<uint64_t>(body_left_, Pending().size()));
          out->append(Pending().substr(0, take));
          Consume(take);
          body_left_ -= take;
          body_done_ = body_left_ == 0;
          return true;
        }
        case BodyFraming::Kind::kChunked: {
          size_t before = out->size();
          StatusOr<size_t> used = chunked_.Feed(Pending(), out);
          if (!used.ok()) return used.status();
          Consume(*used);
          body_done_ = chunked_.done();
          if (out->size() > before) return true;
          if (body_done_) return false;
          break;  // only framing bytes so far: read more
        }
        case BodyFraming::Kind::kUntilClose:
          out->append(Pending());
          Consume(Pending().size());
          return true;
        case BodyFraming::Kind::kNone:
          body_done_ = true;
          return false;
      }
    }
    StatusOr<size_t> n = Fill(deadline);
    if (!n.ok()) return n.status();
    if (*n == 0) {
      if (framing_.kind == BodyFraming::Kind::kUntilClose) {
        body_done_ = true;
        return false;
      }
      return Status(StatusCode::kUnavailable, "connection closed before the end of the body");
    }
  }
  return false;
}

Status MessageReader::ReadBody(std::string* out, size_t limit, Deadline deadline) {
  if (framing_.kind == BodyFraming::Kind::kContentLength && body_left_ > limit - std::min(limit, out->size())) {
    body_too_large_ = true;
    return Status(StatusCode::kInvalidArgument,
                  "body exceeds " + std::to_string(limit) + " bytes");
  }
  while (true) {
    StatusOr<bool> more = ReadBodySome(out, deadline);
    if (!more.ok()) return more.status();
    if (!*more) return Status::Ok();
    if (out->size() > limit) {
      body_too_large_ = true;
      return Status(StatusCode::kInvalidArgument,
                    "body exceeds " + std::to_string(limit) + " bytes");
    }
  }
}

}  // namespace ksched::net
