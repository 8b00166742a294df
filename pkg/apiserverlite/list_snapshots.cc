#include "pkg/apiserverlite/list_snapshots.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace ksched::apiserver {

namespace {

constexpr char kAlphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string Base64UrlEncode(const std::string& in) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (unsigned char c : in) {
    acc = (acc << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(kAlphabet[(acc >> bits) & 0x3f]);
    }
  }
  if (bits > 0) out.push_back(kAlphabet[(acc << (6 - bits)) & 0x3f]);
  return out;
}

std::optional<std::string> Base64UrlDecode(const std::string& in) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    const char* p = std::find(kAlphabet, kAlphabet + 64, c);
    if (p == kAlphabet + 64) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(p - kAlphabet);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

}  // namespace

std::string EncodeContinueToken(const ContinueToken& token) {
  nlohmann::json j = {{"v", "meta.k8s.io/v1"},
                      {"id", token.snapshot_id},
                      {"offset", token.offset},
                      {"rv", token.resource_version}};
  return Base64UrlEncode(j.dump());
}

std::optional<ContinueToken> DecodeContinueToken(const std::string& text) {
  auto raw = Base64UrlDecode(text);
  if (!raw) return std::nullopt;
  auto j = nlohmann::json::parse(*raw, nullptr, false);
  if (!j.is_object() || j.value("v", "") != "meta.k8s.io/v1") return std::nullopt;
  auto id = j.find("id");
  auto offset = j.find("offset");
  auto rv = j.find("rv");
  if (id == j.end() || offset == j.end() || rv == j.end() || !id->is_number_unsigned() ||
      !offset->is_number_unsigned() || !rv->is_number_unsigned()) {
    return std::nullopt;
  }
  return ContinueToken{id->get<uint64_t>(), offset->get<size_t>(), rv->get<uint64_t>()};
}

ListSnapshots::ListSnapshots(size_t capacity) : capacity_(std::max<size_t>(1, capacity)) {}

uint64_t ListSnapshots::Put(std::shared_ptr<const ListSnapshot> snapshot) {
  std::lock_guard<std::mutex> l(mu_);
  uint64_t id = next_id_++;
  snapshots_.emplace(id, std::move(snapshot));
  while (snapshots_.size() > capacity_) snapshots_.erase(snapshots_.begin());
  return id;
}

std::shared_ptr<const ListSnapshot> ListSnapshots::Get(uint64_t id) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = snapshots_.find(id);
  return it == snapshots_.end() ? nullptr : it->second;
}

void ListSnapshots::Clear() {
  std::lock_guard<std::mutex> l(mu_);
  snapshots_.clear();
}

size_t ListSnapshots::size() const {
  std::lock_guard<std::mutex> l(mu_);
  return snapshots_.size();
}

}  // namespace ksched::apiserver
