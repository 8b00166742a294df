package celcompare

import "fmt"

// Expressions over the protobuf wrapper messages
// (google.protobuf.Int64Value{value: 5}): a value of the wrapped type,
// typed wrapper(T), which null may also stand for and which otherwise is
// T, the first of the two kept where they meet; a selector may evaluate to
// wrapper(bool) at 1.37, not before. Mixed into the boolean generator of
// gen.go.

type wrapperKind struct {
	name   string   // the message, after google.protobuf.
	typ    string   // the CEL type it wraps
	values []string // values of that type, at its edges too
}

var wrapperKinds = []wrapperKind{
	{"BoolValue", "bool", []string{"true", "false"}},
	{"BytesValue", "bytes", []string{`b""`, `b"ab"`}},
	{"DoubleValue", "double", []string{"0.0", "0.1", "-1.5", "1e300", `double("nan")`}},
	{"FloatValue", "double", []string{"0.1", "16777217.0", "3.4028235677973362e38", "3.4028235677973366e38", "-1e300", "1e-50"}},
	{"Int32Value", "int", []string{"0", "5", "2147483647", "2147483648", "-2147483648", "-2147483649"}},
	{"Int64Value", "int", []string{"0", "5", "-1", "9223372036854775807"}},
	{"StringValue", "string", []string{`""`, `"ab"`, `"1Gi"`}},
	{"UInt32Value", "uint", []string{"0u", "5u", "4294967295u", "4294967296u"}},
	{"UInt64Value", "uint", []string{"0u", "5u", "18446744073709551615u"}},
}

// wrapper returns a wrapper message of kind w and a plain value of its type.
func (g *Gen) wrapper(w wrapperKind) (msg, plain string) {
	v := g.pick(w.values)
	plain = g.pick(w.values)
	body := "value: " + v
	switch g.r.Intn(12) {
	case 0:
		body = ""
	case 1:
		body = fmt.Sprintf("?value: %s", g.pick([]string{"optional.of(" + v + ")", "optional.none()", v}))
	case 2:
		// Another kind, dyn or not, or null.
		body = "value: " + g.pick([]string{"1", "1u", "1.0", `"a"`, "true", "null", "dyn(1)", "dyn(1u)", "dyn(1.0)", `dyn("a")`,
			"dyn(null)", "dyn(true)", `dyn(b"a")`, g.attr("")})
	case 3:
		body = fmt.Sprintf("value: %s, value: %s", v, g.pick(w.values))
	case 4:
		body = fmt.Sprintf("value: dyn(%s)", v)
	case 5:
		body = fmt.Sprintf("`value`: %s", v)
	}
	prefix := "google.protobuf."
	if g.chance(10) {
		prefix = ".google.protobuf."
	}
	return fmt.Sprintf("%s%s{%s}", prefix, w.name, body), plain
}

func (g *Gen) wrapperBoolean() string {
	w := wrapperKinds[g.r.Intn(len(wrapperKinds))]
	m, p := g.wrapper(w)
	if w.name == "BoolValue" && g.chance(40) {
		// A wrapper(bool) result, directly or through what keeps its type.
		return g.pick([]string{m, fmt.Sprintf("[%s][0]", m), fmt.Sprintf("(%s ? %s : %s)", g.sub(g.boolean), m, p),
			fmt.Sprintf("(%s ? %s : %s)", g.sub(g.boolean), p, m), fmt.Sprintf("(true ? %s : null)", m),
			fmt.Sprintf("optional.of(%s).value()", m), fmt.Sprintf("cel.bind(b, %s, b)", m), fmt.Sprintf("dyn(%s)", m),
			fmt.Sprintf("%s && %s", m, g.sub(g.boolean)), fmt.Sprintf(`{"a": %s}.a`, m), fmt.Sprintf("[%s, %s][1]", m, p),
			fmt.Sprintf("optional.none().orValue(%s)", m), fmt.Sprintf("[%s].exists(x, x)", m)})
	}
	switch g.r.Intn(8) {
	case 0:
		return fmt.Sprintf("%s %s %s", m, g.pick([]string{"==", "!="}), g.pick([]string{p, "null", "dyn(" + p + ")", "dyn(null)"}))
	case 1:
		// Where a wrapper meets its plain type, the first one's type stays:
		// only comparing with null tells them apart.
		return fmt.Sprintf("%s == null", g.pick([]string{
			fmt.Sprintf("(%s ? %s : %s)", g.sub(g.boolean), m, p), fmt.Sprintf("(%s ? %s : %s)", g.sub(g.boolean), p, m),
			fmt.Sprintf("[%s, %s][1]", m, p), fmt.Sprintf("[%s, %s][1]", p, m), fmt.Sprintf(`{"a": %s, "b": %s}.b`, m, p),
			fmt.Sprintf(`{"a": %s, "b": %s}.b`, p, m), fmt.Sprintf("optional.of(%s).orValue(%s)", m, p),
			fmt.Sprintf("optional.of(%s).orValue(%s)", p, m), fmt.Sprintf("optional.of(%s).or(optional.of(%s)).value()", m, p),
			fmt.Sprintf("[%s].first().value()", m), fmt.Sprintf("[%s, %s].%s", m, p, g.pick([]string{"max()", "min()", "sum()"})),
			fmt.Sprintf("[%s, %s].%s[0]", m, p, g.pick([]string{"sort()", "reverse()", "distinct()", "slice(0, 1)", "sortBy(x, x)"})),
			fmt.Sprintf("[1].map(x, %s)[0]", m), fmt.Sprintf("cel.bind(x, %s, x)", m), fmt.Sprintf("(true ? null : %s)", m),
			fmt.Sprintf("[[%s], [%s]][1][0]", m, p), fmt.Sprintf("-%s", m), fmt.Sprintf("(%s + %s)", m, p)}))
	case 2:
		return fmt.Sprintf("type(%s) == %s", m, g.pick([]string{w.typ, "int", "null_type", "google.protobuf." + w.name}))
	case 3:
		return fmt.Sprintf("%s %s %s", m, g.pick([]string{"<", ">=", "+ " + p + " ==", "in [" + p + "] ==", "=="}),
			g.pick([]string{p, "true"}))
	case 4:
		// Functions of the wrapped type.
		return g.pick([]string{fmt.Sprintf("size(%s) > 0", m), fmt.Sprintf("string(%s) != \"\"", m),
			fmt.Sprintf("%s.startsWith(\"a\")", m), fmt.Sprintf("int(%s) > 0", m), fmt.Sprintf("double(%s) > 0.0", m),
			fmt.Sprintf("\"%%s\".format([%s]) != \"\"", m), fmt.Sprintf("isQuantity(%s)", m), fmt.Sprintf("%s.matches(\"a\")", m),
			fmt.Sprintf("[1, 2, 3].slice(0, %s).size() == 1", m), fmt.Sprintf("%s in {%s: 1}", m, p)})
	case 5:
		// What a wrapper is not: a message with fields, a type name.
		return g.pick([]string{fmt.Sprintf("%s.value == %s", m, p), fmt.Sprintf("has(%s.value)", m),
			"google.protobuf." + w.name + " == " + w.typ, fmt.Sprintf("google.protobuf.%s{nope: %s} == %s", w.name, p, p),
			fmt.Sprintf("google.protobuf.%s{value: %s}{} == %s", w.name, p, p)})
	case 6:
		return fmt.Sprintf("%s %s %s", g.sub(g.boolean), g.pick([]string{"||", "&&"}), g.sub(func() string {
			return fmt.Sprintf("%s == %s", m, p)
		}))
	default:
		// Two wrappers of the same or another type.
		o, _ := g.wrapper(wrapperKinds[g.r.Intn(len(wrapperKinds))])
		return fmt.Sprintf("%s %s %s", m, g.pick([]string{"==", "!="}), o)
	}
}
