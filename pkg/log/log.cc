#include "pkg/log/log.h"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <mutex>
#include <unordered_map>

#include "pkg/log/formatter.h"
#include "pkg/log/vmodule.h"

namespace ksched::log {

namespace {

// The --vmodule rules and the level each __FILE__ pointer resolved to.
struct VModuleState {
  std::mutex mu;
  VModule rules;
  std::unordered_map<const char*, int> levels;
};

VModuleState& VModuleStorage() {
  static VModuleState* s = new VModuleState();  // outlives every logging thread
  return *s;
}

// Passes on records up to `max` only: with a second sink taking the rest,
// info goes to one stream and errors to the other.
class MaxLevelSink : public spdlog::sinks::sink {
 public:
  MaxLevelSink(spdlog::sink_ptr inner, spdlog::level::level_enum max) : inner_(std::move(inner)), max_(max) {}
  void log(const spdlog::details::log_msg& msg) override {
    if (msg.level <= max_) inner_->log(msg);
  }
  void flush() override { inner_->flush(); }
  void set_pattern(const std::string& pattern) override { inner_->set_pattern(pattern); }
  void set_formatter(std::unique_ptr<spdlog::formatter> f) override { inner_->set_formatter(std::move(f)); }

 private:
  spdlog::sink_ptr inner_;
  spdlog::level::level_enum max_;
};

void Install(std::shared_ptr<spdlog::logger> logger, Format format, int verbosity) {
  SetVerbosity(verbosity);
  logger->set_formatter(std::make_unique<KlogFormatter>(format));
  logger->set_level(spdlog::level::info);
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(std::move(logger));
}

}  // namespace

void Init(int verbosity) {
  // The logger spdlog starts with (stdout), now with klog's header.
  std::shared_ptr<spdlog::logger> logger = spdlog::default_logger();
  Install(logger, Format::kText, verbosity);
}

util::StatusOr<Format> ParseFormat(std::string_view name) {
  if (name == "text") return Format::kText;
  if (name == "json") return Format::kJson;
  return util::InvalidArgument("invalid value \"" + std::string(name) +
                               "\" for flag --logging-format: permitted formats are \"json\" and \"text\"");
}

util::Status Configure(const Options& options) {
  util::StatusOr<VModule> vm = VModule::Parse(options.vmodule);
  if (!vm.ok()) return vm.status();
  std::shared_ptr<spdlog::logger> logger;
  if (options.split_stream) {
    auto out = std::make_shared<MaxLevelSink>(std::make_shared<spdlog::sinks::stdout_sink_mt>(), spdlog::level::warn);
    auto err = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    err->set_level(spdlog::level::err);
    logger = std::make_shared<spdlog::logger>("ksched", spdlog::sinks_init_list{out, err});
  } else {
    // klog's default: every line on stderr.
    logger = std::make_shared<spdlog::logger>("ksched", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  }
  {
    VModuleState& s = VModuleStorage();
    std::lock_guard<std::mutex> l(s.mu);
    s.rules = std::move(vm).value();
    s.levels.clear();
    detail::VModuleActive().store(!s.rules.empty(), std::memory_order_relaxed);
  }
  Install(std::move(logger), options.format, options.verbosity);
  if (options.flush_frequency.count() > 0) spdlog::flush_every(options.flush_frequency);
  return util::Status::Ok();
}

void ConfigureForTest(const Options& options, spdlog::sink_ptr sink) {
  util::StatusOr<VModule> vm = VModule::Parse(options.vmodule);
  {
    VModuleState& s = VModuleStorage();
    std::lock_guard<std::mutex> l(s.mu);
    s.rules = vm.ok() ? std::move(vm).value() : VModule();
    s.levels.clear();
    detail::VModuleActive().store(!s.rules.empty(), std::memory_order_relaxed);
  }
  Install(std::make_shared<spdlog::logger>("ksched-test", std::move(sink)), options.format, options.verbosity);
}

int Verbosity() { return VerbosityStorage().load(std::memory_order_relaxed); }

void SetVerbosity(int v) { VerbosityStorage().store(v < 0 ? 0 : v, std::memory_order_relaxed); }

namespace detail {

int VModuleLevel(const char* file) {
  VModuleState& s = VModuleStorage();
  std::lock_guard<std::mutex> l(s.mu);
  auto [it, inserted] = s.levels.try_emplace(file, -1);
  if (inserted) it->second = s.rules.LevelFor(file);
  return it->second;
}

void EmitS(int v, spdlog::level::level_enum level, const char* file, int line, std::string_view msg,
           std::initializer_list<Field> fields, std::string_view err) {
  Structured s{fields, err};
  const Structured*& current = CurrentStructured();
  const Structured* previous = current;
  current = &s;
  VScope scope(v);
  spdlog::log(spdlog::source_loc{file, line, ""}, level, "{}", msg);
  current = previous;
}

VScope::VScope(int v) : previous_(CurrentV()) { CurrentV() = v; }
VScope::~VScope() { CurrentV() = previous_; }

}  // namespace detail

}  // namespace ksched::log
