package celcompare

import "fmt"

// Expressions where null meets a value of another type: cel-go's checker
// lets null stand for a duration, a timestamp, an opaque value (an
// optional, Kubernetes' library types) or the device and the other way
// round (its legacy nullness), not for a primitive, list, map or type;
// mixed into the boolean generator of gen.go.

// Values of the types null may stand for, and of some it may not.
var (
	nullableValues = []string{`duration("1s")`, `timestamp("2000-01-01T00:00:00Z")`, `ip("10.0.0.1")`, `cidr("10.0.0.0/8")`,
		`url("http://a/")`, `quantity("1")`, `semver("1.0.0")`, "optional.of(1)", "optional.none()", "device",
		"format.dns1123Label()", "google.protobuf.Duration{seconds: 1}"}
	otherValues = []string{"1", "1u", "1.0", `"a"`, `b"a"`, "true", "[1]", `{"a": 1}`, "int", "type(1)", "dyn(1)",
		"null", "[null]", "dyn(null)"}
	// Calls and operators given null for a nullable parameter or receiver:
	// they compile and fail at run time, unless a short-circuit skips them.
	nullArguments = []string{`duration("1s") + null == duration("1s")`, "timestamp(null) == timestamp(0)",
		`quantity("1").add(null).isZero()`, "null.isLoopback()", "null.getSeconds() == 1", `semver("1.0.0").isGreaterThan(null)`,
		`cidr("10.0.0.0/8").containsIP(null)`, "null.hasValue()", "null.value() == 1", "null.orValue(1) == 1",
		"null.or(optional.of(1)).hasValue()", "optional.of(1).or(null).hasValue()", "null.optMap(x, 1).hasValue()",
		"null.optFlatMap(x, optional.of(x)).hasValue()", "optional.unwrap([null]) == []", "[null].unwrapOpt() == []",
		`[duration("1s")].indexOf(null) == 0`, `sets.contains([duration("1s")], [null])`, `null in [duration("1s")]`,
		`duration("1s") in [null]`, `ip(null) == ip("10.0.0.1")`, "null.major() == 1", `url("http://a/").getHost() == null.getHost()`,
		`null < duration("1s")`, `null.compareTo(quantity("1")) == 0`, `quantity("1").compareTo(null) == 0`,
		"null.value() + 1 == 2", "null.orValue(1) + \"a\" == 1", "null.family() + 1 == 5", "isQuantity(null)",
		"1 + null == 1", "size(null) == 0", `"a".contains(null)`, `null.matches("a")`, `null.getHost() == ""`,
		`format.dns1123Label().validate(null).hasValue()`, `null.validate("a").hasValue()`}
)

func (g *Gen) nullBoolean() string {
	v := g.pick(nullableValues)
	if g.chance(30) {
		v = g.pick(otherValues)
	}
	if g.chance(10) {
		v = g.attr("")
	}
	switch g.r.Intn(7) {
	case 6:
		// or and orValue of a receiver that is not an optional: 1.35 and
		// 1.36 pass it through, 1.37 fails.
		r := g.pick([]string{"dyn(1)", "null", "dyn(null)", `dyn("a")`, g.attr(""), "dyn(optional.of(1))", "dyn(1 / 0)",
			"dyn(optional.none())"})
		alt := g.pick([]string{"1", "2", `"a"`, "1 / 0", "null"})
		return g.pick([]string{fmt.Sprintf("%s.orValue(%s) == %s", r, alt, alt), fmt.Sprintf("type(%s.orValue(%s)) == int", r, alt),
			fmt.Sprintf("%s.or(optional.of(%s)) == optional.of(%s)", r, alt, alt), fmt.Sprintf("type(%s.or(optional.none())) == %s", r,
				g.pick([]string{"int", "null_type", "optional_type", "string"}))})
	case 0:
		return fmt.Sprintf("%s %s null", v, g.pick([]string{"==", "!="}))
	case 1:
		return fmt.Sprintf("null %s %s", g.pick([]string{"==", "!="}), v)
	case 2, 3:
		// A conditional joining null with a value takes its first branch's
		// type (null's included), which the next operation sees.
		c := g.pick([]string{"true", "false", g.sub(g.boolean)})
		x := fmt.Sprintf("(%s ? %s : null)", c, v)
		if g.chance(50) {
			x = fmt.Sprintf("(%s ? null : %s)", c, v)
		}
		switch g.r.Intn(5) {
		case 0:
			return fmt.Sprintf("%s == %s", x, g.pick([]string{"null", v}))
		case 1:
			return fmt.Sprintf("%s != %s", x, v)
		case 2:
			return fmt.Sprintf("type(%s) == %s", x, g.pick([]string{"null_type", "type(" + v + ")"}))
		case 3:
			return fmt.Sprintf("[%s][0] == null", x)
		default:
			return fmt.Sprintf("%s || %s", g.pick([]string{"true", "false"}), g.pick(nullArguments))
		}
	case 4:
		// Containers holding null against ones holding the value.
		return g.pick([]string{fmt.Sprintf("[null] == [%s]", v), fmt.Sprintf(`{"a": null} != {"a": %s}`, v),
			fmt.Sprintf("optional.of(null) == optional.of(%s)", v), fmt.Sprintf("cel.bind(x, null, x == %s)", v),
			fmt.Sprintf("[null].all(x, x != %s)", v), fmt.Sprintf("%s in [null]", v), fmt.Sprintf("null in [%s]", v),
			fmt.Sprintf("[%s, null].size() == 2", v), fmt.Sprintf("optional.of(%s).orValue(null) == null", v)})
	default:
		left := g.pick([]string{"true", "false", g.sub(g.boolean)})
		return fmt.Sprintf("%s %s %s", left, g.pick([]string{"||", "&&"}), g.pick(nullArguments))
	}
}
