#include "pkg/informer/list_body_scanner.h"

#include <nlohmann/json.hpp>

#include <utility>

namespace ksched::informer {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

std::string MetaString(const nlohmann::json& meta, const char* field) {
  auto value = meta.find(field);
  if (value == meta.end() || !value->is_string()) return "";
  return value->get<std::string>();
}

}  // namespace

ListBodyScanner::ListBodyScanner(std::string what, ItemCallback on_item)
    : what_(std::move(what)), on_item_(std::move(on_item)) {}

util::Status ListBodyScanner::Fail(const std::string& why) {
  error_ = util::Internal(what_ + ": the response is not a list: " + why);
  return error_;
}

void ListBodyScanner::StartValue(char c) {
  value_.clear();
  in_string_ = c == '"';
  escape_ = false;
  scalar_ = !in_string_ && c != '{' && c != '[';
  depth_ = (c == '{' || c == '[') ? 1 : 0;
}

bool ListBodyScanner::StepValue(char c, bool* consumed) {
  *consumed = true;
  if (in_string_) {
    if (escape_) {
      escape_ = false;
    } else if (c == '\\') {
      escape_ = true;
    } else if (c == '"') {
      in_string_ = false;
      return depth_ == 0;
    }
    return false;
  }
  if (scalar_) {
    if (c == ',' || c == '}' || c == ']' || IsSpace(c)) {
      *consumed = false;
      return true;
    }
    return false;
  }
  switch (c) {
    case '"':
      in_string_ = true;
      break;
    case '{':
    case '[':
      ++depth_;
      break;
    case '}':
    case ']':
      return --depth_ == 0;
    default:
      break;
  }
  return false;
}

util::Status ListBodyScanner::EndMember() {
  if (key_ == "items") {
    if (value_ != "null") return Fail("items is not an array");
  } else if (key_ == "metadata") {
    nlohmann::json meta = nlohmann::json::parse(value_, nullptr, /*allow_exceptions=*/false);
    if (meta.is_discarded()) return Fail("metadata is not JSON");
    if (meta.is_object()) {
      resource_version_ = MetaString(meta, "resourceVersion");
      continue_token_ = MetaString(meta, "continue");
    }
  }
  value_.clear();
  return util::Status::Ok();
}

util::Status ListBodyScanner::Feed(std::string_view bytes) {
  if (!error_.ok()) return error_;
  size_t i = 0;
  while (i < bytes.size()) {
    if (state_ == State::kInValue || state_ == State::kInItem) {
      // The value's bytes up to its end (or the chunk's) are appended at
      // once.
      const size_t start = i;
      bool ended = false;
      bool consumed = true;
      for (; i < bytes.size(); ++i) {
        if (StepValue(bytes[i], &consumed)) {
          ended = true;
          if (consumed) ++i;
          break;
        }
      }
      value_.append(bytes.substr(start, i - start));
      if (!ended) break;
      if (state_ == State::kInItem) {
        on_item_(value_);
        value_.clear();
        state_ = State::kItemCommaOrClose;
      } else {
        if (!EndMember().ok()) return error_;
        state_ = State::kCommaOrClose;
      }
      continue;
    }
    const char c = bytes[i++];
    if (state_ == State::kInKey) {
      if (escape_) {
        escape_ = false;
      } else if (c == '\\') {
        escape_ = true;
        key_escaped_ = true;
      } else if (c == '"') {
        if (key_escaped_) {
          nlohmann::json key = nlohmann::json::parse("\"" + key_ + "\"", nullptr, /*allow_exceptions=*/false);
          if (!key.is_string()) return Fail("a key is not a JSON string");
          key_ = key.get<std::string>();
        }
        state_ = State::kColon;
        continue;
      }
      key_.push_back(c);
      continue;
    }
    if (IsSpace(c)) continue;
    switch (state_) {
      case State::kBeforeObject:
        if (c != '{') return Fail("not a JSON object");
        state_ = State::kKeyOrClose;
        break;
      case State::kKeyOrClose:
        if (c == '}') {
          state_ = State::kAfterObject;
          break;
        }
        [[fallthrough]];
      case State::kKey:
        if (c != '"') return Fail("expected a key");
        key_.clear();
        key_escaped_ = false;
        escape_ = false;
        state_ = State::kInKey;
        break;
      case State::kCommaOrClose:
        if (c == ',') {
          state_ = State::kKey;
        } else if (c == '}') {
          state_ = State::kAfterObject;
        } else {
          return Fail("expected ',' or '}' after a member");
        }
        break;
      case State::kColon:
        if (c != ':') return Fail("expected ':' after a key");
        state_ = State::kValue;
        break;
      case State::kValue:
        if (key_ == "items") {
          if (seen_items_) return Fail("items appears twice");
          seen_items_ = true;
          if (c == '[') {
            state_ = State::kItemOrClose;
            break;
          }
          if (c != 'n') return Fail("items is not an array");
        }
        StartValue(c);
        value_.push_back(c);
        state_ = State::kInValue;
        break;
      case State::kItemOrClose:
        if (c == ']') {
          state_ = State::kCommaOrClose;
          break;
        }
        [[fallthrough]];
      case State::kItem:
        StartValue(c);
        value_.push_back(c);
        state_ = State::kInItem;
        break;
      case State::kItemCommaOrClose:
        if (c == ',') {
          state_ = State::kItem;
        } else if (c == ']') {
          state_ = State::kCommaOrClose;
        } else {
          return Fail("expected ',' or ']' after an item");
        }
        break;
      case State::kAfterObject:
        return Fail("data after the list's end");
      case State::kInKey:
      case State::kInValue:
      case State::kInItem:
        break;  // handled above
    }
  }
  return util::Status::Ok();
}

util::Status ListBodyScanner::Finish() {
  if (!error_.ok()) return error_;
  if (state_ != State::kAfterObject) return Fail("the body ended before the list did");
  return util::Status::Ok();
}

}  // namespace ksched::informer
