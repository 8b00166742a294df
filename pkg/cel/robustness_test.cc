// Hostile input: randomly edited selectors and random bytes neither crash nor hang
// Compile and Matches, and every error names the expression.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pkg/cel/program.h"

namespace ksched::cel {
namespace {

TEST(RobustnessTest, RandomlyEditedSelectors) {
  const std::vector<std::string> vocab = {
      "device", ".", "driver", "attributes", "capacity", "[", "]", "(", ")", "{", "}", ":", ",", "\"gpu\"",
      "'a'", "1", "-", "0u", "1.5", "true", "null", "&&", "||", "!", "?", "==", "<", "+", "*", "/", "%",
      "in", "has", "cel", "bind", "x", "size", "quantity", "semver", "\"1Gi\"", "\"1.2.3\"", "add",
      "compareTo", "isGreaterThan", "split", "join", "int", "string", "dyn", "\\", "\"", "r", "b", "e3",
      "bytes", "b\"\\xff\"", "\\x", "duration", "timestamp", "\"1h\"", "\"2023-01-01T00:00:00Z\"",
      "getHours", "\"Europe/Berlin\"", "\"+05:30\"",
      ".?", "[?", "optional", "of", "none", "orValue", "optMap", "value"};
  std::mt19937 rng(42);
  Device d;
  d.driver = "gpu";
  d.attributes["x"] = DeviceAttribute::Int(1);
  d.capacity["mem"] = "1.5Gi";
  // Valid selectors with a few random edits, so that most inputs get past
  // the parser and some past the checker.
  const std::vector<std::string> seeds = {
      R"(device.driver == "gpu" && device.attributes["gpu"].x > 0)",
      R"(device.capacity["gpu"].mem.compareTo(quantity("1Gi")) >= 0 || has(device.attributes["gpu"].x))",
      R"(cel.bind(a, device.attributes["gpu"], a.x in [1, 2] ? "s".split("").size() == 1 : false))",
      R"(semver("1.2.3").isLessThan(semver("1.10.0")) && string(1.5) + "x" != "")",
      R"(device.attributes["gpu"].?x.optMap(v, v + 1).orValue(0) > [?optional.of(1)][0])",
      R"(string(bytes(device.driver) + b"\x41") != "" && size(b"ab") < 3)",
      R"(timestamp("2023-01-01T00:00:00Z").getHours("Europe/Berlin") + duration("1h").getMinutes() > 0)"};
  int compiled = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string expr = seeds[rng() % seeds.size()];
    int edits = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < edits; ++k) {
      size_t at = rng() % (expr.size() + 1);
      size_t len = rng() % 4;
      expr.replace(at, std::min(len, expr.size() - at), vocab[rng() % vocab.size()]);
    }
    auto p = Program::Compile(expr);
    if (!p.ok()) {
      ASSERT_NE(p.status().message().find("CEL expression \""), std::string::npos) << expr;
      continue;
    }
    ++compiled;
    auto m = p->Matches(d);
    if (!m.ok()) {
      ASSERT_NE(m.status().message().find("CEL expression \""), std::string::npos) << expr;
    }
  }
  EXPECT_GT(compiled, 500);  // the inputs reach the evaluator, not only the parser
}

TEST(RobustnessTest, RandomBytes) {
  std::mt19937 rng(7);
  for (int i = 0; i < 5000; ++i) {
    std::string expr(1 + rng() % 64, '\0');
    for (char& c : expr) c = static_cast<char>(rng() % 256);
    auto p = Program::Compile(expr);
    if (p.ok()) (void)p->Matches(Device{});
  }
}

}  // namespace
}  // namespace ksched::cel
