// CollectingSink: a WatchSink for tests that keeps every line (parsed) and
// can refuse writes after a budget, to exercise slow-watcher handling.
//
// Thread-safe; WaitFor blocks until a condition on the lines holds (no
// sleeps).
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "pkg/apiserverlite/watch.h"

namespace ksched::apiserver {

class CollectingSink : public WatchSink {
 public:
  // Refuses writes once `budget` lines were accepted.
  explicit CollectingSink(size_t budget = SIZE_MAX) : budget_(budget) {}

  bool Write(std::string_view line) override {
    std::lock_guard<std::mutex> l(mu_);
    if (closed_ || lines_.size() >= budget_) return false;
    lines_.push_back(nlohmann::json::parse(line));
    raw_.emplace_back(line);
    cv_.notify_all();
    return true;
  }
  void Close() override {
    std::lock_guard<std::mutex> l(mu_);
    closed_ = true;
    cv_.notify_all();
  }

  std::vector<nlohmann::json> lines() const {
    std::lock_guard<std::mutex> l(mu_);
    return lines_;
  }
  std::vector<std::string> raw() const {
    std::lock_guard<std::mutex> l(mu_);
    return raw_;
  }
  bool closed() const {
    std::lock_guard<std::mutex> l(mu_);
    return closed_;
  }
  // Types of the events so far: "ADDED", "MODIFIED", ...
  std::vector<std::string> types() const {
    std::vector<std::string> out;
    for (const auto& l : lines()) out.push_back(l["type"].get<std::string>());
    return out;
  }
  // Waits (up to 10 s, a failure guard) until pred(lines, closed) holds.
  bool WaitFor(const std::function<bool(const std::vector<nlohmann::json>&, bool)>& pred) {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, std::chrono::seconds(10), [&] { return pred(lines_, closed_); });
  }

 private:
  const size_t budget_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<nlohmann::json> lines_;
  std::vector<std::string> raw_;
  bool closed_ = false;
};

}  // namespace ksched::apiserver
