package celcompare

import (
	"fmt"
	"strings"
	"time"
)

// Expressions over the messages Kubernetes' type provider knows beyond
// Duration, Timestamp and the wrappers: kubernetes.DRADevice (the device
// variable's declared type), which compiles with the device's field types
// and fails at run time, cel-go's registry having no such message; and
// google.protobuf.Struct, ListValue and Value, whose values are converted
// to JSON and read back. Mixed into the boolean generator of gen.go; a
// short-circuit absorbs a run-time failure. Never two distinct fields of
// one Value (Go sets them in map order, so Kubernetes' answer is random),
// nor anything that depends on a Struct's key order (Go's map order).

// deviceField returns one entry of a kubernetes.DRADevice message: a field
// with a value of its type, of another, dyn, null, optional, or an
// undefined field.
func (g *Gen) deviceField() string {
	name := g.pick([]string{"driver", "attributes", "capacity", "allowMultipleAllocations"})
	var v string
	switch name {
	case "driver":
		v = g.pick([]string{`"a"`, `""`, quote(gpuDomain), "device.driver", g.sub(g.str)})
	case "attributes":
		v = g.pick([]string{"{}", `{"a": {"b": 1}}`, `{"a": {"b": "x", "c": true}}`, "device.attributes",
			fmt.Sprintf(`{%s: %s}`, quote(gpuDomain), g.domainExpr()), `{"a": {}}`})
	case "capacity":
		v = g.pick([]string{"{}", `{"a": {"b": quantity("1")}}`, "device.capacity", `{"a": {}}`})
	default:
		v = g.pick([]string{"true", "false", g.sub(g.boolean)})
	}
	switch g.r.Intn(10) {
	case 0:
		// A value of another type, or null, or one dyn hides.
		v = g.pick([]string{"1", `"a"`, "true", "null", "[]", `{"a": 1}`, `{"a": {"b": 1}}`, `{1: {"b": 1}}`, "dyn(1)",
			`dyn("a")`, "dyn(null)", g.attr("")})
	case 1:
		return fmt.Sprintf("?%s: %s", name, g.pick([]string{"optional.of(" + v + ")", "optional.none()", v}))
	case 2:
		name = g.pick([]string{"foo", "Driver", "attribute", "`driver`", "`allowMultipleAllocations`"})
	case 3:
		v = "dyn(" + v + ")"
	}
	return name + ": " + v
}

func (g *Gen) deviceMessage() string {
	var fields []string
	for n := g.r.Intn(4); n > 0; n-- {
		fields = append(fields, g.deviceField())
	}
	prefix := "kubernetes.DRADevice"
	if g.chance(10) {
		prefix = ".kubernetes.DRADevice"
	}
	return fmt.Sprintf("%s{%s}", prefix, strings.Join(fields, ", "))
}

// jsonItems are values of every kind JSON holds or refuses, at the edges
// of its numbers: what ListValue's values and Struct's fields are made of.
var jsonItems = []string{"1", "-1", "0", "9007199254740991", "-9007199254740991", "9007199254740992", "-9007199254740992",
	"9223372036854775807", "1u", "9007199254740991u", "9007199254740992u", "18446744073709551615u", "1.5", "-0.0", "1e300",
	`double("nan")`, `double("-inf")`, `"a"`, `""`, `"1.0"`, "true", "false", "null", `b""`, `b"a"`, `b"ab"`, `b"\xff\x00ab?"`,
	`duration("1.5s")`, `duration("-1ns")`, `duration("0s")`, `duration("3600s")`, `timestamp("2020-01-01T00:00:00Z")`,
	`timestamp("2020-01-01T00:00:00.100+01:00")`, `timestamp("0001-01-01T00:00:00Z")`, "[]", "[1]", `["a", 2]`, "{}",
	`{"a": 1}`, `{"a": [1, {"b": null}]}`, `{1: 2}`, `{true: 1}`, `{"a": {1u: 1}}`, "optional.of(1)", "optional.none()",
	`optional.of("a")`, "google.protobuf.Int64Value{value: 3}", "google.protobuf.BytesValue{value: b\"a\"}",
	`ip("1.2.3.4")`, `quantity("1")`, `semver("1.2.3")`, "int", `cidr("10.0.0.0/8")`, `url("http://a")`,
	"google.protobuf.Value{}", `google.protobuf.ListValue{values: [1]}`, `google.protobuf.Struct{fields: {"a": 1}}`,
	"google.protobuf.Duration{seconds: 1}"}

// jsonItem returns an entry of a JSON list or map: dyn(x) (lists and maps
// are homogeneous otherwise), an attribute, or one of a single kind.
func (g *Gen) jsonItem() string {
	if g.chance(10) {
		return g.attr("")
	}
	if g.chance(10) {
		return fmt.Sprintf("%s[%s]", g.pick([]string{"device.attributes", "device.capacity"}), quote(gpuDomain))
	}
	return "dyn(" + g.pick(jsonItems) + ")"
}

func (g *Gen) jsonList() string {
	var items []string
	for n := g.r.Intn(4); n > 0; n-- {
		items = append(items, g.jsonItem())
	}
	return "[" + strings.Join(items, ", ") + "]"
}

// jsonMap has distinct string keys, but for an odd one.
func (g *Gen) jsonMap() string {
	var items []string
	for i, n := 0, g.r.Intn(3); i < n; i++ {
		items = append(items, fmt.Sprintf("%q: %s", string(rune('a'+i)), g.jsonItem()))
	}
	if g.chance(5) {
		items = append(items, "1: 1")
	}
	return "{" + strings.Join(items, ", ") + "}"
}

// jsonMessage returns a Struct, ListValue or Value message and a plain
// value it may equal.
func (g *Gen) jsonMessage() (string, string) {
	prefix := "google.protobuf."
	if g.chance(10) {
		prefix = ".google.protobuf."
	}
	switch g.r.Intn(3) {
	case 0:
		l := g.jsonList()
		body := g.pick([]string{"values: " + l, "", "?values: optional.of(" + l + ")", "?values: optional.none()",
			"values: [1], values: " + l, "`values`: " + l, "values: dyn(" + l + ")", "values: dyn(1)", "values: dyn(null)",
			`values: {"a": 1}`, "value: " + l, "values: google.protobuf.ListValue{values: " + l + "}"})
		return prefix + "ListValue{" + body + "}", l
	case 1:
		m := g.jsonMap()
		body := g.pick([]string{"fields: " + m, "", "?fields: optional.of(" + m + ")", "?fields: optional.none()",
			`fields: {"z": 1}, fields: ` + m, "fields: dyn(" + m + ")", "fields: dyn([1])", "fields: dyn(null)", "fields: [1]",
			"field: " + m, `fields: {1: 1}`, "fields: " + g.pick([]string{"device.attributes", "device.capacity"}) + "[" + quote(gpuDomain) + "]"})
		return prefix + "Struct{" + body + "}", m
	}
	var field, v string
	switch g.r.Intn(8) {
	case 0:
		field, v = "null_value", g.pick([]string{"0", "5", "-1", "2147483647", "2147483648", "-2147483649", "dyn(0)", "dyn(0.0)", "dyn(null)", "null", "0u"})
	case 1:
		field, v = "number_value", g.pick([]string{"1.5", "-0.0", "1e300", `double("nan")`, "dyn(1)", "dyn(1.0)", "1", "dyn(optional.of(2.0))", "dyn(optional.none())"})
	case 2:
		field, v = "string_value", g.pick([]string{`"a"`, `""`, "dyn(1)", `dyn("b")`, "dyn(null)", "device.driver", g.sub(g.str)})
	case 3:
		field, v = "bool_value", g.pick([]string{"true", "false", "dyn(1)", g.sub(g.boolean)})
	case 4:
		field, v = "struct_value", g.pick([]string{g.jsonMap(), "dyn([1])", "dyn(null)", "google.protobuf.Struct{}", "[1]"})
	case 5:
		field, v = "list_value", g.pick([]string{g.jsonList(), `dyn({"a": 1})`, "dyn(null)", "google.protobuf.ListValue{}", "{}"})
	case 6:
		return prefix + "Value{}", "null"
	default:
		field, v = g.pick([]string{"foo", "value", "nullValue"}), "1"
	}
	body := field + ": " + v
	switch g.r.Intn(8) {
	case 0:
		body = fmt.Sprintf("?%s: %s", field, g.pick([]string{"optional.of(" + v + ")", "optional.none()"}))
	case 1:
		body = fmt.Sprintf("%s: %s, %s: %s", field, v, field, v)
	case 2:
		body = fmt.Sprintf("`%s`: %s", field, v)
	}
	return prefix + "Value{" + body + "}", v
}

func (g *Gen) jsonBoolean() string {
	m, plain := g.jsonMessage()
	var use string
	switch g.r.Intn(12) {
	case 0:
		use = fmt.Sprintf("%s %s %s", m, g.pick([]string{"==", "!="}), plain)
	case 1:
		use = fmt.Sprintf("%s == %s", m, g.pick([]string{"[1.0]", "[1]", `["9007199254740992"]`, `{"a": 1.0}`, "null", "1.5", `"a"`, "true", "[]", "{}", "dyn(1)"}))
	case 2:
		use = fmt.Sprintf("type(%s) == %s", m, g.pick([]string{"list", "map", "double", "string", "null_type", "bool", "int"}))
	case 3:
		use = fmt.Sprintf("%s.size() %s %d", m, g.pick([]string{"==", ">"}), g.r.Intn(3))
	case 4:
		use = fmt.Sprintf("%s[%s] == %s", m, g.pick([]string{"0", "1", `"a"`, `"b"`}), g.pick([]string{"1", "1.0", `"a"`, "null", "true"}))
	case 5:
		use = fmt.Sprintf("has(%s.a)", m)
	case 6:
		use = fmt.Sprintf("%s.?a.orValue(2) == 1", m)
	case 7:
		use = fmt.Sprintf("%s.exists(x, %s)", m, g.pick([]string{"x == 1", `x == "a"`, "type(x) == double", "x == null", "true"}))
	case 8:
		use = fmt.Sprintf("%s in %s", g.pick([]string{"1", `"a"`, "1.0", "null"}), m)
	case 9:
		use = fmt.Sprintf("[%s][0] == %s", m, m)
	case 10:
		use = m
	default:
		use = fmt.Sprintf("%s.all(x, type(x) %s)", m, g.pick([]string{"== double", "!= int", "== string", "!= uint"}))
	}
	return g.besideBoolean(use)
}

// wideTimestamp returns a Timestamp message outside years 1 to 9999 (or
// at their edges), which cel-go keeps, and the time Go makes of it.
func (g *Gen) wideTimestamp() (string, time.Time) {
	const widest = int64(1) << 53
	var sec int64
	switch g.r.Intn(6) {
	case 0:
		sec = g.pick64([]int64{253402300799, 253402300800, -62135596800, -62135596801, -62198755200, -62198755201,
			widest, -widest, widest + 1, 9223372036854775807})
	case 1:
		sec = g.r.Int63n(2*widest+1) - widest
	case 2:
		// Years 10000 to 30000, and -20000 to 0.
		sec = 253402300800 + g.r.Int63n(631152000000)
	case 3:
		sec = -62135596800 - g.r.Int63n(693792000000)
	default:
		sec = 253402300800 + g.r.Int63n(86400*400) - 86400*200
	}
	var nanos int64
	if g.chance(40) {
		nanos = g.r.Int63n(1_000_000_000)
	}
	t := time.Unix(sec, nanos).UTC()
	if nanos == 0 {
		return fmt.Sprintf("google.protobuf.Timestamp{seconds: %d}", sec), t
	}
	return fmt.Sprintf("google.protobuf.Timestamp{seconds: %d, nanos: %d}", sec, nanos), t
}

var wideZones = []string{"", "UTC", "America/New_York", "Europe/Berlin", "Australia/Sydney", "Asia/Kolkata",
	"Pacific/Chatham", "America/St_Johns", "Etc/GMT-14", "EST5EDT", "+05:30", "-08:00", "-0:30"}

// wideTimestampBoolean checks string() and the getters of such a
// timestamp against what Go's time package says (off by one at times).
func (g *Gen) wideTimestampBoolean() string {
	m, t := g.wideTimestamp()
	off := 0
	if g.chance(20) {
		off = 1
	}
	switch g.r.Intn(5) {
	case 0, 1:
		zone := g.pick(wideZones)
		var local time.Time
		switch {
		case zone == "":
			local = t
		case strings.Contains(zone, ":"):
			var h, mi int
			fmt.Sscanf(strings.TrimPrefix(zone, "-"), "%d:%d", &h, &mi)
			secs := (h*60 + mi) * 60
			if strings.HasPrefix(zone, "-") {
				secs = -secs
			}
			local = t.In(time.FixedZone("", secs))
		default:
			loc, err := time.LoadLocation(zone)
			if err != nil {
				return "true"
			}
			local = t.In(loc)
		}
		getter := g.pick(getters)
		var want int
		switch getter {
		case "getFullYear":
			want = local.Year()
		case "getMonth":
			want = int(local.Month()) - 1
		case "getDayOfYear":
			want = local.YearDay() - 1
		case "getDayOfMonth":
			want = local.Day() - 1
		case "getDate":
			want = local.Day()
		case "getDayOfWeek":
			want = int(local.Weekday())
		case "getHours":
			want = local.Hour()
		case "getMinutes":
			want = local.Minute()
		case "getSeconds":
			want = local.Second()
		default:
			want = local.Nanosecond() / 1_000_000
		}
		arg := ""
		if zone != "" {
			arg = quote(zone)
		}
		return fmt.Sprintf("%s.%s(%s) == %d", m, getter, arg, want+off)
	case 2:
		want := t.Format(time.RFC3339Nano)
		if off == 1 {
			want += "x"
		}
		return fmt.Sprintf("string(%s) == %s", m, quote(want))
	case 3:
		return fmt.Sprintf("%s %s %s", m, g.pick([]string{"<", ">", "==", "!=", "-"}), g.pick([]string{
			`timestamp("9999-12-31T23:59:59Z")`, `timestamp("0001-01-01T00:00:00Z")`, m})+g.pick([]string{"", " == duration(\"1s\")"}))
	default:
		return fmt.Sprintf("%s %s duration(%s) %s", m, g.pick([]string{"+", "-"}), quote(g.pick([]string{"1s", "1ns", "24h", "-1s"})),
			g.pick([]string{`== timestamp("9999-12-31T23:59:59Z")`, `> timestamp("0001-01-01T00:00:00Z")`}))
	}
}

func (g *Gen) messageBoolean() string {
	if g.chance(25) {
		return g.wideTimestampBoolean()
	}
	if g.chance(70) {
		return g.jsonBoolean()
	}
	m := g.deviceMessage()
	var use string
	switch g.r.Intn(12) {
	case 0:
		use = fmt.Sprintf("%s %s %s", m, g.pick([]string{"==", "!="}), g.pick([]string{"device", "null", "dyn(device)", "1", m}))
	case 1:
		use = fmt.Sprintf("%s.driver == %s", m, quote(gpuDomain))
	case 2:
		use = fmt.Sprintf("%s.attributes[%s].count == 7", m, quote(gpuDomain))
	case 3:
		use = fmt.Sprintf("%s.capacity[%s].memory.isGreaterThan(quantity(\"1\"))", m, quote(gpuDomain))
	case 4:
		use = m + ".allowMultipleAllocations"
	case 5:
		use = fmt.Sprintf("has(%s.%s)", m, g.pick([]string{"driver", "attributes", "foo"}))
	case 6:
		use = fmt.Sprintf("type(%s) == type(device)", m)
	case 7:
		use = m + "." + g.pick([]string{"foo", "name", "`driver` == \"a\""}) + " == 1"
	case 8:
		use = fmt.Sprintf("[%s, device].size() == 2", m)
	case 9:
		use = m
	case 10:
		use = fmt.Sprintf("%s.?driver.orValue(\"\") == \"\"", m)
	default:
		use = fmt.Sprintf("cel.bind(d, %s, d.driver == device.driver)", m)
	}
	return g.besideBoolean(use)
}

// besideBoolean returns use alone, or or-ed or and-ed with a generated
// boolean before it (a third each).
func (g *Gen) besideBoolean(use string) string {
	switch g.r.Intn(3) {
	case 0:
		return use
	case 1:
		return fmt.Sprintf("%s || %s", g.sub(g.boolean), use)
	default:
		return fmt.Sprintf("%s && %s", g.sub(g.boolean), use)
	}
}
