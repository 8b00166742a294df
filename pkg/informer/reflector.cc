#include "pkg/informer/reflector.h"

#include <spdlog/spdlog.h>

#include <charconv>
#include <utility>

#include "pkg/api/codec.h"
#include "pkg/client/api_errors.h"
#include "pkg/client/watch_decoder.h"
#include "pkg/informer/resource_type.h"
#include "pkg/log/log.h"

namespace ksched::informer {

namespace {

std::optional<uint64_t> ParseResourceVersion(const std::string& rv) {
  uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), value);
  if (rv.empty() || ec != std::errc() || ptr != rv.data() + rv.size()) return std::nullopt;
  return value;
}

const nlohmann::json* MetadataField(const nlohmann::json& object, const char* field) {
  if (!object.is_object()) return nullptr;
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return nullptr;
  auto value = meta->find(field);
  if (value == meta->end() || !value->is_string()) return nullptr;
  return &*value;
}

std::string RawResourceVersion(const nlohmann::json& object) {
  const nlohmann::json* rv = MetadataField(object, "resourceVersion");
  return rv == nullptr ? std::string() : rv->get<std::string>();
}

// "namespace/name" from an undecoded object; "" without a name.
std::string RawKey(const nlohmann::json& object) {
  const nlohmann::json* name = MetadataField(object, "name");
  if (name == nullptr || name->get_ref<const std::string&>().empty()) return "";
  const nlohmann::json* ns = MetadataField(object, "namespace");
  if (ns == nullptr || ns->get_ref<const std::string&>().empty()) return name->get<std::string>();
  return ns->get<std::string>() + "/" + name->get<std::string>();
}

// The status an ERROR event's metav1.Status object stands for.
util::Status ErrorEventStatus(const nlohmann::json& object) {
  int64_t code = 0;
  std::string message = "watch ERROR event";
  if (object.is_object()) {
    auto c = object.find("code");
    if (c != object.end() && c->is_number_integer()) code = c->get<int64_t>();
    auto m = object.find("message");
    if (m != object.end() && m->is_string()) message += ": " + m->get<std::string>();
    auto r = object.find("reason");
    if (code == 0 && r != object.end() && r->is_string() && (*r == "Expired" || *r == "Gone")) code = 410;
  }
  // 504 "Too large resource version": the server has not reached our
  // version (an etcd restore); like an expired one, only a relist helps.
  if (code == 410 || (code == 504 && client::IsResourceVersionTooLarge(object))) {
    return util::Status(util::StatusCode::kGone, message);
  }
  if (code == 429 || code >= 500) return util::Status(util::StatusCode::kUnavailable, message);
  return util::Status(util::StatusCode::kInternal, message);
}

bool IsObjectEvent(const std::string& type) {
  return type == "ADDED" || type == "MODIFIED" || type == "DELETED";
}

// An unchecked event's line read member by member (client::RecheckWatchEvent).
util::StatusOr<RawWatchEvent> Rechecked(const RawWatchEvent& unchecked) {
  client::WatchEvent event;
  event.type = unchecked.type;
  event.object_text = unchecked.object_text;
  event.object_unchecked = true;
  util::StatusOr<client::WatchEvent> full = client::RecheckWatchEvent(event);
  if (!full.ok()) return full.status();
  return RawWatchEvent{std::move(full->type), std::move(full->object), std::move(full->object_text),
                       /*object_unchecked=*/false, unchecked.more_arrived};
}

}  // namespace

bool ResourceVersionIsNewer(const std::string& candidate, const std::string& last) {
  std::optional<uint64_t> c = ParseResourceVersion(candidate);
  std::optional<uint64_t> l = ParseResourceVersion(last);
  if (!c || !l) return true;
  return *c > *l;
}

template <class T>
struct Reflector<T>::WatchState {
  util::TimePoint start;
  size_t events = 0;
  // Set by an ERROR event: the watch's outcome; later events are ignored.
  std::optional<util::Status> error;
  // Set once a relist was requested: later events are ignored.
  bool relisting = false;
};

template <class T>
Reflector<T>::Reflector(ListerWatcher& lister_watcher, ReflectorSink<T>& sink, const util::Clock& clock,
                        ReflectorOptions options, ReflectorMetrics& metrics)
    : lister_watcher_(lister_watcher),
      sink_(sink),
      clock_(clock),
      options_(std::move(options)),
      metrics_(metrics),
      backoff_(clock, options_.backoff, options_.seed),
      rng_(options_.seed != 0 ? options_.seed + 1 : std::random_device{}()) {}

template <class T>
void Reflector<T>::Run(std::stop_token stop) {
  KLOG_V(3, "Starting reflector for {}", options_.resource);
  bool need_list = true;
  bool restart = false;
  while (!stop.stop_requested()) {
    if (need_list) {
      if (!ListAndReplace(stop)) {
        if (stop.stop_requested() || !WaitBackoff(stop)) break;
        continue;
      }
      need_list = false;
      restart = false;
    }
    Next next = WatchOnce(stop, restart);
    restart = true;
    bool stopped = false;
    switch (next) {
      case Next::kStop:
        stopped = true;
        break;
      case Next::kRewatch:
        break;
      case Next::kBackoffRewatch:
        stopped = !WaitBackoff(stop);
        break;
      case Next::kRelist:
        need_list = true;
        break;
      case Next::kBackoffRelist:
        need_list = true;
        stopped = !WaitBackoff(stop);
        break;
    }
    if (stopped) break;
  }
  KLOG_V(3, "Stopping reflector for {}", options_.resource);
}

template <class T>
std::string Reflector<T>::RelistResourceVersion() const {
  if (rv_unavailable_) return "";
  std::string last = LastSyncResourceVersion();
  // The first list may be served from the server's cache, as client-go does.
  return last.empty() ? "0" : last;
}

template <class T>
bool Reflector<T>::ListAndReplace(std::stop_token stop) {
  std::string rv = RelistResourceVersion();
  // Lists at a specific version are not paginated so that a server can
  // answer them from its watch cache instead of a paginated etcd read.
  int64_t page_size = (rv.empty() || rv == "0") ? options_.page_size : 0;
  util::TimePoint start = clock_.Now();
  util::StatusOr<Listed> list = ListAll(rv, page_size, stop);
  if (!list.ok() && list.status().code() == util::StatusCode::kGone && !rv.empty() && !stop.stop_requested()) {
    KLOG_V(2, "{}: list at resourceVersion {} is gone ({}); listing the latest state", options_.resource, rv,
           list.status().message());
    rv_unavailable_ = true;
    list = ListAll("", options_.page_size, stop);
  }
  if (!list.ok()) {
    if (stop.stop_requested()) return false;
    metrics_.IncListErrors(options_.resource);
    spdlog::warn("{}: failed to list: {}", options_.resource, list.status().ToString());
    if (list.status().code() == util::StatusCode::kGone) rv_unavailable_ = true;
    return false;
  }
  size_t count = list->objects.size();
  sink_.OnReplace(std::move(list->objects), list->resource_version);
  metrics_.ObserveList(options_.resource, count, clock_.Since(start), listed_once_);
  KLOG_V(2, "{}: listed {} objects at resourceVersion {}", options_.resource, count, list->resource_version);
  listed_once_ = true;
  rv_unavailable_ = false;
  SetLastSyncResourceVersion(list->resource_version);
  return true;
}

template <class T>
void Reflector<T>::DecodeListed(std::string_view item, std::vector<std::shared_ptr<const T>>* objects) {
  util::StatusOr<T> object = api::FromJsonText<T>(item);
  if (!object.ok()) {
    metrics_.IncDecodeErrors(options_.resource);
    util::StatusOr<nlohmann::json> raw = api::ParseJson(item);
    spdlog::warn("{}: skipping listed object {} that does not decode: {}", options_.resource,
                 raw.ok() ? RawKey(*raw) : std::string(), object.status().message());
    return;
  }
  objects->push_back(std::make_shared<const T>(std::move(object).value()));
}

template <class T>
util::StatusOr<typename Reflector<T>::Listed> Reflector<T>::ListAll(const std::string& resource_version,
                                                                     int64_t page_size, std::stop_token stop) {
  Listed all;
  std::string token;
  bool fell_back = false;
  while (true) {
    ListOptions options;
    options.limit = page_size;
    options.continue_token = token;
    if (token.empty()) options.resource_version = resource_version;
    util::StatusOr<ListPageInfo> page = lister_watcher_.List(
        options, [&](std::string_view item) { DecodeListed(item, &all.objects); }, stop);
    if (!page.ok()) {
      if (page.status().code() == util::StatusCode::kGone && !token.empty() && !fell_back) {
        // The continue token expired mid-list: like client-go's pager, fetch
        // everything in one response instead.
        KLOG_V(2, "{}: continue token expired; listing without pagination", options_.resource);
        fell_back = true;
        all.objects.clear();
        token.clear();
        page_size = 0;
        continue;
      }
      return page.status();
    }
    if (token.empty()) all.resource_version = std::move(page->resource_version);
    token = std::move(page->continue_token);
    if (token.empty()) return all;
    if (stop.stop_requested()) return util::Status(util::StatusCode::kCancelled, "stopped");
  }
}

template <class T>
typename Reflector<T>::Next Reflector<T>::WatchOnce(std::stop_token stop, bool restart) {
  WatchOptions options;
  options.resource_version = LastSyncResourceVersion();
  options.allow_watch_bookmarks = true;
  double spread = std::uniform_real_distribution<double>(0, 1)(rng_);
  double min_seconds = std::chrono::duration<double>(options_.min_watch_timeout).count();
  options.timeout_seconds = static_cast<int64_t>(min_seconds * (1.0 + spread));

  // The watch ends on `stop` or on RequestRelist.
  std::stop_source watch_stop;
  std::stop_callback forward_stop(stop, [&watch_stop] { watch_stop.request_stop(); });
  bool watch = false;  // not when a relist is already pending
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (relist_reason_.empty()) {
      current_watch_ = &watch_stop;
      watch = true;
    }
  }
  WatchState state;
  state.start = clock_.Now();
  util::Status status;
  if (watch) {
    metrics_.IncWatches(options_.resource, restart);
    KLOG_V(4, "{}: watching from resourceVersion {} (timeoutSeconds={})", options_.resource,
           options.resource_version, *options.timeout_seconds);
    status = lister_watcher_.Watch(
        options, [this, &state](util::StatusOr<RawWatchEvent> event) { HandleEvent(std::move(event), state); },
        watch_stop.get_token());
  }
  std::string relist_reason;
  {
    std::lock_guard<std::mutex> lock(mu_);
    current_watch_ = nullptr;
    relist_reason.swap(relist_reason_);
  }
  if (stop.stop_requested()) return Next::kStop;
  if (!relist_reason.empty()) {
    metrics_.ObserveWatch(options_.resource, state.events, clock_.Since(state.start), false);
    metrics_.IncForcedRelists(options_.resource, relist_reason);
    spdlog::warn("{}: the store may be stale ({}); relisting after a backoff", options_.resource, relist_reason);
    return Next::kBackoffRelist;
  }
  if (state.error) status = *state.error;

  util::Duration duration = clock_.Since(state.start);
  bool short_watch = status.ok() && state.events == 0 && duration < options_.short_watch;
  metrics_.ObserveWatch(options_.resource, state.events, duration, short_watch);
  if (state.events > 0) backoff_.Reset();

  if (status.ok()) {
    if (short_watch) {
      spdlog::warn("{}: watch closed within {} ms with no event; backing off", options_.resource,
                   std::chrono::duration_cast<std::chrono::milliseconds>(duration).count());
      return Next::kBackoffRewatch;
    }
    KLOG_V(4, "{}: watch closed after {} events; re-watching", options_.resource, state.events);
    return Next::kRewatch;
  }
  switch (status.code()) {
    case util::StatusCode::kGone:
      KLOG_V(2, "{}: watch ended with {}; relisting", options_.resource, status.ToString());
      return Next::kRelist;
    case util::StatusCode::kUnavailable:
    case util::StatusCode::kDeadlineExceeded:
    case util::StatusCode::kCancelled:
      KLOG_V(2, "{}: watch ended with {}; re-watching after a backoff", options_.resource, status.ToString());
      return Next::kBackoffRewatch;
    default:
      spdlog::warn("{}: watch ended with {}; relisting after a backoff", options_.resource, status.ToString());
      return Next::kBackoffRelist;
  }
}

template <class T>
void Reflector<T>::HandleEvent(util::StatusOr<RawWatchEvent> event, WatchState& state) {
  if (state.error || state.relisting) return;
  if (event.ok() && event->object_unchecked) {
    // The rest of the line, unread: it is the object if it decodes as one;
    // otherwise the line is read member by member and handled below.
    if (IsObjectEvent(event->type)) {
      util::StatusOr<T> decoded = api::FromJsonText<T>(event->object_text);
      if (decoded.ok()) {
        CountEvent(event->type, state);
        DeliverDecoded(event->type, std::move(decoded).value(), event->more_arrived);
        return;
      }
    }
    event = Rechecked(*event);
  }
  if (!event.ok()) {
    // Some object's change is lost: the store may be stale.
    metrics_.IncDecodeErrors(options_.resource);
    spdlog::warn("{}: a watch line does not decode: {}", options_.resource, event.status().message());
    state.relisting = true;
    RequestRelist(kRelistDecodeError);
    return;
  }
  const std::string& type = event->type;
  CountEvent(type, state);
  if (!event->object_text.empty()) {
    // The fast path: an object event decoded straight from its text. What
    // it cannot take (a BOOKMARK, an object that does not decode) goes
    // through the tree below, exactly as a parsed event would.
    if (IsObjectEvent(type)) {
      util::StatusOr<T> decoded = api::FromJsonText<T>(event->object_text);
      if (decoded.ok()) {
        DeliverDecoded(type, std::move(decoded).value(), event->more_arrived);
        return;
      }
    }
    util::StatusOr<nlohmann::json> parsed = api::ParseJson(event->object_text);
    if (!parsed.ok()) {
      metrics_.IncDecodeErrors(options_.resource);
      spdlog::warn("{}: a {} event's object does not parse: {}", options_.resource, type,
                   parsed.status().message());
      state.relisting = true;
      RequestRelist(kRelistDecodeError);
      return;
    }
    event->object = std::move(parsed).value();
  }
  const nlohmann::json& raw = event->object;
  if (type == "ERROR") {
    state.error = ErrorEventStatus(raw);
    return;
  }
  std::string rv = RawResourceVersion(raw);
  if (type == "BOOKMARK") {
    if (!rv.empty() && ResourceVersionIsNewer(rv, LastSyncResourceVersion())) SetLastSyncResourceVersion(rv);
    return;
  }
  if (!IsObjectEvent(type)) {
    metrics_.IncDecodeErrors(options_.resource);
    spdlog::warn("{}: skipping watch event of unknown type \"{}\" for {}", options_.resource, type, RawKey(raw));
    return;
  }
  if (!rv.empty() && !ResourceVersionIsNewer(rv, LastSyncResourceVersion())) {
    KLOG_V(4, "{}: dropping {} event of {} at resourceVersion {}: not newer than {}", options_.resource, type,
           RawKey(raw), rv, LastSyncResourceVersion());
    return;
  }
  util::StatusOr<T> decoded = api::FromJson<T>(raw);
  if (!decoded.ok()) {
    metrics_.IncDecodeErrors(options_.resource);
    std::string key = RawKey(raw);
    spdlog::warn("{}: {} event of {} (resourceVersion {}) does not decode: {}", options_.resource, type,
                 key.empty() ? "<unknown>" : key, rv, decoded.status().message());
    if (!rv.empty()) SetLastSyncResourceVersion(rv);
    if (type == "DELETED" && !key.empty()) {
      // A deletion still removes the object: nothing stale stays behind.
      sink_.OnDeleted(key, nullptr, event->more_arrived);
    } else {
      // The store keeps the previous state (or lacks the object): relist,
      // from this resourceVersion on, as the object may decode then.
      state.relisting = true;
      RequestRelist(kRelistDecodeError);
    }
    return;
  }
  DeliverDecoded(type, std::move(decoded).value(), event->more_arrived);
}

template <class T>
void Reflector<T>::CountEvent(const std::string& type, WatchState& state) {
  ++state.events;
  metrics_.IncEvents(options_.resource, type);
}

template <class T>
void Reflector<T>::DeliverDecoded(const std::string& type, T decoded, bool more_arrived) {
  // The decoded object's resourceVersion is the raw one (a string, else it
  // would not have decoded).
  const std::string rv = decoded.metadata.resource_version;
  if (!rv.empty() && !ResourceVersionIsNewer(rv, LastSyncResourceVersion())) {
    KLOG_V(4, "{}: dropping {} event of {} at resourceVersion {}: not newer than {}", options_.resource, type,
           api::KeyOf(decoded.metadata), rv, LastSyncResourceVersion());
    return;
  }
  auto object = std::make_shared<const T>(std::move(decoded));
  if (type == "ADDED") {
    sink_.OnAdded(std::move(object), more_arrived);
  } else if (type == "MODIFIED") {
    sink_.OnModified(std::move(object), more_arrived);
  } else {
    std::string key = api::KeyOf(object->metadata);
    sink_.OnDeleted(key, std::move(object), more_arrived);
  }
  if (!rv.empty()) SetLastSyncResourceVersion(rv);
}

template <class T>
void Reflector<T>::RequestRelist(std::string_view reason) {
  std::lock_guard<std::mutex> lock(mu_);
  if (relist_reason_.empty()) relist_reason_ = std::string(reason);
  if (current_watch_ != nullptr) current_watch_->request_stop();
}

template <class T>
bool Reflector<T>::WaitBackoff(std::stop_token stop) {
  util::Duration delay = backoff_.Next();
  // The deadline is fixed before the backoff is reported, so whoever reacts
  // to the report (a test stepping a fake clock) acts after it.
  util::TimePoint deadline = clock_.Now() + delay;
  metrics_.ObserveBackoff(options_.resource, delay);
  KLOG_V(3, "{}: backing off {} ms", options_.resource,
         std::chrono::duration_cast<std::chrono::milliseconds>(delay).count());
  // Registered before taking the lock: it runs inline when stop was already
  // requested, and it takes the lock itself so the wake-up cannot be lost.
  std::stop_callback wake(stop, [this] {
    std::lock_guard<std::mutex> lock(mu_);
    wait_cv_.notify_all();
  });
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop.stop_requested()) {
    if (clock_.WaitUntil(lock, wait_cv_, deadline)) return !stop.stop_requested();
  }
  return false;
}

template <class T>
void Reflector<T>::SetLastSyncResourceVersion(const std::string& rv) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    last_sync_rv_ = rv;
  }
  if (std::optional<uint64_t> value = ParseResourceVersion(rv)) {
    metrics_.SetLastResourceVersion(options_.resource, *value);
  }
}

template <class T>
std::string Reflector<T>::LastSyncResourceVersion() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_sync_rv_;
}

#define KSCHED_INSTANTIATE_REFLECTOR(T) template class Reflector<T>;
KSCHED_INFORMER_FOR_EACH_TYPE(KSCHED_INSTANTIATE_REFLECTOR)
#undef KSCHED_INSTANTIATE_REFLECTOR

}  // namespace ksched::informer
