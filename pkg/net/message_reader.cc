#include "pkg/net/message_reader.h"

#include <algorithm>
#include <cstring>
#include <memory>

namespace ksched::net {

namespace {

using util::Status;
using util::StatusCode;
using util::StatusOr;

// Bytes asked of the stream per read: the first read asks for kFirstRead,
// and a read that fills what it was offered doubles the next, up to
// kMaxRead. A connection that carries small messages (a binding's
// response, an idle watch) keeps a 4 KiB buffer; one carrying a list or a
// busy watch reaches 16 KiB after two reads. At 50 connections that is
// about 1 MB less than a 16 KiB buffer each, doubled by a partial message.
constexpr size_t kFirstRead = 4 * 1024;
constexpr size_t kMaxRead = 16 * 1024;

}  // namespace

MessageReader::MessageReader(Stream& stream, HeadLimits limits)
    : stream_(stream), limits_(limits), read_size_(kFirstRead) {}

StatusOr<size_t> MessageReader::Fill(Deadline deadline) {
  // The bytes not consumed are at most a message head or a chunk's framing
  // (bodies are copied out): move them to the front rather than grow.
  if (pos_ > 0) {
    std::memmove(buffer_.get(), buffer_.get() + pos_, size_ - pos_);
    size_ -= pos_;
    pos_ = 0;
  }
  if (capacity_ - size_ < read_size_ / 2) {
    const size_t capacity = std::max(2 * capacity_, size_ + read_size_);
    auto grown = std::make_unique_for_overwrite<char[]>(capacity);
    if (size_ > 0) std::memcpy(grown.get(), buffer_.get(), size_);
    buffer_ = std::move(grown);
    capacity_ = capacity;
  }
  const size_t offered = std::min(capacity_ - size_, kMaxRead);
  StatusOr<size_t> n = stream_.ReadSome(buffer_.get() + size_, offered, deadline);
  if (!n.ok()) return n;
  size_ += *n;
  if (*n == offered) read_size_ = std::min(2 * read_size_, kMaxRead);
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
