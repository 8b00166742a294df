// YAML to JSON on yaml-cpp's event parser.
//
// Building JSON straight from parse events (instead of a YAML::Node tree)
// keeps each scalar's style and tag, gives every value its source position
// for error messages, and lets aliases be expanded under a budget. Mapping
// semantics follow go-yaml v2 decoding into interface{}: later duplicate
// keys win, and merge keys ("<<: *base", "<<: [*a, *b]") copy the merged
// mappings' entries into the current one where they appear, earlier
// mappings of a merge list taking precedence.

#include "pkg/api/yaml.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

#include <cstddef>
#include <istream>
#include <optional>
#include <streambuf>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pkg/api/yaml_scalar.h"

namespace ksched::api {

namespace {

// An istream source over caller-owned bytes, without copying them.
class ViewStreamBuf : public std::streambuf {
 public:
  explicit ViewStreamBuf(std::string_view text) {
    char* begin = const_cast<char*>(text.data());
    setg(begin, begin, begin + text.size());
  }
};

std::string Position(const YAML::Mark& mark) {
  return "yaml: line " + std::to_string(mark.line + 1) + ", column " +
         std::to_string(mark.column + 1) + ": ";
}

// Alias expansion may copy at most this many nodes beyond
// kAliasBudgetFactor times the nodes the document spells out, which
// leaves ordinary anchors alone and stops "billion laughs" documents.
constexpr size_t kAliasBudgetBase = 100000;
constexpr size_t kAliasBudgetFactor = 10;
// Deeper nesting than this is refused: no Kubernetes object comes close,
// and later consumers (dump, comparison, destruction) recurse. yaml-cpp
// itself gives up near 500 levels.
constexpr size_t kMaxDepth = 256;

class JsonBuilder : public YAML::EventHandler {
 public:
  // Starts a new document: anchors do not carry across documents.
  void Reset() {
    stack_.clear();
    anchors_.clear();
    root_ = nullptr;
    parsed_nodes_ = 0;
    aliased_nodes_ = 0;
    lone_null_.reset();
  }

  // Where the document just parsed was nothing but a null node, if it was.
  const std::optional<YAML::Mark>& lone_null() const { return lone_null_; }

  const util::Status& status() const { return status_; }
  nlohmann::json TakeRoot() { return std::move(root_); }

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (!status_.ok()) return;
    if (stack_.empty() && parsed_nodes_ == 0) lone_null_ = mark;
    if (ExpectingKey()) {
      Fail(mark, "unsupported mapping key of type !!null");
      return;
    }
    Complete(mark, nlohmann::json(nullptr), 1, anchor);
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (!status_.ok()) return;
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) {
      Fail(mark, "anchor value contains itself");
      return;
    }
    aliased_nodes_ += it->second.nodes;
    if (aliased_nodes_ > kAliasBudgetBase + kAliasBudgetFactor * parsed_nodes_) {
      Fail(mark, "document contains excessive aliasing");
      return;
    }
    if (ExpectingKey()) {
      const nlohmann::json& key = it->second.value;
      std::string text;
      if (key.is_string()) {
        text = key.get<std::string>();
      } else if (key.is_number_integer() && !key.is_number_unsigned()) {
        text = std::to_string(key.get<int64_t>());
      } else if (key.is_boolean()) {
        text = key.get<bool>() ? "true" : "false";
      } else {
        Fail(mark, std::string("unsupported mapping key of type ") + key.type_name());
        return;
      }
      stack_.back().key = std::move(text);
      stack_.back().has_key = true;
      stack_.back().merge_key = false;
      return;
    }
    // Anchors are immutable once complete, so the value is copied.
    Complete(mark, nlohmann::json(it->second.value), it->second.nodes, 0);
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    if (!status_.ok()) return;
    ++parsed_nodes_;
    if (ExpectingKey()) {
      Frame& frame = stack_.back();
      if (IsYamlMergeKey(tag, value)) {
        frame.merge_key = true;
        frame.has_key = true;
        return;
      }
      auto key = ResolveYamlKey(tag, value);
      if (!key.ok()) {
        Fail(mark, key.status().message());
        return;
      }
      frame.key = std::move(*key);
      frame.has_key = true;
      frame.merge_key = false;
      if (anchor != YAML::NullAnchor) anchors_[anchor] = Anchored{nlohmann::json(frame.key), 1};
      return;
    }
    auto resolved = ResolveYamlScalar(tag, value);
    if (!resolved.ok()) {
      Fail(mark, resolved.status().message());
      return;
    }
    Complete(mark, std::move(*resolved), 1, anchor);
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Open(mark, anchor, nlohmann::json::array());
  }

  void OnSequenceEnd() override { Close(); }

  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Open(mark, anchor, nlohmann::json::object());
  }

  void OnMapEnd() override { Close(); }

 private:
  struct Frame {
    nlohmann::json value;  // array or object under construction
    YAML::Mark mark;
    YAML::anchor_t anchor = YAML::NullAnchor;
    size_t nodes = 1;
    // Mappings only: the key waiting for its value.
    bool has_key = false;
    bool merge_key = false;
    std::string key;
  };
  struct Anchored {
    nlohmann::json value;
    size_t nodes;
  };

  bool ExpectingKey() const {
    return !stack_.empty() && stack_.back().value.is_object() && !stack_.back().has_key;
  }

  void Fail(const YAML::Mark& mark, std::string_view message) {
    if (status_.ok()) status_ = util::InvalidArgument(Position(mark) + std::string(message));
  }

  void Open(const YAML::Mark& mark, YAML::anchor_t anchor, nlohmann::json value) {
    if (!status_.ok()) return;
    ++parsed_nodes_;
    if (ExpectingKey()) {
      Fail(mark, "unsupported mapping key: a mapping or sequence");
      return;
    }
    if (stack_.size() >= kMaxDepth) {
      Fail(mark, "document nests deeper than " + std::to_string(kMaxDepth) + " levels");
      return;
    }
    Frame frame;
    frame.value = std::move(value);
    frame.mark = mark;
    frame.anchor = anchor;
    stack_.push_back(std::move(frame));
  }

  void Close() {
    if (!status_.ok()) return;
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    Complete(frame.mark, std::move(frame.value), frame.nodes, frame.anchor);
  }

  // Places a finished value into its parent (or makes it the root).
  void Complete(const YAML::Mark& mark, nlohmann::json value, size_t nodes,
                YAML::anchor_t anchor) {
    if (anchor != YAML::NullAnchor) anchors_[anchor] = Anchored{value, nodes};
    if (stack_.empty()) {
      root_ = std::move(value);
      return;
    }
    Frame& parent = stack_.back();
    parent.nodes += nodes;
    if (parent.value.is_array()) {
      parent.value.get_ref<nlohmann::json::array_t&>().push_back(std::move(value));
      return;
    }
    auto& object = parent.value.get_ref<nlohmann::json::object_t&>();
    parent.has_key = false;
    if (parent.merge_key) {
      parent.merge_key = false;
      Merge(mark, std::move(value), &object);
      return;
    }
    object[std::move(parent.key)] = std::move(value);
    parent.key.clear();
  }

  void Merge(const YAML::Mark& mark, nlohmann::json value, nlohmann::json::object_t* into) {
    static constexpr std::string_view kWantMap =
        "map merge requires map or sequence of maps as the value";
    if (value.is_object()) {
      for (auto& [k, v] : value.get_ref<nlohmann::json::object_t&>()) (*into)[k] = std::move(v);
      return;
    }
    if (!value.is_array()) {
      Fail(mark, kWantMap);
      return;
    }
    auto& list = value.get_ref<nlohmann::json::array_t&>();
    for (const auto& element : list) {
      if (!element.is_object()) {
        Fail(mark, kWantMap);
        return;
      }
    }
    // Applied last to first, so that earlier mappings win.
    for (auto it = list.rbegin(); it != list.rend(); ++it) {
      for (auto& [k, v] : it->get_ref<nlohmann::json::object_t&>()) (*into)[k] = std::move(v);
    }
  }

  std::vector<Frame> stack_;
  std::unordered_map<YAML::anchor_t, Anchored> anchors_;
  nlohmann::json root_;
  size_t parsed_nodes_ = 0;
  size_t aliased_nodes_ = 0;
  std::optional<YAML::Mark> lone_null_;
  util::Status status_;
};

// Parses documents until `fn(json)` returns false or the stream ends.
template <class Fn>
util::Status ParseDocuments(std::string_view yaml, Fn&& fn) {
  ViewStreamBuf buf(yaml);
  std::istream in(&buf);
  JsonBuilder builder;
  try {
    YAML::Parser parser(in);
    std::optional<YAML::Mark> previous_null;
    while (true) {
      builder.Reset();
      if (!parser.HandleNextDocument(builder)) break;
      if (!builder.status().ok()) return builder.status();
      // yaml-cpp 0.7 reports one empty document after another, consuming
      // nothing, at a token that cannot start a node (`"a",`): two in a row
      // at one position is that endless loop.
      const std::optional<YAML::Mark> lone_null = builder.lone_null();
      if (lone_null && previous_null && lone_null->pos == previous_null->pos) {
        return util::InvalidArgument(Position(*lone_null) + "did not find expected <document start>");
      }
      previous_null = lone_null;
      if (!fn(builder.TakeRoot())) break;
    }
  } catch (const YAML::Exception& e) {
    return util::InvalidArgument(Position(e.mark) + e.msg);
  } catch (const std::exception& e) {
    return util::InvalidArgument(std::string("yaml: ") + e.what());
  }
  return builder.status();
}

}  // namespace

util::StatusOr<nlohmann::json> YamlToJson(std::string_view yaml) {
  nlohmann::json result;  // null for an empty stream
  util::Status status = ParseDocuments(yaml, [&](nlohmann::json doc) {
    result = std::move(doc);
    return false;  // only the first document, as yaml.Unmarshal reads
  });
  if (!status.ok()) return status;
  return result;
}

util::StatusOr<std::vector<nlohmann::json>> YamlDocumentsToJson(std::string_view yaml) {
  std::vector<nlohmann::json> docs;
  util::Status status = ParseDocuments(yaml, [&](nlohmann::json doc) {
    if (!doc.is_null()) docs.push_back(std::move(doc));
    return true;
  });
  if (!status.ok()) return status;
  return docs;
}

}  // namespace ksched::api
