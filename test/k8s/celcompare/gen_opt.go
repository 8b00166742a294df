package celcompare

import "fmt"

// Expressions over CEL's optional values: `.?` and `[?]` on the device's
// maps and on literals (and the selections after them, optional too),
// optional list and map entries, optional.of / ofNonZeroValue / none,
// hasValue, value, or, orValue, optMap, optFlatMap, first, last,
// optional.unwrap and unwrapOpt; mixed into the boolean, integer and string
// generators of gen.go.

// recv is an optional as the receiver of optMap, optFlatMap or or: not a
// bare optional.none(), whose held type cel-go binds by the operators the
// macro's body applies to it, which pkg/cel does not (docs/conformance.md).
func recv(opt string) string {
	if opt == "optional.none()" {
		return "optional.ofNonZeroValue(0)"
	}
	return opt
}

// optBoolean returns a bool computed from optional values.
func (g *Gen) optBoolean() string {
	switch g.r.Intn(12) {
	case 0, 1:
		return g.sub(g.optAny) + ".hasValue()"
	case 2:
		return fmt.Sprintf("%s.orValue(%s)", g.sub(g.optBool), g.sub(g.boolean))
	case 3:
		return g.sub(g.optBool) + ".value()"
	case 4:
		return fmt.Sprintf("%s.orValue(%s) %s %s", g.sub(g.optStr), g.sub(g.str), g.pick([]string{"==", "!=", "<"}), g.sub(g.str))
	case 5:
		return fmt.Sprintf("%s.orValue(%s) %s %s", g.sub(g.optInt), g.sub(g.integer), g.pick([]string{"==", ">", "<="}), g.sub(g.integer))
	case 6:
		return fmt.Sprintf("%s %s %s", g.sub(g.optStr), g.pick([]string{"==", "!="}), g.sub(g.optStr))
	case 7:
		return fmt.Sprintf("%s.?%s.or(%s).hasValue()", g.sub(g.optMap), g.pick(attrNames), g.sub(g.optAny))
	case 8:
		// Optional entries: present ones are kept, absent ones dropped.
		return fmt.Sprintf("size([?%s, %s, ?%s]) == %d", g.sub(g.optStr), g.sub(g.str), g.sub(g.optStr), 1+g.r.Intn(3))
	case 9:
		return fmt.Sprintf("%s.?k.orValue(%s) == %s", g.optMapLiteral(), quote(g.pick(stringPool)), g.sub(g.str))
	case 10:
		return fmt.Sprintf("%s.optMap(q, q.isGreaterThan(%s)).orValue(%s)", g.optQuantity(), g.sub(g.quantity), g.pick([]string{"true", "false"}))
	default:
		return fmt.Sprintf("%s.optFlatMap(b, %s ? optional.of(b) : optional.none()).orValue(%s)",
			recv(g.sub(g.optBool)), g.sub(g.boolean), g.pick([]string{"true", "false"}))
	}
}

// optAny returns an optional of any kind, mostly of a device attribute.
func (g *Gen) optAny() string {
	switch g.r.Intn(9) {
	case 0:
		return g.optAttr("")
	case 1:
		return fmt.Sprintf("device.attributes[?%s]", quote(g.pick(domains)))
	case 2:
		return fmt.Sprintf("device.attributes[?%s].%s", quote(g.pick(domains)), g.pick(attrNames))
	case 3:
		return fmt.Sprintf("optional.ofNonZeroValue(%s)", g.attr(""))
	case 4:
		return g.sub(g.optMap)
	case 5:
		return fmt.Sprintf("dyn(%s)", g.sub(g.optStr))
	case 6:
		return fmt.Sprintf("%s.or(%s)", recv(g.sub(g.optInt)), g.sub(g.optInt))
	case 7:
		return g.pick([]string{"optional.none()", "optional.of(null)", "optional.ofNonZeroValue(null)", "optional.ofNonZeroValue([])", "optional.of(optional.none())", "dyn(1).?a", "dyn([1]).?a", "optional.none().?a"})
	default:
		return g.sub(g.optBool)
	}
}

// optAttr returns an attribute looked up with `.?` or `[?]`.
func (g *Gen) optAttr(kind string) string {
	n := g.attrName(kind, 10)
	if g.chance(30) {
		return fmt.Sprintf("%s[?%s]", g.domainExpr(), quote(n))
	}
	return g.domainExpr() + ".?" + n
}

func (g *Gen) optStr() string {
	if !g.deeper() {
		return g.pick([]string{g.optAttr("string"), "optional.none()", `optional.of("a100")`})
	}
	switch g.r.Intn(10) {
	case 0, 1:
		return g.optAttr("string")
	case 2:
		return fmt.Sprintf("optional.of(%s)", g.sub(g.str))
	case 3:
		return fmt.Sprintf("optional.ofNonZeroValue(%s)", g.sub(g.str))
	case 4:
		return fmt.Sprintf("%s.%s()", g.sub(g.strList), g.pick([]string{"first", "last"}))
	case 5:
		return fmt.Sprintf("%s.or(%s)", recv(g.sub(g.optStr)), g.sub(g.optStr))
	case 6:
		return fmt.Sprintf("%s.optMap(s, s + %s)", recv(g.sub(g.optStr)), quote(g.pick(stringPool)))
	case 7:
		return fmt.Sprintf("%s[?%d]", g.sub(g.strList), g.r.Intn(4)-1)
	case 8:
		return fmt.Sprintf("(%s ? %s : optional.none())", g.sub(g.boolean), g.sub(g.optStr))
	default:
		return fmt.Sprintf("%s.?k", g.optMapLiteral())
	}
}

func (g *Gen) optInt() string {
	if !g.deeper() {
		return g.pick([]string{g.optAttr("int"), "optional.none()", "optional.of(3)"})
	}
	switch g.r.Intn(8) {
	case 0, 1:
		return g.optAttr("int")
	case 2:
		return fmt.Sprintf("optional.of(%s)", g.sub(g.integer))
	case 3:
		return fmt.Sprintf("optional.ofNonZeroValue(%s)", g.sub(g.integer))
	case 4:
		return fmt.Sprintf("%s.%s()", g.sub(g.intList), g.pick([]string{"first", "last"}))
	case 5:
		return fmt.Sprintf("%s.optMap(s, s.size())", recv(g.sub(g.optStr)))
	case 6:
		return fmt.Sprintf("%s.optFlatMap(x, x > %d ? optional.of(x) : optional.none())", recv(g.sub(g.optInt)), g.r.Intn(8))
	default:
		return fmt.Sprintf("optional.of(%s)[?%d]", g.sub(g.intList), g.r.Intn(4)-1)
	}
}

func (g *Gen) optBool() string {
	if !g.deeper() {
		return g.pick([]string{g.optAttr("bool"), "optional.none()", "optional.of(true)"})
	}
	switch g.r.Intn(5) {
	case 0, 1:
		return g.optAttr("bool")
	case 2:
		return fmt.Sprintf("optional.of(%s)", g.sub(g.boolean))
	case 3:
		return fmt.Sprintf("%s.optMap(x, x %s %d)", recv(g.sub(g.optInt)), g.pick([]string{">", "==", "<"}), g.r.Intn(8))
	default:
		return fmt.Sprintf("%s.or(%s)", recv(g.sub(g.optBool)), g.sub(g.optBool))
	}
}

// optMap returns an optional map: a device domain's attributes, or a
// literal.
func (g *Gen) optMap() string {
	switch g.r.Intn(4) {
	case 0:
		return fmt.Sprintf("device.attributes[?%s]", quote(g.pick(domains)))
	case 1:
		return fmt.Sprintf("optional.of(%s)", g.domainExpr())
	case 2:
		return fmt.Sprintf("optional.ofNonZeroValue(%s)", g.domainExpr())
	default:
		return fmt.Sprintf("optional.of({%s: %s})", quote(g.pick(attrNames)), g.sub(g.str))
	}
}

// optMapLiteral returns a map literal whose key "k" is an optional entry.
func (g *Gen) optMapLiteral() string {
	return fmt.Sprintf("{?\"k\": %s, \"j\": %s}", g.sub(g.optStr), g.sub(g.str))
}

func (g *Gen) optQuantity() string {
	d := gpuDomain
	if g.chance(20) {
		d = otherDomain
	}
	c := g.pick(capNames)
	if g.chance(30) {
		return fmt.Sprintf("device.capacity[%s][?%s]", quote(d), quote(c))
	}
	return fmt.Sprintf("device.capacity[%s].?%s", quote(d), c)
}

// optInteger and optString use an optional where gen.go wants an int or a
// string.
func (g *Gen) optInteger() string {
	if g.chance(50) {
		return fmt.Sprintf("%s.orValue(%s)", g.sub(g.optInt), g.sub(g.integer))
	}
	return fmt.Sprintf("size(optional.unwrap([%s, %s])) + size([%s, %s].unwrapOpt())",
		g.sub(g.optInt), g.sub(g.optInt), g.sub(g.optStr), g.sub(g.optStr))
}

func (g *Gen) optString() string {
	return fmt.Sprintf("%s.orValue(%s)", g.sub(g.optStr), g.sub(g.str))
}
