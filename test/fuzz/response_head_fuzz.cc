// Fuzz target for net::ParseResponseHead (what the API server sends back).
//
// Input: one byte choosing the limits, one seeding the prefixes checked,
// then the bytes. Properties: the verdict on growing prefixes is final
// (head_checks.h); a complete head's framing and keep-alive answers do not
// crash, and FormatResponseHead of its status and fields parses back to
// them.
#include <string>
#include <string_view>

#include "pkg/net/http_message.h"
#include "test/fuzz/fuzz_target.h"
#include "test/fuzz/head_checks.h"
#include "test/fuzz/split.h"

namespace {

using ksched::net::HeadParse;
using ksched::net::ResponseHead;

bool Same(const ResponseHead& a, const ResponseHead& b) {
  return a.version_minor == b.version_minor && a.status == b.status && a.reason == b.reason &&
         ksched::fuzz::SameHeaders(a.headers, b.headers);
}

}  // namespace

KSCHED_FUZZ_TARGET(response_head) {
  const ksched::net::HeadLimits limits = ksched::fuzz::LimitsFromByte(ksched::fuzz::TakeByte(&input));
  const uint8_t seed = ksched::fuzz::TakeByte(&input);
  ResponseHead head;
  const HeadParse whole = ksched::net::ParseResponseHead(input, limits, &head);
  KSCHED_FUZZ_CHECK(whole.consumed <= input.size(), "consumed more than the buffer");
  ksched::fuzz::CheckPrefixes(input, limits, whole, head, seed, ksched::net::ParseResponseHead, Same);
  if (whole.state != HeadParse::State::kComplete) return;

  for (const char* method : {"GET", "HEAD", "POST"}) (void)ksched::net::ResponseBodyFraming(head, method);
  (void)ksched::net::KeepAlive(head.version_minor, head.headers);

  const std::string formatted = ksched::net::FormatResponseHead(head.status, head.headers);
  ksched::net::HeadLimits roomy;
  roomy.max_head_bytes = formatted.size();
  roomy.max_headers = head.headers.size();
  ResponseHead again;
  const HeadParse p = ksched::net::ParseResponseHead(formatted, roomy, &again);
  KSCHED_FUZZ_CHECK(p.state == HeadParse::State::kComplete && p.consumed == formatted.size(),
                    "a formatted response head does not parse");
  KSCHED_FUZZ_CHECK(again.status == head.status && ksched::fuzz::SameHeaders(again.headers, head.headers),
                    "a formatted response head parses to other fields");
}
