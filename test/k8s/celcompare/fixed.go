package celcompare

import (
	"fmt"
	"strings"
)

// invalid returns an expression Kubernetes rejects or this package does not
// support.
func (g *Gen) invalid() string {
	xs := []string{
		`1 == "a"`,
		`device.driver + 1 == "x"`,
		`device.foo == 1`,
		`device.allowMultipleAllocations`,
		`device.allowMultipleAllocations == false`,
		`size(1) == 1`,
		`device.driver`,
		`1 + 2`,
		`quantity("1").sign() == 1`,
		`sign(quantity("1")) == 1`,
		`sign(quantity("-1Gi")) < 0`,
		`foo(1)`,
		`device.attributes["gpu.example.com"].model.matches("^a")`,
		`[1, 2].exists(x, x > 1)`,
		`[1, 2].all(x, x > 0)`,
		`[1, 2].all(x, y, true)`,
		`{"a": 1, "b": 1}.transformMapEntry(k, v, {v: k}) == {}`,
		`{"a": 1, "b": 2}.transformMapEntry(k, v, {v: k}) == {1: "a", 2: "b"}`,
		`[1, 2].all(x, x, true)`,
		`[1, 2].filter(i, v, true)`,
		`[1, 2].existsOne(x, true)`,
		`[0, 1].all(i, v, 1 / v < 0)`,
		`device.attributes["gpu.example.com"].exists(k, v, v == 7)`,
		`dyn([1, 2]).all(i, v, v > 0)`,
		`device.attributes["gpu.example.com"].model.all(i, v, true)`,
		`[1, 2].transformMapEntry(i, v, {"k": v}) == {}`,
		`false || {dyn(semver("1.0.0")): 1} == {}`,
		`dyn(semver("1.0.0")) in {"a": 1} || true`,
		`dyn(semver("1.0.0")) in device.attributes["gpu.example.com"] || true`,
		`{"a": 1}[dyn(semver("1.0.0"))] == 1 || true`,
		`{quantity("1"): 1, [1]: 2}.size() == 2`,
		`device.attributes["gpu.example.com"].model.all(x, true)`,
		`dyn(device.attributes["gpu.example.com"].model).all(x, true)`,
		`[0, 1].exists_one(x, 1 / x > 0)`,
		`[1, 0].exists(x, 1 / x > 0)`,
		`[0, 1].all(x, 1 / x < 0)`,
		`[1, 2].exists(x, x == 2) && x == 2`,
		`[1, 2].map(x, x, x) == []`,
		`[1, 2].all(1, true)`,
		`{"a": 1, "b": 2}.exists_one(k, k != "")`,
		`device.attributes.all(d, d != "")`,
		`device.capacity.exists(d, device.capacity[d].exists(c, device.capacity[d][c].isGreaterThan(quantity("1"))))`,
		`b"abc" == b"abc"`,
		`type(1) == int`,
		`[1, "a"] == [1, "a"]`,
		`{"a": 1}["a"] == 1`,
		`{"a": 1}.b == 1`,
		`{"a": 1, "b": "x"}.a == 1`,
		`[1, 2][2] == 1`,
		`[1, 2][1] == 2`,
		`(1 == 1) == true`,
		`1 == 1.0`,
		`dyn(1) == 1.0`,
		`dyn(1u) == 1`,
		`1 < 1.5 && 2u > 1 && 1.5 <= 2u`,
		`9223372036854775807 + 1 > 0`,
		`-9223372036854775808 / -1 > 0`,
		`-9223372036854775808 % -1 == 0`,
		`1 / 0 == 1`,
		`1 % 0 == 1`,
		`0u - 1u > 0u`,
		`1.0 / 0.0 > 1e308`,
		`device.attributes["gpu.example.com"].model.size() > 0 || true`,
		`true || device.attributes["gpu.example.com"].nope`,
		`device.attributes["gpu.example.com"].nope || true`,
		`device.attributes["gpu.example.com"].nope && false`,
		`false && device.attributes["gpu.example.com"].nope`,
		`device.attributes["gpu.example.com"].nope ? true : false`,
		`!device.attributes["gpu.example.com"].model`,
		`device.attributes.gpu == {}`,
		`has(device.attributes.foo)`,
		`has(device.capacity.foo)`,
		`has(device.driver)`,
		`has(device.attributes["gpu.example.com"].model.foo)`,
		`device.attributes["gpu.example.com"].model.foo == 1`,
		`"gpu.example.com" in device.attributes`,
		`device.attributes["x"] == {}`,
		`size(device.attributes["gpu.example.com"]) >= 0`,
		`size(device.attributes) >= 0`,
		`device.attributes["gpu.example.com"]["model"] == device.attributes["gpu.example.com"].model`,
		`device.capacity["gpu.example.com"].memory == quantity("1Gi")`,
		`quantity("1").add(1) == quantity("2")`,
		`quantity("2") == quantity("1").add(1)`,
		`quantity("2") != quantity("1").add(1)`,
		`quantity("1") in [quantity("1")]`,
		`quantity("1").add(0) in [quantity("1")]`,
		`quantity("1") == "1"`,
		`dyn(quantity("1")) == "1"`,
		`dyn(quantity("1")) != "1"`,
		`"1" == dyn(quantity("1"))`,
		`semver("1.0.0") == semver("1.0.0+b")`,
		`dyn(semver("1.0.0")) == 1`,
		`[dyn(semver("1.0.0"))] == [1]`,
		`{"a": 1} == {"a": 1}`,
		`{"a": 1} == {"a": 2}`,
		`null == null && null != 1 && dyn(null) == null`,
		`[1, 2] + [3] == [1, 2, 3]`,
		`"a" < "b" && false < true`,
		`int("0x10") == 16`,
		`uint(-1) == 0u`,
		`uint(1.5) == 1u`,
		`uint(-0.5) == 0u`,
		`int(-0.5) == 0 && int(-9223372036854775808.0) < 0`,
		`double("0x1p-2") == 0.25`,
		`double("1_000") == 1000.0`,
		`double("1e400") > 0.0`,
		`double("inf") > 0.0`,
		`string(1e6) == "1e+06"`,
		`string(123456.0) == "123456"`,
		`string(0.000001) == "1e-06"`,
		`string(-0.0) == "-0"`,
		`bool("T") && !bool("0")`,
		`bool("yes")`,
		`"abc".charAt(3) == ""`,
		`"abc".charAt(4) == ""`,
		`"abc".substring(2, 1) == ""`,
		`"a,b,,c".split(",").size() == 4`,
		`"a,b,c".split(",", 0).size() == 0`,
		`["a", 1].join(",") == "a"`,
		`dyn(["a", dyn(1)]).join(",") == "a"`,
		`"  x\u00a0".trim() == "x"`,
		`semver("v1.2", true) == semver("1.2.0")`,
		`semver("1.2", true).minor() == 2`,
		`semver("1.2-rc", true).minor() == 2`,
		`semver("01.02.03", true).patch() == 3`,
		`isSemver("1.2.3-rc.01")`,
		`device.attributes["gpu.example.com"].model.indexOf("a")`,
		`[1, 2].indexOf(1) == 0`,
		`lists.range(3).size() == 3`,
		`sets.contains([1], [1])`,
		`sets.contains([1, 2], [2, 3]) || sets.equivalent([1, 2, 2], [2, 1])`,
		`sets.intersects(device.driver.split("."), ["example"])`,
		`sets.contains([1, 2], [1.0])`,
		`sets.contains(["a"], [device.attributes["gpu.example.com"].model])`,
		`sets.contains([quantity("1")], [quantity("1").add(0)])`,
		`sets.contains(dyn([1]), dyn(["a"]))`,
		`sets.contains([1], 1)`,
		`sets.foo([1], [1])`,
		`sets.contains([1, 2], [dyn(semver("1.0.0"))])`,
		`device.attributes["gpu.example.com"].?model == optional.none()`,
		`device.attributes[?"missing.example.com"].value() == {}`,
		`device.attributes["gpu.example.com"]. ?model.hasValue()`,
		`optional.ofNonZeroValue(device.attributes).hasValue()`,
		`optional.none()[1 / 0].hasValue()`,
		`dyn([1]).?a.hasValue()`,
		`[?dyn(1)] == [1]`,
		`{1: 2, ?1: optional.of(3)}[1] == 3`,
		`optional.of(1) == optional.of(1.0)`,
		`optional.of(1).optMap(1, 2).hasValue()`,
		`optional.of(true).orValue(1 / 0 == 1)`,
		`has(device.?driver)`,
		`has(device.attributes["gpu.example.com"].?model.x)`,
		`optional_type == optional_type`,
		`int == int`,
		`"a" + "b"`,
		`(`,
		`1 +`,
		`"unterminated`,
		`"\q" == ""`,
		`in == 1`,
		`device.attributes["gpu.example.com"].model == 'x' && `,
		`18446744073709551616 > 0`,
		`-9223372036854775809 < 0`,
		`0x10 == 16 && 0xFFu == 255u`,
		`1e3 == 1000.0`,
		`// comment
		true`,
		`cel.bind(x, 1, x + x == 2)`,
		`cel.bind(x, 1, cel.bind(x, "s", x == "s"))`,
		`cel.bind(x, device.attributes["gpu.example.com"], x.model == "a" || !has(x.model))`,
		`cel.bind(1, 1, true)`,
		`has(1)`,
		`has(device)`,
		`[1, 2, 3].size() == 3 && {"a": 1}.size() == 1`,
		`"a" in {"a": 1} && !("b" in {"a": 1})`,
		`1 in {1: "a"} && 1u in {1: "a"}`,
		`{1: "a", 1u: "b"}.size() == 2`,
		`{"a": 1, "a": 2}.size() == 1`,
		`[1, 2, 3][1u] == 2`,
		`[1, 2, 3][1.0] == 2`,
		`dyn([1, 2, 3])[dyn(1u)] == 2`,
		`dyn([1, 2, 3])[dyn(1.0)] == 2`,
		`dyn([1, 2, 3])[dyn(1.5)] == 2`,
		`quantity("1Gi").isInteger() && quantity("1.5").isInteger() == false && quantity("1Gi").asInteger() == 1073741824`,
		`quantity("0.5").asInteger() == 0`,
		`quantity("1Gi").add(quantity("1Gi")).compareTo(quantity("2Gi")) == 0`,
		`quantity("1").asApproximateFloat() == 1.0`,
		`quantity("1Gi").sub(1073741824).isGreaterThan(quantity("-1"))`,
		`device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.0.0"))`,
		`device.attributes["gpu.example.com"].driverVersion.major() >= 1`,
		`device.capacity["gpu.example.com"].memory.compareTo(quantity("1Gi")) >= 0`,
		`device.attributes["gpu.example.com"].count + 1 > 1`,
		`!!-9223372036854775808 == 1024`,
		`!-1 == 1`,
		`!-device.driver.size() == 0`,
		`---1 == -1 && - 1 == -1 && -1.size() == 1`,
		`cel.bind(x, 1 / 0, true)`,
		`cel.bind(x, 1 / 0, x == 1 || true)`,
		`cel.bind(x, 1, cel.bind(x, x + 1, x == 2))`,
		`cel.bind(x, 1, cel.bind(y, x + 1, cel.bind(x, 10, y == 2)))`,
		`cel.bind(x, device.attributes["gpu.example.com"].nope, cel.bind(y, x, true))`,
		`cel.bind(x, device.attributes["gpu.example.com"].driverVersion, x in ["1.2.3"] || true)`,
		`-2.25 < 0.0 / 0.0`,
		`0.0 / 0.0 == 0.0 / 0.0`,
		`string(b"\xff") == "" || true`,
		`true || {b"a": 1}.size() == 1`,
		`true || device.attributes[dyn(b"a")] == {}`,
		`dyn(b"a") in ["a"] || true`,
		`rb"a" == b"a"`,
		`bb"a" == b"a"`,
		`b"\u00e9" == b"a"`,
		`b"a" == "a"`,
		`[b"a", b"b"].sum() == b"ab"`,
		`b"a".contains(b"a")`,
		`string(b"\xed\xa0\x80") == ""`,
		`string(b"\xf4\x8f\xbf\xbf").size() == 1`,
		`[dyn(b"a"), dyn("b")].sort().size() == 2`,
		`[1].transformMapEntry(i, v, {b"a": v}).size() == 1`,
		`true || duration("x") == duration("1s")`,
		`true || timestamp("2023-02-29T00:00:00Z") == timestamp(1)`,
		`true || timestamp(253402300800) == timestamp(1)`,
		`true || {"a": 1}[dyn(duration("1s"))] == 1`,
		`duration(5) == duration("5ns")`,
		`-duration("1s") == duration("-1s")`,
		`[timestamp(1)].sum() == timestamp(1)`,
		`string(duration("123456789.123456789s")) == "123456789.12345679s"`,
		`string(timestamp("2023-01-01T00:00:00-24:60")) == "2023-01-01T00:00:00-25:00"`,
		`timestamp("2262-04-11T23:47:16.854775808Z") - timestamp("1970-01-01T00:00:00Z") > duration("0s")`,
		`timestamp("9999-12-31T23:59:59Z") + duration("1s") > timestamp(1) || true`,
		`timestamp("2023-01-01T05:30:00Z").getHours("+05:99") == 12`,
		`timestamp("2023-01-01T05:30:00Z").getHours("zone.tab") == 5 || true`,
		`timestamp("2023-01-01T05:30:00Z").getHours("Europe/Berlin\u0000") == 6`,
		`timestamp("2100-10-03T16:00:00Z").getHours("Australia/Sydney") == 3`,
		`{timestamp(1): 1, timestamp("1970-01-01T01:00:01+01:00"): 2}.size() == 2`,
		`type(duration("1s")) == google.protobuf.Duration && type(timestamp(1)) == google.protobuf.Timestamp`,
		`type(url("http://a")) == kubernetes.URL`,
		`string(type(url("http://a"))) == "kubernetes.URL"`,
		`url("http://a") < url("http://b")`,
		`url("http://a") in ["http://a"]`,
		`url(1) == url("/a")`,
		`"/a".url() == url("/a")`,
		`getHost(url("http://a")) == "a"`,
		`url("http://a/?b=1&a=2").getQuery().map(k, k).size() == 2`,
		`{url("http://a"): 1}[url("http://a")] == 1`,
		`url("http://a") in {url("http://a"): 1}`,
		`{url("http://a"): 1, url("http://a"): 2}.size() == 2`,
		`dyn(url("http://a")) == "http://a"`,
		`url("http://a:8080:90/").getPort() == "90"`,
		`url("ftp://a:8080:90/").getPort() == "90"`,
		`url("http://[fe80::1%25en0]:8/").getHostname() == "fe80::1%en0"`,
		`url("http://[::1%25a%20b]/").getHostname() == "::1%a b"`,
		`url("http://[::1%25a%2fb]/").getHostname() == ""`,
		`url("//a b/").getHost() == ""`,
		`url("http://x/?#%zz").getHost() == ""`,
		`url("http://a/%aé").getHost() == ""`,
		`url("http://x/?a=%zz&b=1").getQuery() == {"b": ["1"]}`,
		`url("http://a/#x%20y") == url("http://a/#x y") && url("http://a/#x%41") != url("http://a/#xA")`,
		`url("http://u:@a/") == url("http://u@a/")`,
		`url("http:/a") == url("http:///a")`,
		`url("http://%c3%a9/") == url("http://é/")`,
		`url("http://x/a%7c|").getEscapedPath() == "/a%7C%7C"`,
		`url("*").getEscapedPath() == "*" && url("*") == url("*")`,
		// A lone comma is an empty literal; one before the first entry is not.
		`[,] == []`, `size({,}) == 0`, `{,} == {}`, `[ , ].size() == 0`, `type([,]) == list`, `{,}.size() == 0 && [,] + [1] == [1]`,
		`[,1] == [1]`, `{,1: 2} == {1: 2}`, `[?,] == []`, `[,,] == []`, `{,,} == {}`, `size(,) == 0`, `{?,} == {}`,
	}
	// url() of a 655,360-byte string costs 65,536: 13 calls fit the cost
	// limit, 14 do not.
	for _, k := range []int{13, 14} {
		items := make([]string, k)
		for i := range items {
			items[i] = fmt.Sprint(i)
		}
		xs = append(xs, doublings(16, fmt.Sprintf(`[%s].all(i, url(s16).getPort() == "")`, strings.Join(items, ", ")), `"/aaaaaaaaa"`))
	}
	if g.chance(5) {
		// Kubernetes' nesting and height limits.
		n := 245 + g.r.Intn(10)
		switch g.r.Intn(4) {
		case 0:
			return strings.Repeat("(", n) + "true" + strings.Repeat(")", n)
		case 1:
			return strings.Repeat("1 + ", n) + "1 > 0"
		case 2:
			return "device" + strings.Repeat(".a", n) + " == 1"
		default:
			return strings.Repeat("true && ", n*2) + "true"
		}
	}
	if g.chance(10) {
		// Doubling strings through bindings, around the cost limit: only
		// the bindings used are computed.
		n := 14 + g.r.Intn(10)
		body := g.pick([]string{"true", fmt.Sprintf("size(s%d) > 0", n), fmt.Sprintf("s%d.contains(\"y\") || true", n), fmt.Sprintf("s%d.startsWith(\"x\")", n)})
		if g.chance(25) {
			// Bytes double as strings do.
			body = g.pick([]string{"true", fmt.Sprintf("size(s%d) > 0", n), fmt.Sprintf("s%d > b\"x\"", n)})
			return doublings(n, body, `b"xxxxxxxxxx"`)
		}
		if g.chance(25) {
			// url() costs a tenth of its string; Go stops reading a query
			// past 10,000 parameters.
			m := n - 4
			body = g.pick([]string{fmt.Sprintf("isURL(s%d)", m), fmt.Sprintf("url(\"/\" + s%d).getPort() == \"\"", m),
				fmt.Sprintf("size(url(\"/?\" + s%d).getQuery()) == 1", m)})
			return doublings(m, body, `"a&a&a&a&a&"`)
		}
		return doublings(n, body, `"xxxxxxxxxx"`)
	}
	return g.pick(xs)
}

// doublings binds s1..sn, each twice the previous one, from first (ten
// bytes of a string or bytes), around body.
func doublings(n int, body, first string) string {
	expr := body
	for i := n; i >= 1; i-- {
		prev := fmt.Sprintf("s%d", i-1)
		if i == 1 {
			prev = first
		}
		expr = fmt.Sprintf("cel.bind(s%d, %s + %s, %s)", i, prev, prev, expr)
	}
	return expr
}
