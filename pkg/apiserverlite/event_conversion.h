// Conversion between core/v1 Events (the stored form) and events.k8s.io/v1
// Events. As in the real server both APIs are views of one storage, so an
// event a scheduler writes through events.k8s.io/v1 shows in `kubectl get
// events` (core/v1) and the other way round.
//
// Field mapping: involvedObject <-> regarding, message <-> note,
// reportingComponent <-> reportingController, source <-> deprecatedSource,
// firstTimestamp / lastTimestamp / count <-> deprecatedFirstTimestamp /
// deprecatedLastTimestamp / deprecatedCount; related, reason, type, action,
// reportingInstance, eventTime and series keep their names. Metadata is
// shared.
//
// Free functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

namespace ksched::apiserver {

nlohmann::json CoreEventToEventsV1(const nlohmann::json& core);
nlohmann::json EventsV1ToCoreEvent(const nlohmann::json& v1);

}  // namespace ksched::apiserver
