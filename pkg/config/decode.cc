#include "pkg/config/decode.h"

#include <yaml-cpp/yaml.h>

#include <limits>
#include <optional>
#include <string>

#include "pkg/config/config_gates.h"
#include "pkg/config/decode_pluginargs.h"
#include "pkg/config/utf8_check.h"
#include "pkg/config/yaml_documents.h"
#include "pkg/config/yaml_reader.h"

namespace ksched::config {
namespace {

// Versions of the group that kube-scheduler once served and ksched does not.
bool IsRetiredVersion(std::string_view api_version) {
  return api_version == "kubescheduler.config.k8s.io/v1alpha1" ||
         api_version == "kubescheduler.config.k8s.io/v1alpha2" ||
         api_version == "kubescheduler.config.k8s.io/v1beta1" || api_version == "kubescheduler.config.k8s.io/v1beta2";
}

class Decoder {
 public:
  Decoder(DecodeResult* out, const KnownPlugins& known) : out_(out), known_(known), r_(&out->source, &out->errors) {}

  void Document(const YAML::Node& root) {
    Value v = r_.Root(root);
    if (!root.IsMap()) {
      r_.TypeError(v, "a KubeSchedulerConfiguration mapping");
      return;
    }
    MapReader m(&r_, v);
    if (!TypeMeta(m, v)) return;
    KubeSchedulerConfiguration& c = out_->config;
    bool v1 = c.api_version == kApiVersionV1;
    ReadField(m, "parallelism", [&](const Value& x) { c.parallelism = r_.Int32(x); });
    ReadField(m, "leaderElection", [&](const Value& x) { LeaderElection(x); });
    ReadField(m, "clientConnection", [&](const Value& x) { ClientConnection(x); });
    ReadField(m, "enableProfiling", [&](const Value& x) { c.enable_profiling = r_.Bool(x); });
    ReadField(m, "enableContentionProfiling", [&](const Value& x) { c.enable_contention_profiling = r_.Bool(x); });
    ReadField(m, "percentageOfNodesToScore", [&](const Value& x) { c.percentage_of_nodes_to_score = r_.Int32(x); });
    ReadField(m, "podInitialBackoffSeconds", [&](const Value& x) { c.pod_initial_backoff_seconds = r_.Int64(x); });
    ReadField(m, "podMaxBackoffSeconds", [&](const Value& x) { c.pod_max_backoff_seconds = r_.Int64(x); });
    ReadField(m, "profiles", [&](const Value& x) {
      for (const Value& item : r_.Items(x)) c.profiles.push_back(Profile(item, v1));
    });
    ReadField(m, "extenders", [&](const Value& x) {
      for (const Value& item : r_.Items(x)) c.extenders.push_back(ExtenderEntry(item));
    });
    // v1beta3 has no delayCacheUntilActive: strict decoding reports it.
    if (v1) {
      ReadField(m, "delayCacheUntilActive",
                [&](const Value& x) { c.delay_cache_until_active = r_.Bool(x).value_or(false); });
    }
    m.Finish();
  }

 private:
  // Returns false when the document is not a configuration ksched reads; the
  // remaining fields are then not decoded (their schema is unknown).
  bool TypeMeta(MapReader& m, const Value& root) {
    std::optional<Value> api_version = m.Get("apiVersion");
    std::optional<Value> kind = m.Get("kind");
    std::optional<std::string> av = api_version ? r_.String(*api_version) : std::nullopt;
    std::optional<std::string> k = kind ? r_.String(*kind) : std::nullopt;
    size_t errors_before = r_.error_count();
    const std::vector<std::string> kinds = {kKind};
    if (!kind) {
      Report(Required("kind", "must be " + Quote(kKind)), root.pos);
    } else if (k && *k != kKind) {
      std::string detail = "not a KubeSchedulerConfiguration";
      if (*k == "ConfigMap") detail += " (to load a configuration stored in a ConfigMap, pass the data item's content)";
      Report(NotSupported("kind", Quote(*k), kinds, detail), kind->pos);
    }
    const std::vector<std::string> versions = {kApiVersionV1, kApiVersionV1beta3};
    if (!api_version) {
      Report(Required("apiVersion", "must be " + Quote(kApiVersionV1)), root.pos);
    } else if (av && *av != kApiVersionV1 && *av != kApiVersionV1beta3) {
      std::string detail = IsRetiredVersion(*av) ? "this KubeSchedulerConfiguration version is no longer supported"
                                                 : "unsupported KubeSchedulerConfiguration version";
      Report(NotSupported("apiVersion", Quote(*av), versions, detail), api_version->pos);
    }
    if (r_.error_count() != errors_before || !av || !k) return false;
    out_->config.api_version = *av;
    return true;
  }

  void Report(FieldError e, SourcePos pos) { r_.Fail(e.type, e.field, pos, e.detail); }

  void LeaderElection(const Value& v) {
    LeaderElectionConfiguration& le = out_->config.leader_election;
    MapReader m(&r_, v);
    ReadField(m, "leaderElect", [&](const Value& x) { le.leader_elect = r_.Bool(x); });
    ReadField(m, "leaseDuration",
              [&](const Value& x) { le.lease_duration = r_.Duration(x).value_or(util::Duration(0)); });
    ReadField(m, "renewDeadline",
              [&](const Value& x) { le.renew_deadline = r_.Duration(x).value_or(util::Duration(0)); });
    ReadField(m, "retryPeriod", [&](const Value& x) { le.retry_period = r_.Duration(x).value_or(util::Duration(0)); });
    ReadField(m, "resourceLock", [&](const Value& x) { le.resource_lock = r_.String(x).value_or(""); });
    ReadField(m, "resourceName", [&](const Value& x) { le.resource_name = r_.String(x).value_or(""); });
    ReadField(m, "resourceNamespace", [&](const Value& x) { le.resource_namespace = r_.String(x).value_or(""); });
    m.Finish();
  }

  void ClientConnection(const Value& v) {
    ClientConnectionConfiguration& cc = out_->config.client_connection;
    MapReader m(&r_, v);
    ReadField(m, "kubeconfig", [&](const Value& x) { cc.kubeconfig = r_.String(x).value_or(""); });
    ReadField(m, "acceptContentTypes", [&](const Value& x) { cc.accept_content_types = r_.String(x).value_or(""); });
    ReadField(m, "contentType", [&](const Value& x) { cc.content_type = r_.String(x).value_or(""); });
    ReadField(m, "qps", [&](const Value& x) {
      std::optional<double> q = r_.Float(x);
      if (q && (*q > std::numeric_limits<float>::max() || *q < -std::numeric_limits<float>::max())) {
        r_.Fail(ErrorType::kDecode, x.path, x.pos, "value " + x.node.Scalar() + " overflows a float32");
        return;
      }
      cc.qps = static_cast<float>(q.value_or(0));
    });
    ReadField(m, "burst", [&](const Value& x) { cc.burst = r_.Int32(x).value_or(0); });
    m.Finish();
  }

  KubeSchedulerProfile Profile(const Value& v, bool v1) {
    KubeSchedulerProfile p;
    MapReader m(&r_, v);
    ReadField(m, "schedulerName", [&](const Value& x) { p.scheduler_name = r_.String(x); });
    if (v1) {
      ReadField(m, "percentageOfNodesToScore", [&](const Value& x) { p.percentage_of_nodes_to_score = r_.Int32(x); });
    }
    ReadField(m, "plugins", [&](const Value& x) { p.plugins = PluginsField(x); });
    ReadField(m, "pluginConfig", [&](const Value& x) {
      for (const Value& item : r_.Items(x)) p.plugin_config.push_back(PluginConfigEntry(item));
    });
    m.Finish();
    return p;
  }

  Plugins PluginsField(const Value& v) {
    Plugins plugins;
    MapReader m(&r_, v);
    // Before its minor a field is unknown, as kube's strict decoding says.
    const int minor = CurrentConfigGates().schema_minor;
    for (const PluginsFieldDef& f : kPluginsFields) {
      if (minor < f.since_minor) continue;
      ReadField(m, f.name, [&](const Value& x) { plugins.*f.set = PluginSetField(x); });
    }
    m.Finish();
    return plugins;
  }

  PluginSet PluginSetField(const Value& v) {
    PluginSet set;
    MapReader m(&r_, v);
    ReadField(m, "enabled", [&](const Value& x) {
      for (const Value& item : r_.Items(x)) set.enabled.push_back(PluginEntry(item));
    });
    ReadField(m, "disabled", [&](const Value& x) {
      for (const Value& item : r_.Items(x)) set.disabled.push_back(PluginEntry(item));
    });
    m.Finish();
    return set;
  }

  Plugin PluginEntry(const Value& v) {
    Plugin p;
    p.origin = v.path;
    MapReader m(&r_, v);
    ReadField(m, "name", [&](const Value& x) { p.name = r_.String(x).value_or(""); });
    ReadField(m, "weight", [&](const Value& x) { p.weight = r_.Int32(x); });
    m.Finish();
    return p;
  }

  PluginConfig PluginConfigEntry(const Value& v) {
    PluginConfig pc;
    MapReader m(&r_, v);
    ReadField(m, "name", [&](const Value& x) { pc.name = r_.String(x).value_or(""); });
    std::optional<Value> args = m.Get("args");
    Value args_value = args ? *args : Value{YAML::Node(YAML::NodeType::Null), ChildPath(v.path, "args"), v.pos};
    pc.args = DecodePluginArgs(&r_, pc.name, out_->config.api_version, args_value, known_);
    m.Finish();
    return pc;
  }

  // Extenders are rejected by validation; only enough is read to name them.
  Extender ExtenderEntry(const Value& v) {
    Extender e;
    if (!v.node.IsMap()) {
      r_.TypeError(v, "a mapping");
      return e;
    }
    if (YAML::Node url = v.node["urlPrefix"]; url && url.IsScalar()) e.url_prefix = url.Scalar();
    return e;
  }

  DecodeResult* out_;
  const KnownPlugins& known_;
  YamlReader r_;
};

void SyntaxError(DecodeResult* out, const YAML::Exception& e) {
  FieldError err;
  err.type = ErrorType::kDecode;
  err.file = out->source.file();
  if (e.mark.line >= 0) err.pos = SourcePos{e.mark.line + 1, e.mark.column + 1};
  err.detail = "YAML syntax error: " + e.msg;
  out->errors.push_back(std::move(err));
}

// A document with text that is not UTF-8: one decode error at the first.
bool RejectInvalidUtf8(DecodeResult* out, const YAML::Node& doc) {
  std::optional<YAML::Mark> bad = FindInvalidUtf8(doc);
  if (!bad) return false;
  FieldError err;
  err.type = ErrorType::kDecode;
  err.file = out->source.file();
  if (bad->line >= 0) err.pos = SourcePos{bad->line + 1, bad->column + 1};
  err.detail = "YAML syntax error: invalid UTF-8 in a key or value";
  out->errors.push_back(std::move(err));
  return true;
}

std::vector<YAML::Node> NonEmptyDocuments(const std::vector<YAML::Node>& docs) {
  std::vector<YAML::Node> out;
  for (const YAML::Node& d : docs) {
    if (d.IsDefined() && !d.IsNull()) out.push_back(d);
  }
  return out;
}

}  // namespace

DecodeResult DecodeConfig(std::string_view text, std::string_view file_name, const KnownPlugins& known) {
  DecodeResult out;
  out.source = ConfigSource(std::string(file_name));
  std::vector<YAML::Node> docs;
  try {
    docs = NonEmptyDocuments(LoadDocuments(std::string(text)));
  } catch (const YAML::Exception& e) {
    SyntaxError(&out, e);
    return out;
  }
  if (docs.empty()) {
    FieldError err;
    err.type = ErrorType::kDecode;
    err.file = std::string(file_name);
    err.detail = "no KubeSchedulerConfiguration: the file is empty";
    out.errors.push_back(std::move(err));
    return out;
  }
  if (docs.size() > 1) {
    FieldError err;
    err.type = ErrorType::kDecode;
    err.file = std::string(file_name);
    err.pos = YamlReader::PosOf(docs[1]);
    err.detail = "the file holds " + std::to_string(docs.size()) +
                 " YAML documents; a scheduler configuration file must hold exactly one KubeSchedulerConfiguration";
    out.errors.push_back(std::move(err));
    return out;
  }
  if (RejectInvalidUtf8(&out, docs[0])) return out;
  Decoder(&out, known).Document(docs[0]);
  return out;
}

std::vector<DecodeResult> DecodeConfigDocuments(std::string_view text, std::string_view file_name,
                                                const KnownPlugins& known) {
  std::vector<DecodeResult> results;
  std::vector<YAML::Node> docs;
  try {
    docs = NonEmptyDocuments(LoadDocuments(std::string(text)));
  } catch (const YAML::Exception& e) {
    DecodeResult out;
    out.source = ConfigSource(std::string(file_name));
    SyntaxError(&out, e);
    results.push_back(std::move(out));
    return results;
  }
  for (const YAML::Node& doc : docs) {
    DecodeResult out;
    out.source = ConfigSource(std::string(file_name));
    if (!RejectInvalidUtf8(&out, doc)) Decoder(&out, known).Document(doc);
    results.push_back(std::move(out));
  }
  return results;
}

}  // namespace ksched::config
