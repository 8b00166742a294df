package celcompare

import (
	"fmt"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/ext"
	"k8s.io/apiserver/pkg/cel/library"
)

// Expressions over cel-go's string.format: format strings of literal text,
// "%%" and clauses (every verb, with and without a precision, some
// malformed) over arguments of every kind each verb takes and some it does
// not (lists and maps mixing kinds, non-finite doubles, Unicode that Go
// quotes, durations, timestamps, types), as a literal list (checked as
// Kubernetes compiles) or not (checked as it runs); mixed into the boolean
// and string generators of gen.go.
//
// A call over literals only is compared with the very string cel-go makes
// of it (fmtOracle), so that every character counts: equal, one character
// changed, or its length. Calls over attributes and generated strings are
// compared more loosely.

var (
	fmtTextPool      = []string{"", "", "a", " ", "x=", ", ", "é", "%%", "|", "\t"}
	fmtPrecisionPool = []string{"", "", "", ".0", ".1", ".2", ".3", ".6", ".05", ".10", ".20", ".255", ".256", ".300"}
	fmtVerbs         = []string{"s", "s", "s", "d", "d", "f", "f", "e", "e", "b", "x", "X", "o"}
	fmtBadClauses    = []string{"%", "%.", "%.f", "%q", "%5d", "%-d", "%é", "%.e", "%v", "%.1"}
	fmtIntPool       = []string{"0", "1", "-1", "7", "255", "-255", "1024", "9223372036854775807", "-9223372036854775807 - 1"}
	fmtUintPool      = []string{"0u", "1u", "255u", "18446744073709551615u"}
	fmtDoublePool    = []string{"0.0", "-0.0", "1.0", "-1.5", "0.05", "0.25", "2.5", "3.14159", "1e21", "-1e-7",
		"123456.789", "999999.9999999", "1e-300", "1.7976931348623157e308", "5e-324", "1234567.891", "9.9999995",
		"double(\"nan\")", "double(\"inf\")", "-double(\"inf\")"}
	fmtFloatStrings = []string{`"NaN"`, `"Infinity"`, `"-Infinity"`}
	fmtStringPool   = []string{`""`, `"a"`, `"é"`, `"日本"`, `"\u00a0"`, `"\u00ad"`, `"\t\n"`, `"q\"b\\"`, `"\x7f"`,
		`"\U0001F600"`, `"\u2028"`, `"a b"`}
	fmtBytesPool = []string{`b""`, `b"a"`, `b"\xc3\xa9"`, `b"\xff"`, `b"\x00\x01"`, `bytes("é")`}
	fmtOtherPool = []string{"true", "false", "null", `duration("1h2m3.5s")`, `duration("-1ms")`, `duration("0s")`,
		`timestamp("2020-01-01T00:00:00Z")`, `timestamp("2020-01-01T00:00:00.5+05:30")`, `timestamp(0)`,
		"int", "string", "type(1.5)", "type([1])", "type({})", "type(null)", "bool", "bytes", "list", "map"}
)

// fmtLiteral returns a literal argument: of a kind `verb` takes, or now
// and then of any kind.
func (g *Gen) fmtLiteral(verb string, depth int) string {
	if g.chance(8) {
		verb = g.pick(fmtVerbs)
	}
	switch verb {
	case "d", "o":
		if g.chance(70) {
			return g.pick(fmtIntPool)
		}
		return g.pick(fmtUintPool)
	case "f", "e":
		if g.chance(80) {
			return g.pick(fmtDoublePool)
		}
		return g.pick(fmtFloatStrings)
	case "b":
		return g.pick([]string{g.pick(fmtIntPool), g.pick(fmtUintPool), "true", "false"})
	case "x", "X":
		return g.pick([]string{g.pick(fmtIntPool), g.pick(fmtUintPool), g.pick(fmtStringPool), g.pick(fmtBytesPool)})
	}
	// %s: anything but the Kubernetes types, lists and maps of anything.
	switch n := g.r.Intn(10); {
	case n == 0 && depth < 2:
		var xs []string
		for i := g.r.Intn(4); i > 0; i-- {
			xs = append(xs, g.fmtLiteral("s", depth+1))
		}
		return "[" + strings.Join(xs, ", ") + "]"
	case n == 1 && depth < 2:
		// Keys of one kind, or strings and bools mixed; never an int and a
		// uint of one value, whose order cel-go leaves to Go's map.
		keyPools := [][]string{{`"a"`, `"b"`, `"é"`, `""`, `"a b"`}, {"1", "-1", "10", "2"}, {"1u", "10u", "2u"},
			{`"a"`, "true", "false", `"true"`}}
		keys := keyPools[g.r.Intn(len(keyPools))]
		seen := map[string]bool{}
		var es []string
		for i := g.r.Intn(4); i > 0; i-- {
			k := g.pick(keys)
			if seen[k] {
				continue
			}
			seen[k] = true
			es = append(es, k+": "+g.fmtLiteral("s", depth+1))
		}
		return "{" + strings.Join(es, ", ") + "}"
	case n == 2:
		return g.pick(fmtIntPool)
	case n == 3:
		return g.pick(fmtUintPool)
	case n == 4:
		return g.pick(fmtDoublePool)
	case n == 5:
		return g.pick(fmtBytesPool)
	case n == 6 || n == 7:
		return g.pick(fmtOtherPool)
	default:
		return g.pick(fmtStringPool)
	}
}

// fmtGenerated returns a generated argument for `verb`, which may read the
// device.
func (g *Gen) fmtGenerated(verb string) string {
	switch verb {
	case "d", "o", "b":
		return g.sub(g.integer)
	case "f", "e":
		return g.sub(g.double)
	case "x", "X":
		if g.chance(50) {
			return g.sub(g.str)
		}
		return g.sub(g.integer)
	}
	switch g.r.Intn(8) {
	case 0:
		return g.sub(g.integer)
	case 1:
		return g.sub(g.double)
	case 2:
		return g.sub(g.boolean)
	case 3:
		return g.sub(g.strList)
	case 4:
		return g.attr("")
	default:
		return g.sub(g.str)
	}
}

// fmtCall returns a format() call and whether it holds literals only.
func (g *Gen) fmtCall() (string, bool) {
	literal := !g.deeper() || g.chance(60)
	var f strings.Builder
	var args []string
	for n := 1 + g.r.Intn(3); n > 0; n-- {
		f.WriteString(g.pick(fmtTextPool))
		if g.chance(4) {
			f.WriteString(g.pick(fmtBadClauses))
			args = append(args, g.fmtLiteral("s", 0))
			continue
		}
		verb := g.pick(fmtVerbs)
		f.WriteString("%" + g.pick(fmtPrecisionPool) + verb)
		if literal {
			args = append(args, g.fmtLiteral(verb, 0))
		} else {
			args = append(args, g.fmtGenerated(verb))
		}
	}
	f.WriteString(g.pick(fmtTextPool))
	switch {
	case g.chance(5) && len(args) > 0:
		args = args[1:] // one argument short
	case g.chance(5):
		args = append(args, g.fmtLiteral("s", 0)) // one left over
	}
	format := quote(f.String())
	if !literal && g.chance(20) {
		format = fmt.Sprintf("(%s + %s)", quote(f.String()[:len(f.String())/2]), quote(f.String()[len(f.String())/2:]))
	}
	list := "[" + strings.Join(args, ", ") + "]"
	switch g.r.Intn(10) {
	case 0:
		// Not a literal list: checked as it runs, and arguments left over
		// are fine there.
		list = "dyn(" + list + ")"
	case 1:
		return fmt.Sprintf("cel.bind(args, %s, %s.format(args))", list, format), literal
	}
	return fmt.Sprintf("%s.format(%s)", format, list), literal
}

func (g *Gen) fmtBoolean() string {
	call, literal := g.fmtCall()
	if literal {
		if want, ok := fmtOracle(call); ok {
			switch g.r.Intn(6) {
			case 0, 1, 2:
				return fmt.Sprintf("%s == %s", call, quote(want))
			case 3:
				return fmt.Sprintf("%s != %s", call, quote(fmtMutate(g, want)))
			case 4:
				return fmt.Sprintf("%s.size() == %d", call, len([]rune(want)))
			default:
				return fmt.Sprintf("%s == %s", call, quote(fmtMutate(g, want)))
			}
		}
	}
	switch g.r.Intn(5) {
	case 0:
		return fmt.Sprintf("%s.size() > %d", call, g.r.Intn(8))
	case 1:
		return fmt.Sprintf("%s.contains(%s)", call, quote(g.pick([]string{"1", ",", ".", "-", "a", "∞", "×10", "e", "[", "\""})))
	case 2:
		return fmt.Sprintf("%s == %s", call, g.sub(g.str))
	default:
		return fmt.Sprintf("%s.startsWith(%s)", call, g.sub(g.str))
	}
}

func (g *Gen) fmtString() string {
	call, _ := g.fmtCall()
	return call
}

// fmtMutate changes one character of s (or appends one to an empty s).
func fmtMutate(g *Gen, s string) string {
	rs := []rune(s)
	if len(rs) == 0 {
		return "x"
	}
	i := g.r.Intn(len(rs))
	rs[i] = []rune("0x ,.-9é")[g.r.Intn(8)]
	if string(rs) == s {
		return s + "x"
	}
	return string(rs)
}

var (
	fmtEnvOnce sync.Once
	fmtEnv     *cel.Env
)

// fmtOracle is cel-go's own result for a format() call over literals, in
// an environment with the strings extension as Kubernetes configures it
// and Kubernetes' format library;
// false where it fails to compile or to run.
func fmtOracle(expr string) (string, bool) {
	fmtEnvOnce.Do(func() {
		var err error
		fmtEnv, err = cel.NewEnv(ext.Strings(ext.StringsVersion(2)), ext.Bindings(), cel.OptionalTypes(),
			cel.HomogeneousAggregateLiterals(), library.Format())
		if err != nil {
			panic(err)
		}
	})
	ast, iss := fmtEnv.Compile(expr)
	if iss.Err() != nil {
		return "", false
	}
	prg, err := fmtEnv.Program(ast)
	if err != nil {
		return "", false
	}
	out, _, err := prg.Eval(map[string]any{})
	if err != nil {
		return "", false
	}
	s, ok := out.Value().(string)
	return s, ok
}

// Kubernetes' format library: validate() of strings each format's rules
// read differently (lengths, dots, dashes, prefixes, case, padding, leap
// days, the text after a second 't'), its messages compared with the
// library's own (fmtOracle), format.named() of known, unknown and computed
// names, and formats compared, typed and hashed.
var (
	kfmtNames   = []string{"dns1123Label", "dns1123Subdomain", "dns1035Label", "qualifiedName", "dns1123LabelPrefix", "dns1123SubdomainPrefix", "dns1035LabelPrefix", "labelValue", "uri", "uuid", "byte", "date", "datetime"}
	kfmtStrings = []string{"", "a", "A", "a-", "ab-", "-a", "a.b", "a..b", "a.-", "my-name", "123-abc", "a_b", "a/b", "/b", "a/", "a/b/c",
		"example.com/MyName", "Ex.com/x", strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("b.", 127), "x/" + strings.Repeat("y", 64),
		"http://example.com", "/path", "example.com", "a:b", "http://[::1]:80/", "http://a:b:80/", "a b",
		"123e4567-e89b-12d3-a456-426614174000", "123E4567E89B12D3A456426614174000", "123e4567-e89b12d3-a456-426614174000", "123e4567-e89b-12d3-a456-42661417400",
		"aGVsbG8=", "aGVsbG8", "aGVsbA==", "aGVs", "====", "a===", "ab=c", "é",
		"2021-01-01", "2021-02-29", "2020-02-29", "2021-13-01", "2021-1-01", "0000-02-29", "1900-02-29",
		"2021-01-01T00:00:00Z", "2021-01-01t00:00:00z", "2021-01-01T24:00:00Z", "2021-01-01T23:59:59.123+05:30", "2021-01-01T00:00:00",
		"2021-01-01T00:00:00ZTxyz", "2021-01-01T00:00:00x1Z", "2021-01-01T00:00:00é1Z", "2021-01-01T00:00:00+0530", "2021-01-01T00:00:60Z"}
)

func (g *Gen) kfmtFormat() string {
	switch g.r.Intn(6) {
	case 0:
		return fmt.Sprintf("format.named(%s).value()", quote(g.pick(kfmtNames)))
	case 1:
		return fmt.Sprintf("format.named(%s).orValue(format.uuid())", g.pick([]string{quote(g.pick(kfmtNames)), `"nope"`, g.sub(g.str)}))
	default:
		return fmt.Sprintf("format.%s()", g.pick(kfmtNames))
	}
}

func (g *Gen) kfmtText() string {
	if g.chance(25) {
		return g.sub(g.str)
	}
	return quote(g.pick(kfmtStrings))
}

func (g *Gen) kfmtBoolean() string {
	call := fmt.Sprintf("%s.validate(%s)", g.kfmtFormat(), g.kfmtText())
	switch g.r.Intn(9) {
	case 0, 1, 2:
		return call + ".hasValue()"
	case 3, 4:
		// The messages, exactly.
		joined := fmt.Sprintf("%s.orValue([]).join(\"|\")", call)
		if want, ok := fmtOracle(joined); ok {
			if g.chance(70) {
				return fmt.Sprintf("%s == %s", joined, quote(want))
			}
			return fmt.Sprintf("%s == %s", joined, quote(fmtMutate(g, want)))
		}
		return fmt.Sprintf("%s.size() > 0", joined)
	case 5:
		return fmt.Sprintf("format.named(%s).hasValue()", g.pick([]string{quote(g.pick(kfmtNames)), `"nope"`, `"DNS1123Label"`, g.sub(g.str)}))
	case 6:
		return fmt.Sprintf("%s %s %s", g.kfmtFormat(), g.pick([]string{"==", "!="}), g.kfmtFormat())
	case 7:
		return g.pick([]string{
			fmt.Sprintf("type(%s) == type(%s)", g.kfmtFormat(), g.kfmtFormat()),
			fmt.Sprintf("dyn(%s) == %s", g.kfmtFormat(), g.sub(g.str)),
			fmt.Sprintf("{%s: 1}.size() == 1", g.kfmtFormat()),
			fmt.Sprintf("%s in [%s]", g.kfmtFormat(), g.kfmtFormat()),
		})
	default:
		return fmt.Sprintf("%s.orValue([%s]).size() == %d", call, quote("x"), 1+g.r.Intn(2))
	}
}
