// Fuzz target for net::ParseRequestHead (what a client of the secure port
// and of kube-apiserver-lite sends).
//
// Input: one byte choosing the limits, one seeding the prefixes checked,
// then the bytes. Properties: the verdict on growing prefixes is final
// (head_checks.h); a complete head's body framing and keep-alive answers do
// not crash, and FormatRequestHead of its method, target and fields parses
// back to them.
#include <string>
#include <string_view>

#include "pkg/net/http_message.h"
#include "test/fuzz/fuzz_target.h"
#include "test/fuzz/head_checks.h"
#include "test/fuzz/split.h"

namespace {

using ksched::net::HeadParse;
using ksched::net::RequestHead;

bool Same(const RequestHead& a, const RequestHead& b) {
  return a.method == b.method && a.target == b.target && a.version_minor == b.version_minor &&
         ksched::fuzz::SameHeaders(a.headers, b.headers);
}

}  // namespace

KSCHED_FUZZ_TARGET(request_head) {
  const ksched::net::HeadLimits limits = ksched::fuzz::LimitsFromByte(ksched::fuzz::TakeByte(&input));
  const uint8_t seed = ksched::fuzz::TakeByte(&input);
  RequestHead head;
  const HeadParse whole = ksched::net::ParseRequestHead(input, limits, &head);
  KSCHED_FUZZ_CHECK(whole.consumed <= input.size(), "consumed more than the buffer");
  ksched::fuzz::CheckPrefixes(input, limits, whole, head, seed, ksched::net::ParseRequestHead, Same);
  if (whole.state != HeadParse::State::kComplete) return;

  (void)ksched::net::RequestBodyFraming(head);
  (void)ksched::net::KeepAlive(head.version_minor, head.headers);

  const std::string formatted = ksched::net::FormatRequestHead(head.method, head.target, head.headers);
  ksched::net::HeadLimits roomy;
  roomy.max_head_bytes = formatted.size();
  roomy.max_headers = head.headers.size();
  RequestHead again;
  const HeadParse p = ksched::net::ParseRequestHead(formatted, roomy, &again);
  KSCHED_FUZZ_CHECK(p.state == HeadParse::State::kComplete && p.consumed == formatted.size(),
                    "a formatted request head does not parse");
  KSCHED_FUZZ_CHECK(again.method == head.method && again.target == head.target &&
                        ksched::fuzz::SameHeaders(again.headers, head.headers),
                    "a formatted request head parses to other fields");
}
