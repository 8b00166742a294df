// FromJsonText (the fast typed decoder) against FromJson(ParseJson(text)):
// the same object or the same error, over the shared fixtures, hand-made
// edge cases and damaged copies of a real pod.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "pkg/api/codec.h"
#include "pkg/api/codec_fields.h"
#include "pkg/api/yaml.h"

namespace ksched::api {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kFixtures = "../shared/fixtures";

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// The slow path's answer: the decoded object re-encoded, or the error.
template <class T>
std::string SlowResult(std::string_view text) {
  util::StatusOr<json> j = ParseJson(text);
  if (!j.ok()) return "error: " + j.status().ToString();
  util::StatusOr<T> obj = FromJson<T>(*j);
  if (!obj.ok()) return "error: " + obj.status().ToString();
  return ToJson(*obj).dump();
}

template <class T>
std::string FastResult(std::string_view text) {
  util::StatusOr<T> obj = FromJsonText<T>(text);
  if (!obj.ok()) return "error: " + obj.status().ToString();
  return ToJson(*obj).dump();
}

// Whether the reader alone decodes `text` (no fallback to the tree).
template <class T>
bool TakesFastPath(std::string_view text) {
  JsonReader reader(text);
  T out;
  return reader.Peek() == '{' && ReadFast(reader, &out) && reader.AtEnd();
}

template <class T>
void ExpectSame(std::string_view text) {
  EXPECT_EQ(FastResult<T>(text), SlowResult<T>(text)) << text.substr(0, 300);
}

// Every document of every fixture (JSON and YAML, all folders) whose kind
// has a ksched type, serialized as the API server would send it.
struct Doc {
  std::string where;
  std::string kind;
  std::string text;
};

std::vector<Doc> FixtureDocs() {
  std::vector<Doc> docs;
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(kFixtures)) {
    const auto ext = e.path().extension();
    if (e.is_regular_file() && (ext == ".json" || ext == ".yaml")) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& path : files) {
    const std::string text = ReadFile(path);
    std::vector<json> parsed;
    if (path.extension() == ".json") {
      auto j = ParseJson(text);
      if (j.ok()) parsed.push_back(*j);
    } else {
      auto js = YamlDocumentsToJson(text);
      if (js.ok()) parsed = *js;
    }
    for (const json& j : parsed) {
      if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string()) continue;
      docs.push_back({path.string(), j["kind"].get<std::string>(), j.dump()});
      // The same object pretty-printed: whitespace everywhere.
      docs.push_back({path.string() + " (indented)", j["kind"].get<std::string>(), j.dump(2)});
    }
  }
  return docs;
}

TEST(FastDecodeTest, FixturesDecodeAsTheTreeDecoderDoes) {
  const std::vector<Doc> docs = FixtureDocs();
  ASSERT_GE(docs.size(), 50u);
  int compared = 0, fast = 0;
  for (const Doc& d : docs) {
    SCOPED_TRACE(d.where);
    bool took_fast = false;
    if (d.kind == "Pod") {
      ExpectSame<Pod>(d.text);
      took_fast = TakesFastPath<Pod>(d.text);
    } else if (d.kind == "Node") {
      ExpectSame<Node>(d.text);
      took_fast = TakesFastPath<Node>(d.text);
    } else if (d.kind == "PersistentVolume") {
      ExpectSame<PersistentVolume>(d.text);
      took_fast = TakesFastPath<PersistentVolume>(d.text);
    } else if (d.kind == "PersistentVolumeClaim") {
      ExpectSame<PersistentVolumeClaim>(d.text);
      took_fast = TakesFastPath<PersistentVolumeClaim>(d.text);
    } else if (d.kind == "Namespace") {
      ExpectSame<Namespace>(d.text);
      took_fast = TakesFastPath<Namespace>(d.text);
    } else if (d.kind == "StorageClass") {
      ExpectSame<StorageClass>(d.text);
      took_fast = TakesFastPath<StorageClass>(d.text);
    } else if (d.kind == "CSINode") {
      ExpectSame<CSINode>(d.text);
      took_fast = TakesFastPath<CSINode>(d.text);
    } else if (d.kind == "CSIDriver") {
      ExpectSame<CSIDriver>(d.text);
      took_fast = TakesFastPath<CSIDriver>(d.text);
    } else if (d.kind == "PodDisruptionBudget") {
      ExpectSame<PodDisruptionBudget>(d.text);
      took_fast = TakesFastPath<PodDisruptionBudget>(d.text);
    } else if (d.kind == "Lease") {
      ExpectSame<Lease>(d.text);
      took_fast = TakesFastPath<Lease>(d.text);
    } else if (d.kind == "Binding") {
      ExpectSame<Binding>(d.text);
      took_fast = TakesFastPath<Binding>(d.text);
    } else if (d.kind == "Event") {
      ExpectSame<Event>(d.text);
      took_fast = TakesFastPath<Event>(d.text);
    } else {
      continue;
    }
    ++compared;
    fast += took_fast ? 1 : 0;
  }
  EXPECT_GE(compared, 40);
  // Most fixtures are plain ASCII objects: the fast path must carry them,
  // or this test compares the slow path with itself.
  EXPECT_GE(fast * 2, compared) << fast << " of " << compared << " on the fast path";
  std::printf("%d of %d fixture objects on the fast path\n", fast, compared);
}

TEST(FastDecodeTest, SchedulerPerfTemplatesTakeTheFastPath) {
  for (const char* name : {"pod-default.yaml", "node-default.yaml", "pod-with-pod-affinity.yaml",
                           "pod-with-node-affinity.yaml"}) {
    SCOPED_TRACE(name);
    auto j = YamlToJson(ReadFile(kFixtures / "scheduler_perf/templates" / name));
    ASSERT_TRUE(j.ok()) << j.status().ToString();
    const std::string text = j->dump();
    if ((*j)["kind"] == "Pod") {
      EXPECT_TRUE(TakesFastPath<Pod>(text)) << text;
      ExpectSame<Pod>(text);
    } else {
      EXPECT_TRUE(TakesFastPath<Node>(text)) << text;
      ExpectSame<Node>(text);
    }
  }
}

const char* kPod = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns",
  "uid":"u-1","resourceVersion":"42","labels":{"app":"a","tier":"web"},
  "creationTimestamp":"2026-11-24T10:00:00Z","ownerReferences":[{"apiVersion":"apps/v1",
  "kind":"ReplicaSet","name":"rs","uid":"u-2","controller":true}]},
  "spec":{"schedulerName":"ksched","priority":100,"nodeSelector":{"zone":"a"},
  "containers":[{"name":"c","image":"pause","ports":[{"containerPort":80,"hostPort":8080,
  "protocol":"TCP"}],"resources":{"requests":{"cpu":"100m","memory":"500Mi"},
  "limits":{"cpu":"1"}}}],"tolerations":[{"key":"k","operator":"Exists","effect":"NoSchedule",
  "tolerationSeconds":300}],"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":
  [{"labelSelector":{"matchLabels":{"app":"a"}},"topologyKey":"kubernetes.io/hostname"}]}},
  "topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule",
  "labelSelector":{"matchExpressions":[{"key":"app","operator":"In","values":["a","b"]}]}}],
  "volumes":[{"name":"v","persistentVolumeClaim":{"claimName":"pvc"}},{"name":"e","emptyDir":{}}],
  "unknownField":{"deep":[1,2.5e3,-0.1,true,false,null,"s\n\t\"",{"x":[]}]}},
  "status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False",
  "lastProbeTime":null,"lastTransitionTime":"2026-11-24T10:00:01Z","reason":"Unschedulable"}]}})";

// An Event as kube-apiserver v1.37 answers ksched's create (events.k8s.io/v1:
// managedFields, an empty deprecatedSource and null deprecated timestamps
// included), and the same Event in core/v1 names, which only Decode maps.
const char* kEventV1 = R"({"kind":"Event","apiVersion":"events.k8s.io/v1","metadata":{"name":"p.1",
  "namespace":"ns","uid":"u-9","resourceVersion":"7","creationTimestamp":"2026-11-24T10:00:00Z",
  "managedFields":[{"manager":"ksched","operation":"Update","apiVersion":"events.k8s.io/v1",
  "time":"2026-11-24T10:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:action":{},"f:eventTime":{},
  "f:note":{},"f:reason":{},"f:regarding":{},"f:reportingController":{},"f:reportingInstance":{},"f:type":{}}}]},
  "eventTime":"2026-11-24T10:00:00.123456Z","series":{"count":3,"lastObservedTime":"2026-11-24T10:00:05.000001Z"},
  "reportingController":"ksched","reportingInstance":"ksched-host","action":"Binding","reason":"Scheduled",
  "regarding":{"kind":"Pod","namespace":"ns","name":"p","uid":"u-1"},"note":"Successfully assigned ns/p to n1",
  "type":"Normal","deprecatedSource":{},"deprecatedFirstTimestamp":null,"deprecatedLastTimestamp":null})";
const char* kEventCore = R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"p.1","namespace":"ns"},
  "involvedObject":{"kind":"Pod","namespace":"ns","name":"p"},"message":"Successfully assigned ns/p to n1",
  "reason":"Scheduled","source":{"component":"ksched","host":"h"},"count":2,"type":"Normal",
  "firstTimestamp":"2026-11-24T10:00:00Z","lastTimestamp":"2026-11-24T10:00:09Z"})";

TEST(FastDecodeTest, EventsV1TakeTheFastPathCoreNamesGoToDecode) {
  EXPECT_TRUE(TakesFastPath<Event>(kEventV1));
  ExpectSame<Event>(kEventV1);
  util::StatusOr<Event> e = FromJsonText<Event>(kEventV1);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->metadata.name, "p.1");
  EXPECT_EQ(e->regarding.name, "p");
  ASSERT_TRUE(e->series.has_value());
  EXPECT_EQ(e->series->count, 3);

  // Any core/v1 name sends the object to Decode, which maps them; the
  // result is Decode's.
  EXPECT_FALSE(TakesFastPath<Event>(kEventCore));
  ExpectSame<Event>(kEventCore);
  util::StatusOr<Event> core = FromJsonText<Event>(kEventCore);
  ASSERT_TRUE(core.ok()) << core.status().ToString();
  EXPECT_EQ(core->regarding.name, "p");
  EXPECT_EQ(core->note, "Successfully assigned ns/p to n1");
  EXPECT_EQ(core->deprecated_count, 2);
  EXPECT_EQ(core->deprecated_source_component, "ksched");

  // deprecatedSource is read on the fast path; named twice, the last one
  // counts whole, as in the DOM.
  std::string with_source = kEventV1;
  with_source.replace(with_source.find(R"("deprecatedSource":{})"), 21,
                      R"("deprecatedSource":{"component":"c","host":"h"})");
  EXPECT_TRUE(TakesFastPath<Event>(with_source));
  ExpectSame<Event>(with_source);
  EXPECT_EQ(FromJsonText<Event>(with_source)->deprecated_source_component, "c");
  EXPECT_EQ(FromJsonText<Event>(with_source)->deprecated_source_host, "h");
  const std::string twice = std::string(kEventV1).insert(1, R"("deprecatedSource":{"component":"c"},)");
  ExpectSame<Event>(twice);
  EXPECT_EQ(FromJsonText<Event>(twice)->deprecated_source_component, "");
}

TEST(FastDecodeTest, ARichPodTakesTheFastPathAndMatches) {
  EXPECT_TRUE(TakesFastPath<Pod>(kPod));
  ExpectSame<Pod>(kPod);
  util::StatusOr<Pod> pod = FromJsonText<Pod>(kPod);
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  EXPECT_EQ(pod->metadata.name, "p");
  EXPECT_EQ(pod->metadata.resource_version, "42");
  ASSERT_EQ(pod->spec.containers.size(), 1u);
  EXPECT_EQ(pod->spec.containers[0].resources.requests.at("cpu").MilliValue(), 100);
  ASSERT_EQ(pod->spec.volumes.size(), 2u);
}

// A volume of a source ksched keeps by name only (every admitted pod's
// projected token) is read on the fast path; several such sources, or one
// that is not an object, are the tree decoder's to decide.
TEST(FastDecodeTest, VolumesOfOtherSourcesTakeTheFastPath) {
  const std::string projected = R"({"name":"kube-api-access-x","projected":{"defaultMode":420,"sources":[
    {"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},
    {"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}}]}})";
  const std::vector<std::pair<std::string, bool>> cases = {
      // {volume, expected to take the fast path}
      {projected, true},
      {R"({"name":"v","persistentVolumeClaim":{"claimName":"pvc"},"emptyDir":null})", true},
      {R"({"name":"v","csi":{"driver":"d"}})", true},
      {R"({"name":"v","secret":{"secretName":"s"},"configMap":{"name":"c"}})", false},  // Decode picks
      {R"({"name":"v","hostPath":"/x"})", false},
      {R"({"name":"v","emptyDir":nul})", false},
  };
  for (const auto& [volume, fast] : cases) {
    SCOPED_TRACE(volume);
    EXPECT_EQ(TakesFastPath<Volume>(volume), fast);
    const std::string pod = R"({"kind":"Pod","spec":{"volumes":[)" + volume + "]}}";
    ExpectSame<Pod>(pod);
  }
  util::StatusOr<Pod> pod = FromJsonText<Pod>(R"({"spec":{"volumes":[)" + projected + "]}}");
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  EXPECT_EQ(pod->spec.volumes.at(0).other_source, "projected");
  EXPECT_EQ(FromJsonText<Pod>(R"({"spec":{"volumes":[{"secret":{},"configMap":{}}]}})")->spec.volumes.at(0).other_source,
            "configMap");
}

// Valid JSON the reader hands to the tree decoder, and invalid JSON or
// invalid objects: the answer (object or error message) is the tree's.
TEST(FastDecodeTest, UnusualAndBadInputGiveTheTreeDecodersAnswer) {
  const std::vector<std::pair<std::string, bool>> cases = {
      // {text, expected to take the fast path}
      {R"({"metadata":{"name":"p\u00e9"}})", false},                  // \u escape
      {"{\"metadata\":{\"name\":\"p\xc3\xa9\"}}", false},              // UTF-8
      {R"({"metadata":{"name":"a"},"metadata":{"namespace":"b"}})", false},  // repeated field
      {R"({"metadata":{"labels":{"a":"1","a":"2"}}})", false},        // repeated map key
      {R"({"spec":{"containers":[{"resources":{"requests":{"cpu":2}}}]}})", false},  // number quantity
      {R"({"spec":{"containers":[{"resources":{"requests":{"cpu":0.5}}}]}})", false},
      {R"({"spec":{"priority":1.0}})", false},                        // float for an int
      {R"({"spec":{"priority":1e2}})", false},
      {R"({"spec":{"priority":4294967296}})", false},                 // out of int32 range
      {R"({"spec":{"priority":"high"}})", false},                     // wrong type
      {R"({"spec":{"containers":{}}})", false},
      {R"({"metadata":{"creationTimestamp":"yesterday"}})", false},   // bad time
      {R"({"spec":{"containers":[{"resources":{"requests":{"cpu":"lots"}}}]}})", false},
      {R"({"spec":{"containers":[{"ports":[{"containerPort":"80"}]}]}})", false},
      {R"({"metadata":{"name":"p"}} trailing)", false},               // trailing bytes
      {R"({"metadata":{"name":"p"},})", false},                       // trailing comma
      {R"({"spec":{"nodeSelector":[1,]}})", false},
      {R"({"metadata":{"name":"p")", false},                          // truncated
      {R"({"metadata":{"name":"p"}, "x": 01})", false},               // leading zero
      {R"({"x": -})", false},
      {R"({"x": tru})", false},
      {R"({"metadata":{"name":"p"},"x":1e400})", false},            // unknown number beyond a double
      {R"({"metadata":{"name":"p"},"x":[-1.5e309]})", false},
      {"{\"metadata\":{\"name\":\"p\"},\"x\":" + std::string(400, '9') + "}", false},
      {R"({"metadata":{"name":"p"},"x":[1.5e300,-0.0,18446744073709551615]})", true},
      {"{\"metadata\":{\"name\":\"a\tb\"}}", false},                  // raw control char
      {R"([])", false},                                               // not an object
      {R"(null)", false},
      {"", false},
      {R"({"metadata":null,"spec":null,"status":null})", true},       // null is absent
      {R"({"spec":{"containers":[null,{"name":"c"}],"nodeSelector":{"a":null}}})", true},
      {R"({"spec":{"priority":-2147483648,"overhead":{"cpu":"1"}}})", true},
      {R"({"metadata":{"name":"a\"b\\c\/d\b\f\n\r\t"}})", true},      // simple escapes
      {" \n\t{ \"metadata\" : { \"name\" : \"p\" } } \r\n", true},     // whitespace
  };
  for (const auto& [text, fast] : cases) {
    SCOPED_TRACE(text);
    EXPECT_EQ(TakesFastPath<Pod>(text), fast);
    ExpectSame<Pod>(text);
  }
  // Unknown fields nested deeper than the reader goes: the tree decides.
  std::string deep = R"({"x":)" + std::string(300, '[') + std::string(300, ']') + "}";
  EXPECT_FALSE(TakesFastPath<Pod>(deep));
  ExpectSame<Pod>(deep);
}

// Every prefix of a pod, and copies with one byte replaced: never a crash,
// always the tree decoder's answer.
TEST(FastDecodeTest, DamagedPodsGiveTheTreeDecodersAnswer) {
  const std::string text = ParseJson(kPod)->dump();
  for (size_t n = 0; n < text.size(); ++n) ExpectSame<Pod>(std::string_view(text).substr(0, n));
  for (size_t i = 0; i < text.size(); i += 3) {
    for (char c : {'"', '}', ']', ',', ':', '1', 'x', '\\', ' ', 'n', '{', '-'}) {
      std::string damaged = text;
      damaged[i] = c;
      ExpectSame<Pod>(damaged);
    }
  }
}

}  // namespace
}  // namespace ksched::api
