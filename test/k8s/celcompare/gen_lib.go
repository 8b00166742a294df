package celcompare

import "fmt"

// Expressions over the libraries beyond CEL's standard one: Kubernetes'
// lists library (isSorted, sum, min, max, indexOf, lastIndexOf, includes),
// cel-go's lists extension (slice, flatten, sort, sortBy, reverse,
// distinct, lists.range), Kubernetes' regex library (find, findAll) and
// strings.quote; mixed into the boolean, integer, string and string-list
// generators of gen.go.

var (
	// Range sizes: small ones, and ones whose sort or whose list alone is
	// far past the cost limit (not near it, where the two cost models may
	// round differently).
	rangePool = []string{"-1", "0", "1", "3", "5", "12", "13", "40", "49", "1000", "1000001", "1000000"}
	// Lists of every comparable kind and some that are not, with dyn
	// elements mixing kinds at run time.
	mixedListPool = []string{"[1u, 3u, 2u]", "[1.5, -2.25, 1e3]", "[true, false]", `["b", "a", "b"]`,
		"[dyn(1), dyn(2.5)]", "[dyn(1), dyn(1u)]", `[dyn(2), dyn("a")]`, `[dyn("a"), dyn(1)]`, "[dyn(1.5)]",
		"[dyn([1, 2]), dyn([3])]", "[dyn(1), dyn([2, 3])]", "[[1, 2], [3]]", "[dyn({}), dyn({})]",
		"[0.0, -0.0]", "[dyn(0.0 / 0.0), dyn(1.0)]", "[9223372036854775807, 1]", "[[dyn(1), dyn([2, [3]])]]",
		"dyn([2, 1])", "dyn(1)", `dyn("ab")`, "dyn([])", `[quantity("1"), quantity("2")]`}
	findPool = []string{"[0-9]+", "[a-z]*", "a|ab", "a+?", "(?U)a+", "", "^a", "b$", `\b\w`, "(?i)A", ".", "x*", "日", "(", `\pL`}
)

// intList returns a list of ints, often produced by the new functions.
func (g *Gen) intList() string {
	if !g.deeper() {
		return g.pick([]string{"[3, 1, 2]", "[1, 1, 2, 1]", "[0, 1, 2, -1]", "[5]", "lists.range(4)", "[-9223372036854775808, 1]"})
	}
	switch g.r.Intn(14) {
	case 0, 1:
		return fmt.Sprintf("[%s, %s, %s]", g.sub(g.integer), g.sub(g.integer), g.sub(g.integer))
	case 2:
		return fmt.Sprintf("lists.range(%s)", g.pick(rangePool))
	case 3:
		// Bounded: before cel-go 0.29 (1.37) Kubernetes builds the whole
		// range before charging for it, so lists.range(1 << 62) exhausts
		// the memory (ksched fails it by cost; docs/conformance.md).
		return fmt.Sprintf("lists.range(%s %% 64)", g.sub(g.integer))
	case 4:
		return fmt.Sprintf("%s.slice(%d, %d)", g.sub(g.intList), g.r.Intn(4)-1, g.r.Intn(5)-1)
	case 5:
		return fmt.Sprintf("%s.%s()", g.sub(g.intList), g.pick([]string{"reverse", "distinct", "sort"}))
	case 6:
		v := fmt.Sprintf("s%d", g.depth)
		key := g.pick([]string{v, "-" + v, v + " % 2", "dyn(" + v + ")", v + " > 1", "string(" + v + ")", "1", v + " == 0 ? dyn(1) : dyn(1u)", "10 / " + v})
		return fmt.Sprintf("%s.sortBy(%s, %s)", g.sub(g.intList), v, key)
	case 7:
		return fmt.Sprintf("[%s, %s].flatten()", g.sub(g.intList), g.sub(g.intList))
	case 8:
		return fmt.Sprintf("[%s, %s]", g.attr("int"), g.attr("int"))
	case 9:
		return fmt.Sprintf("%s.map(x, x * 2)", g.sub(g.intList))
	case 10:
		return fmt.Sprintf("%s + %s", g.sub(g.intList), g.sub(g.intList))
	case 11:
		return fmt.Sprintf("lists.range(%s).sort()", g.pick(rangePool))
	case 12:
		return fmt.Sprintf("[%s, %s].sort()", g.attr("int"), g.attr(""))
	default:
		return fmt.Sprintf("[%s, %s, %s]", g.sub(g.integer), g.sub(g.integer), g.sub(g.integer))
	}
}

func (g *Gen) anyList() string {
	if g.chance(50) {
		return g.sub(g.intList)
	}
	if g.chance(30) {
		return g.nonEmptyStrList()
	}
	return g.pick(mixedListPool)
}

func (g *Gen) libBoolean() string {
	switch g.r.Intn(16) {
	case 0:
		return fmt.Sprintf("%s.isSorted()", g.anyList())
	case 1:
		return fmt.Sprintf("%s == %s", g.sub(g.intList), g.sub(g.intList))
	case 2:
		return fmt.Sprintf("%s.includes(%s)", g.anyList(), g.sub(g.integer))
	case 3:
		return fmt.Sprintf("%s.includes(%s)", g.attr(""), g.pick([]string{"1", "7", `"a100"`, "true", `semver("1.2.3")`, "[1]"}))
	case 4:
		return fmt.Sprintf("%s in %s", g.sub(g.integer), g.sub(g.intList))
	case 5:
		return fmt.Sprintf("%s.find(%s) == %s", g.findText(), quote(g.findPattern()), g.sub(g.str))
	case 6:
		return fmt.Sprintf("size(%s.findAll(%s)) %s %d", g.findText(), quote(g.findPattern()), g.pick([]string{"==", ">"}), g.r.Intn(3))
	case 7:
		return fmt.Sprintf("strings.quote(%s) == %s", g.sub(g.str), g.sub(g.str))
	case 8:
		return fmt.Sprintf("%s.%s() %s %s", g.pick(mixedListPool), g.pick([]string{"sum", "min", "max"}), g.pick([]string{"==", "!=", "<"}), g.pick([]string{"1", "2.5", "1u", `"a"`}))
	case 9:
		return fmt.Sprintf("%s.%s() == %s", g.pick(mixedListPool), g.pick([]string{"sort", "reverse", "distinct", "flatten"}), g.anyList())
	case 10:
		return fmt.Sprintf("%s.flatten(%d) == %s", g.pick(mixedListPool), g.r.Intn(4)-1, g.anyList())
	case 11:
		v := fmt.Sprintf("b%d", g.depth)
		return fmt.Sprintf("%s.sortBy(%s, %s) == %s", g.pick(mixedListPool), v, g.pick([]string{v, "-" + v, "dyn(" + v + ")", "size(" + v + ")", "1"}), g.anyList())
	case 12:
		// Attributes are any before 1.37 and dyn after: literals mixing
		// them, comprehensions over them, and dyn results.
		return g.pick([]string{
			fmt.Sprintf("[%s, %s] == [1, 2]", g.attr(""), g.attr("")),
			fmt.Sprintf("[%s, 1] == [1, 1]", g.attr("int")),
			fmt.Sprintf("[%s, dyn(1)] == [1, 1]", g.attr("int")),
			fmt.Sprintf("{%s: 1, \"k\": 2}.size() == 2", g.attr("string")),
			fmt.Sprintf("%s.exists(x, x == 1)", g.attr("")),
			fmt.Sprintf("dyn(%s)", g.sub(g.boolean)),
			fmt.Sprintf("(%s ? %s : true)", g.sub(g.boolean), g.attr("bool")),
			fmt.Sprintf("[%s].sort()[0]", g.attr("bool")),
		})
	case 13:
		return fmt.Sprintf("%s.indexOf(%s) %s %s.lastIndexOf(%s)", g.anyList(), g.sub(g.integer), g.pick([]string{"==", "<"}), g.anyList(), g.sub(g.integer))
	case 14:
		return fmt.Sprintf("%s.includes(%s)", g.nonEmptyStrList(), g.sub(g.str))
	default:
		return fmt.Sprintf("%s.sort() == %s.sortBy(x, x)", g.nonEmptyStrList(), g.nonEmptyStrList())
	}
}

func (g *Gen) libInteger() string {
	switch g.r.Intn(7) {
	case 0, 1:
		return fmt.Sprintf("%s.%s()", g.sub(g.intList), g.pick([]string{"sum", "min", "max"}))
	case 2:
		return fmt.Sprintf("%s.%s(%s)", g.sub(g.intList), g.pick([]string{"indexOf", "lastIndexOf"}), g.sub(g.integer))
	case 3:
		return fmt.Sprintf("size(%s)", g.sub(g.intList))
	case 4:
		return fmt.Sprintf("%s[%d]", g.sub(g.intList), g.r.Intn(4))
	case 5:
		return fmt.Sprintf("%s.indexOf(%s)", g.nonEmptyStrList(), g.sub(g.str))
	default:
		return fmt.Sprintf("size(%s.findAll(%s, %d))", g.findText(), quote(g.findPattern()), g.r.Intn(4)-1)
	}
}

func (g *Gen) libString() string {
	switch g.r.Intn(5) {
	case 0:
		return fmt.Sprintf("%s.find(%s)", g.findText(), quote(g.findPattern()))
	case 1:
		return fmt.Sprintf("%s.find(%s)", g.sub(g.str), g.sub(g.str))
	case 2:
		return fmt.Sprintf("strings.quote(%s)", g.sub(g.str))
	case 3:
		return fmt.Sprintf("%s.%s()", g.nonEmptyStrList(), g.pick([]string{"min", "max"}))
	default:
		return fmt.Sprintf("%s.findAll(%s).join(\",\")", g.findText(), quote(g.findPattern()))
	}
}

// nonEmptyStrList avoids the literal [], whose element type Kubernetes
// infers from its use (docs/conformance.md).
func (g *Gen) nonEmptyStrList() string {
	if l := g.sub(g.strList); l != "[]" {
		return l
	}
	return `["a"]`
}

func (g *Gen) libStrList() string {
	switch g.r.Intn(8) {
	case 0:
		return fmt.Sprintf("%s.findAll(%s)", g.findText(), quote(g.findPattern()))
	case 1:
		return fmt.Sprintf("%s.findAll(%s, %d)", g.findText(), quote(g.findPattern()), g.r.Intn(4)-1)
	case 2:
		return fmt.Sprintf("%s.%s()", g.nonEmptyStrList(), g.pick([]string{"sort", "reverse", "distinct"}))
	case 3:
		return fmt.Sprintf("%s.slice(%d, %d)", g.nonEmptyStrList(), g.r.Intn(3), g.r.Intn(4))
	case 4:
		v := fmt.Sprintf("t%d", g.depth)
		return fmt.Sprintf("%s.sortBy(%s, %s)", g.nonEmptyStrList(), v, g.pick([]string{v, "size(" + v + ")", v + ".lowerAscii()", "-size(" + v + ")"}))
	case 5:
		return fmt.Sprintf("[%s, %s].flatten()", g.nonEmptyStrList(), g.nonEmptyStrList())
	case 6:
		return fmt.Sprintf("%s.split(\",\").distinct()", g.sub(g.str))
	default:
		return fmt.Sprintf("[%s, %s].sort()", g.attr("string"), g.attr("string"))
	}
}
