// Package celcompare compares ksched's CEL evaluator for DRA device selectors
// (pkg/cel, through build/test/cel_eval) with Kubernetes' own
// (k8s.io/dynamic-resource-allocation/cel) on a seeded corpus of
// (expression, device) pairs.
package celcompare

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
)

// Attribute is one device attribute; exactly one field is set.
type Attribute struct {
	Int     *int64  `json:"int,omitempty"`
	Bool    *bool   `json:"bool,omitempty"`
	String  *string `json:"string,omitempty"`
	Version *string `json:"version,omitempty"`
}

// Device is the input a selector sees.
type Device struct {
	Driver                   string               `json:"driver"`
	AllowMultipleAllocations *bool                `json:"allowMultipleAllocations,omitempty"`
	Attributes               map[string]Attribute `json:"attributes"`
	Capacity                 map[string]string    `json:"capacity"`
}

// Case is one comparison: an expression on a device.
type Case struct {
	Expression         string `json:"expression"`
	ConsumableCapacity bool   `json:"consumableCapacity"`
	Device             Device `json:"device"`
}

const (
	gpuDomain   = "gpu.example.com"
	otherDomain = "other.example.com"
)

var (
	domains = []string{gpuDomain, otherDomain, "missing.example.com"}
	// Attribute names and the kind each usually has; devices sometimes give
	// one another kind, so that typed operations on dyn values fail at run
	// time.
	attrNames    = []string{"model", "family", "count", "index", "enabled", "driverVersion", "firmware", "memoryMiB"}
	attrKinds    = map[string]string{"model": "string", "family": "string", "count": "int", "index": "int", "enabled": "bool", "driverVersion": "version", "firmware": "version", "memoryMiB": "int"}
	capNames     = []string{"memory", "cores", "bandwidth"}
	stringPool   = []string{"", "a", "A100", "a100", "h100", "gpu", "GPU-x", "  pad ", "ünï", "日本語", "a,b,c", "x.y.z", "1.2.3", "v1.2", "1Gi", "500m", "abc", "-", "10", "-7", "3.5", "1e3", "true", "T", "nope", "10.0.0.1", "fe80::1", "10.0.0.0/8"}
	versionPool  = []string{"1.0.0", "1.2.3", "2.0.0-rc.1", "2.0.0-rc.10", "2.0.0-alpha", "2.0.0", "1.2.3+build.5", "10.0.1", "0.0.1-0", "1.2", "01.2.3", "v1.2.3", "1.2.3-", "1.2.3-a.01", "3.1.4-beta.2+x"}
	quantityPool = []string{"0", "1", "1Gi", "1024Mi", "1G", "500m", "0.5", "1.5Gi", "2Gi", "8Gi", "100", "1e3", "1k", "-1", "1Ki", "12345678901234", "0.001", "1m", "abc", ""}
	regexPool    = []string{"", "a", "^a", "0$", "^[a-z]+[0-9]*$", "(?i)^A100$", "(?i)gpu", "x|y|z", "^(a|h)1?0+$",
		`\d{2,}`, `^\w+$`, `\s`, `^.{3}$`, `[[:upper:]]`, `[^[:alnum:]]`, `\bx\b`, `(?m)^b$`, `(?s)a.b`,
		`a{2}`, `^[^,]*,[^,]*$`, `\.`, `\x41`, `\QA.\E`, `(?P<n>a)+`, "日本", `^\p{L}+$`, `(?i)ünï`,
		"(", "a**", "*a", "[a", "a)", `\1`, "a{1001}", "(?z)", "[b-a]", `\`, "[[:foo:]]", "a{2,1}"}
	intPool = []int64{0, 1, -1, 2, 3, 7, 10, 64, 100, 1024, 9223372036854775807, -9223372036854775808}
)

// Gen builds random expressions and devices from a seed.
type Gen struct {
	r     *rand.Rand
	depth int
	binds []bindVar
}

type bindVar struct{ name, kind string }

func NewGen(seed int64) *Gen { return &Gen{r: rand.New(rand.NewSource(seed))} }

func (g *Gen) pick(xs []string) string { return xs[g.r.Intn(len(xs))] }
func (g *Gen) chance(n int) bool       { return g.r.Intn(100) < n }

// Device returns a random device of the gpu.example.com driver.
func (g *Gen) Device(consumable bool) Device {
	d := Device{Driver: gpuDomain, Attributes: map[string]Attribute{}, Capacity: map[string]string{}}
	if g.chance(4) {
		d.Driver = otherDomain
	}
	if consumable && g.chance(70) {
		b := g.chance(50)
		d.AllowMultipleAllocations = &b
	}
	for _, name := range attrNames {
		if !g.chance(95) {
			continue
		}
		kind := attrKinds[name]
		if g.chance(5) {
			kind = g.pick([]string{"string", "int", "bool", "version"})
		}
		qualified := name
		switch g.r.Intn(12) {
		case 0:
			qualified = otherDomain + "/" + name
		case 1, 2:
			qualified = gpuDomain + "/" + name
		}
		d.Attributes[qualified] = g.attribute(kind)
	}
	for _, name := range capNames {
		if !g.chance(85) {
			continue
		}
		qualified := name
		if g.chance(25) {
			qualified = otherDomain + "/" + name
		}
		q := g.pick(quantityPool)
		if q == "abc" || q == "" {
			q = "1"
		}
		d.Capacity[qualified] = q
	}
	return d
}

func (g *Gen) attribute(kind string) Attribute {
	switch kind {
	case "int":
		v := intPool[g.r.Intn(len(intPool))]
		return Attribute{Int: &v}
	case "bool":
		v := g.chance(50)
		return Attribute{Bool: &v}
	case "version":
		v := versionPool[g.r.Intn(7)] // mostly valid ones
		if g.chance(3) {
			v = versionPool[g.r.Intn(len(versionPool))]
		}
		return Attribute{Version: &v}
	default:
		v := g.pick(stringPool)
		return Attribute{String: &v}
	}
}

// Expression returns a random selector: mostly well-typed booleans, some
// ill-typed or unsupported constructs.
func (g *Gen) Expression() string {
	g.depth = 0
	g.binds = nil
	if g.chance(8) {
		return g.invalid()
	}
	return g.boolean()
}

func (g *Gen) deeper() bool { return g.depth < 3 }

func (g *Gen) sub(f func() string) string {
	g.depth++
	defer func() { g.depth-- }()
	return f()
}

func quote(s string) string { return strconv.Quote(s) }

func (g *Gen) domainExpr() string {
	d := g.pick(domains)
	if g.chance(85) {
		d = gpuDomain
	}
	return fmt.Sprintf("device.attributes[%s]", quote(d))
}

// attrName returns an attribute name that usually has `kind`: any name in
// otherPct percent of picks.
func (g *Gen) attrName(kind string, otherPct int) string {
	var names []string
	for _, n := range attrNames {
		if attrKinds[n] == kind || kind == "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 || g.chance(otherPct) {
		names = attrNames
	}
	return g.pick(names)
}

// attr returns an attribute lookup, of a name that usually has `kind`.
func (g *Gen) attr(kind string) string {
	n := g.attrName(kind, 5)
	if g.chance(30) {
		return fmt.Sprintf("%s[%s]", g.domainExpr(), quote(n))
	}
	return g.domainExpr() + "." + n
}

func (g *Gen) boundOf(kind string) (string, bool) {
	for i := len(g.binds) - 1; i >= 0; i-- {
		if g.binds[i].kind == kind && g.chance(60) {
			return g.binds[i].name, true
		}
	}
	return "", false
}

func (g *Gen) boolean() string {
	if !g.deeper() {
		switch g.r.Intn(5) {
		case 0:
			return g.pick([]string{"true", "false"})
		case 1:
			return fmt.Sprintf("has(%s)", g.attr(""))
		case 2:
			return fmt.Sprintf("device.driver == %s", quote(g.pick([]string{gpuDomain, otherDomain})))
		case 3:
			return fmt.Sprintf("%s == %s", g.attr("bool"), g.pick([]string{"true", "false"}))
		default:
			return g.attr("bool")
		}
	}
	switch g.r.Intn(70) {
	case 68, 69:
		return g.messageBoolean()
	case 66, 67:
		return g.wrapperBoolean()
	case 64, 65:
		return g.nullBoolean()
	case 62, 63:
		return g.quotedBoolean()
	case 60, 61:
		return g.rootBoolean()
	case 59:
		return g.authzBoolean()
	case 58:
		return g.kfmtBoolean()
	case 56, 57:
		return g.fmtBoolean()
	case 54, 55:
		return g.urlBoolean()
	case 52, 53:
		return g.timeBoolean()
	case 50, 51:
		return g.bytesBoolean()
	case 48, 49:
		return g.typeBoolean()
	case 44, 45, 46, 47:
		return g.optBoolean()
	case 40, 41, 42, 43:
		return g.netBoolean()
	case 32, 33, 34, 35, 36, 37, 38, 39:
		return g.libBoolean()
	case 0, 1:
		return fmt.Sprintf("(%s && %s)", g.sub(g.boolean), g.sub(g.boolean))
	case 2, 3:
		return fmt.Sprintf("(%s || %s)", g.sub(g.boolean), g.sub(g.boolean))
	case 4:
		return "!" + g.sub(g.boolean)
	case 5:
		return fmt.Sprintf("(%s ? %s : %s)", g.sub(g.boolean), g.sub(g.boolean), g.sub(g.boolean))
	case 6, 7:
		op := g.pick([]string{"==", "!=", "<", "<=", ">", ">="})
		return fmt.Sprintf("%s %s %s", g.sub(g.integer), op, g.sub(g.numeric))
	case 8, 9:
		op := g.pick([]string{"==", "!=", "<", ">="})
		return fmt.Sprintf("%s %s %s", g.sub(g.str), op, g.sub(g.str))
	case 10:
		f := g.pick([]string{"startsWith", "endsWith", "contains"})
		return fmt.Sprintf("%s.%s(%s)", g.sub(g.str), f, g.sub(g.str))
	case 11:
		return fmt.Sprintf("has(%s)", g.attr(""))
	case 12:
		name := g.pick(attrNames)
		return fmt.Sprintf("%s in %s", quote(name), g.domainExpr())
	case 13:
		d := g.pick(domains)
		return fmt.Sprintf("%s in device.%s", quote(d), g.pick([]string{"attributes", "capacity"}))
	case 14, 15:
		f := g.pick([]string{"isGreaterThan", "isLessThan"})
		return fmt.Sprintf("%s.%s(%s)", g.sub(g.quantity), f, g.sub(g.quantity))
	case 16:
		op := g.pick([]string{"==", "!=", "<", ">="})
		return fmt.Sprintf("%s.compareTo(%s) %s %d", g.sub(g.quantity), g.sub(g.quantity), op, g.r.Intn(3)-1)
	case 17:
		return fmt.Sprintf("%s %s %s", g.sub(g.quantity), g.pick([]string{"==", "!="}), g.sub(g.quantity))
	case 18, 19:
		f := g.pick([]string{"isGreaterThan", "isLessThan"})
		return fmt.Sprintf("%s.%s(%s)", g.sub(g.semver), f, g.sub(g.semver))
	case 20:
		return fmt.Sprintf("%s %s %s", g.sub(g.semver), g.pick([]string{"==", "!="}), g.sub(g.semver))
	case 21:
		return fmt.Sprintf("%s.compareTo(%s) == %d", g.sub(g.semver), g.sub(g.semver), g.r.Intn(3)-1)
	case 22:
		if g.chance(50) {
			return fmt.Sprintf("isSemver(%s)", g.sub(g.str))
		}
		if g.chance(50) {
			return fmt.Sprintf("isSemver(%s, %s)", g.sub(g.str), g.pick([]string{"true", "false"}))
		}
		return fmt.Sprintf("isQuantity(%s)", g.sub(g.str))
	case 23:
		return fmt.Sprintf("%s in %s", g.sub(g.str), g.sub(g.strList))
	case 24:
		return fmt.Sprintf("%s in [%s, %s]", g.sub(g.integer), g.sub(g.integer), g.sub(g.integer))
	case 25:
		name := fmt.Sprintf("v%d", len(g.binds))
		kind := g.pick([]string{"string", "int", "quantity", "semver", "domain"})
		var init string
		switch kind {
		case "string":
			init = g.sub(g.str)
		case "int":
			init = g.sub(g.integer)
		case "quantity":
			init = g.sub(g.quantity)
		case "semver":
			init = g.sub(g.semver)
		default:
			init = g.domainExpr()
		}
		g.binds = append(g.binds, bindVar{name, kind})
		body := g.sub(g.boolean)
		g.binds = g.binds[:len(g.binds)-1]
		return fmt.Sprintf("cel.bind(%s, %s, %s)", name, init, body)
	case 26:
		// Attributes of a dyn kind compared with literals of every kind.
		lit := g.pick([]string{"1", "1u", "1.0", "\"a100\"", "true", "null", "semver(\"1.2.3\")", "quantity(\"1\")"})
		return fmt.Sprintf("%s %s %s", g.attr(""), g.pick([]string{"==", "!="}), lit)
	case 27:
		return fmt.Sprintf("size(%s) %s %d", g.sub(g.strList), g.pick([]string{"==", ">"}), g.r.Intn(4))
	case 28:
		if b, ok := g.boundOf("domain"); ok {
			return fmt.Sprintf("%s.%s == %s", b, g.pick(attrNames), g.sub(g.str))
		}
		return fmt.Sprintf("%s == %s", g.attr("bool"), g.sub(g.boolean))
	case 29:
		return g.macro()
	case 30:
		if g.chance(20) {
			return fmt.Sprintf("matches(%s, %s)", g.sub(g.str), g.sub(g.str))
		}
		if g.chance(25) {
			return fmt.Sprintf("%s.matches(%s)", g.sub(g.str), g.sub(g.str))
		}
		return g.matchesLiteral()
	default:
		return fmt.Sprintf("%s %s %s", g.sub(g.double), g.pick([]string{"<", ">=", "=="}), g.sub(g.numeric))
	}
}

// macro returns a comprehension over a list or a map.
func (g *Gen) macro() string {
	v := fmt.Sprintf("e%d", len(g.binds))
	var rng, kind string
	switch g.r.Intn(5) {
	case 0:
		// Not [] itself: Kubernetes infers an empty literal's element type
		// from its use, which pkg/cel does not (docs/conformance.md).
		if rng = g.sub(g.strList); rng == "[]" {
			rng = `["a"]`
		}
		kind = "string"
	case 1:
		rng, kind = fmt.Sprintf("[%s, %s, %s]", g.sub(g.integer), g.sub(g.integer), g.sub(g.integer)), "int"
	case 2:
		rng, kind = g.domainExpr(), "string"
	case 3:
		rng, kind = fmt.Sprintf("dyn(%s)", g.sub(g.strList)), "string"
	default:
		rng, kind = "[0, 1, 2, -1]", "int"
	}
	g.binds = append(g.binds, bindVar{v, kind})
	defer func() { g.binds = g.binds[:len(g.binds)-1] }()
	cond := func() string {
		if kind == "int" {
			return fmt.Sprintf("%s %s %s", v, g.pick([]string{">", "==", "<="}), g.sub(g.integer))
		}
		if strings.HasPrefix(rng, "device.attributes") && g.chance(50) {
			return fmt.Sprintf("%s[%s] == %s", rng, v, g.sub(g.str))
		}
		return g.sub(g.boolean)
	}
	if g.chance(35) {
		// Two variables: index (or key) and value.
		i := v + "i"
		g.binds = append(g.binds, bindVar{i, map[bool]string{true: "string", false: "int"}[strings.HasPrefix(rng, "device")]})
		defer func() { g.binds = g.binds[:len(g.binds)-1] }()
		switch g.r.Intn(6) {
		case 0:
			return fmt.Sprintf("%s.all(%s, %s, %s)", rng, i, v, cond())
		case 1:
			return fmt.Sprintf("%s.exists(%s, %s, %s)", rng, i, v, cond())
		case 2:
			return fmt.Sprintf("%s.%s(%s, %s, %s)", rng, g.pick([]string{"existsOne", "exists_one"}), i, v, cond())
		case 3:
			return fmt.Sprintf("size(%s.transformList(%s, %s, %s, %s)) > 0", rng, i, v, cond(), v)
		case 4:
			return fmt.Sprintf("%s in %s.transformMap(%s, %s, %s)", i, rng, i, v, v)
		default:
			return fmt.Sprintf("size(%s.transformMapEntry(%s, %s, {%s: %s})) >= 1", rng, i, v, v, i)
		}
	}
	switch g.r.Intn(7) {
	case 0:
		return fmt.Sprintf("%s.all(%s, %s)", rng, v, cond())
	case 1:
		return fmt.Sprintf("%s.exists(%s, %s)", rng, v, cond())
	case 2:
		return fmt.Sprintf("%s.exists_one(%s, %s)", rng, v, cond())
	case 3:
		return fmt.Sprintf("size(%s.filter(%s, %s)) %s %d", rng, v, cond(), g.pick([]string{"==", ">"}), g.r.Intn(3))
	case 4:
		if kind == "int" {
			return fmt.Sprintf("%s in %s.map(%s, %s * 2)", g.sub(g.integer), rng, v, v)
		}
		return fmt.Sprintf("%s in %s.map(%s, %s + %s)", g.sub(g.str), rng, v, v, g.sub(g.str))
	case 5:
		if kind == "int" {
			return fmt.Sprintf("%s.map(%s, %s, 10 / %s).exists(%s, %s > 1)", rng, v, cond(), v, v, v)
		}
		return fmt.Sprintf("%s.map(%s, %s, size(%s)).all(%s, %s >= 0)", rng, v, cond(), v, v, v)
	default:
		return fmt.Sprintf("%s.filter(%s, %s).all(%s, %s)", rng, v, cond(), v, cond())
	}
}

func (g *Gen) numeric() string {
	switch g.r.Intn(4) {
	case 0:
		return g.double()
	case 1:
		return g.pick([]string{"1u", "0u", "18446744073709551615u", "uint(3)"})
	default:
		return g.integer()
	}
}

func (g *Gen) integer() string {
	if b, ok := g.boundOf("int"); ok {
		return b
	}
	if !g.deeper() {
		if g.chance(50) {
			return g.attr("int")
		}
		return strconv.FormatInt(intPool[g.r.Intn(len(intPool))], 10)
	}
	switch g.r.Intn(22) {
	case 21:
		return g.urlInteger()
	case 20:
		return g.timeInteger()
	case 19:
		return g.bytesInteger()
	case 18:
		return g.optInteger()
	case 17:
		return g.netInteger()
	case 14, 15, 16:
		return g.libInteger()
	case 0, 1:
		op := g.pick([]string{"+", "-", "*", "/", "%"})
		return fmt.Sprintf("(%s %s %s)", g.sub(g.integer), op, g.sub(g.integer))
	case 2:
		return fmt.Sprintf("size(%s)", g.sub(g.str))
	case 3:
		return fmt.Sprintf("%s.size()", g.sub(g.str))
	case 4:
		if g.chance(50) {
			return fmt.Sprintf("%s.indexOf(%s)", g.sub(g.str), g.sub(g.str))
		}
		return fmt.Sprintf("%s.lastIndexOf(%s, %d)", g.sub(g.str), g.sub(g.str), g.r.Intn(6)-1)
	case 5:
		return fmt.Sprintf("int(%s)", g.sub(g.str))
	case 6:
		return fmt.Sprintf("int(%s)", g.sub(g.double))
	case 7:
		return fmt.Sprintf("%s.compareTo(%s)", g.sub(g.quantity), g.sub(g.quantity))
	case 8:
		return fmt.Sprintf("%s.%s()", g.sub(g.semver), g.pick([]string{"major", "minor", "patch"}))
	case 9:
		return fmt.Sprintf("%s.asInteger()", g.sub(g.quantity))
	case 10:
		return fmt.Sprintf("-%s", g.sub(g.integer))
	case 11:
		return fmt.Sprintf("int(%s)", g.pick([]string{"1u", "18446744073709551615u", "-1.5", "1e19"}))
	case 12:
		return fmt.Sprintf("%s.indexOf(%s, %d)", g.sub(g.str), g.sub(g.str), g.r.Intn(6)-1)
	default:
		return g.attr("int")
	}
}

func (g *Gen) double() string {
	if !g.deeper() {
		return g.pick([]string{"1.5", "0.0", "-2.25", "1e3", "3.0", "1e300", ".5"})
	}
	switch g.r.Intn(5) {
	case 0:
		return fmt.Sprintf("double(%s)", g.sub(g.integer))
	case 1:
		return fmt.Sprintf("%s.asApproximateFloat()", g.sub(g.quantity))
	case 2:
		return fmt.Sprintf("(%s %s %s)", g.sub(g.double), g.pick([]string{"+", "-", "*", "/"}), g.sub(g.double))
	case 3:
		return fmt.Sprintf("double(%s)", g.sub(g.str))
	default:
		return g.pick([]string{"1.5", "0.0", "-2.25", "1e3", "2.5e-3"})
	}
}

func (g *Gen) str() string {
	if b, ok := g.boundOf("string"); ok {
		return b
	}
	if !g.deeper() {
		switch g.r.Intn(4) {
		case 0:
			return g.attr("string")
		case 1:
			return "device.driver"
		default:
			return quote(g.pick(stringPool))
		}
	}
	switch g.r.Intn(25) {
	case 24:
		return g.authzString()
	case 23:
		return g.fmtString()
	case 22:
		return g.urlString()
	case 21:
		return g.timeString()
	case 20:
		return g.bytesString()
	case 19:
		return g.optString()
	case 18:
		return g.netString()
	case 16, 17:
		return g.libString()
	case 0:
		return fmt.Sprintf("%s.%s()", g.sub(g.str), g.pick([]string{"lowerAscii", "upperAscii", "trim"}))
	case 1:
		return fmt.Sprintf("%s.replace(%s, %s)", g.sub(g.str), quote(g.pick(stringPool)), quote(g.pick(stringPool)))
	case 2:
		return fmt.Sprintf("%s.replace(%s, %s, %d)", g.sub(g.str), quote(g.pick(stringPool)), quote(g.pick(stringPool)), g.r.Intn(4)-1)
	case 3:
		return fmt.Sprintf("%s.substring(%d)", g.sub(g.str), g.r.Intn(5)-1)
	case 4:
		return fmt.Sprintf("%s.substring(%d, %d)", g.sub(g.str), g.r.Intn(5)-1, g.r.Intn(6)-1)
	case 5:
		return fmt.Sprintf("%s.charAt(%d)", g.sub(g.str), g.r.Intn(6)-1)
	case 6:
		return fmt.Sprintf("(%s + %s)", g.sub(g.str), g.sub(g.str))
	case 7:
		return fmt.Sprintf("string(%s)", g.sub(g.integer))
	case 8:
		return fmt.Sprintf("string(%s)", g.sub(g.double))
	case 9:
		return fmt.Sprintf("%s.join(%s)", g.sub(g.strList), quote(g.pick([]string{",", "", "-"})))
	case 10:
		return fmt.Sprintf("%s[%d]", g.sub(g.strList), g.r.Intn(4))
	case 11:
		return fmt.Sprintf("(%s ? %s : %s)", g.sub(g.boolean), g.sub(g.str), g.sub(g.str))
	case 12:
		return g.pick([]string{`'single'`, `"esc\t\"q\"\u00e9\x41\101"`, `r"raw\n"`, `"""tri"ple"""`, `'\U0001F600'`})
	case 13:
		return fmt.Sprintf("string(%s)", g.pick([]string{"true", "1u", "-3", "\"s\""}))
	default:
		return g.attr("string")
	}
}

func (g *Gen) strList() string {
	switch g.r.Intn(6) {
	case 4, 5:
		if g.deeper() {
			return g.libStrList()
		}
		return fmt.Sprintf("[%s]", g.sub(g.str))
	case 0:
		return fmt.Sprintf("%s.split(%s)", g.sub(g.str), quote(g.pick([]string{",", "", ".", "x"})))
	case 1:
		return fmt.Sprintf("%s.split(%s, %d)", g.sub(g.str), quote(g.pick([]string{",", "", "."})), g.r.Intn(4)-1)
	case 2:
		return "[]"
	default:
		return fmt.Sprintf("[%s, %s]", g.sub(g.str), g.sub(g.str))
	}
}

func (g *Gen) quantity() string {
	if b, ok := g.boundOf("quantity"); ok {
		return b
	}
	capRef := func() string {
		d := gpuDomain
		if g.chance(25) {
			d = g.pick(domains)
		}
		n := g.pick(capNames)
		if g.chance(30) {
			return fmt.Sprintf("device.capacity[%s][%s]", quote(d), quote(n))
		}
		return fmt.Sprintf("device.capacity[%s].%s", quote(d), n)
	}
	if !g.deeper() {
		if g.chance(50) {
			return capRef()
		}
		return fmt.Sprintf("quantity(%s)", quote(g.pick(quantityPool)))
	}
	switch g.r.Intn(6) {
	case 0:
		return fmt.Sprintf("%s.%s(%s)", g.sub(g.quantity), g.pick([]string{"add", "sub"}), g.sub(g.quantity))
	case 1:
		return fmt.Sprintf("%s.%s(%d)", g.sub(g.quantity), g.pick([]string{"add", "sub"}), intPool[g.r.Intn(6)])
	case 2:
		return fmt.Sprintf("quantity(%s)", g.sub(g.str))
	case 3:
		return capRef()
	default:
		return fmt.Sprintf("quantity(%s)", quote(g.pick(quantityPool)))
	}
}

func (g *Gen) semver() string {
	if b, ok := g.boundOf("semver"); ok {
		return b
	}
	switch g.r.Intn(5) {
	case 0:
		return fmt.Sprintf("semver(%s)", quote(g.pick(versionPool)))
	case 1:
		return fmt.Sprintf("semver(%s, %s)", quote(g.pick(versionPool)), g.pick([]string{"true", "false"}))
	case 2:
		if g.deeper() {
			return fmt.Sprintf("semver(%s)", g.sub(g.str))
		}
		return g.attr("version")
	default:
		return g.attr("version")
	}
}

// Corpus returns the cases of seeds [start, start+n): each seed's expression
// on a few devices.
func Corpus(start int64, n, devicesPerExpression int) []Case {
	var out []Case
	for s := start; s < start+int64(n); s++ {
		g := NewGen(s)
		consumable := g.chance(15)
		expr := g.Expression()
		for i := 0; i < devicesPerExpression; i++ {
			out = append(out, Case{Expression: expr, ConsumableCapacity: consumable, Device: g.Device(consumable)})
		}
	}
	return out
}

// Shorten keeps messages readable.
func Shorten(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return strings.TrimSpace(s)
}
