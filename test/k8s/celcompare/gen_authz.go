package celcompare

import "fmt"

// Expressions over Kubernetes' authz library, which DRA's environment
// declares without an authorizer variable: chains of path, group,
// resource, ..., check and the decision accessors on dyn receivers and
// attribute values (compile, fail at run time), wrong receivers, arities
// and argument types (compile errors), the library's types where they meet
// equality, lists, maps, type() and field selection, and short-circuits
// that skip the failing calls. Also fields and methods named by CEL's
// reserved words and keywords, and macro names called in forms that are
// not macros. Mixed into the boolean and string generators of gen.go.

var (
	authzArgs     = []string{`"a"`, `"get"`, `""`, `"apps"`, `"pods"`}
	authzResource = []string{"subresource", "namespace", "name", "fieldSelector", "labelSelector"}
	authzDecision = []string{"allowed", "errored", "reason", "error"}
)

// authzRecv returns a receiver the authz functions may be called on: dyn
// values of every kind, attribute values (any), and now and then a typed
// value the checker refuses.
func (g *Gen) authzRecv() string {
	switch g.r.Intn(8) {
	case 0:
		return g.attr("")
	case 1:
		return fmt.Sprintf("dyn(%s)", g.sub(g.str))
	case 2:
		return fmt.Sprintf("dyn(%s)", g.sub(g.integer))
	case 3:
		return g.pick([]string{`"x"`, "1", "device.driver", "[1]"})
	case 4:
		return fmt.Sprintf("dyn(1).serviceAccount(%s, %s)", g.authzArg(), g.authzArg())
	default:
		return g.pick([]string{"dyn(1)", `dyn("x")`, "dyn([])", "dyn({})", "dyn(true)"})
	}
}

// authzArg returns a string argument, or now and then another kind.
func (g *Gen) authzArg() string {
	if g.chance(8) {
		return g.pick([]string{"1", "dyn(1)", "true", `dyn("a")`})
	}
	if g.chance(15) && g.deeper() {
		return g.sub(g.str)
	}
	return g.pick(authzArgs)
}

// authzCheck returns a PathCheck or ResourceCheck (sometimes a GroupCheck,
// which has no check()).
func (g *Gen) authzCheck() string {
	r := g.authzRecv()
	switch g.r.Intn(5) {
	case 0, 1:
		return fmt.Sprintf("%s.path(%s)", r, g.authzArg())
	case 2:
		return fmt.Sprintf("%s.group(%s)", r, g.authzArg())
	default:
		s := fmt.Sprintf("%s.group(%s).resource(%s)", r, g.authzArg(), g.authzArg())
		for n := g.r.Intn(3); n > 0; n-- {
			s += fmt.Sprintf(".%s(%s)", g.pick(authzResource), g.authzArg())
		}
		return s
	}
}

// authzDecisionVal returns a Decision (or, rarely, a mis-typed chain).
func (g *Gen) authzDecisionVal() string {
	if g.chance(20) {
		return fmt.Sprintf("%s.check(%s)", g.authzRecv(), g.authzArg())
	}
	return fmt.Sprintf("%s.check(%s)", g.authzCheck(), g.authzArg())
}

// authzAny returns a value of one of the library's types.
func (g *Gen) authzAny() string {
	if g.chance(50) {
		return g.authzDecisionVal()
	}
	return g.authzCheck()
}

// authzGuard wraps a failing boolean so that it sometimes is skipped.
func (g *Gen) authzGuard(b string) string {
	switch g.r.Intn(5) {
	case 0:
		return fmt.Sprintf("(false && %s)", b)
	case 1:
		return fmt.Sprintf("(true || %s)", b)
	case 2:
		return fmt.Sprintf("(%s && %s)", g.sub(g.boolean), b)
	case 3:
		return fmt.Sprintf("(%s || %s)", b, g.sub(g.boolean))
	default:
		return b
	}
}

func (g *Gen) authzBoolean() string {
	switch g.r.Intn(12) {
	case 0, 1, 2:
		return g.authzGuard(fmt.Sprintf("%s.%s()", g.authzDecisionVal(), g.pick([]string{"allowed", "errored"})))
	case 3:
		return g.authzGuard(fmt.Sprintf("%s.%s() %s %s", g.authzDecisionVal(), g.pick(authzDecision),
			g.pick([]string{"==", "!="}), g.pick([]string{`""`, "true", "1", "dyn(1)"})))
	case 4:
		return g.authzGuard(fmt.Sprintf("%s %s %s", g.authzAny(), g.pick([]string{"==", "!=", "<"}),
			g.pick([]string{g.authzAny(), "dyn(1)", `""`, "1"})))
	case 5:
		a := g.authzAny()
		return g.authzGuard(g.pick([]string{
			fmt.Sprintf("type(%s) == type(%s)", a, g.authzAny()),
			fmt.Sprintf("[%s].size() == 1", a),
			fmt.Sprintf("[%s, %s].size() == 2", a, g.authzAny()),
			fmt.Sprintf("{%s: 1}.size() == 1", a),
			fmt.Sprintf("dyn(%s) == 1", a),
			fmt.Sprintf("%s.x == 1", a),
			fmt.Sprintf("has(%s.x)", a),
			fmt.Sprintf("string(%s) == \"\"", a),
			fmt.Sprintf("optional.of(%s).hasValue()", a),
			fmt.Sprintf("(%s ? %s : %s) == dyn(1)", g.sub(g.boolean), a, g.authzAny()),
		}))
	case 6:
		// Wrong arities and global forms.
		return g.authzGuard(g.pick([]string{
			fmt.Sprintf("dyn(1).%s() == dyn(1)", g.pick([]string{"path", "group", "name", "check", "serviceAccount"})),
			fmt.Sprintf("dyn(1).%s(%s, %s) == dyn(1)", g.pick([]string{"path", "namespace", "check"}), g.authzArg(), g.authzArg()),
			fmt.Sprintf("dyn(1).%s(%s)", g.pick([]string{"allowed", "errored"}), g.authzArg()),
			fmt.Sprintf("%s(%s) == dyn(1)", g.pick([]string{"path", "group", "name", "check", "resource"}), g.authzArg()),
			fmt.Sprintf("%s()", g.pick([]string{"allowed", "errored"})),
		}))
	case 7:
		// Comprehensions over lists whose elements the authz calls see.
		return g.authzGuard(g.pick([]string{
			fmt.Sprintf("%s.all(x, dyn(x).path(%s).check(%s).allowed())", g.sub(g.strList), g.authzArg(), g.authzArg()),
			fmt.Sprintf("[].exists(x, x.check(%s).allowed())", g.authzArg()),
			fmt.Sprintf("%s.map(x, dyn(x).group(%s)).size() == 0", g.sub(g.strList), g.authzArg()),
		}))
	case 8:
		// Reserved words name fields and methods; keywords do not.
		w := g.pick([]string{"namespace", "if", "package", "as", "while", "in", "true", "null", "name"})
		return g.pick([]string{
			fmt.Sprintf("dyn({%q: 1}).%s == 1", w, w),
			fmt.Sprintf("dyn({%q: 1}).?%s == optional.of(1)", w, w),
			fmt.Sprintf("has(dyn({%q: 1}).%s)", w, w),
			fmt.Sprintf("(false && dyn(1).%s(\"a\") == dyn(1))", w),
			fmt.Sprintf("(false && %s(\"a\") == dyn(1))", w),
		})
	case 9:
		// Macro names in forms that are not macros.
		m := g.pick([]string{"all", "exists", "exists_one", "existsOne", "map", "filter", "transformList",
			"transformMap", "transformMapEntry"})
		return g.authzGuard(g.pick([]string{
			fmt.Sprintf("%s(%s, x, true)", m, g.sub(g.strList)),
			fmt.Sprintf("%s.%s(x)", g.sub(g.strList), m),
			fmt.Sprintf("dyn(%s).%s(1) == dyn(1)", g.sub(g.strList), m),
			fmt.Sprintf("%s.%s(x, y, z, w, v) == dyn(1)", g.sub(g.strList), m),
			fmt.Sprintf("%s.%s(\"x\", true)", g.sub(g.strList), m),
		}))
	default:
		return g.authzGuard(fmt.Sprintf("%s == %s", g.authzString(), g.sub(g.str)))
	}
}

// authzString returns a Decision's reason() or error().
func (g *Gen) authzString() string {
	return fmt.Sprintf("%s.%s()", g.authzDecisionVal(), g.pick([]string{"reason", "error"}))
}
