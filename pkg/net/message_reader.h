// MessageReader: reads HTTP/1.1 messages (heads, then bodies) from a Stream
// through one buffer, so pipelined messages and bytes read past one message
// are kept for the next. A server reads requests with it, a client
// responses; bodies can be read whole (with a limit) or piece by piece
// (streaming watch bodies).
//
// Thread-compatible: one thread reads at a time. The Stream must outlive the
// reader; the reader does not own it.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "pkg/net/chunked.h"
#include "pkg/net/http_message.h"
#include "pkg/net/stream.h"
#include "pkg/util/status.h"

namespace ksched::net {

class MessageReader {
 public:
  explicit MessageReader(Stream& stream, HeadLimits limits = {});

  // Reads the next request head. Returns false when the peer closed the
  // connection cleanly before the first byte of a new message (the normal
  // end of a keep-alive connection). Errors: kInvalidArgument for a
  // malformed or oversized head (head_too_large() tells which), kUnavailable
  // when the peer closes mid-head, and the Stream's own errors.
  util::StatusOr<bool> ReadRequestHead(RequestHead* out, Deadline deadline);
  // The same for a response head; a 1xx interim response is returned like
  // any other (the caller reads the next head after it).
  util::StatusOr<bool> ReadResponseHead(ResponseHead* out, Deadline deadline);
  // Whether the last head error was a head over the limits (431) rather
  // than a malformed one (400).
  bool head_too_large() const { return head_too_large_; }

  // Starts reading the body of the message whose head was just read.
  void BeginBody(const BodyFraming& framing);
  // Appends the next body bytes to `out`, waiting for at least one. Returns
  // false (appending nothing) once the body has ended. Errors: a malformed
  // chunked body (kInvalidArgument), the peer closing before the body's end
  // (kUnavailable), the Stream's errors.
  util::StatusOr<bool> ReadBodySome(std::string* out, Deadline deadline);
  // Reads the rest of the body into `out`. Fails with kInvalidArgument and
  // body_too_large() once more than `limit` bytes would be read (the rest
  // of the body stays unread: the connection cannot be reused).
  util::Status ReadBody(std::string* out, size_t limit, Deadline deadline);
  bool body_too_large() const { return body_too_large_; }
  bool body_done() const { return body_done_; }

  // Bytes read from the stream and not consumed yet.
  size_t buffered() const { return size_ - pos_; }
  // Whether more of the stream has arrived: buffered here or in the Stream
  // (Stream::HasInput). The next read may then not wait for the peer.
  bool HasInput() const { return buffered() > 0 || stream_.HasInput(); }

 private:
  template <class Head, class Parse>
  util::StatusOr<bool> ReadHead(Head* out, Deadline deadline, Parse parse);
  // Reads more bytes into the buffer; returns 0 at end of stream.
  util::StatusOr<size_t> Fill(Deadline deadline);
  std::string_view Pending() const { return std::string_view(buffer_.get() + pos_, size_ - pos_); }
  void Consume(size_t n);

  Stream& stream_;
  const HeadLimits limits_;
  // Bytes [0, size_) were read; [pos_, size_) are not consumed yet. Not a
  // std::string: growing one zeroes the bytes a read then overwrites.
  std::unique_ptr<char[]> buffer_;
  size_t capacity_ = 0;
  size_t size_ = 0;
  size_t pos_ = 0;
  size_t read_size_;  // what the next read asks for (message_reader.cc)
  bool head_too_large_ = false;

  BodyFraming framing_;
  uint64_t body_left_ = 0;  // kContentLength
  ChunkedDecoder chunked_;
  bool body_done_ = true;
  bool body_too_large_ = false;
};

}  // namespace ksched::net
