#include "pkg/cel/program.h"

#include <utility>

#include "pkg/cel/checker.h"
#include "pkg/cel/eval.h"
#include "pkg/cel/fold.h"
#include "pkg/cel/parser.h"

namespace ksched::cel {
namespace {

std::string Quoted(std::string_view expr) {
  // Long selectors are cut, at a UTF-8 boundary, so that messages stay
  // readable.
  size_t cut = 200;
  if (expr.size() > cut) {
    while (cut > 0 && (static_cast<unsigned char>(expr[cut]) & 0xC0) == 0x80) --cut;
  } else {
    cut = expr.size();
  }
  std::string s(expr.substr(0, cut));
  if (cut < expr.size()) s += "...";
  return "CEL expression \"" + s + "\"";
}

// Splits "domain/name"; a name without a domain belongs to the driver.
std::pair<std::string, std::string> SplitQualified(const std::string& name, const std::string& driver) {
  size_t slash = name.find('/');
  if (slash == std::string::npos) return {driver, name};
  return {name.substr(0, slash), name.substr(slash + 1)};
}

// Adds value under domain -> id in a map of maps.
void Put(std::vector<std::pair<std::string, std::shared_ptr<MapValue>>>* domains, const std::string& domain,
         const std::string& id, Value value) {
  std::shared_ptr<MapValue> inner;
  for (auto& [d, m] : *domains) {
    if (d == domain) inner = m;
  }
  if (!inner) {
    inner = std::make_shared<MapValue>();
    inner->string_keyed = true;
    domains->emplace_back(domain, inner);
  }
  for (auto& [k, v] : inner->entries) {
    if (k.s == id) {
      v = std::move(value);
      return;
    }
  }
  inner->entries.emplace_back(Value::String(id), std::move(value));
}

Value OuterMap(std::vector<std::pair<std::string, std::shared_ptr<MapValue>>> domains) {
  auto outer = std::make_shared<MapValue>();
  outer->missing_is_empty_map = true;
  outer->string_keyed = true;
  for (auto& [d, m] : domains) outer->entries.emplace_back(Value::String(d), Value::Map(std::move(m)));
  return Value::Map(std::move(outer));
}

// Which of the device's maps `e` can read: a map is needed when the
// expression selects it (`device.attributes`, `device.?capacity`) or uses
// `device` other than by selecting a field (which could read anything). A
// local variable or field name spelled "device" counts too, which only
// builds a map that was not needed.
void DeviceMapsRead(const Expr& e, const Expr* parent, bool* attributes, bool* capacity) {
  if (e.kind == Expr::Kind::kIdent && e.name == "device") {
    const bool selected = parent != nullptr && parent->kind == Expr::Kind::kSelect && parent->target.get() == &e;
    if (!selected || parent->name == "attributes") *attributes = true;
    if (!selected || parent->name == "capacity") *capacity = true;
  }
  if (e.target) DeviceMapsRead(*e.target, &e, attributes, capacity);
  for (const ExprPtr& arg : e.args) {
    if (arg) DeviceMapsRead(*arg, &e, attributes, capacity);
  }
}

}  // namespace

Program::Program(std::string expression, std::shared_ptr<const Expr> root, CompileOptions options)
    : expression_(std::move(expression)), root_(std::move(root)), options_(options) {
  DeviceMapsRead(*root_, nullptr, &reads_attributes_, &reads_capacity_);
}

util::StatusOr<Program> Program::Compile(std::string_view expression, const CompileOptions& options) {
  util::StatusOr<ExprPtr> parsed = Parse(expression, options);
  if (!parsed.ok()) {
    return util::InvalidArgument(Quoted(expression) + ": compilation failed: " + parsed.status().message());
  }
  ExprPtr root = std::move(parsed).value();
  util::Status st = Check(expression, *root, options);
  if (st.ok()) st = Fold(expression, *root);
  if (!st.ok()) return util::InvalidArgument(Quoted(expression) + ": compilation failed: " + st.message());
  return Program(std::string(expression), std::shared_ptr<const Expr>(std::move(root)), options);
}

util::StatusOr<bool> Program::Matches(const Device& device) const {
  // Every attribute and capacity is checked, as Kubernetes converts them
  // all, but only the maps the expression reads are built: building is
  // most of the cost of a simple selector such as `device.driver == "x"`.
  std::vector<std::pair<std::string, std::shared_ptr<MapValue>>> attributes, capacity;
  for (const auto& [name, attr] : device.attributes) {
    if (!reads_attributes_ && attr.kind != DeviceAttribute::Kind::kVersion) continue;
    Value v;
    switch (attr.kind) {
      case DeviceAttribute::Kind::kInt: v = Value::Int(attr.int_value); break;
      case DeviceAttribute::Kind::kBool: v = Value::Bool(attr.bool_value); break;
      case DeviceAttribute::Kind::kString: v = Value::String(attr.string_value); break;
      case DeviceAttribute::Kind::kVersion: {
        util::StatusOr<Semver> sv = Semver::Parse(attr.string_value);
        if (!sv.ok()) {
          return util::InvalidArgument(Quoted(expression_) + ": attribute " + name + ": " + sv.status().message());
        }
        v = Value::Version(*sv);
        break;
      }
    }
    if (!reads_attributes_) continue;
    auto [domain, id] = SplitQualified(name, device.driver);
    Put(&attributes, domain, id, std::move(v));
  }
  for (const auto& [name, text] : device.capacity) {
    util::StatusOr<KubeQuantity> q = ParseKubeQuantity(text);
    if (!q.ok()) {
      return util::InvalidArgument(Quoted(expression_) + ": capacity " + name + ": " + q.status().message());
    }
    if (!reads_capacity_) continue;
    auto [domain, id] = SplitQualified(name, device.driver);
    Put(&capacity, domain, id, Value::Quantity(*q));
  }
  auto fields = std::make_shared<MapValue>();
  fields->entries.emplace_back(Value::String("driver"), Value::String(device.driver));
  fields->entries.emplace_back(Value::String("allowMultipleAllocations"),
                               Value::Bool(device.allow_multiple_allocations.value_or(false)));
  if (reads_attributes_) fields->entries.emplace_back(Value::String("attributes"), OuterMap(std::move(attributes)));
  if (reads_capacity_) fields->entries.emplace_back(Value::String("capacity"), OuterMap(std::move(capacity)));
  Value device_value = Value::Map(std::move(fields));

  CostBudget budget{options_.cost_limit, 0};
  budget.checked_empty_substring_offsets = options_.checked_empty_substring_offsets;
  budget.includes_unbounded = options_.includes_unbounded;
  budget.bounded_lists_range = options_.bounded_lists_range;
  budget.quantity_deep_copy = options_.quantity_deep_copy;
  budget.url_lenient_colons = options_.url_lenient_colons;
  budget.legacy_label_key_messages = options_.legacy_label_key_messages;
  budget.or_passes_non_optionals = options_.or_passes_non_optionals;
  Value result = Evaluate(*root_, device_value, &budget);
  if (result.is_error()) {
    return util::InvalidArgument(Quoted(expression_) + ": evaluation failed: " + result.s);
  }
  // Kubernetes converts the result to a Go bool, which unwraps an optional
  // (has() in an optional chain that cel-go reads as an attribute, a branch
  // of ?:, is the field's value as an optional).
  if (result.kind == Value::Kind::kOptional) {
    if (result.held == nullptr) {
      return util::InvalidArgument(Quoted(expression_) + ": the result is optional.none(), not a bool");
    }
    Value held = *result.held;
    result = std::move(held);
  }
  if (result.kind != Value::Kind::kBool) {
    return util::InvalidArgument(Quoted(expression_) + ": the result is a " + KindName(result.kind) +
                                 ", not a bool");
  }
  return result.b;
}

}  // namespace ksched::cel
