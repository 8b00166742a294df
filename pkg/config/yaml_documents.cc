#include "pkg/config/yaml_documents.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

#include <optional>
#include <sstream>

namespace ksched::config {

namespace {

// Records whether a document was a lone null node, and where: two such
// documents in a row at the same position mean the parser consumed nothing.
class ProgressCheck : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {
    events_ = 0;
    null_at_.reset();
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override {
    if (++events_ == 1) null_at_ = mark;
  }
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override { ++events_; }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {
    ++events_;
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    ++events_;
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    ++events_;
  }
  void OnMapEnd() override {}

  // Where the last document was a lone null, if it was.
  std::optional<YAML::Mark> lone_null() const {
    return events_ == 1 ? null_at_ : std::nullopt;
  }

 private:
  int events_ = 0;
  std::optional<YAML::Mark> null_at_;
};

}  // namespace

std::vector<YAML::Node> LoadDocuments(const std::string& text) {
  {
    std::istringstream in(text);
    YAML::Parser parser(in);
    ProgressCheck check;
    std::optional<YAML::Mark> previous;
    while (parser.HandleNextDocument(check)) {
      const std::optional<YAML::Mark> now = check.lone_null();
      if (now && previous && now->pos == previous->pos) {
        throw YAML::ParserException(*now, "did not find expected <document start>");
      }
      previous = now;
    }
  }
  return YAML::LoadAll(text);
}

}  // namespace ksched::config
