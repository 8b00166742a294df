#include "pkg/informer/informer_factory.h"

#include <utility>

#include "pkg/log/log.h"

namespace ksched::informer {

InformerFactory::InformerFactory(ListerWatcherFactory lister_watchers, const util::Clock& clock,
                                 InformerFactoryOptions options, ReflectorMetrics* metrics)
    : lister_watchers_(std::move(lister_watchers)), clock_(clock), options_(std::move(options)), metrics_(metrics) {}

InformerFactory::~InformerFactory() { Shutdown(); }

SharedInformerOptions InformerFactory::OptionsFor(const std::string& resource) {
  SharedInformerOptions options;
  options.reflector = options_.reflector;
  options.reflector.resource = resource;
  if (options.reflector.seed != 0) options.reflector.seed += 7919 * informers_.size();
  return options;
}

void InformerFactory::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (shut_down_) return;
  for (auto& [resource, informer] : informers_) {
    if (started_.insert(resource).second) informer->Start();
  }
}

std::map<std::string, bool> InformerFactory::WaitForCacheSync(util::Duration timeout) {
  util::TimePoint deadline = clock_.Now() + timeout;
  std::vector<InformerBase*> started;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& resource : started_) started.push_back(informers_.at(resource).get());
  }
  std::map<std::string, bool> synced;
  for (InformerBase* informer : started) {
    util::Duration left = deadline - clock_.Now();
    bool ok = informer->WaitForCacheSync(left > util::Duration::zero() ? left : util::Duration::zero());
    synced[informer->resource()] = ok;
    if (!ok) KLOG_V(1, "Informer for {} has not synced", informer->resource());
  }
  return synced;
}

void InformerFactory::Shutdown() {
  // Stopped outside mu_: a handler running on a delivery thread being
  // joined may itself call into the factory. Informers are never removed,
  // so the pointers stay valid.
  std::vector<InformerBase*> informers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    shut_down_ = true;
    for (auto& [resource, informer] : informers_) informers.push_back(informer.get());
  }
  for (InformerBase* informer : informers) informer->Stop();
}

std::vector<std::string> InformerFactory::Resources() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& [resource, informer] : informers_) out.push_back(resource);
  return out;
}

}  // namespace ksched::informer
