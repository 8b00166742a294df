package celcompare

import "fmt"

// Expressions over Kubernetes' IP and CIDR libraries (ip, cidr, isIP,
// isCIDR, ip.isCanonical, string() of each, the IP predicates, family,
// containsIP, containsCIDR, ip(), masked, prefixLength), mixed into the
// boolean, integer and string generators of gen.go: literals Go's netip
// accepts and ones it or the library refuses (leading zeros, zones,
// IPv4-mapped addresses, bad or out-of-range lengths), equality, lists and
// map keys of them, dyn values reaching the wrong overload, and uses the
// checker refuses.

var (
	ipPool = []string{"10.0.0.1", "192.168.0.1", "127.0.0.1", "127.9.9.9", "0.0.0.0", "255.255.255.255",
		"224.0.0.1", "224.0.1.1", "239.1.1.1", "169.254.1.1", "::", "::1", "::2", "2001:db8::1", "2001:DB8::1",
		"2001:db8:0:0:1:0:0:1", "1:0:0:1:0:0:0:1", "fe80::1", "febf::1", "fec0::1", "ff02::1", "ff12::1",
		"ff05::1", "ff00::1", "fd00::1", "::1.2.3.4", "1:2:3:4:5:6:1.2.3.4", "1:0:0:0:0:0:0:0", "0:0:1:0:0:0:0:0",
		// refused by netip or by the library
		"::ffff:1.2.3.4", "::ffff:0:0", "fe80::1%eth0", "fe80::1%", "01.2.3.4", "1.2.3.256", "1.2.3", "1.2.3.4.5",
		"1..2.3", "1.2.3.4%eth0", "", "abc", "%x", "12345::", "1:2:3:4:5:6:7:8:9", "1:2:3:4::5:6:7:8", "1::2::3",
		"1:", ":1", "1:2:3:4:5:1.2.3.4", "::01.2.3.4", " 1.2.3.4", "1.2.3.-4", "0x1.2.3.4", "1.2.3.4/24"}
	cidrPool = []string{"10.0.0.0/8", "10.1.0.0/16", "10.1.2.3/8", "10.0.0.1/32", "192.168.0.0/24", "192.168.0.1/24",
		"0.0.0.0/0", "1.2.3.4/0", "::/0", "::/128", "::1/128", "2001:db8::/32", "2001:db8:1::/48", "2001:DB8::1/64",
		"fe80::/10", "2001:db8:ffff::/33",
		// refused by netip or by the library
		"1.2.3.4/00", "1.2.3.4/01", "1.2.3.4/33", "::/129", "1.2.3.4/-1", "1.2.3.4/+1", "1.2.3.4/", "1.2.3.4",
		"fe80::1%eth0/64", "::ffff:1.2.3.4/120", "::ffff:0:0/96", "1.2.3/8", "1.2.3.4/8/8", "10.0.0.01/8", "/8",
		"1.2.3.4/99999999999999999999", ""}
	ipPredicates = []string{"isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast"}
)

// ipText and cidrText are strings that are usually, not always, an IP or
// a CIDR: the first two thirds of each pool are valid.
func (g *Gen) ipText() string {
	if g.chance(75) {
		return quote(ipPool[g.r.Intn(29)])
	}
	if g.chance(20) {
		return g.sub(g.str)
	}
	return quote(g.pick(ipPool))
}

func (g *Gen) cidrText() string {
	if g.chance(75) {
		return quote(cidrPool[g.r.Intn(16)])
	}
	if g.chance(20) {
		return g.sub(g.str)
	}
	return quote(g.pick(cidrPool))
}

func (g *Gen) ipValue() string {
	switch g.r.Intn(8) {
	case 0:
		return fmt.Sprintf("%s.ip()", g.cidrValue())
	case 1:
		return fmt.Sprintf("ip(%s)", g.attr("string"))
	default:
		return fmt.Sprintf("ip(%s)", g.ipText())
	}
}

func (g *Gen) cidrValue() string {
	switch g.r.Intn(8) {
	case 0:
		return fmt.Sprintf("cidr(%s).masked()", g.cidrText())
	case 1:
		return fmt.Sprintf("cidr(%s)", g.attr("string"))
	default:
		return fmt.Sprintf("cidr(%s)", g.cidrText())
	}
}

func (g *Gen) netBoolean() string {
	switch g.r.Intn(20) {
	case 0, 1:
		return fmt.Sprintf("%s.%s()", g.ipValue(), g.pick(ipPredicates))
	case 2:
		return fmt.Sprintf("%s(%s)", g.pick([]string{"isIP", "isCIDR"}), g.pick([]string{g.ipText(), g.cidrText()}))
	case 3:
		if g.chance(20) {
			// The namespaced function wins over a variable named ip.
			return fmt.Sprintf("[1].all(ip, ip.isCanonical(%s))", g.ipText())
		}
		return fmt.Sprintf("ip.isCanonical(%s)", g.ipText())
	case 4, 5:
		arg := g.ipText()
		if g.chance(50) {
			arg = g.ipValue()
		}
		return fmt.Sprintf("%s.containsIP(%s)", g.cidrValue(), arg)
	case 6, 7:
		arg := g.cidrText()
		if g.chance(50) {
			arg = g.cidrValue()
		}
		return fmt.Sprintf("%s.containsCIDR(%s)", g.cidrValue(), arg)
	case 8:
		return fmt.Sprintf("%s %s %s", g.ipValue(), g.pick([]string{"==", "!="}), g.ipValue())
	case 9:
		return fmt.Sprintf("%s %s %s", g.cidrValue(), g.pick([]string{"==", "!="}), g.cidrValue())
	case 10:
		return fmt.Sprintf("%s.family() == %d", g.ipValue(), g.pick64([]int64{4, 6}))
	case 11:
		return fmt.Sprintf("%s.prefixLength() %s %d", g.cidrValue(), g.pick([]string{"==", "<", ">"}), g.r.Intn(130))
	case 12:
		return fmt.Sprintf("%s == %s", g.netString(), g.pick([]string{g.ipText(), g.cidrText(), g.sub(g.str)}))
	case 13:
		return fmt.Sprintf("%s in [%s, %s]", g.ipValue(), g.ipValue(), g.ipValue())
	case 14:
		return fmt.Sprintf("{%s: 1, %s: 2}[%s] == 1", g.ipValue(), g.ipValue(), g.ipValue())
	case 15:
		// dyn values of the wrong kind reach the libraries' overloads, and
		// equality across kinds (an error from an IP or CIDR, false from a
		// number or string).
		a := fmt.Sprintf("dyn(%s)", g.pick([]string{g.ipValue(), g.cidrValue(), "1", `"10.0.0.1"`, g.attr("")}))
		b := fmt.Sprintf("dyn(%s)", g.pick([]string{g.ipValue(), g.cidrValue(), "1", `"10.0.0.1"`, g.attr("")}))
		return g.pick([]string{
			fmt.Sprintf("%s == %s", a, b),
			fmt.Sprintf("%s != %s", a, b),
			fmt.Sprintf("%s in [%s]", a, b),
			fmt.Sprintf("%s.containsIP(%s)", a, b),
			fmt.Sprintf("%s.containsCIDR(%s)", a, b),
			fmt.Sprintf("%s.%s()", a, g.pick(ipPredicates)),
			fmt.Sprintf("%s.ip().family() == 4", a),
			fmt.Sprintf("%s.masked() == %s", a, b),
			fmt.Sprintf("string(%s) == %s", a, b),
			fmt.Sprintf("size(%s) == 4", a),
			fmt.Sprintf("%s.family() == %s.prefixLength()", a, b),
		})
	case 16:
		// Attributes are any (dyn from 1.37): the overload is chosen at
		// run time.
		return g.pick([]string{
			fmt.Sprintf("%s.containsIP(%s)", g.cidrValue(), g.attr("")),
			fmt.Sprintf("%s.containsCIDR(%s)", g.cidrValue(), g.attr("")),
			fmt.Sprintf("isIP(%s) && %s.%s()", g.attr("string"), g.ipValue(), g.pick(ipPredicates)),
			fmt.Sprintf("%s.%s()", g.attr(""), g.pick(ipPredicates)),
		})
	case 17:
		// Uses the checker refuses.
		return g.pick([]string{
			fmt.Sprintf("%s == %s", g.ipValue(), g.ipText()),
			fmt.Sprintf("%s == %s", g.ipValue(), g.cidrValue()),
			fmt.Sprintf("%s.family() == 4", g.ipText()),
			fmt.Sprintf("%s.prefixLength() == 8", g.ipValue()),
			fmt.Sprintf("%s.containsIP(1)", g.cidrValue()),
			fmt.Sprintf("%s.containsCIDR(%s)", g.cidrValue(), g.ipValue()),
			fmt.Sprintf("%s < %s", g.ipValue(), g.ipValue()),
			fmt.Sprintf("size(%s) == 4", g.ipValue()),
			fmt.Sprintf("[%s, %s].size() == 2", g.ipValue(), g.cidrValue()),
			fmt.Sprintf("[%s].sort().size() == 1", g.ipValue()),
			fmt.Sprintf("ip(%d).isLoopback()", g.r.Intn(3)),
			fmt.Sprintf("%s.ip()", g.cidrValue()),
			fmt.Sprintf("int(%s) == 1", g.ipValue()),
		})
	case 18:
		// Lists of addresses through the lists libraries.
		return g.pick([]string{
			fmt.Sprintf("[%s, %s].distinct().size() == 1", g.ipValue(), g.ipValue()),
			fmt.Sprintf("[%s, %s].indexOf(%s) == 0", g.cidrValue(), g.cidrValue(), g.cidrValue()),
			fmt.Sprintf("[%s, %s].exists(x, x.isLoopback())", g.ipValue(), g.ipValue()),
			fmt.Sprintf("[%s].all(c, c.containsIP(%s))", g.cidrValue(), g.ipText()),
			fmt.Sprintf("cel.bind(n, %s, n.containsCIDR(n.masked()) && n.ip() == n.masked().ip())", g.cidrValue()),
		})
	default:
		return fmt.Sprintf("%s.containsIP(%s.ip()) == %s.containsCIDR(%s)", g.cidrValue(), g.cidrValue(), g.cidrValue(), g.cidrValue())
	}
}

func (g *Gen) pick64(xs []int64) int64 { return xs[g.r.Intn(len(xs))] }

func (g *Gen) netInteger() string {
	if g.chance(50) {
		return fmt.Sprintf("%s.family()", g.ipValue())
	}
	return fmt.Sprintf("%s.prefixLength()", g.cidrValue())
}

func (g *Gen) netString() string {
	if g.chance(50) {
		return fmt.Sprintf("string(%s)", g.ipValue())
	}
	return fmt.Sprintf("string(%s)", g.cidrValue())
}
