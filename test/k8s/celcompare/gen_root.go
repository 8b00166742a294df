package celcompare

import (
	"fmt"
	"strings"
)

// Expressions over leading-dot (root-scoped) names — `.device`, type names
// (`.int`, `.net.IP`), global and namespaced functions (`.size(x)`,
// `.optional.of(x)`), the forms no macro takes (`.has(...)`,
// `.cel.bind(...)`), macro variables written `.x`, and names a variable
// shadows (which pkg/cel refuses until the release is chosen) — over has()
// of a field of an optional value, and over message construction; mixed
// into the boolean generator of gen.go.

// rooted writes every reference to the device in expr as `.device`.
func rooted(expr string) string {
	return strings.ReplaceAll(expr, "device.", ".device.")
}

var rootFunctionUses = []string{
	".size(%s) > 2", ".string(%s) == \"7\"", ".dyn(%s) == %s", ".type(%s) == .string", ".optional.of(%s).hasValue()",
	".optional.ofNonZeroValue(%s).hasValue()", ".isSemver(string(%s))", ".isQuantity(string(%s))",
	".matches(string(%s), \"^a\")", ".sets.contains([%s], [%s])", ".strings.quote(string(%s)) != \"\"",
}

var rootInvalid = []string{
	".nope", ".nope.x == 1", ".x(1)", ".device(1)", ".has(device.driver)", ".cel.bind(x, 1, x == 1)",
	".math.greatest(1, 2) == 2", ".true", ".null == null", ".in", ".if", ".namespace == 1", ".dyn", ".device",
	".int", ".device.nope == 1", ".device[?\"driver\"].hasValue()", ".device.all(k, true)", "device..driver == \"x\"",
	".isSorted([1])", ".google.protobuf.Duration", ".kubernetes.DRADevice == type(device)", ". device.driver != \"\"",
	".device .driver != \"\"", ".1 == 0.1",
}

func (g *Gen) rootBoolean() string {
	switch g.r.Intn(19) {
	case 16, 17, 18:
		return g.message()
	case 0, 1, 2:
		return rooted(g.sub(g.boolean))
	case 3:
		return fmt.Sprintf("%s %s .%s", g.typeOf(), g.pick([]string{"==", "!="}),
			g.pick(append([]string{"google.protobuf.Duration", "google.protobuf.Timestamp"}, typeIdents...)))
	case 4:
		f := g.pick(rootFunctionUses)
		a := rooted(g.attr(""))
		if strings.Count(f, "%s") == 2 {
			return fmt.Sprintf(f, a, a)
		}
		return fmt.Sprintf(f, a)
	case 5:
		return g.pick(rootInvalid)
	case 6:
		// A macro's variable written with a dot binds a name nothing can
		// refer to.
		v := g.pick([]string{"x", ".x"})
		ref := g.pick([]string{"x", ".x", "true"})
		return fmt.Sprintf("%s.%s(%s, %s)", rooted(g.domainExpr()), g.pick([]string{"all", "exists", "exists_one"}), v,
			strings.ReplaceAll(g.pick([]string{"R == \"model\"", "R.size() > 0", "R"}), "R", ref))
	case 7:
		// Names that a variable shadows: 1.35/1.36 and 1.37 differ.
		return g.pick([]string{"cel.bind(x, 1, .x == 1)", "[1].all(x, .x > 0)", "[[1]].all(x, .x.size() > 0)",
			"[device].exists(device, .device.driver != \"\")", "cel.bind(device, 1, .device.driver != \"\")",
			"cel.bind(int, 1, .int == type(1))", "cel.bind(net, 1, type(ip(\"10.0.0.1\")) == .net.IP)",
			"cel.bind(size, 1, .size([1]) == size)", "[1].all(sets, .sets.contains([1], [1]))"})
	default:
		return g.hasOptional()
	}
}

// hasOptional returns has() of a field of an optional value: the field's
// presence, or an error where the value is a list.
func (g *Gen) hasOptional() string {
	field := g.pick(append([]string{"k", "b"}, attrNames...))
	switch g.r.Intn(10) {
	case 7, 8:
		// A branch of ?: (or an index) is read as an attribute: in an
		// optional chain, has() there is the field's value as an optional.
		h := fmt.Sprintf("has(%s.%s)", g.sub(g.optMap), field)
		if g.chance(30) {
			h = g.pick([]string{`has({"a": {"b": 1}}.?a.b)`, `has({"a": {"b": 1}}.?a.c)`, `has({"x": 5}.x)`,
				`has(dyn(optional.of({"b": false})).b)`, `has({"a": optional.of({"b": 1})}.a.b)`})
		}
		c := g.sub(g.boolean)
		switch g.r.Intn(6) {
		case 0:
			return fmt.Sprintf("(%s ? %s : %s)", c, h, g.sub(g.boolean))
		case 1:
			return fmt.Sprintf("(%s ? %s : %s) %s", c, g.sub(g.boolean), h, g.pick([]string{"== true", "!= false", "|| true", "&& true"}))
		case 2:
			return fmt.Sprintf("type(%s ? %s : false) == %s", c, h, g.pick([]string{"bool", "optional_type"}))
		case 3:
			return fmt.Sprintf("{true: 1, false: 0}[%s] == 1", h)
		case 4:
			return fmt.Sprintf("!(%s ? %s : true)", c, h)
		default:
			return fmt.Sprintf("[%s][0] || cel.bind(h, %s, h)", h, h)
		}
	case 9:
		// An optional value inside a chain is not unwrapped.
		return g.pick([]string{`{"a": optional.of({"b": 1})}.a.b.value() == 1`, `{"a": optional.of({"b": 1})}.a.?b.hasValue()`,
			`[optional.of({"b": 1})][0].b.hasValue()`, `cel.bind(o, optional.of({"b": 1}), o.b.value() == 1)`,
			`cel.bind(m, {"a": optional.of({"b": 1})}, has(m.a.b))`, `dyn({"a": optional.of({"b": 1})}.a).b.value() == 1`,
			`{"a": optional.none()}.a.b.hasValue()`, `(true ? {"a": optional.of({"b": 1})}.a : optional.none()).b.hasValue()`,
			`(false ? optional.none() : {"a": optional.of({"b": 1})}.?a).b.hasValue()`, `[[optional.of(1)]][?0][0].hasValue()`})
	case 0:
		return fmt.Sprintf("has(%s.%s)", g.sub(g.optMap), field)
	case 1:
		return fmt.Sprintf("has(device.?attributes[%s].%s)", quote(g.pick(domains)), field)
	case 2:
		return fmt.Sprintf("has(device.%s.%s)", g.pick([]string{"?attributes", "?capacity", "attributes[?\"" + gpuDomain + "\"]",
			"capacity[?\"" + gpuDomain + "\"]", "?driver", "?nope"}), g.pick(append([]string{"memory", "x"}, attrNames...)))
	case 3:
		// A map literal's entry of every kind.
		v := g.pick([]string{`{"b": false}`, `{"b": null}`, `{"c": 1}`, `{1: 1}`, `dyn({"b": 1})`, "dyn(1)", `dyn("s")`,
			"dyn([1])", "dyn(null)", `dyn(optional.of({"b": 1}))`, "dyn(optional.none())", "1", "[1]",
			`optional.of({"b": 1})`, `{"b": 1 / 0}`, g.domainExpr()})
		return fmt.Sprintf("has({\"a\": %s}%s.b)", v, g.pick([]string{".?a", "[?\"a\"]", ".?x", ".a", "[?\"x\"]"}))
	case 4:
		return fmt.Sprintf("has(%s.%s)", g.pick([]string{"optional.none()", "optional.of(1)", "optional.of(dyn(1))",
			"optional.of(dyn([1]))", `dyn(optional.of({"b": false}))`, "dyn(optional.none())", `optional.of({"b": 1}).?b`,
			`{"a": {"b": {"c": 1}}}.?a.b`, `{"a": {"b": {"c": 1}}}.?a.x`, `[{"b": 1}][?0]`, `[{"b": 1}][?5]`}), g.pick([]string{"b", "c"}))
	case 5:
		return fmt.Sprintf("[%s, %s].%s(m, has(m.?a.b))", g.pick([]string{`dyn({"a": {"b": 1}})`, `dyn({"a": 2})`, `dyn({})`}),
			g.pick([]string{`dyn({"a": {"c": 1}})`, `dyn({"a": [2]})`, `dyn({"a": {"b": null}})`}), g.pick([]string{"all", "exists", "exists_one"}))
	default:
		return fmt.Sprintf("has(%s.%s) %s %s", g.sub(g.optMap), field, g.pick([]string{"==", "!=", "&&", "||"}), g.sub(g.boolean))
	}
}

// msgInt returns an int for a message's field: small, at the edges of
// int32 and of a duration's range, dyn values of other kinds, attributes.
func (g *Gen) msgInt() string {
	switch g.r.Intn(4) {
	case 0:
		return g.pick([]string{"0", "1", "-1", "3", "1500000000", "-1500000000", "2147483647", "2147483648", "-2147483649",
			"9223372036", "9223372037", "-9223372037", "253402300799", "253402300800", "-62135596800", "-62135596801"})
	case 1:
		return g.pick([]string{`dyn(1)`, `dyn(1u)`, `dyn(1.0)`, `dyn("1")`, `dyn(null)`, `dyn([1])`, "1 / 0"})
	case 2:
		return g.attr("int")
	default:
		return g.sub(g.integer)
	}
}

// message returns a comparison over a constructed message: Duration and
// Timestamp from their fields (typed, optional, repeated, out of range),
// the messages pkg/cel refuses, and names that are not messages.
func (g *Gen) message() string {
	if g.chance(15) {
		return g.pick([]string{"google.protobuf.Int64Value{value: 5} == 5", "google.protobuf.BoolValue{value: true}",
			`google.protobuf.Struct{fields: {"a": 1}} == {"a": 1}`, "google.protobuf.Empty{} == google.protobuf.Empty{}",
			"int{} == 1", "net.IP{} == 1", "Foo{} == 1", "device{driver: \"x\"} == 1", "google.protobuf.FieldMask{} == 1",
			"kubernetes.DRADevice{}.driver == \"\"", "google.protobuf.Duration{seconds: 1}{} == 1",
			"(google.protobuf.Duration){} == 1", `google.protobuf.Duration{"seconds": 1} == duration("1s")`,
			"google.protobuf.Duration{seconds: 1.5} == duration(\"1s\")", "google.protobuf.Duration{nope: 1} == duration(\"1s\")",
			"google.protobuf.Duration{seconds: 1}.seconds == 1", "google.protobuf.Duration{?seconds: 2} == duration(\"2s\")"})
	}
	var fields []string
	for _, f := range []string{"seconds", "nanos", "seconds"} {
		switch {
		case g.chance(25):
		case g.chance(15):
			fields = append(fields, fmt.Sprintf("?%s: %s", f, g.pick([]string{"optional.none()", "optional.of(" + g.msgInt() + ")"})))
		default:
			fields = append(fields, fmt.Sprintf("%s: %s", f, g.msgInt()))
		}
	}
	body := strings.Join(fields, ", ")
	if g.chance(10) {
		body += ","
	}
	name := g.pick([]string{"google.protobuf.Duration", "google.protobuf.Timestamp", ".google.protobuf.Duration"})
	m := fmt.Sprintf("%s{%s}", name, body)
	if strings.Contains(name, "Timestamp") {
		switch g.r.Intn(4) {
		case 0:
			return fmt.Sprintf("%s %s timestamp(%s)", m, g.pick([]string{"==", "<", ">="}),
				quote(g.pick([]string{"1970-01-01T00:00:00Z", "1970-01-01T00:00:03Z", "2000-01-01T00:00:00Z", "9999-12-31T23:59:59Z"})))
		case 1:
			return fmt.Sprintf("string(%s) != \"\"", m)
		case 2:
			return fmt.Sprintf("%s.%s() %s %d", m, g.pick([]string{"getFullYear", "getSeconds", "getMilliseconds", "getDayOfYear"}),
				g.pick([]string{"==", ">"}), g.r.Intn(3))
		default:
			return fmt.Sprintf("%s + duration(%s) > %s", m, quote(g.pick([]string{"1s", "-1s", "87600h"})), m)
		}
	}
	switch g.r.Intn(4) {
	case 0:
		return fmt.Sprintf("%s %s duration(%s)", m, g.pick([]string{"==", "<", ">="}), quote(g.pick([]string{"0s", "3s", "1.5s", "-1ns", "2562047h"})))
	case 1:
		return fmt.Sprintf("string(%s) != \"\"", m)
	case 2:
		return fmt.Sprintf("%s.%s() %s %d", m, g.pick([]string{"getSeconds", "getMilliseconds", "getHours"}), g.pick([]string{"==", ">"}), g.r.Intn(3))
	default:
		return fmt.Sprintf("%s + %s > duration(\"0s\")", m, m)
	}
}
