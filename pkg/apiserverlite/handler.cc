#include "pkg/apiserverlite/handler.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <future>
#include <memory>

#include "pkg/apiserverlite/crd.h"
#include "pkg/apiserverlite/defaulting.h"
#include "pkg/apiserverlite/event_conversion.h"
#include "pkg/apiserverlite/meta.h"
#include "pkg/apiserverlite/openapi.h"
#include "pkg/apiserverlite/patch.h"
#include "pkg/apiserverlite/protobuf.h"
#include "pkg/apiserverlite/selector.h"
#include "pkg/apiserverlite/table.h"

namespace ksched::apiserver {

namespace {

using nlohmann::json;

constexpr const char* kSystemNamespaces[] = {"default", "kube-system", "kube-public",
                                             "kube-node-lease"};

ApiResponse ErrorResponse(const ApiError& e) {
  ApiResponse r;
  r.code = e.code;
  r.body = e.ToStatus().dump();
  if (e.code == 429 || e.code == 504) r.headers.emplace_back("Retry-After", "1");
  return r;
}

ApiResponse JsonResponse(int code, const json& j) {
  ApiResponse r;
  r.code = code;
  r.body = j.dump();
  return r;
}

ApiError PathNotFound() {
  return {404, "NotFound", "the server could not find the requested resource", json::object()};
}

ApiError MethodNotAllowed() {
  return MethodNotAllowedError("the server does not allow this method on the requested resource");
}

std::vector<std::string> SplitPath(const std::string& path) {
  std::vector<std::string> segs;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    if (slash > start) segs.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return segs;
}

std::string Query(const ApiRequest& r, const char* key) {
  auto it = r.query.find(key);
  return it == r.query.end() ? "" : it->second;
}

bool QueryTrue(const ApiRequest& r, const char* key) {
  std::string v = Query(r, key);
  return v == "true" || v == "1" || v == "True";
}

bool IsWatchRequest(const ApiRequest& r) {
  return QueryTrue(r, "watch") || r.path.find("/watch/") != std::string::npos;
}

// A non-negative integer query parameter: 0 when absent, 400 when malformed.
ApiResult<int64_t> QueryInt(const ApiRequest& r, const char* key) {
  std::string v = Query(r, key);
  if (v.empty()) return int64_t{0};
  int64_t out = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || ptr != v.data() + v.size() || out < 0) {
    return BadRequestError(fmt::format("invalid {} \"{}\": must be a non-negative integer", key, v));
  }
  return out;
}

ApiResult<uint64_t> QueryResourceVersion(const ApiRequest& r) {
  std::string v = Query(r, "resourceVersion");
  auto rv = ParseResourceVersion(v);
  if (!rv) return BadRequestError(fmt::format("invalid resource version: \"{}\"", v));
  return *rv;
}

ApiResult<json> ParseBody(const std::string& body) {
  if (body.empty()) return BadRequestError("the body of the request was empty");
  try {
    return json::parse(body);
  } catch (const json::parse_error& e) {
    return BadRequestError(fmt::format("couldn't get version/kind; json parse error: {}",
                                       e.what()));
  }
}

bool IsJsonMediaType(const std::string& content_type);

// An object body: JSON, or protobuf for the kinds protobuf.h decodes.
ApiResult<json> ParseObjectBody(const ApiRequest& request) {
  if (IsProtobufContentType(request.content_type)) return DecodeProtobufObject(request.body);
  if (!IsJsonMediaType(request.content_type)) {
    return UnsupportedMediaTypeError(request.content_type);
  }
  return ParseBody(request.body);
}

bool IsJsonMediaType(const std::string& content_type) {
  std::string media = content_type.substr(0, content_type.find(';'));
  media.erase(std::remove(media.begin(), media.end(), ' '), media.end());
  return media.empty() || media == "application/json" || media == "*/*";
}

// Whether a response in JSON is acceptable to the client.
bool AcceptsJson(const std::string& accept) {
  if (accept.empty()) return true;
  return accept.find("json") != std::string::npos || accept.find("*/*") != std::string::npos;
}

std::string ListKind(const ResourceInfo& info) { return info.kind + "List"; }

json MetaField(const json& obj, const char* field) {
  auto m = obj.find("metadata");
  if (m == obj.end() || !m->is_object()) return json();
  auto f = m->find(field);
  return f == m->end() ? json() : *f;
}

}  // namespace

// ----------------------------------------------------------------- PendingWatch

PendingWatch::PendingWatch(ObjectStore& store, WatchOptions options, TimerQueue& timers,
                           util::Duration timeout)
    : store_(store), options_(std::move(options)), timers_(timers), timeout_(timeout) {}

void PendingWatch::Start(std::shared_ptr<WatchSink> sink) {
  ApiResult<uint64_t> id = store_.Watch(options_, sink);
  if (!id.ok()) {
    sink->Write(WatchLine(EventType::kError, id.error().ToStatus().dump()));
    sink->Close();
    return;
  }
  std::lock_guard<std::mutex> l(mu_);
  if (stopped_) {
    store_.StopWatch(id.value());
    return;
  }
  watcher_id_ = id.value();
  ObjectStore* store = &store_;
  uint64_t wid = watcher_id_;
  timer_id_ = timers_.ScheduleAfter(timeout_, [store, wid] { store->StopWatch(wid); });
}

void PendingWatch::Stop() {
  uint64_t id = 0, timer = 0;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stopped_) return;
    stopped_ = true;
    id = watcher_id_;
    timer = timer_id_;
  }
  if (id != 0) store_.StopWatch(id);
  if (timer != 0) timers_.Cancel(timer);
}

// ------------------------------------------------------------------- ApiHandler

ApiHandler::ApiHandler(ServerOptions options, util::Clock& clock)
    : options_(std::move(options)),
      clock_(clock),
      table_(ResourceTable::Default()),
      snapshots_(options_.list_snapshots),
      timers_(clock),
      rng_(std::random_device{}()) {
  for (const ResourceInfo* info : table_.resources()) {
    if (!info->storage_plural.empty()) continue;
    EnsureStore(*info);
  }
  StoreFor(*table_.Find("apiextensions.k8s.io", "v1", "customresourcedefinitions"))
      .AddObserver([this](const EventPtr& event) { OnCrdEvent(event); });
  util::WallTime now = clock_.WallNow();
  const ResourceInfo* ns_info = table_.Find("", "v1", "namespaces");
  for (const char* ns : kSystemNamespaces) {
    auto obj = PrepareForCreate(*ns_info, {{"metadata", {{"name", ns}}}}, "", now);
    StoreFor(*ns_info).Create(std::move(obj.value()));
  }
  const ResourceInfo* pc_info = table_.Find("scheduling.k8s.io", "v1", "priorityclasses");
  const std::pair<const char*, int64_t> kSystemClasses[] = {
      {"system-node-critical", 2000001000}, {"system-cluster-critical", 2000000000}};
  for (const auto& [name, value] : kSystemClasses) {
    auto obj = PrepareForCreate(*pc_info,
                                {{"metadata", {{"name", name}}},
                                 {"value", value},
                                 {"description", "Used for system critical pods."}},
                                "", now);
    StoreFor(*pc_info).Create(std::move(obj.value()));
  }
  timers_.SchedulePeriodic(options_.bookmark_interval, [this] {
    for (ObjectStore* store : AllStores()) store->SendBookmarks();
  });
  if (options_.fault_drop_watches_every > util::Duration::zero()) {
    timers_.SchedulePeriodic(options_.fault_drop_watches_every, [this] {
      for (ObjectStore* store : AllStores()) store->CloseWatchers();
    });
  }
  if (options_.fault_compact_every > util::Duration::zero()) {
    timers_.SchedulePeriodic(options_.fault_compact_every, [this] {
      for (ObjectStore* store : AllStores()) store->Compact();
      snapshots_.Clear();
    });
  }
}

ApiHandler::~ApiHandler() { Shutdown(); }

void ApiHandler::Shutdown() {
  timers_.Stop();
  CloseWatchStreams();
}

void ApiHandler::CloseWatchStreams() {
  for (ObjectStore* store : AllStores()) store->CloseWatchers();
}

void ApiHandler::ExpireWatches() {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> expired = done->get_future();
  timers_.ScheduleAfter(util::Duration::zero(), [this, done] {
    rv_clock_.Next();
    for (ObjectStore* store : AllStores()) store->Compact();
    snapshots_.Clear();
    CloseWatchStreams();
    done->set_value();
  });
  expired.wait();
}

void ApiHandler::set_server_address(std::string address) {
  std::lock_guard<std::mutex> l(mu_);
  server_address_ = std::move(address);
}

ObjectStore* ApiHandler::store(const std::string& storage_key) const {
  std::lock_guard<std::mutex> l(stores_mu_);
  auto it = stores_.find(storage_key);
  return it == stores_.end() ? nullptr : it->second.get();
}

std::vector<ObjectStore*> ApiHandler::AllStores() const {
  std::lock_guard<std::mutex> l(stores_mu_);
  std::vector<ObjectStore*> out;
  out.reserve(stores_.size());
  for (const auto& [key, store] : stores_) out.push_back(store.get());
  return out;
}

ObjectStore& ApiHandler::EnsureStore(const ResourceInfo& info) {
  std::lock_guard<std::mutex> l(stores_mu_);
  auto& slot = stores_[info.StorageKey()];
  if (!slot) {
    slot = std::make_unique<ObjectStore>(info.QualifiedResource(), rv_clock_,
                                         options_.watch_history);
  }
  return *slot;
}

void ApiHandler::OnCrdEvent(const EventPtr& event) {
  const json& crd = event->object()->object;
  const json spec = crd.value("spec", json::object());
  const std::string group = spec.is_object() ? spec.value("group", "") : "";
  const json names = spec.is_object() ? spec.value("names", json::object()) : json();
  const std::string plural = names.is_object() ? names.value("plural", "") : "";
  if (event->type() == EventType::kDeleted) {
    ObjectStore* objects = nullptr;
    for (const ResourceInfo* info : table_.resources()) {
      if (info->group == group && info->plural == plural && table_.IsCustom(*info)) {
        objects = store(info->StorageKey());
        break;
      }
    }
    table_.UnregisterCustom(group, plural);
    if (objects == nullptr) return;
    // The objects go with their definition, finalizers or not.
    const std::string ts = FormatTime(clock_.WallNow());
    for (const auto& obj : objects->List("", nullptr).items) {
      auto deleted = objects->Delete(obj->key, nullptr, ts);
      if (deleted.ok() && !deleted.value().deleted) {
        objects->Update(obj->key, [](const json& current) -> ApiResult<json> {
          json next = current;
          next["metadata"].erase("finalizers");
          next["metadata"].erase("deletionGracePeriodSeconds");
          return next;
        });
      }
    }
    objects->CloseWatchers();
    return;
  }
  if (event->previous() && event->previous()->object.value("spec", json()) == spec) return;
  auto resources = CustomResourcesOf(crd);
  if (!resources.ok()) return;  // validated on write; an older invalid version stays unserved
  EnsureStore(resources.value().front());
  table_.RegisterCustom(std::move(resources.value()));
}

const ResourceInfo& ApiHandler::StorageInfo(const ResourceInfo& info) const {
  if (info.storage_plural.empty()) return info;
  for (const ResourceInfo* r : table_.resources()) {
    if (r->group == info.storage_group && r->plural == info.storage_plural &&
        r->storage_plural.empty()) {
      return *r;
    }
  }
  return info;
}

ObjectStore& ApiHandler::StoreFor(const ResourceInfo& info) const {
  ObjectStore* s = store(info.StorageKey());
  if (s == nullptr) throw std::logic_error("no store for " + info.StorageKey());
  return *s;
}

json ApiHandler::ToServed(const ResourceInfo& info, const json& stored) const {
  if (info.storage_plural.empty()) return stored;
  if (info.group == "events.k8s.io") return CoreEventToEventsV1(stored);
  // Another version of a custom resource (conversion strategy None).
  json served = stored;
  served["apiVersion"] = info.ApiVersion();
  return served;
}

json ApiHandler::ToStored(const ResourceInfo& info, const json& served) const {
  if (info.storage_plural.empty()) return served;
  if (info.group == "events.k8s.io") return EventsV1ToCoreEvent(served);
  json stored = served;
  stored["apiVersion"] = StorageInfo(info).ApiVersion();
  return stored;
}

std::string ApiHandler::Serialize(const ResourceInfo& info, const ObjectPtr& obj) const {
  if (info.storage_plural.empty()) return obj->serialized;
  return ToServed(info, obj->object).dump(-1, ' ', false, json::error_handler_t::replace);
}

ApiResponse ApiHandler::ObjectResponse(int code, const ResourceInfo& info,
                                       const ObjectPtr& obj) const {
  ApiResponse r;
  r.code = code;
  r.body = Serialize(info, obj);
  return r;
}

bool ApiHandler::InjectFault(double rate) {
  if (rate <= 0) return false;
  std::lock_guard<std::mutex> l(mu_);
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng_) < rate;
}

ApiResponse ApiHandler::Handle(const ApiRequest& request) {
  try {
    std::string path = request.path;
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    if (path == "/healthz" || path == "/livez" || path == "/readyz" ||
        path.rfind("/healthz/", 0) == 0 || path.rfind("/livez/", 0) == 0 ||
        path.rfind("/readyz/", 0) == 0) {
      ApiResponse r;
      r.content_type = "text/plain; charset=utf-8";
      r.body = "ok";
      return r;
    }
    if (path == "/version") {
      return JsonResponse(200, {{"major", "1"},
                                {"minor", "34"},
                                {"gitVersion", options_.git_version},
                                {"gitCommit", "0000000000000000000000000000000000000000"},
                                {"gitTreeState", "clean"},
                                {"buildDate", "2026-01-01T00:00:00Z"},
                                {"goVersion", "none"},
                                {"compiler", "gcc"},
                                {"platform", "linux/amd64"}});
    }
    if (path == "/openapi/v3") return JsonResponse(200, OpenApiV3Index(table_));
    if (path.rfind("/openapi/v3/", 0) == 0) {
      std::vector<std::string> segs = SplitPath(path.substr(strlen("/openapi/v3")));
      json doc;
      if (segs.size() == 2 && segs[0] == "api") doc = OpenApiV3Document(table_, "", segs[1]);
      if (segs.size() == 3 && segs[0] == "apis") {
        doc = OpenApiV3Document(table_, segs[1], segs[2]);
      }
      return doc.is_null() ? ErrorResponse(PathNotFound()) : JsonResponse(200, doc);
    }
    if (path == "/") {
      return JsonResponse(200, {{"paths",
                                 {"/api", "/api/v1", "/apis", "/healthz", "/livez", "/readyz",
                                  "/version"}}});
    }
    if (path == "/api" || path == "/apis" || path.rfind("/api/", 0) == 0 ||
        path.rfind("/apis/", 0) == 0) {
      if (!IsWatchRequest(request)) {
        if (InjectFault(options_.fault_error_rate)) {
          return ErrorResponse(InternalError("injected fault"));
        }
        if (InjectFault(options_.fault_429_rate)) return ErrorResponse(TooManyRequestsError());
      }
      if (!AcceptsJson(request.accept)) {
        return ErrorResponse(NotAcceptableError(
            "only the following media types are accepted: application/json"));
      }
      return HandleApi(request, path);
    }
    return ErrorResponse(PathNotFound());
  } catch (const std::exception& e) {
    return ErrorResponse(InternalError(e.what()));
  }
}

ApiResponse ApiHandler::HandleApi(const ApiRequest& request, const std::string& path) {
  std::vector<std::string> segs = SplitPath(path);
  std::string group, version;
  size_t rest_at = 0;
  if (segs[0] == "api") {
    if (segs.size() == 1) {
      if (request.method != "GET") return ErrorResponse(MethodNotAllowed());
      std::lock_guard<std::mutex> l(mu_);
      return JsonResponse(200, table_.CoreApiVersions(server_address_));
    }
    version = segs[1];
    rest_at = 2;
  } else {
    if (segs.size() == 1) {
      if (request.method != "GET") return ErrorResponse(MethodNotAllowed());
      return JsonResponse(200, table_.ApiGroupList());
    }
    group = segs[1];
    if (segs.size() == 2) {
      if (request.method != "GET") return ErrorResponse(MethodNotAllowed());
      json g = table_.ApiGroup(group);
      return g.is_null() ? ErrorResponse(PathNotFound()) : JsonResponse(200, g);
    }
    version = segs[2];
    rest_at = 3;
  }
  if (segs.size() == rest_at) {
    if (request.method != "GET") return ErrorResponse(MethodNotAllowed());
    json list = table_.ApiResourceList(group, version);
    return list.is_null() ? ErrorResponse(PathNotFound()) : JsonResponse(200, list);
  }
  std::vector<std::string> rest(segs.begin() + static_cast<std::ptrdiff_t>(rest_at), segs.end());
  ApiResult<Route> route = ParseRoute(group, version, rest);
  if (!route.ok()) return ErrorResponse(route.error());
  return Dispatch(request, route.value());
}

ApiResult<ApiHandler::Route> ApiHandler::ParseRoute(const std::string& group,
                                                    const std::string& version,
                                                    const std::vector<std::string>& rest) const {
  Route r;
  size_t i = 0;
  if (i < rest.size() && rest[i] == "watch") {
    r.watch_path = true;
    ++i;
  }
  if (i >= rest.size()) return PathNotFound();
  if (rest[i] == "namespaces" && i + 2 < rest.size()) {
    const ResourceInfo* inner = table_.Find(group, version, rest[i + 2]);
    if (group.empty() && version == "v1" && rest[i + 2] == "bindings" && !r.watch_path) {
      if (i + 3 != rest.size()) return PathNotFound();
      r.ns = rest[i + 1];
      r.info = table_.Find("", "v1", "pods");
      r.bindings_collection = true;
      return r;
    }
    if (inner != nullptr && inner->namespaced) {
      r.ns = rest[i + 1];
      i += 2;
    }
  }
  r.info = table_.Find(group, version, rest[i]);
  ++i;
  if (r.info == nullptr) return PathNotFound();
  if (!r.info->namespaced && !r.ns.empty()) return PathNotFound();
  if (i < rest.size()) r.name = rest[i++];
  if (i < rest.size()) {
    r.subresource = rest[i++];
    if (!r.info->HasSubresource(r.subresource)) return PathNotFound();
  }
  if (i < rest.size()) return PathNotFound();
  if (r.info->namespaced && r.ns.empty() && !r.name.empty()) return PathNotFound();
  return r;
}

ApiResponse ApiHandler::Dispatch(const ApiRequest& request, const Route& route) {
  const std::string& m = request.method;
  if (route.bindings_collection) {
    return m == "POST" ? Bind(request, route) : ErrorResponse(MethodNotAllowed());
  }
  if (route.watch_path || QueryTrue(request, "watch")) {
    if (m != "GET" || !route.subresource.empty()) return ErrorResponse(MethodNotAllowed());
    return Watch(request, route);
  }
  if (route.name.empty()) {
    if (m == "GET") return List(request, route);
    if (m == "POST") return Create(request, route);
    if (m == "DELETE") return DeleteCollection(request, route);
    return ErrorResponse(MethodNotAllowed());
  }
  const std::string& sub = route.subresource;
  if (m == "GET" && sub != "binding") return Get(request, route);
  if (m == "POST" && sub == "binding") return Bind(request, route);
  if ((m == "PUT" || m == "PATCH") && sub != "binding") {
    return m == "PUT" ? Update(request, route) : Patch(request, route);
  }
  if (m == "DELETE" && sub.empty()) return Delete(request, route);
  return ErrorResponse(MethodNotAllowed());
}

ApiResponse ApiHandler::Get(const ApiRequest& request, const Route& route) {
  const ResourceInfo& info = *route.info;
  ObjectPtr obj = StoreFor(info).Get(ObjectKey(route.ns, route.name));
  if (!obj) return ErrorResponse(NotFoundError(info.QualifiedResource(), route.name));
  if (auto table = ParseTableRequest(request.accept, Query(request, "includeObject"))) {
    json rows = json::array({TableRow(info.kind, ToServed(info, obj->object), *table,
                                      clock_.WallNow())});
    return JsonResponse(
        200, MakeTable(*table, TableColumns(info.kind), std::move(rows),
                       {{"resourceVersion", std::to_string(obj->resource_version)}}));
  }
  return ObjectResponse(200, info, obj);
}

ApiResponse ApiHandler::List(const ApiRequest& request, const Route& route) {
  const ResourceInfo& info = *route.info;
  auto filter = ObjectFilter::Create(info, route.ns, Query(request, "labelSelector"),
                                     Query(request, "fieldSelector"));
  if (!filter.ok()) return ErrorResponse(filter.error());
  auto rv = QueryResourceVersion(request);
  if (!rv.ok()) return ErrorResponse(rv.error());
  auto limit = QueryInt(request, "limit");
  if (!limit.ok()) return ErrorResponse(limit.error());
  ObjectStore& store = StoreFor(info);

  std::shared_ptr<const ListSnapshot> snapshot;
  size_t offset = 0;
  std::string cont = Query(request, "continue");
  if (!cont.empty()) {
    auto token = DecodeContinueToken(cont);
    if (!token) return ErrorResponse(BadRequestError("continue key is not valid"));
    snapshot = snapshots_.Get(token->snapshot_id);
    if (!snapshot || snapshot->store != info.StorageKey() ||
        snapshot->resource_version != token->resource_version ||
        token->offset > snapshot->items.size()) {
      return ErrorResponse(ExpiredError(
          "The provided continue parameter is too old to display a consistent list result. You "
          "can start a new list without the continue parameter."));
    }
    offset = token->offset;
  } else {
    const ObjectFilter& f = filter.value();
    ObjectStore::Predicate pred;
    if (!info.storage_plural.empty()) {
      pred = [this, &f, &info](const json& obj) { return f.Matches(ToServed(info, obj)); };
    } else if (!f.SelectsAllInNamespace()) {
      pred = [&f](const json& obj) { return f.Matches(obj); };
    }
    ObjectStore::ListResult result =
        store.List(route.ns.empty() ? "" : route.ns + "/", pred);
    if (rv.value() > rv_clock_.Current()) {
      return ErrorResponse(TooLargeResourceVersionError(rv.value(), rv_clock_.Current()));
    }
    if (Query(request, "resourceVersionMatch") == "Exact" &&
        rv.value() != result.resource_version) {
      return ErrorResponse(ExpiredError(fmt::format("too old resource version: {} ({})",
                                                    rv.value(), result.resource_version)));
    }
    auto snap = std::make_shared<ListSnapshot>();
    snap->items = std::move(result.items);
    snap->resource_version = result.resource_version;
    snap->store = info.StorageKey();
    snapshot = std::move(snap);
  }

  size_t end = snapshot->items.size();
  json meta = {{"resourceVersion", std::to_string(snapshot->resource_version)}};
  if (limit.value() > 0 && end - offset > static_cast<size_t>(limit.value())) {
    end = offset + static_cast<size_t>(limit.value());
    uint64_t id = cont.empty() ? snapshots_.Put(snapshot) : DecodeContinueToken(cont)->snapshot_id;
    meta["continue"] = EncodeContinueToken({id, end, snapshot->resource_version});
    meta["remainingItemCount"] = snapshot->items.size() - end;
  }
  if (auto table = ParseTableRequest(request.accept, Query(request, "includeObject"))) {
    json rows = json::array();
    util::WallTime now = clock_.WallNow();
    for (size_t i = offset; i < end; ++i) {
      rows.push_back(TableRow(info.kind, ToServed(info, snapshot->items[i]->object), *table, now));
    }
    return JsonResponse(200, MakeTable(*table, TableColumns(info.kind), std::move(rows), meta));
  }
  std::string body;
  size_t total = 128;
  for (size_t i = offset; i < end; ++i) total += snapshot->items[i]->serialized.size() + 1;
  body.reserve(total);
  body.append("{\"kind\":\"").append(ListKind(info));
  body.append("\",\"apiVersion\":\"").append(info.ApiVersion());
  body.append("\",\"metadata\":").append(meta.dump()).append(",\"items\":[");
  for (size_t i = offset; i < end; ++i) {
    if (i != offset) body.push_back(',');
    if (info.storage_plural.empty()) {
      body.append(snapshot->items[i]->serialized);
    } else {
      body.append(Serialize(info, snapshot->items[i]));
    }
  }
  body.append("]}");
  ApiResponse r;
  r.body = std::move(body);
  return r;
}

ApiResponse ApiHandler::Watch(const ApiRequest& request, const Route& route) {
  const ResourceInfo& info = *route.info;
  std::string fields = Query(request, "fieldSelector");
  if (!route.name.empty()) {
    fields = fields.empty() ? "metadata.name=" + route.name
                            : fields + ",metadata.name=" + route.name;
  }
  auto filter = ObjectFilter::Create(info, route.ns, Query(request, "labelSelector"), fields);
  if (!filter.ok()) return ErrorResponse(filter.error());
  auto rv = QueryResourceVersion(request);
  if (!rv.ok()) return ErrorResponse(rv.error());
  auto timeout_seconds = QueryInt(request, "timeoutSeconds");
  if (!timeout_seconds.ok()) return ErrorResponse(timeout_seconds.error());
  if (rv.value() > rv_clock_.Current()) {
    return ErrorResponse(TooLargeResourceVersionError(rv.value(), rv_clock_.Current()));
  }

  WatchOptions options;
  options.resource_version = rv.value();
  options.bookmarks = QueryTrue(request, "allowWatchBookmarks");
  std::string send_initial = Query(request, "sendInitialEvents");
  if (send_initial == "true") {
    options.resource_version = 0;
    options.initial_events_end_bookmark = true;
  } else if (send_initial == "false" && rv.value() == 0) {
    options.resource_version = rv_clock_.Current();
  }
  if (!info.storage_plural.empty()) {
    options.view = [this, &info](const json& obj) { return ToServed(info, obj); };
    auto served_filter = std::make_shared<const ObjectFilter>(filter.value());
    options.predicate = [this, &info, served_filter](const json& obj) {
      return served_filter->Matches(ToServed(info, obj));
    };
  } else if (!filter.value().SelectsAllInNamespace() || !route.ns.empty()) {
    options.predicate = filter.value().AsPredicate();
  }
  if (auto table = ParseTableRequest(request.accept, Query(request, "includeObject"))) {
    // Like the real server, only the first event's Table carries the column
    // definitions.
    auto first = std::make_shared<bool>(true);
    options.view = [this, &info, table = *table, first](const json& obj) {
      json columns = *first ? TableColumns(info.kind) : json();
      *first = false;
      json rows = json::array({TableRow(info.kind, ToServed(info, obj), table,
                                        clock_.WallNow())});
      return MakeTable(table, std::move(columns), std::move(rows),
                       {{"resourceVersion", MetaField(obj, "resourceVersion")}});
    };
  }
  options.api_version = info.ApiVersion();
  options.kind = info.kind;

  util::Duration timeout;
  if (timeout_seconds.value() > 0) {
    timeout = std::chrono::seconds(timeout_seconds.value());
  } else {
    std::lock_guard<std::mutex> l(mu_);
    double factor = std::uniform_real_distribution<double>(1.0, 2.0)(rng_);
    timeout = std::chrono::duration_cast<util::Duration>(options_.min_request_timeout * factor);
  }
  ApiResponse r;
  r.watch = std::make_shared<PendingWatch>(StoreFor(info), std::move(options), timers_, timeout);
  return r;
}

std::optional<ApiError> ApiHandler::CheckNamespaceExists(const std::string& ns) const {
  if (!StoreFor(*table_.Find("", "v1", "namespaces")).Get(ns)) return NotFoundError("namespaces", ns);
  return std::nullopt;
}

std::optional<ApiError> ApiHandler::AdmitPodPriority(json& pod) const {
  json& spec = pod["spec"];
  if (!spec.is_object()) return BadRequestError("spec must be an object");
  std::string pod_name = MetaField(pod, "name").is_string()
                             ? MetaField(pod, "name").get<std::string>()
                             : "";
  ObjectStore& classes = *store("scheduling.k8s.io/priorityclasses");
  json pc_name = spec.value("priorityClassName", json());
  const json* pc = nullptr;
  ObjectPtr found;
  if (!pc_name.is_string() || pc_name.get<std::string>().empty()) {
    // The global default class, if any, applies to pods that name none.
    auto all = classes.List("", [](const json& c) {
      auto d = c.find("globalDefault");
      return d != c.end() && d->is_boolean() && d->get<bool>();
    });
    if (all.items.empty()) return std::nullopt;
    // Several global defaults: the smallest value wins, as in the real server.
    found = *std::min_element(all.items.begin(), all.items.end(),
                              [](const ObjectPtr& a, const ObjectPtr& b) {
                                return a->object.value("value", int64_t{0}) <
                                       b->object.value("value", int64_t{0});
                              });
    pc = &found->object;
    spec["priorityClassName"] = ObjectName(*pc);
  } else {
    found = classes.Get(pc_name.get<std::string>());
    if (!found) {
      return ForbiddenError("pods", pod_name,
                            fmt::format("no PriorityClass with name {} was found",
                                        pc_name.get<std::string>()));
    }
    pc = &found->object;
  }
  int64_t value = pc->value("value", int64_t{0});
  auto given = spec.find("priority");
  if (given != spec.end() && !given->is_null() && *given != value) {
    return ForbiddenError(
        "pods", pod_name,
        fmt::format("the integer value of priority ({}) must not be provided in pod spec; "
                    "priority admission controller computed {} from the given PriorityClass name",
                    given->dump(), value));
  }
  spec["priority"] = value;
  if (!spec.contains("preemptionPolicy") && pc->contains("preemptionPolicy")) {
    spec["preemptionPolicy"] = (*pc)["preemptionPolicy"];
  }
  return std::nullopt;
}

ApiResponse ApiHandler::Create(const ApiRequest& request, const Route& route) {
  const ResourceInfo& info = *route.info;
  if (info.namespaced && route.ns.empty()) return ErrorResponse(MethodNotAllowed());
  auto body = ParseObjectBody(request);
  if (!body.ok()) return ErrorResponse(body.error());
  json obj = std::move(body.value());
  if (auto err = CheckObjectShape(obj)) return ErrorResponse(*err);
  if (info.namespaced) {
    if (auto err = CheckNamespaceExists(route.ns)) return ErrorResponse(*err);
  }
  if (!info.storage_plural.empty()) {
    if (obj.value("apiVersion", info.ApiVersion()) != info.ApiVersion() ||
        obj.value("kind", info.kind) != info.kind) {
      return ErrorResponse(BadRequestError(fmt::format(
          "the API version and kind in the data must be {} {}", info.ApiVersion(), info.kind)));
    }
    obj = ToStored(info, obj);
  }
  const ResourceInfo& storage = StorageInfo(info);
  if (storage.kind == "Pod") {
    if (auto err = AdmitPodPriority(obj)) return ErrorResponse(*err);
  }
  auto prepared = PrepareForCreate(storage, std::move(obj), route.ns, clock_.WallNow());
  if (!prepared.ok()) return ErrorResponse(prepared.error());
  if (storage.kind == "CustomResourceDefinition" && storage.group == "apiextensions.k8s.io" &&
      !table_.CanRegisterCustom(CustomResourcesOf(prepared.value()).value())) {
    return ErrorResponse(InvalidError(storage.kind, ObjectName(prepared.value()), "spec.names",
                                      "FieldValueInvalid",
                                      "the resource or kind is served by the server itself"));
  }
  if (Query(request, "dryRun") == "All") {
    return JsonResponse(201, ToServed(info, prepared.value()));
  }
  auto created = StoreFor(info).Create(std::move(prepared.value()));
  if (!created.ok()) return ErrorResponse(created.error());
  return ObjectResponse(201, info, created.value());
}

ApiResponse ApiHandler::Update(const ApiRequest& request, const Route& route) {
  const ResourceInfo& info = *route.info;
  auto body = ParseObjectBody(request);
  if (!body.ok()) return ErrorResponse(body.error());
  json obj = std::move(body.value());
  if (auto err = CheckObjectShape(obj)) return ErrorResponse(*err);
  if (!info.storage_plural.empty()) obj = ToStored(info, obj);
  json& meta = obj["metadata"];
  if (!meta.is_object()) meta = json::object();
  std::string name = meta.value("name", "");
  if (name.empty()) {
    meta["name"] = route.name;
  } else if (name != route.name) {
    return ErrorResponse(BadRequestError(fmt::format(
        "the name of the object ({}) does not match the name on the URL ({})", name, route.name)));
  }
  if (info.namespaced) {
    std::string ns = meta.value("namespace", "");
    if (ns.empty()) {
      meta["namespace"] = route.ns;
    } else if (ns != route.ns) {
      return ErrorResponse(BadRequestError(
          "the namespace of the provided object does not match the namespace sent on the "
          "request"));
    }
  }
  const ResourceInfo& storage = StorageInfo(info);
  bool status = route.subresource == "status";
  auto updated = StoreFor(info).Update(
      ObjectKey(route.ns, route.name), [&](const json& current) -> ApiResult<json> {
        return status ? PrepareForStatusUpdate(storage, obj, current)
                      : PrepareForUpdate(storage, obj, current);
      });
  if (!updated.ok()) return ErrorResponse(updated.error());
  return ObjectResponse(200, info, updated.value());
}

ApiResponse ApiHandler::Patch(const ApiRequest& request, const Route& route) {
  const ResourceInfo& info = *route.info;
  PatchType type;
  if (!ParsePatchType(request.content_type, &type)) {
    return ErrorResponse(UnsupportedMediaTypeError(request.content_type));
  }
  auto body = ParseBody(request.body);
  if (!body.ok()) return ErrorResponse(body.error());
  const json& patch = body.value();
  const ResourceInfo& storage = StorageInfo(info);
  bool status = route.subresource == "status";
  auto updated = StoreFor(info).Update(
      ObjectKey(route.ns, route.name), [&](const json& current) -> ApiResult<json> {
        auto patched = ApplyPatch(type, ToServed(info, current), patch, info.kind);
        if (!patched.ok()) return patched.error();
        json next = ToStored(info, patched.value());
        if (auto err = CheckObjectShape(next)) return *err;
        if (MetaField(next, "name") != route.name ||
            (info.namespaced && MetaField(next, "namespace") != route.ns)) {
          return InvalidError(info.kind, route.name, "metadata.name", "FieldValueInvalid",
                              "field is immutable");
        }
        return status ? PrepareForStatusUpdate(storage, next, current)
                      : PrepareForUpdate(storage, next, current);
      });
  if (!updated.ok()) return ErrorResponse(updated.error());
  return ObjectResponse(200, info, updated.value());
}

ApiResult<ObjectStore::DeleteResult> ApiHandler::DeleteOne(const Route& route,
                                                           const std::string& key,
                                                           const json& options) {
  json preconditions = options.value("preconditions", json());
  ObjectStore& store = StoreFor(*route.info);
  const std::string resource = route.info->QualifiedResource();
  auto check = [&](const json& current) -> std::optional<ApiError> {
    if (!preconditions.is_object()) return std::nullopt;
    std::string name = ObjectName(current);
    json uid = preconditions.value("uid", json());
    if (uid.is_string() && uid != MetaField(current, "uid")) {
      return ConflictError(resource, name,
                           fmt::format("Precondition failed: UID in precondition: {}, UID in "
                                       "object meta: {}",
                                       uid.get<std::string>(),
                                       MetaField(current, "uid").dump()));
    }
    json rv = preconditions.value("resourceVersion", json());
    if (rv.is_string() && rv != MetaField(current, "resourceVersion")) {
      return ConflictError(resource, name,
                           fmt::format("Precondition failed: ResourceVersion in precondition: "
                                       "{}, ResourceVersion in object meta: {}",
                                       rv.get<std::string>(),
                                       MetaField(current, "resourceVersion").dump()));
    }
    return std::nullopt;
  };
  bool dry_run = options.contains("dryRun") && options["dryRun"].is_array() &&
                 !options["dryRun"].empty();
  if (dry_run) {
    ObjectPtr current = store.Get(key);
    if (!current) {
      return NotFoundError(resource, key.substr(key.rfind('/') == std::string::npos
                                                    ? 0
                                                    : key.rfind('/') + 1));
    }
    if (auto err = check(current->object)) return *err;
    return ObjectStore::DeleteResult{current, false};
  }
  if (options_.graceful_pod_deletion && route.info->kind == "Pod" && route.info->group.empty()) {
    if (auto graceful = DeletePodGracefully(store, key, options, check)) return *graceful;
  }
  return store.Delete(key, check, FormatTime(clock_.WallNow()));
}

// A bound pod's kubelet (the simulated one of ClusterSimulation) ends it: DELETE with a grace
// period > 0 only marks it terminating (metadata.deletionTimestamp = now +
// grace, deletionGracePeriodSeconds = grace), and the kubelet deletes it
// once its containers stopped. A later DELETE may shorten the grace; grace
// 0 deletes at once. Unbound pods have no kubelet and go at once.
std::optional<ApiResult<ObjectStore::DeleteResult>> ApiHandler::DeletePodGracefully(
    ObjectStore& store, const std::string& key, const json& options, const ObjectStore::DeleteCheck& check) {
  ObjectPtr current = store.Get(key);
  if (!current) return std::nullopt;
  const json& spec = current->object.value("spec", json::object());
  if (!spec.is_object() || spec.value("nodeName", "").empty()) return std::nullopt;
  int64_t grace = 30;
  if (spec.contains("terminationGracePeriodSeconds") && spec["terminationGracePeriodSeconds"].is_number_integer()) {
    grace = spec["terminationGracePeriodSeconds"].get<int64_t>();
  }
  if (options.contains("gracePeriodSeconds") && options["gracePeriodSeconds"].is_number_integer()) {
    grace = options["gracePeriodSeconds"].get<int64_t>();
  }
  if (grace <= 0) return std::nullopt;
  const util::WallTime now = clock_.WallNow();
  auto updated = store.Update(key, [&](const json& pod) -> ApiResult<json> {
    if (auto err = check(pod)) return *err;
    json next = pod;
    json& meta = next["metadata"];
    const json& old_grace = pod["metadata"].value("deletionGracePeriodSeconds", json());
    if (meta.contains("deletionTimestamp") && !meta["deletionTimestamp"].is_null() &&
        (!old_grace.is_number_integer() || old_grace.get<int64_t>() <= grace)) {
      return pod;  // already terminating, at least as soon
    }
    meta["deletionTimestamp"] = FormatTime(now + std::chrono::seconds(grace));
    meta["deletionGracePeriodSeconds"] = grace;
    return next;
  });
  if (!updated.ok()) return ApiResult<ObjectStore::DeleteResult>(updated.error());
  return ApiResult<ObjectStore::DeleteResult>(ObjectStore::DeleteResult{updated.value(), false});
}

void ApiHandler::DeleteNamespaceContents(const std::string& ns) {
  std::string ts = FormatTime(clock_.WallNow());
  for (const ResourceInfo* info : table_.resources()) {
    if (!info->namespaced || !info->storage_plural.empty()) continue;
    ObjectStore& store = StoreFor(*info);
    for (const auto& obj : store.List(ns + "/", nullptr).items) {
      store.Delete(obj->key, nullptr, ts);
    }
  }
}

namespace {

// DeleteOptions from the body and the query (query parameters win).
ApiResult<json> DeleteOptions(const ApiRequest& request) {
  json options = json::object();
  if (!request.body.empty()) {
    auto body = ParseBody(request.body);
    if (!body.ok()) return body.error();
    if (!body.value().is_object()) return BadRequestError("DeleteOptions must be a JSON object");
    options = std::move(body.value());
  }
  auto grace = options.find("gracePeriodSeconds");
  if (grace != options.end() && !grace->is_null() && !grace->is_number_integer()) {
    return BadRequestError("gracePeriodSeconds must be an integer");
  }
  auto grace_query = QueryInt(request, "gracePeriodSeconds");
  if (!grace_query.ok()) return grace_query.error();
  if (!Query(request, "gracePeriodSeconds").empty()) options["gracePeriodSeconds"] = grace_query.value();
  if (Query(request, "dryRun") == "All") options["dryRun"] = {"All"};
  auto pre = options.find("preconditions");
  if (pre != options.end() && !pre->is_null() && !pre->is_object()) {
    return BadRequestError("preconditions must be an object");
  }
  return options;
}

}  // namespace

ApiResponse ApiHandler::Delete(const ApiRequest& request, const Route& route) {
  const ResourceInfo& info = *route.info;
  auto options = DeleteOptions(request);
  if (!options.ok()) return ErrorResponse(options.error());
  if (info.kind == "Namespace" && info.group.empty()) {
    for (const char* protected_ns : {"default", "kube-system", "kube-public"}) {
      if (route.name == protected_ns) {
        return ErrorResponse(
            ForbiddenError("namespaces", route.name, "this namespace may not be deleted"));
      }
    }
    if (!StoreFor(info).Get(route.name)) {
      return ErrorResponse(NotFoundError("namespaces", route.name));
    }
    bool dry_run = options.value().contains("dryRun");
    if (!dry_run) DeleteNamespaceContents(route.name);
  }
  auto result = DeleteOne(route, ObjectKey(route.ns, route.name), options.value());
  if (!result.ok()) return ErrorResponse(result.error());
  return ObjectResponse(200, info, result.value().object);
}

ApiResponse ApiHandler::DeleteCollection(const ApiRequest& request, const Route& route) {
  const ResourceInfo& info = *route.info;
  auto options = DeleteOptions(request);
  if (!options.ok()) return ErrorResponse(options.error());
  auto filter = ObjectFilter::Create(info, route.ns, Query(request, "labelSelector"),
                                     Query(request, "fieldSelector"));
  if (!filter.ok()) return ErrorResponse(filter.error());
  const ObjectFilter& f = filter.value();
  auto listed = StoreFor(info).List(route.ns.empty() ? "" : route.ns + "/",
                                    [this, &f, &info](const json& obj) {
                                      return info.storage_plural.empty()
                                                 ? f.Matches(obj)
                                                 : f.Matches(ToServed(info, obj));
                                    });
  json items = json::array();
  for (const auto& obj : listed.items) {
    if (info.kind == "Namespace" && info.group.empty()) {
      std::string name = ObjectName(obj->object);
      if (name == "default" || name == "kube-system" || name == "kube-public") continue;
      if (!options.value().contains("dryRun")) DeleteNamespaceContents(name);
    }
    auto result = DeleteOne(route, obj->key, options.value());
    if (result.ok()) items.push_back(ToServed(info, result.value().object->object));
  }
  return JsonResponse(200, {{"kind", ListKind(info)},
                            {"apiVersion", info.ApiVersion()},
                            {"metadata", {{"resourceVersion",
                                           std::to_string(rv_clock_.Current())}}},
                            {"items", items}});
}

ApiResponse ApiHandler::Bind(const ApiRequest& request, const Route& route) {
  if (!IsJsonMediaType(request.content_type)) {
    return ErrorResponse(UnsupportedMediaTypeError(request.content_type));
  }
  auto body = ParseBody(request.body);
  if (!body.ok()) return ErrorResponse(body.error());
  const json& binding = body.value();
  if (auto err = CheckObjectShape(binding)) return ErrorResponse(*err);
  if (binding.value("kind", "Binding") != "Binding" || binding.value("apiVersion", "v1") != "v1") {
    return ErrorResponse(BadRequestError("the body must be a v1 Binding"));
  }
  std::string name = ObjectName(binding);
  if (route.bindings_collection) {
    if (name.empty()) {
      return ErrorResponse(InvalidError("Binding", "", "metadata.name", "FieldValueRequired",
                                        "name or generateName is required"));
    }
  } else if (name.empty()) {
    name = route.name;
  } else if (name != route.name) {
    return ErrorResponse(BadRequestError("name in URL does not match name in Binding object"));
  }
  std::string ns = ObjectNamespace(binding);
  if (!ns.empty() && ns != route.ns) {
    return ErrorResponse(BadRequestError(
        "the namespace of the provided object does not match the namespace sent on the request"));
  }
  auto target = binding.find("target");
  if (target == binding.end() || !target->is_object() || !target->contains("name") ||
      !(*target)["name"].is_string() || (*target)["name"].get<std::string>().empty()) {
    return ErrorResponse(InvalidError("Binding", name, "target.name", "FieldValueRequired", ""));
  }
  std::string target_kind = target->value("kind", "");
  if (!target_kind.empty() && target_kind != "Node") {
    return ErrorResponse(InvalidError("Binding", name, "target.kind", "FieldValueNotSupported",
                                      fmt::format("\"{}\": supported values: \"Node\"",
                                                  target_kind)));
  }
  const std::string node = (*target)["name"].get<std::string>();
  const json uid = MetaField(binding, "uid");
  const json annotations = MetaField(binding, "annotations");
  const std::string now = FormatTime(clock_.WallNow());
  auto bound = StoreFor(*route.info).Update(
      ObjectKey(route.ns, name), [&](const json& pod) -> ApiResult<json> {
        if (uid.is_string() && !uid.get<std::string>().empty() && uid != MetaField(pod, "uid")) {
          return ConflictError("pods/binding", name,
                               fmt::format("Precondition failed: UID in precondition: {}, UID in "
                                           "object meta: {}",
                                           uid.get<std::string>(), MetaField(pod, "uid").dump()));
        }
        json deletion = MetaField(pod, "deletionTimestamp");
        if (!deletion.is_null()) {
          return ConflictError("pods/binding", name,
                               fmt::format("pod {} is being deleted, cannot be assigned to a host",
                                           name));
        }
        json current_node = pod["spec"].value("nodeName", json());
        if (current_node.is_string() && !current_node.get<std::string>().empty()) {
          return ConflictError("pods/binding", name,
                               fmt::format("pod {} is already assigned to node \"{}\"", name,
                                           current_node.get<std::string>()));
        }
        json next = pod;
        next["spec"]["nodeName"] = node;
        if (annotations.is_object()) {
          json& a = next["metadata"]["annotations"];
          if (!a.is_object()) a = json::object();
          for (const auto& [k, v] : annotations.items()) a[k] = v;
        }
        json& status = next["status"];
        if (!status.is_object()) status = json::object();
        json& conditions = status["conditions"];
        if (!conditions.is_array()) conditions = json::array();
        json scheduled = {{"type", "PodScheduled"},
                          {"status", "True"},
                          {"lastProbeTime", nullptr},
                          {"lastTransitionTime", now}};
        auto it = std::find_if(conditions.begin(), conditions.end(), [](const json& c) {
          return c.is_object() && c.value("type", "") == "PodScheduled";
        });
        if (it == conditions.end()) {
          conditions.push_back(scheduled);
        } else {
          *it = scheduled;
        }
        return next;
      });
  if (!bound.ok()) return ErrorResponse(bound.error());
  return JsonResponse(201, {{"kind", "Status"},
                            {"apiVersion", "v1"},
                            {"metadata", json::object()},
                            {"status", "Success"},
                            {"code", 201}});
}

}  // namespace ksched::apiserver
