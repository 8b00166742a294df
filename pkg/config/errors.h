// Field errors for the scheduler configuration, located in the source file.
//
// Every problem the decoder, the defaulter or the validator finds is a
// FieldError: the field path in the API's JSON names
// ("profiles[0].plugins.score.enabled[1].weight"), a kube-style detail
// ("Invalid value: 0: must be greater than 0") and, when the value came from a
// file, the file name and the 1-based line and column of that value. Printed,
// it reads
//   scheduler.yaml:12:7: profiles[0].plugins.score.enabled[1].weight: expected an integer, got "high"
//
// ConfigSource remembers where each decoded field path sat in the file, so the
// validator (which sees only the decoded structs) can locate its errors; a
// path that was never written (a defaulted field) is located at its nearest
// written ancestor.
//
// Thread-safety: value types; no shared state.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ksched::config {

// 1-based line and column; line 0 means "unknown".
struct SourcePos {
  int line = 0;
  int column = 0;
  bool known() const { return line > 0; }
};

enum class ErrorType {
  kDecode,          // malformed value: wrong type, unparsable duration, YAML syntax
  kUnknownField,    // strict decoding: a field the schema does not have
  kDuplicateField,  // the same key twice in one mapping
  kInvalid,         // field.Invalid
  kRequired,        // field.Required
  kDuplicate,       // field.Duplicate
  kNotSupported,    // field.NotSupported (includes unknown plugin names)
  kForbidden,       // field.Forbidden
};

struct FieldError {
  ErrorType type = ErrorType::kInvalid;
  std::string field;   // JSON path; empty for document-level errors
  std::string detail;  // the message after "<field>: "
  std::string file;    // empty when not read from a file
  SourcePos pos;

  // "file:line:col: field: detail", leaving out the parts that are unknown.
  std::string ToString() const;
};

using ErrorList = std::vector<FieldError>;

// One error per line, in order.
std::string JoinErrors(const ErrorList& errors);

// Constructors in the wording of k8s.io/apimachinery field errors. `value` is
// already formatted (see Quote / FormatValue below).
FieldError Invalid(std::string field, std::string_view value, std::string_view detail);
FieldError Required(std::string field, std::string_view detail = {});
FieldError Duplicate(std::string field, std::string_view value);
FieldError NotSupported(std::string field, std::string_view value, const std::vector<std::string>& supported,
                        std::string_view detail = {});
FieldError Forbidden(std::string field, std::string_view detail);

// `"text"` with JSON escaping, as field errors print string values.
std::string Quote(std::string_view s);
// `["a", "b"]`.
std::string QuoteList(const std::vector<std::string>& values);

// Where each field path of a decoded document came from.
class ConfigSource {
 public:
  ConfigSource() = default;
  explicit ConfigSource(std::string file) : file_(std::move(file)) {}

  const std::string& file() const { return file_; }
  void Record(const std::string& path, SourcePos pos);
  // Position of `path`, or of its nearest recorded ancestor; unknown if none.
  SourcePos Lookup(std::string_view path) const;
  // Exact position only.
  bool Has(std::string_view path) const;
  // Fills file and pos of `e` (keeps a position that is already known).
  void Locate(FieldError* e) const;

 private:
  std::string file_;
  std::map<std::string, SourcePos, std::less<>> positions_;
};

// Parent of a field path: "a.b[2]" -> "a.b", "a.b" -> "a", "a" -> "".
std::string_view ParentPath(std::string_view path);

}  // namespace ksched::config
