#include "test/bench/workload.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <fstream>
#include <sstream>

#include "pkg/api/codec.h"
#include "pkg/api/types.h"
#include "pkg/api/yaml.h"

namespace ksched::bench {

using nlohmann::json;

namespace {

util::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return util::NotFound("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Reads a template and checks that the typed codec decodes it as its kind.
util::StatusOr<json> LoadTemplate(const std::filesystem::path& dir, const std::string& rel) {
  const std::string path = (dir / rel).lexically_normal().string();
  util::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  util::StatusOr<json> obj = api::YamlToJson(*text);
  if (!obj.ok()) return util::InvalidArgument(path + ": " + obj.status().message());
  if (!obj->is_object()) return util::InvalidArgument(path + ": not an object");
  const std::string kind = obj->value("kind", "");
  util::Status decoded;
  if (kind == "Pod") {
    decoded = api::FromJson<api::Pod>(*obj).status();
  } else if (kind == "Node") {
    decoded = api::FromJson<api::Node>(*obj).status();
  } else if (kind == "Namespace") {
    decoded = api::FromJson<api::Namespace>(*obj).status();
  } else {
    return util::InvalidArgument(path + ": kind " + kind + " is not supported by this harness");
  }
  if (!decoded.ok()) return util::InvalidArgument(path + ": " + decoded.message());
  return std::move(obj).value();
}

// `count` or `countParam: $name` of an op; sets `why` when neither resolves.
int64_t ResolveCount(const json& op, const json& params, std::string* why) {
  if (op.contains("countParam")) {
    std::string p = op["countParam"].get<std::string>();
    if (!p.empty() && p[0] == '$') p = p.substr(1);
    if (!params.is_object() || !params.contains(p) || !params[p].is_number_integer()) {
      *why = "parameter " + p + " is not set";
      return 0;
    }
    return params[p].get<int64_t>();
  }
  if (op.contains("count") && op["count"].is_number_integer()) return op["count"].get<int64_t>();
  return 0;
}

// Options scheduler_perf supports on the ops we run, which we do not.
std::string UnsupportedOptions(const json& op) {
  for (const char* k : {"steadyState", "persistentVolumeTemplatePath", "persistentVolumeClaimTemplatePath",
                        "nodeAllocatableStrategy", "podTemplatePaths"}) {
    if (op.contains(k)) return std::string("option ") + k + " is not supported";
  }
  return "";
}

util::StatusOr<Op> ParseOp(const json& raw, int index, const json& params, const std::filesystem::path& dir,
                           const std::string& default_pod_template) {
  Op op;
  op.index = index;
  const std::string opcode = raw.value("opcode", "");
  std::string why;
  if (opcode == "createNodes") {
    op.opcode = Opcode::kCreateNodes;
    op.count = ResolveCount(raw, params, &why);
    if (raw.contains("nodeTemplatePath")) {
      util::StatusOr<json> t = LoadTemplate(dir, raw["nodeTemplatePath"].get<std::string>());
      if (!t.ok()) return t.status();
      op.object_template = std::move(t).value();
    } else {
      op.object_template = BaseNodeTemplate();
    }
    if (raw.contains("labelNodePrepareStrategy")) {
      const json& s = raw["labelNodePrepareStrategy"];
      op.label_key = s.value("labelKey", "");
      if (s.contains("labelValues")) op.label_values = s["labelValues"].get<std::vector<std::string>>();
    }
    if (raw.contains("uniqueNodeLabelStrategy")) {
      op.unique_label_key = raw["uniqueNodeLabelStrategy"].value("labelKey", "");
    }
  } else if (opcode == "createNamespaces") {
    op.opcode = Opcode::kCreateNamespaces;
    op.count = ResolveCount(raw, params, &why);
    op.prefix = raw.value("prefix", "namespace");
    if (raw.contains("namespaceTemplatePath")) {
      util::StatusOr<json> t = LoadTemplate(dir, raw["namespaceTemplatePath"].get<std::string>());
      if (!t.ok()) return t.status();
      op.object_template = std::move(t).value();
    } else {
      op.object_template = json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", json::object()}};
    }
  } else if (opcode == "createPods") {
    op.opcode = Opcode::kCreatePods;
    op.count = ResolveCount(raw, params, &why);
    std::string path = raw.value("podTemplatePath", default_pod_template);
    if (path.empty()) {
      op.object_template = BasePodTemplate();
    } else {
      util::StatusOr<json> t = LoadTemplate(dir, path);
      if (!t.ok()) return t.status();
      op.object_template = std::move(t).value();
    }
    op.namespace_ = raw.value("namespace", "namespace-" + std::to_string(index));
    op.collect_metrics = raw.value("collectMetrics", false);
    op.skip_wait = raw.value("skipWaitToCompletion", false);
  } else if (opcode == "churn") {
    op.opcode = Opcode::kChurn;
    op.namespace_ = "namespace-" + std::to_string(index);
    if (raw.value("mode", "") != "create") why = "churn mode " + raw.value("mode", "") + " is not supported";
    op.interval = std::chrono::milliseconds(raw.value("intervalMilliseconds", 500));
    op.number = raw.value("number", 0);
    if (raw.contains("templatePaths")) {
      for (const auto& p : raw["templatePaths"]) {
        util::StatusOr<json> t = LoadTemplate(dir, p.get<std::string>());
        if (!t.ok()) {
          why = t.status().message();
          break;
        }
        op.churn_templates.push_back(std::move(t).value());
      }
    }
  } else if (opcode == "barrier") {
    op.opcode = Opcode::kBarrier;
  } else if (opcode == "sleep") {
    op.opcode = Opcode::kSleep;
    // scheduler_perf writes Go durations ("5s"); seconds and milliseconds
    // are enough for the files we read.
    const std::string d = raw.value("duration", "0s");
    double v = std::atof(d.c_str());
    op.duration = d.ends_with("ms") ? std::chrono::duration_cast<util::Duration>(std::chrono::duration<double, std::milli>(v))
                                    : std::chrono::duration_cast<util::Duration>(std::chrono::duration<double>(v));
  } else {
    op.unsupported = "opcode " + opcode + " is not supported";
    return op;
  }
  if (why.empty()) why = UnsupportedOptions(raw);
  op.unsupported = why;
  return op;
}

}  // namespace

int64_t Workload::MeasuredPods() const {
  int64_t n = 0;
  for (const Op& op : ops) {
    if (op.opcode == Opcode::kCreatePods && op.collect_metrics) n += op.count;
  }
  return n;
}

Workload Workload::Scaled(double fraction) const {
  Workload w = *this;
  for (Op& op : w.ops) {
    if (op.count > 0 && op.opcode != Opcode::kCreateNamespaces) {
      op.count = std::max<int64_t>(1, static_cast<int64_t>(std::llround(static_cast<double>(op.count) * fraction)));
    }
  }
  return w;
}

bool Workload::MayPreempt() const {
  std::set<int64_t> priorities;
  auto priority_of = [](const nlohmann::json& t) -> int64_t {
    if (!t.is_object() || !t.contains("spec") || !t["spec"].is_object()) return 0;
    const nlohmann::json& p = t["spec"].value("priority", nlohmann::json());
    return p.is_number_integer() ? p.get<int64_t>() : 0;
  };
  for (const Op& op : ops) {
    if (op.opcode == Opcode::kCreatePods) priorities.insert(priority_of(op.object_template));
    for (const nlohmann::json& t : op.churn_templates) priorities.insert(priority_of(t));
  }
  return priorities.size() > 1;
}

bool Workload::UsesResourceClaims() const {
  for (const Op& op : ops) {
    if (op.opcode == Opcode::kCreatePods && op.claims_from_templates) return true;
    if (op.opcode == Opcode::kCreateAny && op.object_template.value("kind", "") == "ResourceClaim") return true;
  }
  return false;
}

std::string Workload::Unsupported() const {
  for (const Op& op : ops) {
    if (!op.unsupported.empty()) return op.unsupported;
  }
  return "";
}

util::StatusOr<std::vector<Workload>> LoadTestCases(const std::string& path) {
  util::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  util::StatusOr<json> doc = api::YamlToJson(*text);
  if (!doc.ok()) return util::InvalidArgument(path + ": " + doc.status().message());
  if (!doc->is_array()) return util::InvalidArgument(path + ": expected a list of test cases");
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  std::vector<Workload> out;
  for (const json& tc : *doc) {
    const std::string tc_name = tc.value("name", "");
    const std::string default_pod = tc.value("defaultPodTemplatePath", "");
    if (!tc.contains("workloads") || !tc.contains("workloadTemplate")) continue;
    for (const json& wl : tc["workloads"]) {
      Workload w;
      w.test_case = tc_name;
      w.name = wl.value("name", "");
      if (wl.contains("labels")) w.labels = wl["labels"].get<std::vector<std::string>>();
      if (wl.contains("threshold") && wl["threshold"].is_number()) w.threshold = wl["threshold"].get<double>();
      if (wl.contains("featureGates") && wl["featureGates"].is_object()) {
        for (const auto& [k, v] : wl["featureGates"].items()) {
          if (v.is_boolean()) w.feature_gates[k] = v.get<bool>();
        }
      }
      const json params = wl.value("params", json::object());
      int index = 0;
      for (const json& raw : tc["workloadTemplate"]) {
        util::StatusOr<Op> op = ParseOp(raw, index++, params, dir, default_pod);
        if (!op.ok()) return util::InvalidArgument(w.FullName() + ": " + op.status().message());
        w.ops.push_back(std::move(op).value());
      }
      out.push_back(std::move(w));
    }
  }
  return out;
}

json BaseNodeTemplate() {
  return json{{"apiVersion", "v1"},
              {"kind", "Node"},
              {"metadata", {{"generateName", "scheduler-perf-"}}},
              {"spec", json::object()},
              {"status",
               {{"capacity", {{"pods", "110"}, {"cpu", "4"}, {"memory", "32Gi"}}},
                {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})},
                {"phase", "Running"}}}};
}

json BasePodTemplate() {
  const json resources = {{"cpu", "100m"}, {"memory", "500Mi"}};
  return json{{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"generateName", "pod-"}}},
              {"spec",
               {{"containers", json::array({{{"name", "pause"},
                                             {"image", "registry.k8s.io/pause:3.10.1"},
                                             {"ports", json::array({{{"containerPort", 80}}})},
                                             {"resources", {{"limits", resources}, {"requests", resources}}}}})}}}};
}

}  // namespace ksched::bench
