// AsObjects: the typed old and new objects of a cluster event, for queueing
// hints (kube-scheduler's util.As). An add has no old object and a delete no
// new one; an object of another type, or neither object, is an error naming
// the expected kind.
//
// Thread-safety: pure function.
#pragma once

#include <string>

#include "pkg/scheduler/framework/queueing_hint.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::plugins::helper {

template <class T>
util::Status AsObjects(const framework::EventObject& old_obj, const framework::EventObject& new_obj,
                       const T** old_t, const T** new_t, const char* kind) {
  *old_t = old_obj.As<T>();
  *new_t = new_obj.As<T>();
  if ((!old_obj.empty() && *old_t == nullptr) || (!new_obj.empty() && *new_t == nullptr) ||
      (*old_t == nullptr && *new_t == nullptr)) {
    return util::InvalidArgument(std::string("unexpected objects in event: want a ") + kind);
  }
  return util::Status::Ok();
}

}  // namespace ksched::scheduler::plugins::helper
