// IpAddr and IpPrefix: IP addresses and CIDR prefixes as Go's net/netip
// (Go 1.26) parses, prints and compares them, for Kubernetes' CEL IP and
// CIDR libraries (lib_net.cc).
//
// Parse accepts exactly what netip.ParseAddr accepts: dotted decimal IPv4
// with four fields, no leading zeros and no value over 255; IPv6 with at
// most one "::", groups of one to four hex digits, an optional embedded
// IPv4 tail and an optional non-empty "%zone". Failures carry Go's message
// text (`ParseAddr("x"): unable to parse IP`); the quoting is
// strconv.Quote's (go_quote.h). IpPrefix::Parse
// is netip.ParsePrefix: address, '/', and a decimal length without sign or
// leading zeros, within the family's bits; zones are refused.
//
// String is RFC 5952 (Go's Addr.String / Prefix.String): lower-case hex,
// the first longest run of two or more zero groups as "::", IPv4-mapped
// IPv6 addresses as ::ffff:a.b.c.d. A prefix keeps the address bits past its
// length unless Masked. Equality is Go's ==: the same family, bytes, zone
// (and length, for prefixes).
//
// Thread-safety: immutable value types.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "pkg/util/status.h"

namespace ksched::cel {

struct IpAddr {
  // Network byte order. An IPv4 address is kept as Go keeps it, in the
  // ::ffff:0:0/96 layout with is4 set, so that masking by bits + 96 works
  // for both families.
  std::array<uint8_t, 16> bytes{};
  bool is4 = false;
  std::string zone;

  static util::StatusOr<IpAddr> Parse(std::string_view s);

  std::string String() const;
  int BitLen() const { return is4 ? 32 : 128; }
  // An IPv6 address of the form ::ffff:a.b.c.d.
  bool Is4In6() const;
  bool IsUnspecified() const;
  bool IsLoopback() const;
  bool IsMulticast() const;
  bool IsLinkLocalMulticast() const;
  bool IsLinkLocalUnicast() const;
  bool IsGlobalUnicast() const;
  // The address with all but its first `bits` bits (of its family) cleared.
  IpAddr Masked(int bits) const;

  bool operator==(const IpAddr&) const = default;
};

struct IpPrefix {
  IpAddr addr;  // never zoned
  int bits = 0;

  static util::StatusOr<IpPrefix> Parse(std::string_view s);

  std::string String() const { return addr.String() + "/" + std::to_string(bits); }
  // Whether `ip` (of the same family) agrees with the prefix's first bits.
  bool Contains(const IpAddr& ip) const;
  // Whether the two share any address (Go's Prefix.Overlaps).
  bool Overlaps(const IpPrefix& o) const;
  IpPrefix Masked() const { return IpPrefix{addr.Masked(bits), bits}; }

  bool operator==(const IpPrefix&) const = default;
};

}  // namespace ksched::cel
