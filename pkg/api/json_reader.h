// JsonReader: a pull tokenizer over JSON text for the fast typed decoder
// (FromJsonText in codec.h), which reads objects straight into types.h
// structs without building an nlohmann::json tree first.
//
// The reader is deliberately narrow. It accepts exactly what the common,
// well-formed API object looks like, and answers false ("not here") for
// anything else: invalid JSON, but also valid JSON it does not handle itself
// (non-ASCII or \u escapes in strings, numbers with a fraction or exponent
// where an integer is read, nesting deeper than kMaxDepth). A false answer
// is never an error report: the caller then decodes the text the slow way
// (ParseJson + FromJson), which produces the value or the precise error.
// So every input the reader accepts must decode exactly as the DOM path
// decodes it; inputs it rejects cost one wasted partial pass.
//
// Skipped values (unknown fields) are still checked against the full JSON
// grammar, so a document the reader accepts is one nlohmann would parse.
//
// Ownership: borrows the text, which must outlive the reader and every
// string_view it hands out. Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ksched::api {

// The first byte in [p, end) that ends a run of plain string content: a
// '"', a '\\', a control character (< 0x20) or a non-ASCII byte (>= 0x80);
// `end` when there is none. O(end - p), eight bytes a step.
const char* PlainStringEnd(const char* p, const char* end);

class JsonReader {
 public:
  static constexpr int kMaxDepth = 256;

  explicit JsonReader(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  // Consumes a `null` literal if one comes next.
  bool ConsumeNull();

  // A string value. *out points into the text when the string has no
  // escapes, else into *scratch (overwritten).
  bool ReadString(std::string_view* out, std::string* scratch);
  bool ReadBool(bool* out);
  // An integer in [lo, hi] written without fraction or exponent.
  bool ReadInt(int64_t lo, int64_t hi, int64_t* out);

  // Objects: BeginObject consumes '{'; then NextMember returns 1 with the
  // key read and ':' consumed (the value is next), 0 after the closing '}',
  // -1 on anything unexpected. `first` starts true and is managed by the
  // reader. Arrays: BeginArray / NextElement alike.
  bool BeginObject();
  int NextMember(bool* first, std::string_view* key, std::string* scratch);
  bool BeginArray();
  int NextElement(bool* first);

  // Skips one value of any type, checking its syntax.
  bool SkipValue() { return SkipValue(0); }
  // Skips one value and returns its text.
  bool CaptureValue(std::string_view* out);

  // Only whitespace is left.
  bool AtEnd();
  // The text not read yet, from its next non-whitespace byte.
  std::string_view Rest() {
    SkipWs();
    return std::string_view(p_, static_cast<size_t>(end_ - p_));
  }

  // The next non-whitespace byte, or '\0' at the end.
  char Peek() {
    SkipWs();
    return p_ < end_ ? *p_ : '\0';
  }

 private:
  // Inline for the common case of compact JSON: no whitespace at all.
  void SkipWs() {
    if (p_ < end_ && static_cast<unsigned char>(*p_) > ' ') return;
    SkipWsSlow();
  }
  void SkipWsSlow();
  bool SkipValue(int depth);
  // Skips a string ReadString would accept, without unescaping it.
  bool SkipString();
  bool SkipNumber();
  bool Literal(std::string_view word);

  const char* p_;
  const char* end_;
};

}  // namespace ksched::api
