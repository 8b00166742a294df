package celcompare

import "fmt"

// Expressions over CEL's type values: type(x) of attributes (whose kind
// varies by device), of values of every kind and of optionals, compared
// with type identifiers and with each other; mixed into the boolean
// generator of gen.go.

var typeIdents = []string{"int", "uint", "double", "bool", "string", "bytes", "list", "map", "null_type", "type",
	"optional_type", "net.IP", "net.CIDR"}

func (g *Gen) typeOf() string {
	switch g.r.Intn(8) {
	case 0, 1, 2:
		return fmt.Sprintf("type(%s)", g.attr(""))
	case 3:
		return fmt.Sprintf("type(%s)", g.sub(g.str))
	case 4:
		return fmt.Sprintf("type(%s)", g.pick([]string{"1", "1u", "1.5", "null", "[]", "{}", `quantity("1")`, `semver("1.0.0")`,
			`ip("10.0.0.1")`, `cidr("10.0.0.0/8")`, "optional.none()", "int", "device", "device.attributes", "dyn(1)"}))
	case 5:
		return fmt.Sprintf("type(%s)", g.sub(g.optAny))
	case 6:
		return fmt.Sprintf("type(%s)", g.sub(g.integer))
	default:
		return g.pick(typeIdents)
	}
}

func (g *Gen) typeBoolean() string {
	switch g.r.Intn(4) {
	case 0:
		return fmt.Sprintf("%s %s %s", g.typeOf(), g.pick([]string{"==", "!="}), g.pick(typeIdents))
	case 1:
		return fmt.Sprintf("%s %s %s", g.typeOf(), g.pick([]string{"==", "!="}), g.typeOf())
	case 2:
		// Guarding a typed use by the attribute's kind.
		a := g.attr("int")
		return fmt.Sprintf("type(%s) == int && %s > %d", a, a, g.r.Intn(8))
	default:
		return fmt.Sprintf("%s in [%s, %s]", g.typeOf(), g.pick(typeIdents), g.pick(typeIdents))
	}
}
