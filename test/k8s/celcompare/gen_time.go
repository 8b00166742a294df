package celcompare

import "fmt"

// Expressions over CEL's durations and timestamps: duration() and
// timestamp() of literals (valid, malformed and out of range, which
// Kubernetes refuses as it compiles) and of computed strings and ints,
// +, -, the orderings, int(), string(), the getters in UTC, at fixed
// offsets and in IANA zones (some unknown or malformed), the lists
// functions over them, and their use as map keys and indexes; mixed into
// the boolean, integer and string generators of gen.go.

var (
	durationPool = []string{"1h", "1h30m", "-1.5s", "0", "0s", "300ms", "1µs", ".5s", "2562047h47m16.854775807s",
		"-2562047h47m16.854775808s", "24h", "1ns", "59m59.999999999s", "1", "1d", "x", "2562047h47m16.854775808s"}
	timestampPool = []string{"2023-07-14T10:30:45.123Z", "2023-01-01T05:00:00+05:00", "1969-12-31T23:59:59.5Z",
		"0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z", "2024-02-29T12:00:00-24:60", "2023-01-01T5:00:00,5Z",
		"2038-03-14T07:00:00-07:00", "2100-10-03T16:00:00Z", "1970-01-01T00:00:00Z", "2025-03-30T01:00:00+00:00",
		"2023-02-29T00:00:00Z", "2023-01-01", "0000-12-31T23:59:59Z"}
	zonePool = []string{"", "UTC", "Local", "America/New_York", "Europe/Berlin", "Australia/Sydney", "Asia/Kolkata",
		"Pacific/Chatham", "America/St_Johns", "Etc/GMT-14", "EST5EDT", "+05:30", "-08:00", "+5:99", "-0:30", "48:00",
		"x:1", "Nowhere/City", "../x", "America", "utc"}
	getters         = []string{"getFullYear", "getMonth", "getDayOfYear", "getDayOfMonth", "getDate", "getDayOfWeek", "getHours", "getMinutes", "getSeconds", "getMilliseconds"}
	durationGetters = []string{"getHours", "getMinutes", "getSeconds", "getMilliseconds"}
)

func (g *Gen) durationVal() string {
	if !g.deeper() {
		return fmt.Sprintf("duration(%s)", quote(g.pick(durationPool)))
	}
	switch g.r.Intn(9) {
	case 0:
		// A computed string: mostly malformed, a run-time error.
		return fmt.Sprintf("duration(%s)", g.sub(g.str))
	case 1:
		return fmt.Sprintf("duration(%s + %s)", quote(g.pick([]string{"1", "-2", "0.5", "90"})), quote(g.pick([]string{"s", "m", "h", "ms", "x", ""})))
	case 2:
		return fmt.Sprintf("(%s %s %s)", g.sub(g.durationVal), g.pick([]string{"+", "-"}), g.sub(g.durationVal))
	case 3:
		return fmt.Sprintf("(%s - %s)", g.sub(g.timestampVal), g.sub(g.timestampVal))
	case 4:
		return fmt.Sprintf("%s.%s()", g.sub(g.durationList), g.pick([]string{"min", "max", "sum"}))
	case 5:
		return fmt.Sprintf("(%s ? %s : %s)", g.sub(g.boolean), g.sub(g.durationVal), g.sub(g.durationVal))
	case 6:
		return fmt.Sprintf("duration(%s)", g.sub(g.durationVal))
	default:
		return fmt.Sprintf("duration(%s)", quote(g.pick(durationPool)))
	}
}

func (g *Gen) timestampVal() string {
	if !g.deeper() {
		return fmt.Sprintf("timestamp(%s)", quote(g.pick(timestampPool)))
	}
	switch g.r.Intn(9) {
	case 0:
		return fmt.Sprintf("timestamp(%s)", g.sub(g.str))
	case 1:
		return fmt.Sprintf("timestamp(%s)", g.sub(g.integer))
	case 2:
		return fmt.Sprintf("(%s %s %s)", g.sub(g.timestampVal), g.pick([]string{"+", "-"}), g.sub(g.durationVal))
	case 3:
		return fmt.Sprintf("(%s + %s)", g.sub(g.durationVal), g.sub(g.timestampVal))
	case 4:
		return fmt.Sprintf("%s.%s()", g.sub(g.timestampList), g.pick([]string{"min", "max"}))
	case 5:
		return fmt.Sprintf("timestamp(%s)", g.pick([]string{"0", "1", "-62135596800", "-62135596801", "253402300799", "253402300800"}))
	case 6:
		return fmt.Sprintf("timestamp(string(%s))", g.sub(g.timestampVal))
	default:
		return fmt.Sprintf("timestamp(%s)", quote(g.pick(timestampPool)))
	}
}

func (g *Gen) durationList() string {
	if g.chance(70) {
		return fmt.Sprintf("[%s, %s]", g.sub(g.durationVal), g.sub(g.durationVal))
	}
	return fmt.Sprintf("%s.%s()", g.sub(g.durationList), g.pick([]string{"sort", "reverse", "distinct"}))
}

func (g *Gen) timestampList() string {
	if g.chance(70) {
		return fmt.Sprintf("[%s, %s]", g.sub(g.timestampVal), g.sub(g.timestampVal))
	}
	return fmt.Sprintf("%s.%s()", g.sub(g.timestampList), g.pick([]string{"sort", "reverse", "distinct"}))
}

func (g *Gen) timeBoolean() string {
	ops := []string{"==", "!=", "<", "<=", ">", ">="}
	switch g.r.Intn(12) {
	case 0, 1:
		return fmt.Sprintf("%s %s %s", g.sub(g.durationVal), g.pick(ops), g.sub(g.durationVal))
	case 2, 3:
		return fmt.Sprintf("%s %s %s", g.sub(g.timestampVal), g.pick(ops), g.sub(g.timestampVal))
	case 4:
		return fmt.Sprintf("%s %s %s", g.sub(g.timeInteger), g.pick(ops), g.sub(g.integer))
	case 5:
		return fmt.Sprintf("%s %s %s", g.sub(g.timeString), g.pick([]string{"==", "!=", "<"}), g.sub(g.str))
	case 6:
		return fmt.Sprintf("%s in %s", g.sub(g.timestampVal), g.sub(g.timestampList))
	case 7:
		return fmt.Sprintf("%s.isSorted()", g.pick([]string{g.sub(g.durationList), g.sub(g.timestampList)}))
	case 8:
		v := g.pick([]string{g.sub(g.durationVal), g.sub(g.timestampVal)})
		return fmt.Sprintf("optional.ofNonZeroValue(%s).hasValue()", v)
	case 9:
		v := g.pick([]string{g.sub(g.durationVal), g.sub(g.timestampVal)})
		return fmt.Sprintf("type(%s) %s %s", v, g.pick([]string{"==", "!="}),
			g.pick([]string{"google.protobuf.Duration", "google.protobuf.Timestamp", "int", "string"}))
	case 10:
		// Across kinds, as map keys, as indexes.
		d, t := g.sub(g.durationVal), g.sub(g.timestampVal)
		return g.pick([]string{
			fmt.Sprintf("dyn(%s) == dyn(%s)", d, t),
			fmt.Sprintf("dyn(%s) < %s", t, d),
			fmt.Sprintf("dyn(%s) in %s", d, g.sub(g.strList)),
			fmt.Sprintf("{%s: 1, %s: 2}.size() == %d", t, t, 1+g.r.Intn(2)),
			fmt.Sprintf("{%s: 1}[%s] == 1", d, d),
			fmt.Sprintf("[%s].exists(x, {\"a\": 1}[?x].hasValue())", d),
			fmt.Sprintf("[%s].all(x, dyn({\"a\": 1})[x] == 1)", t),
		})
	default:
		return fmt.Sprintf("%s.%s(%s) == %s.%s(%s)", g.sub(g.timestampVal), g.pick([]string{"getHours", "getDate"}),
			quote(g.pick(zonePool)), g.sub(g.timestampVal), g.pick([]string{"getHours", "getDate"}), quote(g.pick(zonePool)))
	}
}

func (g *Gen) timeInteger() string {
	switch g.r.Intn(7) {
	case 0, 1:
		return fmt.Sprintf("%s.%s()", g.sub(g.timestampVal), g.pick(getters))
	case 2, 3:
		zone := quote(g.pick(zonePool))
		if g.chance(15) {
			zone = g.sub(g.str)
		}
		return fmt.Sprintf("%s.%s(%s)", g.sub(g.timestampVal), g.pick(getters), zone)
	case 4:
		return fmt.Sprintf("%s.%s()", g.sub(g.durationVal), g.pick(durationGetters))
	case 5:
		return fmt.Sprintf("int(%s)", g.sub(g.durationVal))
	default:
		return fmt.Sprintf("int(%s)", g.sub(g.timestampVal))
	}
}

func (g *Gen) timeString() string {
	if g.chance(50) {
		return fmt.Sprintf("string(%s)", g.sub(g.durationVal))
	}
	return fmt.Sprintf("string(%s)", g.sub(g.timestampVal))
}
