#include "pkg/metrics/http_server.h"

#include <arpa/inet.h>
#include <unistd.h>

#include <cpprest/http_listener.h>

#include <algorithm>
#include <exception>

#include "pkg/log/log.h"
#include "pkg/metrics/exposition.h"
#include "pkg/net/url.h"

namespace ksched::metrics {

namespace http = web::http;
using web::http::experimental::listener::http_listener;
using web::http::experimental::listener::http_listener_config;

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

}  // namespace

bool HttpRequest::HasQuery(std::string_view key) const {
  for (const auto& [k, v] : query) {
    if (k == key) return true;
  }
  return false;
}

std::vector<std::string> HttpRequest::QueryValues(std::string_view key) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : query) {
    if (k == key) out.push_back(v);
  }
  return out;
}

// The cpprestsdk listeners. Owning them in one object lets Stop() close
// them all before the server's state goes away.
class EndpointServer::Listeners {
 public:
  explicit Listeners(const EndpointServer& server) : server_(server) {}
  ~Listeners() { Close(); }

  // Opens a listener on `uri`; `creds` non-null makes it HTTPS.
  util::Status Open(const std::string& uri, const TlsCredentials* creds) {
    http_listener_config config;
    if (creds != nullptr) {
      TlsCredentials copy = *creds;
      config.set_ssl_context_callback([copy](boost::asio::ssl::context& ctx) {
        // The credentials were validated at Start(); a failure here would
        // only be an allocation failure inside OpenSSL.
        util::Status st = ConfigureServerContext(ctx.native_handle(), copy);
        if (!st.ok()) spdlog::error("TLS context setup failed: {}", st.ToString());
      });
    }
    try {
      auto listener = std::make_unique<http_listener>(uri, config);
      const EndpointServer* server = &server_;
      listener->support([server](http::http_request request) { Dispatch(*server, request); });
      listener->open().wait();
      listeners_.push_back(std::move(listener));
      uris_.push_back(uri);
    } catch (const std::exception& e) {
      return util::Status(util::StatusCode::kUnavailable,
                          "cannot listen on " + uri + ": " + e.what());
    }
    return util::Status::Ok();
  }

  void Close() {
    for (auto& l : listeners_) {
      try {
        l->close().wait();
      } catch (const std::exception& e) {
        spdlog::warn("closing listener: {}", e.what());
      }
    }
    listeners_.clear();
  }

  const std::vector<std::string>& uris() const { return uris_; }

 private:
  static void Dispatch(const EndpointServer& server, http::http_request& request) {
    HttpResponse response;
    try {
      auto parsed = ParseTarget(request.method(), request.relative_uri().to_string());
      if (!parsed.ok()) {
        response = TextResponse(400, "bad request: " + parsed.status().message() + "\n");
      } else {
        response = server.Serve(*parsed);
        if (parsed->method == http::methods::HEAD) response.body.clear();
      }
    } catch (const std::exception& e) {
      response = TextResponse(400, std::string("bad request: ") + e.what() + "\n");
    }
    try {
      http::http_response reply(static_cast<http::status_code>(response.status));
      // A byte vector rather than set_body(std::string): cpprestsdk reads a
      // string body through a char/unsigned-char streambuf pun that UBSan
      // rejects.
      reply.set_body(std::vector<unsigned char>(response.body.begin(), response.body.end()));
      reply.headers()[http::header_names::content_type] = response.content_type;
      for (const auto& [name, value] : response.headers) reply.headers().add(name, value);
      request.reply(reply).then([](pplx::task<void> t) {
        try {
          t.get();
        } catch (const std::exception& e) {
          // The client went away; nothing to do but note it.
          KLOG_V(4, "endpoint reply not delivered: {}", e.what());
        }
      });
    } catch (const std::exception& e) {
      KLOG_V(4, "endpoint reply failed: {}", e.what());
    }
  }

  const EndpointServer& server_;
  std::vector<std::unique_ptr<http_listener>> listeners_;
  std::vector<std::string> uris_;
};

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

util::Status EndpointServer::Start() {
  std::lock_guard<std::mutex> lifecycle(lifecycle_mu_);
  if (listeners_) return util::Status(util::StatusCode::kAlreadyExists, "server already started");
  if (options_.bind_address.find(':') != std::string::npos) {
    // cpprestsdk's listener splits "host:port" at the first ':', so an IPv6
    // literal can never be bound; say so instead of failing obscurely.
    return util::InvalidArgument("--bind-address " + options_.bind_address +
                                 ": IPv6 addresses are not supported; use an IPv4 address "
                                 "(0.0.0.0 for all interfaces) or a host name");
  }

  std::optional<TlsCredentials> creds;
  if (options_.secure_port > 0) {
    if (!options_.tls_cert_file.empty() || !options_.tls_private_key_file.empty()) {
      if (options_.tls_cert_file.empty() || options_.tls_private_key_file.empty()) {
        return util::InvalidArgument(
            "--tls-cert-file and --tls-private-key-file must be given together");
      }
      auto loaded = LoadTlsCredentials(options_.tls_cert_file, options_.tls_private_key_file);
      if (!loaded.ok()) return loaded.status();
      creds = std::move(loaded).value();
    } else {
      SelfSignedOptions self;
      char host[256] = {};
      std::string hostname =
          gethostname(host, sizeof(host) - 1) == 0 && host[0] != '\0' ? host : "localhost";
      const auto now = clock_.WallNow();
      self.common_name =
          hostname + "@" +
          std::to_string(
              std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count());
      // Backdated a little so clients with a slightly slow clock accept it.
      self.not_before = now - std::chrono::hours(1);
      self.validity = std::chrono::hours(24 * 365) + std::chrono::hours(1);
      for (const auto& n : SubjectAltNameCandidates()) {
        std::vector<std::string>& into = IsIpLiteral(n) ? self.ip_addresses : self.dns_names;
        if (std::find(into.begin(), into.end(), n) == into.end()) into.push_back(n);
      }
      auto generated = GenerateSelfSigned(self);
      if (!generated.ok()) return generated.status();
      creds = std::move(generated).value();
    }
  }

  auto listeners = std::make_unique<Listeners>(*this);
  const std::string host = options_.bind_address.empty() ? "0.0.0.0" : options_.bind_address;
  if (options_.secure_port > 0) {
    auto st = listeners->Open("https://" + host + ":" + std::to_string(options_.secure_port) + "/",
                              &*creds);
    if (!st.ok()) return st;
  }
  if (options_.http_port > 0) {
    auto st =
        listeners->Open("http://" + host + ":" + std::to_string(options_.http_port) + "/", nullptr);
    if (!st.ok()) return st;  // `listeners` closes the HTTPS one on the way out
  }
  {
    std::unique_lock<std::shared_mutex> lock(mu_);
    credentials_ = std::move(creds);
  }
  listeners_ = std::move(listeners);
  return util::Status::Ok();
}

void EndpointServer::Stop() {
  std::lock_guard<std::mutex> lifecycle(lifecycle_mu_);
  if (listeners_) {
    listeners_->Close();
    listeners_.reset();
  }
}

std::optional<TlsCredentials> EndpointServer::ServingCredentials() const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  return credentials_;
}

std::vector<std::string> EndpointServer::ListeningUris() const {
  std::lock_guard<std::mutex> lifecycle(lifecycle_mu_);
  return listeners_ ? listeners_->uris() : std::vector<std::string>{};
}

util::StatusOr<HttpRequest> EndpointServer::ParseTarget(std::string method,
                                                        std::string_view target) {
  HttpRequest req;
  req.method = std::move(method);
  auto [raw_path, raw_query] = net::SplitTarget(target);
  util::StatusOr<std::string> path = net::PercentDecode(raw_path);
  if (!path.ok()) return util::InvalidArgument("malformed escape in path");
  req.path = path->empty() ? "/" : *path;
  if (req.path.front() != '/') req.path.insert(req.path.begin(), '/');
  util::StatusOr<net::QueryParams> query = net::ParseQuery(raw_query);
  if (!query.ok()) return util::InvalidArgument("malformed escape in query");
  req.query = std::move(query).value();
  return req;
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
  r.body = CollectText(collectables);
  return r;
}

}  // namespace ksched::metrics
