// A plugin's arguments as the configuration holds them, and the codec that
// each plugin with arguments registers (decode, defaults, validation,
// encoding). pkg/config knows no concrete args type: it keeps a profile's
// pluginConfig entries and hands each to the codec its plugin registered
// (KnownPlugins, known_plugins.h).
//
// An args type T is a plain struct that names its codec:
//   struct MyArgs {
//     static const config::ArgsCodec& Codec();  // a TypedArgsCodec<MyArgs>
//     ...fields...
//   };
// PluginArgs then holds a T by value (copied with the configuration) and
// remembers T's codec, so encoding, defaulting and validating need no lookup.
//
// Thread-safety: PluginArgs is a value; codecs are immutable and shared by
// every thread.
#pragma once

#include <any>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "pkg/config/errors.h"

namespace ksched::config {

class ArgsCodec;
class YamlReader;
class MapReader;

// Non-empty args given to a plugin that has no args codec; kept as written so
// validation can reject them precisely.
struct UntypedArgs {
  nlohmann::json raw;
};

class PluginArgs {
 public:
  // No args: absent, null or `{}` in the file.
  PluginArgs() = default;
  PluginArgs(std::monostate) {}  // NOLINT: implicit on purpose; also "no args"
  PluginArgs(UntypedArgs untyped) : value_(std::move(untyped)) {}  // NOLINT: implicit on purpose
  // Typed args; T names its codec with a static Codec().
  template <class T, class = std::enable_if_t<std::is_same_v<decltype(T::Codec()), const ArgsCodec&>>>
  PluginArgs(T typed) : codec_(&T::Codec()), value_(std::move(typed)) {}  // NOLINT: implicit on purpose

  bool empty() const { return !value_.has_value(); }
  bool untyped() const { return Get<UntypedArgs>() != nullptr; }
  // The codec of typed args; nullptr for none and untyped.
  const ArgsCodec* codec() const { return codec_; }
  // The codec's kind ("<Plugin>Args") for typed args, "" otherwise.
  std::string_view kind() const;

  // The value when it is a T (UntypedArgs included), else nullptr.
  template <class T>
  const T* Get() const {
    return std::any_cast<T>(&value_);
  }
  template <class T>
  T* Mutable() {
    return std::any_cast<T>(&value_);
  }
  template <class T>
  bool Holds() const {
    return Get<T>() != nullptr;
  }

 private:
  const ArgsCodec* codec_ = nullptr;
  std::any value_;
};

// Decodes, defaults, validates and encodes one args type. Implemented by
// TypedArgsCodec<T>; a plugin registers one with its factory.
class ArgsCodec {
 public:
  virtual ~ArgsCodec() = default;
  // The args kind ("<Plugin>Args"): what `kind` inside args must say
  // and what encoding writes.
  virtual std::string_view Kind() const = 0;
  // Reads the fields of the args mapping `m` (apiVersion and kind already
  // taken); every error goes to `r` with its field path and position.
  virtual PluginArgs Decode(YamlReader* r, MapReader& m, std::string_view api_version) const = 0;
  // An args value of this type with nothing set, not defaulted.
  virtual PluginArgs Empty() const = 0;
  // Fills unset fields; args of another type are left alone.
  virtual void SetDefaults(PluginArgs* args) const = 0;
  // Errors of defaulted args, with field paths below `path`; args of another
  // type are not judged here (the caller compares kinds).
  virtual ErrorList Validate(const std::string& path, const PluginArgs& args) const = 0;
  // The args as v1 JSON, apiVersion and kind first.
  virtual nlohmann::ordered_json Encode(const PluginArgs& args) const = 0;

  // Empty() with the defaults applied.
  PluginArgs Default() const {
    PluginArgs a = Empty();
    SetDefaults(&a);
    return a;
  }
};

// The functions of one args type T. decode and encode are required;
// set_defaults and validate may be null (nothing to default or check).
template <class T>
struct ArgsFunctions {
  const char* kind = nullptr;
  void (*decode)(YamlReader* r, MapReader& m, std::string_view api_version, T* out) = nullptr;
  void (*set_defaults)(T* args) = nullptr;
  ErrorList (*validate)(const std::string& path, const T& args) = nullptr;
  // Adds the fields of `args` to `out`, which already holds apiVersion and kind.
  void (*encode)(const T& args, nlohmann::ordered_json* out) = nullptr;
};

// apiVersion and kind, as args are written out (v1).
nlohmann::ordered_json ArgsTypeMeta(std::string_view kind);

template <class T>
class TypedArgsCodec final : public ArgsCodec {
 public:
  explicit TypedArgsCodec(ArgsFunctions<T> f) : f_(f) {}

  std::string_view Kind() const override { return f_.kind; }
  PluginArgs Decode(YamlReader* r, MapReader& m, std::string_view api_version) const override {
    T out;
    f_.decode(r, m, api_version, &out);
    return PluginArgs(std::move(out));
  }
  PluginArgs Empty() const override { return PluginArgs(T{}); }
  void SetDefaults(PluginArgs* args) const override {
    if (T* a = args->Mutable<T>(); a != nullptr && f_.set_defaults != nullptr) f_.set_defaults(a);
  }
  ErrorList Validate(const std::string& path, const PluginArgs& args) const override {
    const T* a = args.Get<T>();
    if (a == nullptr || f_.validate == nullptr) return {};
    return f_.validate(path, *a);
  }
  nlohmann::ordered_json Encode(const PluginArgs& args) const override {
    nlohmann::ordered_json out = ArgsTypeMeta(f_.kind);
    if (const T* a = args.Get<T>()) f_.encode(*a, &out);
    return out;
  }

 private:
  ArgsFunctions<T> f_;
};

// The args as v1 JSON: the codec's encoding for typed args, the raw value
// for untyped ones, null for none.
nlohmann::ordered_json ArgsToJson(const PluginArgs& args);

}  // namespace ksched::config
