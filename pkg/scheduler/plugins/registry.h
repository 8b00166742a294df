// InTreeRegistry: the factories of every in-tree plugin, by name. This is the
// one place that names concrete plugins; the framework only sees the
// Registry. Each plugin folder adds one Register line in registry.cc.
//
// A duplicate name (a programming error) is reported as AlreadyExists.
//
// Thread-safety: returns a fresh Registry on each call.
#pragma once

#include "pkg/scheduler/framework/registry.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::plugins {

util::StatusOr<framework::Registry> InTreeRegistry();

}  // namespace ksched::scheduler::plugins
