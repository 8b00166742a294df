#include "pkg/informer/fake_lister_watcher.h"

#include <utility>

namespace ksched::informer {

void FakeListerWatcher::AddListResponse(util::StatusOr<ListPage> response) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    list_responses_.push_back(std::move(response));
  }
  cv_.notify_all();
}

void FakeListerWatcher::AddWatchEvent(std::string type, nlohmann::json object, bool more_arrived) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    RawWatchEvent event{std::move(type), std::move(object)};
    event.more_arrived = more_arrived;
    watch_actions_.push_back({WatchAction::Kind::kEvent, std::move(event), {}});
  }
  cv_.notify_all();
}

void FakeListerWatcher::AddWatchEventText(std::string type, std::string object_text, bool unchecked) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    watch_actions_.push_back(
        {WatchAction::Kind::kEvent, RawWatchEvent{std::move(type), nullptr, std::move(object_text), unchecked}, {}});
  }
  cv_.notify_all();
}

void FakeListerWatcher::AddWatchDecodeError(std::string message) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    watch_actions_.push_back(
        {WatchAction::Kind::kDecodeError, {}, util::Status(util::StatusCode::kInvalidArgument, std::move(message))});
  }
  cv_.notify_all();
}

void FakeListerWatcher::EndWatch(util::Status status) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    watch_actions_.push_back({WatchAction::Kind::kEnd, {}, std::move(status)});
  }
  cv_.notify_all();
}

std::vector<ListOptions> FakeListerWatcher::ListCalls() const {
  std::lock_guard<std::mutex> lock(mu_);
  return list_calls_;
}

std::vector<WatchOptions> FakeListerWatcher::WatchCalls() const {
  std::lock_guard<std::mutex> lock(mu_);
  return watch_calls_;
}

template <class Pred>
bool FakeListerWatcher::WaitFor(Pred pred) const {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, kWaitLimit, pred);
}

bool FakeListerWatcher::WaitForListCalls(size_t n) const {
  return WaitFor([&] { return list_calls_.size() >= n; });
}

bool FakeListerWatcher::WaitForWatchCalls(size_t n) const {
  return WaitFor([&] { return watch_calls_.size() >= n; });
}

bool FakeListerWatcher::WaitForWatchActionsConsumed() const {
  return WaitFor([&] { return watch_actions_.empty() && actions_in_flight_ == 0; });
}

int FakeListerWatcher::OpenWatches() const {
  std::lock_guard<std::mutex> lock(mu_);
  return open_watches_;
}

util::StatusOr<ListPageInfo> FakeListerWatcher::List(const ListOptions& options, const ListItemCallback& on_item,
                                                     std::stop_token stop) {
  util::StatusOr<ListPage> response = util::Status(util::StatusCode::kCancelled, "list stopped");
  {
    std::unique_lock<std::mutex> lock(mu_);
    list_calls_.push_back(options);
    cv_.notify_all();
    if (!cv_.wait(lock, stop, [&] { return !list_responses_.empty(); })) return response.status();
    response = std::move(list_responses_.front());
    list_responses_.pop_front();
  }
  if (!response.ok()) return response.status();
  for (const std::string& item : response->items) on_item(item);
  return response->info;
}

util::Status FakeListerWatcher::Watch(const WatchOptions& options, const WatchEventCallback& callback,
                                      std::stop_token stop) {
  std::unique_lock<std::mutex> lock(mu_);
  watch_calls_.push_back(options);
  ++open_watches_;
  cv_.notify_all();
  util::Status result;
  while (true) {
    // A stop ends the watch even with actions pending: they stay for the
    // next Watch() call (wait() returns the predicate after a stop).
    if (!cv_.wait(lock, stop, [&] { return !watch_actions_.empty(); }) || stop.stop_requested()) {
      result = util::Status(util::StatusCode::kCancelled, "watch stopped");
      break;
    }
    WatchAction action = std::move(watch_actions_.front());
    watch_actions_.pop_front();
    if (action.kind == WatchAction::Kind::kEnd) {
      result = std::move(action.status);
      break;
    }
    // The callback runs without the lock, as a real stream's would.
    ++actions_in_flight_;
    lock.unlock();
    if (action.kind == WatchAction::Kind::kEvent) {
      callback(std::move(action.event));
    } else {
      callback(std::move(action.status));
    }
    lock.lock();
    --actions_in_flight_;
    cv_.notify_all();
  }
  --open_watches_;
  cv_.notify_all();
  return result;
}

}  // namespace ksched::informer
