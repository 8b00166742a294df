package celcompare

import (
	"fmt"
	"regexp"
	"strings"
)

// Expressions with backtick-quoted names (`a-b`): field selections,
// optional selections, has() and message fields, which 1.37 (cel-go 0.29)
// accepts and 1.35 and 1.36 (cel-go 0.26) refuse, and malformed or
// misplaced quoted names, a syntax error at every release; mixed into the
// boolean generator of gen.go.

// Names CEL's grammar lets a backtick quote (letters, digits, `_.-/ `),
// keywords and reserved words among them.
var quotedNames = []string{"a-b", "a.b", "a b", "a/b", "1", "_", "in", "true", "null", "if", "namespace", "x y/z.w-1"}

func backticked(name string) string { return "`" + name + "`" }

var quotableMaps = regexp.MustCompile(`device\.(attributes|capacity)\["([a-z.]+)"\]`)

// quoted writes every `device.attributes["d"]` (and capacity) in expr as
// "device.attributes.`d`".
func quoted(expr string) string {
	return quotableMaps.ReplaceAllString(expr, "device.$1.`$2`")
}

// Quoted names where the grammar has no place for them, and ones its lexer
// does not read as a name: errors at every release.
var quotedInvalid = []string{
	"`a` == 1", "`device`.driver != \"\"", ".`device`.driver != \"\"", "{`a`: 1}.a == 1", "{\"a\": 1}[`a`] == 1",
	"has(`a`)", "[1].`all`(x, true)", "{\"a\": 1}.`size`() == 1", "cel.`bind`(x, 1, x == 1)", "{\"a\": 1}.?`a`() == 1",
	"{\"a\": 1}.?a() == 1", "{\"a\": 1}.`a`{} == 1", "google.protobuf.`Duration`{seconds: 1} == duration(\"1s\")",
	"google.`protobuf.Duration`{seconds: 1} == duration(\"1s\")", "{\"a\": 1}.`` == 1", "{\"a\": 1}.`a == 1",
	"{\"a\": 1}.`a$` == 1", "{\"a\": 1}.`a\tb` == 1", "{\"a\": 1}.`é` == 1", "{\"a\": 1}.`a`b` == 1", "true || `",
	"`` == 1", "[1].map(`x`, 1) == [1]", "[1].all(x, `x` > 0)", "cel.bind(`x`, 1, true)", "google.protobuf.Duration{`sec onds`: 1} == duration(\"1s\")",
	"google.protobuf.Duration{`seconds`: 1}.`seconds` == 1", "\"a\".`size` == 1", "device.`nope` == 1",
	"google.protobuf.Duration{`seconds` 1} == duration(\"1s\")", "google.protobuf.Duration{`seconds`: 1 `nanos`: 2} == duration(\"1s\")",
	"{\"a\": 1}.`a`.`b` == 1", "{\"a\": 1}.``a`` == 1", "device.attributes.`" + gpuDomain + "`.`model == \"\"",
}

func (g *Gen) quotedBoolean() string {
	switch g.r.Intn(10) {
	case 0, 1, 2:
		// Any generated selector, its device maps reached by quoted domains.
		return quoted(g.sub(g.boolean))
	case 3:
		return g.quotedAttrBoolean()
	case 4:
		// A map literal's key selected by its quoted name, or missing.
		k := g.pick(quotedNames)
		sel := g.pick(quotedNames)
		v := g.pick([]string{"1", "true", `"s"`, `{"c": 1}`, "dyn(1)"})
		switch g.r.Intn(5) {
		case 0:
			return fmt.Sprintf("has({%s: %s}.%s)", quote(k), v, backticked(sel))
		case 1:
			return fmt.Sprintf("{%s: %s}.?%s.hasValue()", quote(k), v, backticked(sel))
		case 2:
			return fmt.Sprintf("{%s: %s}.?%s.orValue(%s) == %s", quote(k), v, backticked(sel), v, v)
		case 3:
			return fmt.Sprintf("has({%s: {%s: %s}}.?%s.%s)", quote(k), quote(sel), v, backticked(k), backticked(sel))
		default:
			return fmt.Sprintf("{%s: %s}.%s == %s", quote(k), v, backticked(sel), v)
		}
	case 5:
		return g.quotedMessage()
	case 6:
		return g.pick(quotedInvalid)
	case 7:
		// Through variables, dyn values and chains.
		return g.pick([]string{"[{\"a-b\": 1}].all(m, m.`a-b` == 1)", "cel.bind(m, {\"x y\": true}, m.`x y`)",
			"dyn({\"a-b\": 1}).`a-b` == 1", "{\"a\": {\"b-c\": 1}}.`a`.`b-c` == 1", "{\"a\": {\"b\": 1}}.?`a`.?b.hasValue()",
			"[{\"a.b\": 1}][0].`a.b` == 1", "{\"a\": [1]}.`a`[0] == 1", "{\"a\": [1]}.`a`.size() == 1",
			"{\"a\": 1}.`a` + 1 == 2", "-{\"a\": 1}.`a` == -1", "!{\"a\": false}.`a`", "{\"a\": 1}. `a` == 1",
			"{\"a\": 1} . ? `a` == optional.of(1)", "optional.of({\"a\": 1}).`a`.value() == 1", "{\"a\": 1}.`a` == 1 // `"})
	case 8:
		// A quoted name is still part of a qualified name.
		return g.pick([]string{"google.`protobuf.Duration` == type(duration(\"1s\"))", "google.protobuf.`Duration` == type(duration(\"1s\"))",
			"net.`IP` == type(ip(\"10.0.0.1\"))", "device.`driver` == \"" + gpuDomain + "\"", ".device.`driver` != \"\"",
			"device.`allowMultipleAllocations` == false", "type(device.`attributes`) == map", "cel.bind(net, 1, net.`IP` == 1)",
			"net.`I P` == 1", "`google`.protobuf.Duration == type(duration(\"1s\"))"})
	default:
		return fmt.Sprintf("%s %s %s", g.quotedAttrBoolean(), g.pick([]string{"&&", "||", "=="}), g.sub(g.boolean))
	}
}

// quotedAttrBoolean returns a test of an attribute or capacity reached
// through quoted names, with plain, indexed and optional steps mixed in.
func (g *Gen) quotedAttrBoolean() string {
	d := g.pick(domains)
	if g.chance(70) {
		d = gpuDomain
	}
	maps := g.pick([]string{"attributes", "capacity"})
	dom := "device." + maps + "." + backticked(d)
	if g.chance(20) {
		dom = "device.?" + maps + ".?" + backticked(d)
	}
	var name string
	if maps == "capacity" {
		name = g.pick(capNames)
	} else {
		name = g.attrName("", 0)
	}
	switch g.r.Intn(5) {
	case 0:
		return fmt.Sprintf("has(%s.%s)", dom, backticked(name))
	case 1:
		return fmt.Sprintf("%s.?%s.hasValue()", dom, backticked(name))
	case 2:
		return fmt.Sprintf("%s in %s", quote(name), dom)
	case 3:
		if maps == "capacity" {
			return fmt.Sprintf("%s.%s.isGreaterThan(quantity(\"1\"))", dom, backticked(name))
		}
		return fmt.Sprintf("%s.%s == %s", dom, backticked(name), g.pick([]string{"true", "7", `"a100"`, `semver("1.2.3")`}))
	default:
		return fmt.Sprintf("%s.%s == %s[%s]", dom, backticked(name), dom, quote(name))
	}
}

// quotedMessage returns a generated message with some field names quoted,
// now and then one no message has.
func (g *Gen) quotedMessage() string {
	m := g.sub(g.message)
	for _, f := range []string{"seconds", "nanos"} {
		if g.chance(60) {
			m = strings.ReplaceAll(m, f+":", backticked(f)+":")
		}
	}
	if g.chance(10) {
		m = strings.Replace(m, "{", "{`sec onds`: 1, ", 1)
	}
	return m
}
