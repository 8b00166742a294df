// The two timestamp formats the Kubernetes API uses in what the API writer
// sends: metav1.Time ("2006-01-02T15:04:05Z", UTC, whole seconds) for
// condition transition times, and metav1.MicroTime
// ("2006-01-02T15:04:05.000000Z") for Event times.
//
// These mirror api::FormatTime / api::FormatMicroTime (pkg/api/codec.h) so
// that the writer does not depend on the codec library; both truncate
// towards the past, as Go's time formatting does.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "pkg/api/types.h"

namespace ksched::scheduler::apiwriter {

std::string FormatWireTime(api::Time t);
std::string FormatWireMicroTime(api::Time t);

}  // namespace ksched::scheduler::apiwriter
