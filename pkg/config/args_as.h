// ArgsAs<T>: what a plugin factory does with the args it is given, once.
//
// The framework hands a factory the profile's args for the plugin: empty when
// the profile has none (a framework built without config defaulting, or a
// test), a T after defaulting, or something else when a registry was wired
// wrongly. ArgsAs turns that into a T with T's defaults applied and
// validated, or an InvalidArgument error naming what was wrong, so that a
// factory reads
//   util::StatusOr<MyArgs> a = config::ArgsAs<MyArgs>(args);
//   if (!a.ok()) return a.status();
//
// Thread-safety: pure function.
#pragma once

#include <string>

#include "pkg/config/errors.h"
#include "pkg/config/plugin_args.h"
#include "pkg/util/status.h"

namespace ksched::config {

template <class T>
util::StatusOr<T> ArgsAs(const PluginArgs& args) {
  const ArgsCodec& codec = T::Codec();
  PluginArgs typed = args;
  if (typed.empty()) {
    typed = codec.Empty();
  } else if (!typed.Holds<T>()) {
    std::string got = typed.untyped() ? std::string("untyped args") : std::string(typed.kind());
    return util::InvalidArgument("want args to be of type " + std::string(codec.Kind()) + ", got " + got);
  }
  codec.SetDefaults(&typed);
  if (ErrorList errs = codec.Validate("", typed); !errs.empty()) return util::InvalidArgument(JoinErrors(errs));
  return *typed.Get<T>();
}

}  // namespace ksched::config
