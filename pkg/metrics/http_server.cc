#include "pkg/metrics/http_server.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <fstream>
#include <sstream>
#include <tuple>

#include "pkg/auth/x509_user.h"
#include "pkg/log/log.h"
#include "pkg/metrics/exposition.h"

namespace ksched::metrics {

namespace {

bool IsIpLiteral(const std::string& s) {
  unsigned char buf[16];
  return inet_pton(AF_INET, s.c_str(), buf) == 1 || inet_pton(AF_INET6, s.c_str(), buf) == 1;
}

HttpResponse TextResponse(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  return r;
}

// Whether every address `host` resolves to is a loopback one.
bool IsLoopback(std::string host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) return false;
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &res) != 0 || res == nullptr) return false;
  bool all = true;
  for (addrinfo* a = res; a != nullptr; a = a->ai_next) {
    if (a->ai_family == AF_INET) {
      uint32_t ip = ntohl(reinterpret_cast<sockaddr_in*>(a->ai_addr)->sin_addr.s_addr);
      all = all && (ip >> 24) == 127;
    } else if (a->ai_family == AF_INET6) {
      all = all && IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<sockaddr_in6*>(a->ai_addr)->sin6_addr);
    } else {
      all = false;
    }
  }
  freeaddrinfo(res);
  return all;
}

std::string UriHost(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

// The secure port's TLS context for one snapshot: its credentials, TLS >=
// 1.2, and (with a client or front-proxy CA) client certificates
// requested, naming both CAs' subjects. The handshake accepts any
// certificate: each request verifies it against the CAs of the moment
// (kube's x509 authenticators, after Go's handshake, do the same), and one
// that does not verify counts as none (the request may still have a token).
util::StatusOr<std::shared_ptr<SSL_CTX>> ServerContext(const ServingSnapshot& snap, const EndpointServerOptions& o) {
  std::shared_ptr<SSL_CTX> ctx(SSL_CTX_new(TLS_server_method()), SSL_CTX_free);
  if (!ctx) return util::Internal("TLS: cannot create a server context: " + OpenSslErrors());
  util::Status st =
      ConfigureServerContext(ctx.get(), snap.credentials, o.tls_min_version, o.tls12_cipher_list, o.tls_groups_list);
  if (!st.ok()) return st;
  // Idle connections keep no buffers; no server-side session cache to grow.
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_RELEASE_BUFFERS);
  SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_OFF);
  if (!snap.client_ca && !snap.requestheader_ca) return ctx;
  STACK_OF(X509_NAME)* names = sk_X509_NAME_new_null();
  if (names == nullptr) return util::Internal("TLS: out of memory");
  for (const auto& ca : {snap.client_ca, snap.requestheader_ca}) {
    if (ca) ca->AddSubjectsTo(names);
  }
  SSL_CTX_set_client_CA_list(ctx.get(), names);  // takes `names`
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, [](int, X509_STORE_CTX*) { return 1; });
  return ctx;
}

}  // namespace

EndpointServer::EndpointServer(EndpointServerOptions options, util::Clock& clock)
    : options_(std::move(options)), clock_(clock) {}

EndpointServer::~EndpointServer() { Stop(); }

void EndpointServer::AddCollectable(std::shared_ptr<prometheus::Collectable> collectable) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  collectables_.push_back(std::move(collectable));
}

void EndpointServer::Handle(std::string path, HttpHandler handler) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  handlers_[std::move(path)] = std::move(handler);
}

void EndpointServer::HandleJson(std::string path, std::function<std::string()> json) {
  Handle(std::move(path), [json = std::move(json)](const HttpRequest&) {
    HttpResponse r;
    r.content_type = "application/json";
    r.body = json();
    return r;
  });
}

std::vector<std::string> EndpointServer::SubjectAltNameCandidates() const {
  std::vector<std::string> names = {"localhost", "127.0.0.1", "::1"};
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) == 0 && host[0] != '\0') names.emplace_back(host);
  const std::string& bind = options_.bind_address;
  if (!bind.empty() && bind != "0.0.0.0" && bind != "::") names.push_back(bind);
  for (const auto& s : options_.extra_sans) names.push_back(s);
  return names;
}

util::StatusOr<TlsCredentials> EndpointServer::ServingTlsCredentials() const {
  std::string cert_path, key_path;
  if (!options_.cert_dir.empty()) {
    cert_path = options_.cert_dir + "/kube-scheduler.crt";
    key_path = options_.cert_dir + "/kube-scheduler.key";
    if (access(cert_path.c_str(), R_OK) == 0 && access(key_path.c_str(), R_OK) == 0) {
      return LoadTlsCredentials(cert_path, key_path);
    }
  }
  SelfSignedOptions self;
  char host[256] = {};
  std::string hostname = gethostname(host, sizeof(host) - 1) == 0 && host[0] != '\0' ? host : "localhost";
  const auto now = clock_.WallNow();
  self.common_name =
      hostname + "@" +
      std::to_string(std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count());
  // Backdated a little so clients with a slightly slow clock accept it.
  self.not_before = now - std::chrono::hours(1);
  self.validity = std::chrono::hours(24 * 365) + std::chrono::hours(1);
  for (const auto& n : SubjectAltNameCandidates()) {
    std::vector<std::string>& into = IsIpLiteral(n) ? self.ip_addresses : self.dns_names;
    if (std::find(into.begin(), into.end(), n) == into.end()) into.push_back(n);
  }
  util::StatusOr<TlsCredentials> made = GenerateSelfSigned(self);
  if (!made.ok() || cert_path.empty()) return made;
  // Written for the next start; the key readable by its owner only.
  for (const auto& [path, pem, mode] : {std::tuple{cert_path, made->CertificatePem(), 0644},
                                        std::tuple{key_path, made->PrivateKeyPem(), 0600}}) {
    std::string tmp = path + ".tmp";
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << pem;
    out.close();
    if (!out || chmod(tmp.c_str(), mode) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0) {
      std::remove(tmp.c_str());
      return util::InvalidArgument("--cert-dir " + options_.cert_dir + ": cannot write " + path);
    }
  }
  return made;
}

util::Status EndpointServer::Start() {
  std::lock_guard<std::mutex> lifecycle(lifecycle_mu_);
  if (secure_ || plain_) return util::Status(util::StatusCode::kAlreadyExists, "server already started");
  if (options_.http_port > 0 && !IsLoopback(options_.http_bind_address)) {
    return util::InvalidArgument("--http-port serves without authentication, so only on loopback: " +
                                 options_.http_bind_address + " is not a loopback address");
  }

  std::unique_ptr<DynamicServingContent> content;
  if (options_.secure_port > 0) {
    ServingSources src;
    src.cert_file = options_.tls_cert_file;
    src.key_file = options_.tls_private_key_file;
    if (src.cert_file.empty() && src.key_file.empty()) {
      util::StatusOr<TlsCredentials> c = ServingTlsCredentials();
      if (!c.ok()) return c.status();
      src.static_credentials = std::move(c).value();
      // The --cert-dir pair is then on disk: watched like the flags' files
      // (kube-scheduler serves it as its certificate files too).
      const std::string dir_cert = options_.cert_dir + "/kube-scheduler.crt";
      const std::string dir_key = options_.cert_dir + "/kube-scheduler.key";
      if (!options_.cert_dir.empty() && access(dir_cert.c_str(), R_OK) == 0 && access(dir_key.c_str(), R_OK) == 0) {
        src.cert_file = dir_cert;
        src.key_file = dir_key;
      }
    }
    src.client_ca_file = options_.client_ca_file;
    src.client_ca_pem = options_.client_ca_pem + "\n" + extra_client_ca_pem_;
    src.requestheader_ca_file = options_.requestheader_client_ca_file;
    src.requestheader_ca_pem = options_.requestheader_client_ca_pem + "\n" + cluster_requestheader_ca_pem_;
    src.interval = options_.reload_interval;
    src.watch_files = options_.reload_on_file_events;
    util::StatusOr<std::unique_ptr<DynamicServingContent>> loaded = DynamicServingContent::Load(
        std::move(src), [this](const ServingSnapshot& snap) { return ServerContext(snap, options_); }, clock_);
    if (!loaded.ok()) return loaded.status();
    content = std::move(loaded).value();
    if (content->Current()->requestheader_ca) {
      request_header_.emplace(cluster_requestheader_.value_or(options_.requestheader));
    } else {
      request_header_.reset();
    }
  }

  std::unique_ptr<EndpointListener> secure, plain;
  std::vector<std::string> uris;
  const std::string host = options_.bind_address.empty() ? "0.0.0.0" : options_.bind_address;
  if (options_.secure_port > 0) {
    DynamicServingContent* c = content.get();
    auto l = EndpointListener::Start(
        host, static_cast<uint16_t>(options_.secure_port), [c] { return c->Current()->tls; }, options_.limits,
        [this](const HttpRequest& r, const RequestContext& c) { return ServeSecure(r, c); },
        options_.permit_port_sharing);
    if (!l.ok()) {
      return util::Status(util::StatusCode::kUnavailable, "cannot listen on https://" + UriHost(host) + ":" +
                                                              std::to_string(options_.secure_port) + "/: " +
                                                              l.status().message());
    }
    secure = std::move(l).value();
    uris.push_back("https://" + UriHost(host) + ":" + std::to_string(secure->port()) + "/");
  }
  if (options_.http_port > 0) {
    auto l = EndpointListener::Start(options_.http_bind_address, static_cast<uint16_t>(options_.http_port),
                                     nullptr, options_.limits,
                                     [this](const HttpRequest& r, const RequestContext&) { return Serve(r); },
                                     options_.permit_port_sharing);
    if (!l.ok()) {
      return util::Status(util::StatusCode::kUnavailable,
                          "cannot listen on http://" + UriHost(options_.http_bind_address) + ":" +
                              std::to_string(options_.http_port) + "/: " + l.status().message());
    }
    plain = std::move(l).value();
    uris.push_back("http://" + UriHost(options_.http_bind_address) + ":" + std::to_string(plain->port()) + "/");
    spdlog::warn("serving the endpoints WITHOUT authentication or TLS on {} (--http-port, for local development)",
                 uris.back());
  }
  if (secure && auth_ == nullptr) {
    spdlog::warn("the secure port serves every endpoint without authentication or authorization");
  }
  if (content) content->Start();
  content_ = std::move(content);
  secure_ = std::move(secure);
  plain_ = std::move(plain);
  uris_ = std::move(uris);
  return util::Status::Ok();
}

void EndpointServer::Stop() {
  std::lock_guard<std::mutex> lifecycle(lifecycle_mu_);
  if (secure_) secure_->Stop();
  if (plain_) plain_->Stop();
  if (content_) content_->Stop();
  secure_.reset();
  plain_.reset();
  uris_.clear();
}

std::optional<TlsCredentials> EndpointServer::ServingCredentials() const {
  if (!content_) return std::nullopt;
  return content_->Current()->credentials;
}

std::vector<std::string> EndpointServer::ListeningUris() const {
  std::lock_guard<std::mutex> lifecycle(lifecycle_mu_);
  return uris_;
}

uint16_t EndpointServer::SecurePort() const {
  std::lock_guard<std::mutex> lifecycle(lifecycle_mu_);
  return secure_ ? secure_->port() : 0;
}

uint16_t EndpointServer::HttpPort() const {
  std::lock_guard<std::mutex> lifecycle(lifecycle_mu_);
  return plain_ ? plain_->port() : 0;
}

size_t EndpointServer::OpenConnections() const {
  std::lock_guard<std::mutex> lifecycle(lifecycle_mu_);
  return (secure_ ? secure_->open_connections() : 0) + (plain_ ? plain_->open_connections() : 0);
}

HttpResponse EndpointServer::ServeSecure(const HttpRequest& request, const RequestContext& context) const {
  if (auth_ != nullptr) {
    auth::Credentials creds;
    if (context.headers != nullptr) {
      if (const std::string* a = context.headers->Get("Authorization")) creds.authorization = *a;
    }
    std::shared_ptr<const ServingSnapshot> snap = content_ ? content_->Current() : nullptr;
    X509* cert = context.client_certificate;
    if (snap && cert != nullptr) {
      // kube's union: a front proxy first (its CA, its allowed names), then
      // a client certificate of the client CA.
      if (request_header_ && snap->requestheader_ca && context.headers != nullptr &&
          snap->requestheader_ca->Verify(cert, context.client_intermediates)) {
        const std::string cn = auth::CommonName(cert);
        if (request_header_->AllowedName(cn)) {
          creds.request_header_user = request_header_->Authenticate(*context.headers);
        } else {
          KLOG_V(4, "front proxy certificate {} from {} is not in --requestheader-allowed-names", cn,
                 context.peer_address);
        }
      }
      if (snap->client_ca && snap->client_ca->Verify(cert, context.client_intermediates)) {
        creds.certificate_user = auth::UserFromCertificate(cert);
      }
    }
    auth::Decision d = auth_->Check(creds, request.path, request.method);
    if (d.http_status != 200) {
      KLOG_V(4, "{} {} from {}: {} {}", request.method, request.path, context.peer_address, d.http_status,
             d.message);
      HttpResponse r = TextResponse(d.http_status, d.message + "\n");
      if (d.http_status == 401) r.headers.emplace_back("WWW-Authenticate", "Bearer");
      return r;
    }
  }
  return Serve(request);
}

HttpResponse EndpointServer::Serve(const HttpRequest& request) const {
  try {
    return Route(request);
  } catch (const std::exception& e) {
    spdlog::error("handler for {} failed: {}", request.path, e.what());
    return TextResponse(500, "internal server error\n");
  } catch (...) {
    spdlog::error("handler for {} failed with a non-standard exception", request.path);
    return TextResponse(500, "internal server error\n");
  }
}

HttpResponse EndpointServer::Route(const HttpRequest& request) const {
  if (request.method != "GET" && request.method != "HEAD") {
    HttpResponse r = TextResponse(405, "method not allowed\n");
    r.headers.emplace_back("Allow", "GET, HEAD");
    return r;
  }
  HttpHandler handler;
  {
    std::shared_lock<std::shared_mutex> lock(mu_);
    auto it = handlers_.find(request.path);
    if (it != handlers_.end()) handler = it->second;
  }
  if (handler) return handler(request);

  if (request.path == "/metrics") return ServeMetrics();

  for (const HealthChecks* checks : {&healthz_, &livez_, &readyz_}) {
    const std::string root = "/" + checks->endpoint();
    if (request.path == root) {
      auto r = checks->RenderRoot(request.HasQuery("verbose"), request.QueryValues("exclude"));
      return TextResponse(r.status, std::move(r.body));
    }
    if (request.path.size() > root.size() + 1 && request.path.compare(0, root.size(), root) == 0 &&
        request.path[root.size()] == '/') {
      auto r = checks->RenderSingle(std::string_view(request.path).substr(root.size() + 1));
      if (r) return TextResponse(r->status, std::move(r->body));
    }
  }
  return TextResponse(404, "404 page not found\n");
}

HttpResponse EndpointServer::ServeMetrics() const {
  std::vector<std::shared_ptr<prometheus::Collectable>> collectables;
  {
    std::shared_lock<std::shared_mutex> lock(mu_);
    collectables = collectables_;
  }
  HttpResponse r;
  r.content_type = kTextContentType;
  r.body = CollectText(collectables, options_.disabled_metrics);
  return r;
}

}  // namespace ksched::metrics
