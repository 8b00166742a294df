package celcompare

import "fmt"

// Expressions over CEL's bytes: literals (escapes, raw and triple-quoted
// forms), bytes(string), string(bytes) (which fails on invalid UTF-8),
// size, +, the orderings and equality, in, type(), the lists functions over
// bytes, bytes as map keys and indexes (which Kubernetes cannot hash); mixed
// into the boolean, integer and string generators of gen.go.

var bytesPool = []string{`b"abc"`, `b""`, `b"\xff"`, `b"\x00a"`, `B'a100'`, `b"é"`, `br"\x41"`, `b"""tri"ple"""`,
	`b"\303\251"`, `b"gpu.example.com"`, `b"\xc3"`, `b'\u00e9'`}

// bytesVal returns a bytes value (or dyn holding one).
func (g *Gen) bytesVal() string {
	if !g.deeper() {
		return g.pick(bytesPool)
	}
	switch g.r.Intn(8) {
	case 0, 1:
		return fmt.Sprintf("bytes(%s)", g.sub(g.str))
	case 2:
		return fmt.Sprintf("(%s + %s)", g.sub(g.bytesVal), g.sub(g.bytesVal))
	case 3:
		return fmt.Sprintf("(%s ? %s : %s)", g.sub(g.boolean), g.sub(g.bytesVal), g.sub(g.bytesVal))
	case 4:
		return fmt.Sprintf("%s.%s()", g.sub(g.bytesList), g.pick([]string{"min", "max"}))
	case 5:
		return fmt.Sprintf("bytes(%s)", g.sub(g.bytesVal))
	case 6:
		return fmt.Sprintf("optional.ofNonZeroValue(%s).orValue(b\"z\")", g.sub(g.bytesVal))
	default:
		return g.pick(bytesPool)
	}
}

func (g *Gen) bytesList() string {
	if !g.deeper() {
		return fmt.Sprintf("[%s, %s]", g.pick(bytesPool), g.pick(bytesPool))
	}
	switch g.r.Intn(4) {
	case 0:
		return fmt.Sprintf("[%s]", g.sub(g.bytesVal))
	case 1:
		return fmt.Sprintf("%s.%s()", g.sub(g.bytesList), g.pick([]string{"sort", "reverse", "distinct"}))
	case 2:
		return fmt.Sprintf("%s.map(s, bytes(s))", g.sub(g.strList))
	default:
		return fmt.Sprintf("[%s, %s, %s]", g.sub(g.bytesVal), g.pick(bytesPool), g.sub(g.bytesVal))
	}
}

func (g *Gen) bytesBoolean() string {
	switch g.r.Intn(11) {
	case 0, 1:
		op := g.pick([]string{"==", "!=", "<", "<=", ">", ">="})
		return fmt.Sprintf("%s %s %s", g.sub(g.bytesVal), op, g.sub(g.bytesVal))
	case 2:
		return fmt.Sprintf("%s in %s", g.sub(g.bytesVal), g.sub(g.bytesList))
	case 3:
		return fmt.Sprintf("type(%s) %s %s", g.sub(g.bytesVal), g.pick([]string{"==", "!="}), g.pick(typeIdents))
	case 4:
		return fmt.Sprintf("%s.isSorted()", g.sub(g.bytesList))
	case 5:
		return fmt.Sprintf("optional.ofNonZeroValue(%s).hasValue()", g.sub(g.bytesVal))
	case 6:
		// Across kinds: false, or no overload, or (a constant set, a map)
		// a hash Kubernetes cannot take.
		switch g.r.Intn(4) {
		case 0:
			return fmt.Sprintf("dyn(%s) %s %s", g.sub(g.bytesVal), g.pick([]string{"==", "!="}), g.sub(g.str))
		case 1:
			return fmt.Sprintf("dyn(%s) in %s", g.sub(g.bytesVal), g.sub(g.strList))
		case 2:
			return fmt.Sprintf("dyn(%s) in {%s: 1}", g.sub(g.bytesVal), quote(g.pick(stringPool)))
		default:
			return fmt.Sprintf("dyn(%s) < %s", g.sub(g.bytesVal), g.sub(g.str))
		}
	case 7:
		// Bytes as a map key or an index.
		v := g.sub(g.bytesVal)
		return g.pick([]string{
			fmt.Sprintf("{%s: 1}.size() == 1", v),
			fmt.Sprintf("{\"a\": 1}[dyn(%s)] == 1", v),
			fmt.Sprintf("%s[?dyn(%s)].hasValue()", g.domainExpr(), v),
			fmt.Sprintf("[%s].exists(x, {x: 1}.size() == 1)", v),
			fmt.Sprintf("[%s].all(x, dyn({\"a\": 1})[x] == 1)", v),
		})
	case 8:
		return fmt.Sprintf("%s %s %s", g.sub(g.bytesInteger), g.pick([]string{"==", ">", "<="}), g.sub(g.integer))
	default:
		return fmt.Sprintf("%s %s %s", g.sub(g.bytesString), g.pick([]string{"==", "!=", "<"}), g.sub(g.str))
	}
}

func (g *Gen) bytesInteger() string {
	switch g.r.Intn(4) {
	case 0:
		return fmt.Sprintf("size(%s)", g.sub(g.bytesVal))
	case 1:
		return fmt.Sprintf("%s.size()", g.sub(g.bytesVal))
	case 2:
		return fmt.Sprintf("%s.indexOf(%s)", g.sub(g.bytesList), g.sub(g.bytesVal))
	default:
		return fmt.Sprintf("size(string(%s))", g.sub(g.bytesVal))
	}
}

func (g *Gen) bytesString() string {
	if g.chance(70) {
		return fmt.Sprintf("string(%s)", g.sub(g.bytesVal))
	}
	return fmt.Sprintf("string(bytes(%s))", g.sub(g.str))
}
