// Fuzz target for the JSON codec: arbitrary bytes must never crash
// or throw out of ParseJson / FromJson / ToJson, and whatever decodes must
// re-encode to JSON that decodes again.

#include <string_view>

#include "pkg/api/codec.h"
#include "pkg/api/types.h"
#include "test/fuzz/fuzz_target.h"

namespace {

template <class T>
void Exercise(const nlohmann::json& doc) {
  auto obj = ksched::api::FromJson<T>(doc);
  if (!obj.ok()) return;
  const nlohmann::json encoded = ksched::api::ToJson(*obj);
  // Strings from the input may hold invalid UTF-8 only if the parser let
  // them through; dump() must not throw either way.
  (void)encoded.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  auto again = ksched::api::FromJson<T>(encoded);
  KSCHED_FUZZ_CHECK(again.ok(), "an encoded object does not decode again");
}

}  // namespace

KSCHED_FUZZ_TARGET(json_decoder) {
  auto doc = ksched::api::ParseJson(input);
  if (!doc.ok()) return;
  Exercise<ksched::api::Pod>(*doc);
  Exercise<ksched::api::Node>(*doc);
  Exercise<ksched::api::PersistentVolume>(*doc);
  Exercise<ksched::api::PersistentVolumeClaim>(*doc);
  Exercise<ksched::api::StorageClass>(*doc);
  Exercise<ksched::api::CSINode>(*doc);
  Exercise<ksched::api::Event>(*doc);
  Exercise<ksched::api::Lease>(*doc);
  Exercise<ksched::api::PodDisruptionBudget>(*doc);
  Exercise<ksched::api::PodList>(*doc);
}
