// JsonWriter: JSON text written straight into a string, for encoding API
// objects without building a nlohmann tree first (ToJsonText, the request
// bodies of the scheduler's writes).
//
// The writer places commas and colons; the caller names keys and values in
// order and balances Begin/End. Strings are escaped as JSON requires (the
// quote, the backslash, control characters) and otherwise written byte for
// byte, so UTF-8 passes through as it came. Nothing checks that keys are
// unique: the encoders name each once.
//
// Not thread-safe; writes into a string the caller owns.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ksched::api {

class JsonWriter {
 public:
  // `first_members`, when given, is written (as is, e.g. `"kind":"Pod"`)
  // as the first members of the outermost object.
  explicit JsonWriter(std::string* out, std::string_view first_members = {})
      : out_(out), first_members_(first_members) {}

  void BeginObject();
  void EndObject();
  void BeginArray();
  void EndArray();
  // The next value is the member `key` of the object being written.
  void Key(std::string_view key);

  void String(std::string_view s);
  void Int(int64_t v);
  void Bool(bool v);
  void Null();
  // A value already in JSON text.
  void Raw(std::string_view json);

  // Appends `s` to `out` as a quoted JSON string.
  static void AppendQuoted(std::string_view s, std::string* out);

 private:
  // The comma before a value in an array (a member's comma comes with Key).
  void BeforeValue();

  std::string* out_;
  std::string_view first_members_;
  std::vector<bool> first_;  // per open object or array: nothing written in it yet
  bool after_key_ = false;
};

}  // namespace ksched::api
