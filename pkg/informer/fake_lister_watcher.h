// FakeListerWatcher: a scripted ListerWatcher for deterministic tests.
//
// Lists: each List() call takes the next scripted response (a page or an
// error) in order, blocking until one is scripted or the call is stopped.
// Watches: scripted actions form one sequence consumed across Watch() calls:
// an event or a malformed line is handed to the open watch; an "end" closes
// it with a status (OK: normal close). A Watch() call blocks for the next
// action until its stop token fires (it then returns kCancelled, leaving
// the actions not yet consumed). Actions scripted while no watch is open
// wait for the next Watch() call.
//
// Every call's options are recorded; Wait* block (with a real-time limit so
// a broken test fails instead of hanging) until a count is reached.
//
// Thread-safety: all methods are thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "pkg/informer/list_watcher.h"

namespace ksched::informer {

// A scripted list page: its items' JSON texts and its info.
struct ListPage {
  std::vector<std::string> items;
  ListPageInfo info;
};

class FakeListerWatcher final : public ListerWatcher {
 public:
  static constexpr std::chrono::seconds kWaitLimit{10};

  // Scripting.
  void AddListResponse(util::StatusOr<ListPage> response);
  // `more_arrived`: as if the next event had already arrived
  // (RawWatchEvent::more_arrived).
  void AddWatchEvent(std::string type, nlohmann::json object, bool more_arrived = false);
  // An event whose object arrives as text (RawWatchEvent::object_text), as
  // RestListerWatcher delivers them; `unchecked`: the rest of the line,
  // unread (RawWatchEvent::object_unchecked).
  void AddWatchEventText(std::string type, std::string object_text, bool unchecked = false);
  // A line of the stream that is not a watch event (delivered as an error).
  void AddWatchDecodeError(std::string message);
  void EndWatch(util::Status status = util::Status::Ok());

  // Observation.
  std::vector<ListOptions> ListCalls() const;
  std::vector<WatchOptions> WatchCalls() const;
  // Block until that many calls have started; false on the time limit.
  bool WaitForListCalls(size_t n) const;
  bool WaitForWatchCalls(size_t n) const;
  // Blocks until every scripted watch action has been consumed (handed to
  // the callback, which has returned); false on the time limit.
  bool WaitForWatchActionsConsumed() const;
  // Watch() calls currently open.
  int OpenWatches() const;

  util::StatusOr<ListPageInfo> List(const ListOptions& options, const ListItemCallback& on_item,
                                    std::stop_token stop) override;
  util::Status Watch(const WatchOptions& options, const WatchEventCallback& callback,
                     std::stop_token stop) override;

 private:
  struct WatchAction {
    enum class Kind { kEvent, kDecodeError, kEnd } kind;
    RawWatchEvent event;
    util::Status status;
  };

  template <class Pred>
  bool WaitFor(Pred pred) const;

  mutable std::mutex mu_;
  mutable std::condition_variable_any cv_;
  std::deque<util::StatusOr<ListPage>> list_responses_;
  std::deque<WatchAction> watch_actions_;
  std::vector<ListOptions> list_calls_;
  std::vector<WatchOptions> watch_calls_;
  int open_watches_ = 0;
  int actions_in_flight_ = 0;
};

}  // namespace ksched::informer
