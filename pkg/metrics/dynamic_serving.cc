#include "pkg/metrics/dynamic_serving.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include "pkg/log/log.h"
#include "pkg/util/thread_name.h"

namespace ksched::metrics {

namespace {

// A bundle of the file's bytes and the fixed PEM; null when both are empty.
util::StatusOr<std::shared_ptr<const auth::CaBundle>> CaFrom(const std::string& file_bytes,
                                                            const std::string& fixed_pem,
                                                            const std::string& what) {
  std::string pem = file_bytes + "\n" + fixed_pem;
  if (pem.find_first_not_of(" \t\r\n") == std::string::npos) return std::shared_ptr<const auth::CaBundle>();
  return auth::CaBundle::Parse(pem, what);
}

}  // namespace

DynamicServingContent::DynamicServingContent(ServingSources sources, ContextBuilder builder, util::Clock& clock)
    : sources_(std::move(sources)), builder_(std::move(builder)), clock_(clock) {
  cert_.path = sources_.cert_file;
  key_.path = sources_.key_file;
  client_ca_.path = sources_.client_ca_file;
  requestheader_ca_.path = sources_.requestheader_ca_file;
}

util::StatusOr<std::unique_ptr<DynamicServingContent>> DynamicServingContent::Load(ServingSources sources,
                                                                                  ContextBuilder builder,
                                                                                  util::Clock& clock) {
  std::unique_ptr<DynamicServingContent> c(new DynamicServingContent(std::move(sources), std::move(builder), clock));
  const ServingSources& s = c->sources_;
  auto snap = std::make_shared<ServingSnapshot>();
  snap->generation = 1;
  if (!s.cert_file.empty() || !s.key_file.empty()) {
    if (s.cert_file.empty() || s.key_file.empty()) {
      return util::InvalidArgument("--tls-cert-file and --tls-private-key-file must be given together");
    }
    for (FileState* f : {&c->cert_, &c->key_}) {
      util::StatusOr<std::string> b = ReadWholeFile(
          f->path, (f == &c->cert_ ? "--tls-cert-file " : "--tls-private-key-file ") + f->path);
      if (!b.ok()) return b.status();
      f->bytes = std::move(b).value();
    }
    util::StatusOr<TlsCredentials> creds = ParseTlsCredentials(
        c->cert_.bytes, c->key_.bytes, "--tls-cert-file " + s.cert_file, "--tls-private-key-file " + s.key_file);
    if (!creds.ok()) return creds.status();
    snap->credentials = std::move(creds).value();
  } else if (s.static_credentials) {
    snap->credentials = *s.static_credentials;
  } else {
    return util::InvalidArgument("no serving certificate");
  }
  struct Ca {
    FileState* file;
    const std::string* fixed;
    std::shared_ptr<const auth::CaBundle>* into;
    const char* flag;
  };
  for (const Ca& ca : {Ca{&c->client_ca_, &s.client_ca_pem, &snap->client_ca, "--client-ca-file "},
                       Ca{&c->requestheader_ca_, &s.requestheader_ca_pem, &snap->requestheader_ca,
                          "--requestheader-client-ca-file "}}) {
    const std::string what = ca.file->path.empty() ? std::string(ca.flag).substr(2) + "(from the cluster)"
                                                   : ca.flag + ca.file->path;
    if (!ca.file->path.empty()) {
      util::StatusOr<std::string> b = ReadWholeFile(ca.file->path, what);
      if (!b.ok()) return b.status();
      ca.file->bytes = std::move(b).value();
    }
    util::StatusOr<std::shared_ptr<const auth::CaBundle>> bundle = CaFrom(ca.file->bytes, *ca.fixed, what);
    if (!bundle.ok()) return bundle.status();
    *ca.into = std::move(bundle).value();
  }
  util::StatusOr<std::shared_ptr<SSL_CTX>> tls = c->builder_(*snap);
  if (!tls.ok()) return tls.status();
  snap->tls = std::move(tls).value();
  c->current_ = std::move(snap);
  return c;
}

DynamicServingContent::~DynamicServingContent() { Stop(); }

std::shared_ptr<const ServingSnapshot> DynamicServingContent::Current() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_;
}

bool DynamicServingContent::Check() {
  std::lock_guard<std::mutex> check(check_mu_);
  std::shared_ptr<const ServingSnapshot> cur = Current();
  auto next = std::make_shared<ServingSnapshot>(*cur);
  bool changed = false;

  // A file that cannot be read now (being replaced, removed) keeps the old
  // content, as does one that does not parse.
  auto read = [](const FileState& f, const std::string& what) -> std::optional<std::string> {
    util::StatusOr<std::string> b = ReadWholeFile(f.path, what);
    if (!b.ok()) {
      spdlog::error("{}; still serving the previous content", b.status().message());
      return std::nullopt;
    }
    return std::move(b).value();
  };

  if (!cert_.path.empty()) {
    const std::string cert_what = "--tls-cert-file " + cert_.path;
    const std::string key_what = "--tls-private-key-file " + key_.path;
    std::optional<std::string> cert = read(cert_, cert_what);
    std::optional<std::string> key = cert ? read(key_, key_what) : std::nullopt;
    if (cert && key && (*cert != cert_.bytes || *key != key_.bytes)) {
      util::StatusOr<TlsCredentials> creds = ParseTlsCredentials(*cert, *key, cert_what, key_what);
      if (!creds.ok()) {
        spdlog::error("serving certificate not reloaded: {}; still serving the previous one",
                      creds.status().message());
      } else {
        cert_.bytes = std::move(*cert);
        key_.bytes = std::move(*key);
        next->credentials = std::move(creds).value();
        changed = true;
        spdlog::info("serving certificate reloaded from {} and {}", cert_.path, key_.path);
      }
    }
  }
  struct Ca {
    FileState* file;
    const std::string* fixed;
    std::shared_ptr<const auth::CaBundle>* into;
    const char* flag;
  };
  for (const Ca& ca : {Ca{&client_ca_, &sources_.client_ca_pem, &next->client_ca, "--client-ca-file "},
                       Ca{&requestheader_ca_, &sources_.requestheader_ca_pem, &next->requestheader_ca,
                          "--requestheader-client-ca-file "}}) {
    if (ca.file->path.empty()) continue;
    const std::string what = ca.flag + ca.file->path;
    std::optional<std::string> bytes = read(*ca.file, what);
    if (!bytes || *bytes == ca.file->bytes) continue;
    util::StatusOr<std::shared_ptr<const auth::CaBundle>> bundle = CaFrom(*bytes, *ca.fixed, what);
    if (!bundle.ok()) {
      spdlog::error("client CA not reloaded: {}; still using the previous one", bundle.status().message());
      continue;
    }
    ca.file->bytes = std::move(*bytes);
    *ca.into = std::move(bundle).value();
    changed = true;
    spdlog::info("client CA reloaded from {}", ca.file->path);
  }
  if (!changed) return false;

  util::StatusOr<std::shared_ptr<SSL_CTX>> tls = builder_(*next);
  if (!tls.ok()) {
    // The files' bytes were taken: they will not be retried until they
    // change again. Such a failure (a new key the TLS settings refuse) is
    // logged loudly.
    spdlog::error("secure port not reloaded: {}; still serving the previous content", tls.status().message());
    return false;
  }
  next->tls = std::move(tls).value();
  next->generation = cur->generation + 1;
  std::lock_guard<std::mutex> lock(mu_);
  current_ = std::move(next);
  cv_.notify_all();
  return true;
}

void DynamicServingContent::Start() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (thread_.joinable() || stopping_) return;
    if (cert_.path.empty() && client_ca_.path.empty() && requestheader_ca_.path.empty()) return;  // nothing to watch
    // Set here, not on the thread, so a clock step right after Start() counts.
    next_check_ = clock_.Now() + sources_.interval;
    thread_ = std::thread([this] {
      util::NameThisThread("cert-reload");
      Loop();
    });
  }
  if (sources_.watch_files) StartWatch();
}

void DynamicServingContent::StartWatch() {
  std::set<std::string> dirs;
  for (const FileState* f : {&cert_, &key_, &client_ca_, &requestheader_ca_}) {
    if (f->path.empty()) continue;
    std::filesystem::path dir = std::filesystem::path(f->path).parent_path();
    dirs.insert(dir.empty() ? "." : dir.string());
  }
  inotify_fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (inotify_fd_ < 0 || wake_fd_ < 0) {
    spdlog::warn("cannot watch the certificate files ({}): they are re-read every {} s only", std::strerror(errno),
                 std::chrono::duration_cast<std::chrono::seconds>(sources_.interval).count());
    return;
  }
  int watched = 0;
  for (const std::string& d : dirs) {
    const uint32_t mask = IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB;
    if (inotify_add_watch(inotify_fd_, d.c_str(), mask) >= 0) {
      ++watched;
    } else {
      spdlog::warn("cannot watch {} ({}): its files are re-read every {} s only", d, std::strerror(errno),
                   std::chrono::duration_cast<std::chrono::seconds>(sources_.interval).count());
    }
  }
  if (watched > 0) watch_thread_ = std::thread([this] {
    util::NameThisThread("cert-watch");
    WatchLoop();
  });
}

void DynamicServingContent::WatchLoop() {
  alignas(inotify_event) char buf[16 * 1024];
  while (true) {
    pollfd fds[2] = {{inotify_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    bool any = false;
    while (read(inotify_fd_, buf, sizeof(buf)) > 0) any = true;  // drain: one check per burst
    if (any) Check();
  }
}

void DynamicServingContent::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    cv_.notify_all();
  }
  if (wake_fd_ >= 0) {
    const uint64_t one = 1;
    (void)!write(wake_fd_, &one, sizeof(one));
  }
  if (thread_.joinable()) thread_.join();
  if (watch_thread_.joinable()) watch_thread_.join();
  for (int* fd : {&inotify_fd_, &wake_fd_}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
}

void DynamicServingContent::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    if (clock_.Now() < next_check_) {
      clock_.WaitUntil(lock, cv_, next_check_);
      continue;
    }
    next_check_ += sources_.interval;
    if (next_check_ <= clock_.Now()) next_check_ = clock_.Now() + sources_.interval;  // after a long stall
    lock.unlock();
    Check();
    lock.lock();
    ++periodic_checks_;
    cv_.notify_all();
  }
}

uint64_t DynamicServingContent::PeriodicChecks() const {
  std::lock_guard<std::mutex> lock(mu_);
  return periodic_checks_;
}

bool DynamicServingContent::WaitForGeneration(uint64_t g, std::chrono::milliseconds real_timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, real_timeout, [&] { return current_->generation >= g; });
}

bool DynamicServingContent::WaitForPeriodicChecks(uint64_t n, std::chrono::milliseconds real_timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, real_timeout, [&] { return periodic_checks_ >= n; });
}

}  // namespace ksched::metrics
