package celcompare

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// Regular expressions with Unicode classes (\p, \P, in and out of
// brackets, every spelling Go accepts and some it refuses) and (?i) over
// non-ASCII text whose letters have folding orbits of two, three and four
// (σ ς Σ, k K and the Kelvin sign, ǆ ǅ Ǆ, θ ϑ ϴ), for matches(), find()
// and findAll().

var (
	unicodeClassPool = []string{`\pL`, `\pN`, `\PL`, `\p{L}`, `\p{Lu}`, `\p{Ll}`, `\p{Lt}`, `\p{LC}`, `\p{Lm}`, `\p{Lo}`,
		`\p{M}`, `\p{Mn}`, `\p{N}`, `\p{Nd}`, `\p{Nl}`, `\p{No}`, `\p{P}`, `\p{S}`, `\p{So}`, `\p{Z}`, `\p{Zs}`, `\p{C}`,
		`\p{Cc}`, `\p{Cn}`, `\p{Co}`, `\p{Greek}`, `\p{Latin}`, `\p{Cyrillic}`, `\p{Han}`, `\p{Common}`, `\p{Inherited}`,
		`\p{Cherokee}`, `\p{Deseret}`, `\p{Armenian}`, `\p{Georgian}`, `\p{Glagolitic}`, `\p{Any}`, `\p{Assigned}`,
		`\p{ASCII}`, `\p{greek}`, `\p{GREEK}`, `\p{lu}`, `\p{Cased_Letter}`, `\p{cased-letter}`, `\p{ L }`, `\p{Letter}`,
		`\p{Uppercase_Letter}`, `\p{digit}`, `\p{punct}`, `\pl`, `\P{Greek}`, `\P{Lu}`, `\P{^Lu}`, `\p{^Greek}`, `\p{^L}`,
		`\P{Any}`, `\P{Assigned}`, `\P{ASCII}`,
		// Go refuses these: unknown names, scripts whose Go key has an
		// underscore (Go 1.26 looks names up canonicalized), a missing brace.
		`\p{Foo}`, `\p{Old_Italic}`, `\p{OldItalic}`, `\pX`, `\p{}`, `\p{^}`, `\p{Lu`, `\p`, `\pé`}
	unicodeBracketPool = []string{`[\p{Lu}\d]`, `[^\p{L}]`, `[\P{Greek}a-z]`, `[\p{Greek}\p{Cyrillic}]`, `[^\PL]`,
		`[\p{Foo}]`, `[à-ÿ]`, `[α-ω]`, `[Α-Ω]`, `[а-я]`, `[a-zà-ö]`, `[ǅ-ǆ]`, `[\x{10400}-\x{1044F}]`, `[^σ]`, `[k-l]`,
		`[^\w]`, `[\W]`, `[[:^alpha:]]`, `[[:upper:]]`, `[ϑ]`, `[Ꭰ-Ꮿ]`, `[ß]`, `[^[:lower:]\p{Nd}]`,
		// Nested counts: Go refuses more than 1000 copies of the innermost.
		`(\p{L}{100}){20}`, `(é{10}){100}`, `(\pL{2,}){501}`}
	unicodeLiteralPool = []string{"é", "É", "σ", "Σ", "ς", "ǅ", "\u212a", "k", "ſ", "s", "ß", "ẞ", "Ꭰ", "ꭰ", "İ", "ı", "i",
		"ﬀ", "µ", "Μ", "\u0345", "ι", "θ", "ϑ", "Ω", "\u2126", "Å", "å", "в", "\u1c80", "Ⓐ", "ⅻ", "𐐀", "𐐨", "日", `\w`, `\W`,
		`\s`, `\d`, ".", `\x{212A}`, `\QΣσ\E`}
	unicodeTextPool = []string{"σας", "ΣΑΣ", "Σας", "ǅungla", "Ǆ", "ǆ", "\u212a", "k", "K", "ſ", "S", "ß", "ẞ", "SS",
		"İi", "ıI", "µ", "Μ", "μ", "\u0345", "ι", "Ꭰ", "ꭰ", "日本語", "Привет", "ПРИВЕТ", "é", "É", "ÀÉÎ", "àéî", "٣3",
		"½", "Ⅻ", "ⅻ", "Ⓐ", "ⓐ", "𐐀", "𐐨", "\u3000", "a b", "\u0378", "\U0010FFFF", "\u00a0", "🙂", "ﬀ", "ff", "θϑϴ",
		"\u2126", "ω", "\u212b", "å", "\u1c80в", "В", "a100", "", "ABC", "gpu-é", "Ǳ", "ǲ"}
)

// unicodePattern returns a pattern built of Unicode classes, literals and
// brackets, under (?i) about half the time.
func (g *Gen) unicodePattern() string {
	var b strings.Builder
	if g.chance(40) {
		b.WriteString("(?i)")
	}
	if g.chance(40) {
		b.WriteString("^")
	}
	for n := 1 + g.r.Intn(3); n > 0; n-- {
		var atom string
		switch g.r.Intn(3) {
		case 0:
			atom = g.pick(unicodeClassPool)
		case 1:
			atom = g.pick(unicodeBracketPool)
		default:
			atom = g.pick(unicodeLiteralPool)
		}
		if g.chance(15) {
			atom = g.pick([]string{"(?i:", "(?-i:", "("}) + atom + ")"
		}
		b.WriteString(atom)
		if g.chance(40) {
			b.WriteString(g.pick([]string{"+", "*", "?", "{2}", "+?"}))
		}
	}
	if g.chance(40) {
		b.WriteString("$")
	}
	return b.String()
}

// unicodeText returns text for the patterns: mostly the pool above, some
// from the expression generators.
func (g *Gen) unicodeText() string {
	if g.chance(20) {
		return g.sub(g.str)
	}
	t := g.pick(unicodeTextPool)
	if g.chance(30) {
		t += g.pick(unicodeTextPool)
	}
	return quote(t)
}

// matchesLiteral returns s.matches(<literal pattern>): the regexPool, or a
// Unicode pattern over Unicode text.
func (g *Gen) matchesLiteral() string {
	if g.chance(70) {
		return fmt.Sprintf("%s.matches(%s)", g.unicodeText(), quote(g.unicodePattern()))
	}
	return fmt.Sprintf("%s.matches(%s)", g.sub(g.str), quote(g.pick(regexPool)))
}

// findPattern returns a find()/findAll() pattern: the findPool, or a
// Unicode one.
func (g *Gen) findPattern() string {
	if g.chance(50) {
		return g.unicodePattern()
	}
	return g.pick(findPool)
}

// findText returns the text find() and findAll() search: Unicode text or
// any string expression.
func (g *Gen) findText() string {
	if g.chance(60) {
		return g.unicodeText()
	}
	return g.sub(g.str)
}

// UnicodeRegexCorpus returns n expressions from seeds start.. that each
// put one Unicode pattern to Kubernetes' matches(), find() or findAll()
// on Unicode text and compare the result with what Go's regexp package
// answers (regexp.MatchString, FindString, FindAllString): true on the
// Kubernetes side whenever its library agrees with Go, so that any result
// of ksched's that differs, not only a flipped boolean, is a difference.
func UnicodeRegexCorpus(start int64, n int) []Case {
	var out []Case
	for s := start; s < start+int64(n); s++ {
		// Seeds apart from Corpus's: the same seed gives other choices.
		g := NewGen(s ^ 0x5eed_0000_0000)
		expr := g.unicodeRegexExpr()
		out = append(out, Case{Expression: expr, Device: g.Device(false)})
	}
	return out
}

func (g *Gen) unicodeRegexExpr() string {
	text := g.pick(unicodeTextPool)
	for g.chance(40) {
		text += g.pick(append(unicodeTextPool, " ", "-", "x"))
	}
	pattern := g.unicodePattern()
	t, p := quote(text), quote(pattern)
	re, err := regexp.Compile(pattern)
	if err != nil {
		return fmt.Sprintf("%s.%s(%s) == %s", t, g.pick([]string{"matches", "find"}), p, t)
	}
	switch g.r.Intn(4) {
	case 0:
		return fmt.Sprintf("%s.matches(%s) == %v", t, p, re.MatchString(text))
	case 1:
		return fmt.Sprintf("%s.find(%s) == %s", t, p, quote(re.FindString(text)))
	case 2:
		return fmt.Sprintf("%s.findAll(%s) == %s", t, p, quoteList(re.FindAllString(text, -1)))
	default:
		k := g.r.Intn(4) - 1
		return fmt.Sprintf("%s.findAll(%s, %d) == %s", t, p, k, quoteList(re.FindAllString(text, k)))
	}
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = quote(x)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// UnicodeNameCases returns, for every name Go's unicode package gives a
// class (categories, scripts, category aliases) and regexp/syntax's own
// (Any, Assigned, ASCII, LC), spelled as the package does and lowered,
// one findAll() per form (\p, \P, (?i)\p, (?i)[^\p{^...}]) over text
// sampled from the class's edges and their folding orbits, compared with
// Go's regexp's answer. The same on every run: no seed.
func UnicodeNameCases() []Case {
	names := []string{"Any", "Assigned", "ASCII", "LC"}
	for _, m := range []map[string]*unicode.RangeTable{unicode.Categories, unicode.Scripts} {
		for k := range m {
			names = append(names, k)
		}
	}
	for k := range unicode.CategoryAliases {
		names = append(names, k)
	}
	sort.Strings(names)
	dev := NewGen(1).Device(false)
	var out []Case
	for _, name := range names {
		text := sampleText(name)
		for _, spelled := range []string{name, strings.ToLower(name)} {
			for _, form := range []string{`\p{%s}`, `\P{%s}`, `(?i)\p{%s}`, `(?i)[^\p{^%s}]`} {
				pattern := fmt.Sprintf(form, spelled)
				expr := fmt.Sprintf("%s.findAll(%s).join(\"\") == %s", quote(text), quote(pattern), quote(text))
				if re, err := regexp.Compile(pattern); err == nil {
					expr = fmt.Sprintf("%s.findAll(%s).join(\"\") == %s", quote(text), quote(pattern), quote(strings.Join(re.FindAllString(text, -1), "")))
				}
				out = append(out, Case{Expression: expr, Device: dev})
			}
		}
	}
	return out
}

// sampleText returns code points at the edges of the named class's ranges
// (and just outside them), with their case-folding orbits, and a fixed
// set of letters with interesting orbits; no surrogates.
func sampleText(name string) string {
	var rs []rune
	add := func(r rune) {
		if r >= 0 && r <= unicode.MaxRune && !(r >= 0xD800 && r <= 0xDFFF) {
			rs = append(rs, r)
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				rs = append(rs, f)
			}
		}
	}
	t := unicode.Categories[name]
	if t == nil {
		t = unicode.Scripts[name]
	}
	if a, ok := unicode.CategoryAliases[name]; ok {
		t = unicode.Categories[a]
	}
	if t != nil {
		var edges [][2]rune
		for _, r := range t.R16 {
			edges = append(edges, [2]rune{rune(r.Lo), rune(r.Hi)})
		}
		for _, r := range t.R32 {
			edges = append(edges, [2]rune{rune(r.Lo), rune(r.Hi)})
		}
		step := max(1, len(edges)/6)
		for i := 0; i < len(edges); i += step {
			add(edges[i][0] - 1)
			add(edges[i][0])
			add(edges[i][1])
			add(edges[i][1] + 1)
		}
	}
	for _, r := range "aKkſsSσςΣǅǆǄθϑϴµΜ\u0345ιΙ\u1fbe\u212a\u2126ωÅå\u212bß\u1e9eİıi0٣½Ⅻⅻ\u3000 \u0378日\U0010FFFF\u00a0\x7f\U00010400\U00010428" {
		add(r)
	}
	return string(rs)
}
