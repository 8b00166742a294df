package celcompare

import (
	"fmt"
	"strings"
)

// Expressions over leading-dot (root-scoped) names — `.device`, type names
// (`.int`, `.net.IP`), global and namespaced functions (`.size(x)`,
// `.optional.of(x)`), the forms no macro takes (`.has(...)`,
// `.cel.bind(...)`), macro variables written `.x`, and names a variable
// shadows (which pkg/cel refuses until the release is chosen) — and over
// has() of a field of an optional value; mixed into the boolean generator
// of gen.go.

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
	switch g.r.Intn(16) {
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
