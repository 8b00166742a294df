// DynamicServingContent: what the secure port serves and trusts, re-read
// from its files while the daemon runs, as kube-scheduler's
// DynamicCertKeyPairContent and DynamicFileCAContent do:
//
//   - the serving certificate and key (--tls-cert-file and
//     --tls-private-key-file, or the --cert-dir pair);
//   - the client CA bundle (--client-ca-file), and the front-proxy one
//     (--requestheader-client-ca-file); PEM given as text (the cluster's
//     ConfigMap, read at start-up) is added to each and never reloaded.
//
// Check() re-reads the files; an item whose bytes changed is parsed (a
// certificate and key must parse and match) and, when good, replaces the
// old one; a bad, half-written or missing file is logged and the old
// content kept, each item on its own. When something changed, a new TLS
// server context is built, so connections accepted from then on get the
// new certificate and CA list; connections already open keep the context
// they were accepted with. Client certificates are verified per request
// against Current()'s CA bundles, so a new CA applies to the next request.
// Start() runs Check() every `interval` (kube: one minute) on the injected
// clock and, with `watch_files`, also as soon as inotify reports a change in
// a directory holding one of the files (kube's fsnotify; the directory, so
// a file replaced by rename or a Secret volume's symlink swap is seen).
// A check triggered by the first half of a pair being written may log a
// mismatch; the second half's event takes the pair.
//
// Thread-safety: Current() and Check() from any thread; a snapshot is
// immutable and stays valid as long as it is held. Start()/Stop() from one
// thread; the destructor stops.
#pragma once

#include <openssl/ssl.h>

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "pkg/auth/ca_bundle.h"
#include "pkg/metrics/tls_credentials.h"
#include "pkg/util/clock.h"
#include "pkg/util/status.h"

namespace ksched::metrics {

// One consistent state of the secure port.
struct ServingSnapshot {
  TlsCredentials credentials;
  std::shared_ptr<const auth::CaBundle> client_ca;         // null: none
  std::shared_ptr<const auth::CaBundle> requestheader_ca;  // null: none
  std::shared_ptr<SSL_CTX> tls;
  uint64_t generation = 0;  // 1 at Load(), +1 per change taken
};

struct ServingSources {
  // Both or neither; neither: `static_credentials` are served. Errors
  // name the files as --tls-cert-file / --tls-private-key-file.
  std::string cert_file;
  std::string key_file;
  std::optional<TlsCredentials> static_credentials;
  std::string client_ca_file;
  std::string client_ca_pem;  // fixed, added to the file's bundle
  std::string requestheader_ca_file;
  std::string requestheader_ca_pem;
  util::Duration interval = std::chrono::minutes(1);
  bool watch_files = true;
};

class DynamicServingContent {
 public:
  // Builds the TLS server context of a snapshot (its credentials and CAs).
  using ContextBuilder = std::function<util::StatusOr<std::shared_ptr<SSL_CTX>>(const ServingSnapshot&)>;

  // Reads everything once; any error fails (start-up reports bad flags).
  static util::StatusOr<std::unique_ptr<DynamicServingContent>> Load(ServingSources sources, ContextBuilder builder,
                                                                    util::Clock& clock);
  ~DynamicServingContent();
  DynamicServingContent(const DynamicServingContent&) = delete;
  DynamicServingContent& operator=(const DynamicServingContent&) = delete;

  std::shared_ptr<const ServingSnapshot> Current() const;
  // Re-reads the files now; true when a new snapshot was taken.
  bool Check();

  // Checks every interval from now on, on a thread of its own.
  void Start();
  void Stop();
  // Checks the periodic thread has completed.
  uint64_t PeriodicChecks() const;
  // Blocks until Current()->generation >= g or `real_timeout` passes (for
  // tests of the file watch, which has no clock to step).
  bool WaitForGeneration(uint64_t g, std::chrono::milliseconds real_timeout) const;
  // Blocks until PeriodicChecks() >= n or `real_timeout` passes (tests step
  // a FakeClock, then wait here instead of sleeping); true when reached.
  bool WaitForPeriodicChecks(uint64_t n, std::chrono::milliseconds real_timeout) const;

 private:
  // A watched file and the bytes last taken from it.
  struct FileState {
    std::string path;
    std::string bytes;
  };
  DynamicServingContent(ServingSources sources, ContextBuilder builder, util::Clock& clock);
  void Loop();
  // The inotify thread's body; returns when `wake_fd_` is signalled.
  void WatchLoop();
  void StartWatch();

  const ServingSources sources_;
  const ContextBuilder builder_;
  util::Clock& clock_;

  std::mutex check_mu_;  // one Check() at a time
  FileState cert_, key_, client_ca_, requestheader_ca_;

  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::shared_ptr<const ServingSnapshot> current_;
  bool stopping_ = false;
  uint64_t periodic_checks_ = 0;
  util::TimePoint next_check_{};
  std::thread thread_;
  // inotify descriptor and the eventfd that stops its thread (-1: none).
  int inotify_fd_ = -1;
  int wake_fd_ = -1;
  std::thread watch_thread_;
};

}  // namespace ksched::metrics
