// Command gen-unicode-tables writes pkg/cel/unicode_tables.cc: the Unicode
// data ksched's regular expressions (pkg/cel/regex_syntax.cc) need to accept
// \p{...}, \P{...} and (?i) as Go's regexp/syntax does, taken from the Go
// toolchain it is built with.
//
//	cd test/k8s && go run ./cmd/gen-unicode-tables -o ../../pkg/cel/unicode_tables.cc
//
// It emits, keyed by the name regexp/syntax looks up after canonicalizing
// what the pattern spells, the class and the extra code points (?i) adds
// (unicode.Categories and FoldCategory, unicode.Scripts and FoldScript,
// unicode.CategoryAliases, and regexp/syntax's own Any, Assigned and ASCII),
// and unicode.SimpleFold as runs of code points. Before writing anything it
// checks its tables against regexp/syntax itself: every name, plain and
// negated, with and without (?i), must parse to exactly the class the C++
// side will build, and SimpleFold must agree for every code point.
package main

import (
	"flag"
	"fmt"
	"os"
	"regexp/syntax"
	"runtime"
	"sort"
	"strings"
	"unicode"
)

// canonical mirrors how regexp/syntax normalizes a class name: separators
// (_ - space) dropped, the first letter upper case, the rest lower case.
// The C++ side (regex_syntax.cc) implements the same function.
func canonical(name string) string {
	var b strings.Builder
	first := true
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '_' || c == '-' || c == ' ' {
			continue
		}
		if first {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			first = false
		} else if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

type entry struct {
	tab, fold *unicode.RangeTable // fold may be nil: (?i) adds nothing
	negate    bool                // the class is the complement of tab (and fold)
}

var (
	anyTable   = &unicode.RangeTable{R32: []unicode.Range32{{Lo: 0, Hi: unicode.MaxRune, Stride: 1}}}
	asciiTable = &unicode.RangeTable{R16: []unicode.Range16{{Lo: 0, Hi: 0x7F, Stride: 1}}}
	asciiFold  = &unicode.RangeTable{R16: []unicode.Range16{{Lo: 0x17F, Hi: 0x17F, Stride: 1}, {Lo: 0x212A, Hi: 0x212A, Stride: 1}}}
)

// names returns every name regexp/syntax resolves, in its lookup order:
// its special names, then categories, scripts, and category aliases; a
// map key whose canonical form differs from itself is never reached.
func names() map[string]entry {
	m := map[string]entry{}
	add := func(name string, e entry) {
		if _, ok := m[name]; !ok {
			m[name] = e
		}
	}
	add("Any", entry{anyTable, nil, false})
	add("Assigned", entry{unicode.Cn, nil, true})
	add("Ascii", entry{asciiTable, asciiFold, false})
	add("Lc", entry{unicode.Categories["LC"], unicode.FoldCategory["LC"], false})
	for k, t := range unicode.Categories {
		if canonical(k) == k {
			add(k, entry{t, unicode.FoldCategory[k], false})
		}
	}
	for k, t := range unicode.Scripts {
		if canonical(k) == k {
			add(k, entry{t, unicode.FoldScript[k], false})
		}
	}
	for k, actual := range unicode.CategoryAliases {
		add(canonical(k), entry{unicode.Categories[actual], unicode.FoldCategory[actual], false})
	}
	return m
}

type rng struct{ lo, hi, stride uint32 }

func ranges(t *unicode.RangeTable) []rng {
	var out []rng
	if t == nil {
		return out
	}
	for _, r := range t.R16 {
		out = append(out, rng{uint32(r.Lo), uint32(r.Hi), uint32(r.Stride)})
	}
	for _, r := range t.R32 {
		out = append(out, rng{r.Lo, r.Hi, r.Stride})
	}
	return out
}

// expand turns strided ranges into sorted, merged, stride-1 ranges.
func expand(rs []rng) [][2]uint32 {
	var pts [][2]uint32
	for _, r := range rs {
		if r.stride == 1 {
			pts = append(pts, [2]uint32{r.lo, r.hi})
			continue
		}
		for c := r.lo; c <= r.hi; c += r.stride {
			pts = append(pts, [2]uint32{c, c})
		}
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i][0] < pts[j][0] })
	var out [][2]uint32
	for _, p := range pts {
		if n := len(out); n > 0 && p[0] <= out[n-1][1]+1 {
			out[n-1][1] = max(out[n-1][1], p[1])
		} else {
			out = append(out, p)
		}
	}
	return out
}

func negate(rs [][2]uint32) [][2]uint32 {
	var out [][2]uint32
	next := uint32(0)
	for _, r := range rs {
		if r[0] > next {
			out = append(out, [2]uint32{next, r[0] - 1})
		}
		next = r[1] + 1
	}
	if next <= unicode.MaxRune {
		out = append(out, [2]uint32{next, unicode.MaxRune})
	}
	return out
}

// want is the class the C++ side builds for an entry: tab (plus fold under
// (?i)), complemented when the entry or the spelling negates it.
func (e entry) want(fold, neg bool) [][2]uint32 {
	rs := ranges(e.tab)
	if fold {
		rs = append(rs, ranges(e.fold)...)
	}
	out := expand(rs)
	if e.negate != neg {
		out = negate(out)
	}
	return out
}

// parsed is the class regexp/syntax itself makes of pattern.
func parsed(pattern string) ([][2]uint32, error) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, err
	}
	re = re.Simplify()
	switch re.Op {
	case syntax.OpAnyChar:
		return [][2]uint32{{0, unicode.MaxRune}}, nil
	case syntax.OpLiteral:
		// A one-code-point class parses as a literal; under (?i) it stands
		// for its case-folding orbit.
		var out [][2]uint32
		for _, r := range re.Rune {
			out = append(out, [2]uint32{uint32(r), uint32(r)})
			for f := unicode.SimpleFold(r); re.Flags&syntax.FoldCase != 0 && f != r; f = unicode.SimpleFold(f) {
				out = append(out, [2]uint32{uint32(f), uint32(f)})
			}
		}
		return expand(toRng(out)), nil
	case syntax.OpCharClass:
		var out [][2]uint32
		for i := 0; i+1 < len(re.Rune); i += 2 {
			out = append(out, [2]uint32{uint32(re.Rune[i]), uint32(re.Rune[i+1])})
		}
		return expand(toRng(out)), nil
	}
	return nil, fmt.Errorf("%s: unexpected op %v", pattern, re.Op)
}

func toRng(ps [][2]uint32) []rng {
	out := make([]rng, len(ps))
	for i, p := range ps {
		out[i] = rng{p[0], p[1], 1}
	}
	return out
}

func equal(a, b [][2]uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// foldRun: for lo <= r <= hi, SimpleFold(r) is r+delta, or with alternate
// r+1 for r-lo even and r-1 for r-lo odd (upper/lower pairs side by side).
type foldRun struct {
	lo, hi    uint32
	delta     int32
	alternate bool
}

func foldRuns() []foldRun {
	f := func(r uint32) int32 { return int32(unicode.SimpleFold(rune(r))) - int32(r) }
	var out []foldRun
	for r := uint32(0); r <= unicode.MaxRune; r++ {
		d := f(r)
		if d == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].hi+1 == r {
			last := &out[n-1]
			if last.alternate && ((r-last.lo)%2 == 0 && d == 1 || (r-last.lo)%2 == 1 && d == -1) {
				last.hi = r
				continue
			}
			if !last.alternate && d == last.delta && !(last.lo == last.hi && d == 1 && f(r+1) == -1) {
				last.hi = r
				continue
			}
		}
		if d == 1 && f(r+1) == -1 {
			out = append(out, foldRun{r, r + 1, 0, true})
			r++
			continue
		}
		out = append(out, foldRun{r, r, d, false})
	}
	return out
}

func (fr foldRun) apply(r uint32) uint32 {
	if !fr.alternate {
		return uint32(int32(r) + fr.delta)
	}
	if (r-fr.lo)%2 == 0 {
		return r + 1
	}
	return r - 1
}

func check(m map[string]entry, runs []foldRun) error {
	for name, e := range m {
		for _, fold := range []bool{false, true} {
			for _, neg := range []bool{false, true} {
				p := `\p{` + name + `}`
				if neg {
					p = `\P{` + name + `}`
				}
				if fold {
					p = `(?i)` + p
				}
				got, err := parsed(p)
				if err != nil {
					return err
				}
				if !equal(got, e.want(fold, neg)) {
					return fmt.Errorf("%s: the tables disagree with regexp/syntax", p)
				}
			}
		}
	}
	i := 0
	for r := uint32(0); r <= unicode.MaxRune; r++ {
		for i < len(runs) && runs[i].hi < r {
			i++
		}
		want := r
		if i < len(runs) && runs[i].lo <= r {
			want = runs[i].apply(r)
		}
		if got := uint32(unicode.SimpleFold(rune(r))); got != want {
			return fmt.Errorf("SimpleFold(%#x) = %#x, the runs say %#x", r, got, want)
		}
	}
	return nil
}

func main() {
	outPath := flag.String("o", "", "output file (default stdout)")
	flag.Parse()
	m := names()
	runs := foldRuns()
	if err := check(m, runs); err != nil {
		fmt.Fprintln(os.Stderr, "gen-unicode-tables:", err)
		os.Exit(1)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)

	var b strings.Builder
	fmt.Fprintf(&b, "// Generated by test/k8s/cmd/gen-unicode-tables from Go %s's unicode package\n", runtime.Version())
	fmt.Fprintf(&b, "// (unicode.Version %s); DO NOT EDIT. Regenerate with\n", unicode.Version)
	b.WriteString("//   cd test/k8s && go run ./cmd/gen-unicode-tables -o ../../pkg/cel/unicode_tables.cc\n")
	b.WriteString("// What it offers: unicode_tables.h.\n")
	b.WriteString("// clang-format off\n")
	b.WriteString("#include \"pkg/cel/unicode_tables.h\"\n\nnamespace ksched::cel::unicode_tables {\n\n")
	fmt.Fprintf(&b, "const char kUnicodeVersion[] = %q;\n\nnamespace {\n\n", unicode.Version)

	// Each distinct table once, as {lo, hi, stride} triples.
	type span struct{ off, n int }
	spans := map[*unicode.RangeTable]span{}
	var flat []rng
	tableOf := func(t *unicode.RangeTable) span {
		if t == nil {
			return span{0, 0}
		}
		if s, ok := spans[t]; ok {
			return s
		}
		rs := ranges(t)
		sort.Slice(rs, func(i, j int) bool { return rs[i].lo < rs[j].lo })
		s := span{len(flat), len(rs)}
		flat = append(flat, rs...)
		spans[t] = s
		return s
	}
	type row struct {
		name      string
		tab, fold span
		negate    bool
	}
	var rows []row
	for _, k := range keys {
		e := m[k]
		rows = append(rows, row{k, tableOf(e.tab), tableOf(e.fold), e.negate})
	}
	b.WriteString("constexpr Range kRanges[] = {\n")
	for i, r := range flat {
		if i%4 == 0 {
			b.WriteString("   ")
		}
		fmt.Fprintf(&b, " {0x%x, 0x%x, %d},", r.lo, r.hi, r.stride)
		if i%4 == 3 || i == len(flat)-1 {
			b.WriteString("\n")
		}
	}
	b.WriteString("};\n\n")
	b.WriteString("constexpr FoldRun kFoldRuns[] = {\n")
	for i, r := range runs {
		if i%4 == 0 {
			b.WriteString("   ")
		}
		fmt.Fprintf(&b, " {0x%x, 0x%x, %d, %t},", r.lo, r.hi, r.delta, r.alternate)
		if i%4 == 3 || i == len(runs)-1 {
			b.WriteString("\n")
		}
	}
	b.WriteString("};\n\n")
	b.WriteString("// Sorted by name (byte order), for binary search.\nconstexpr Class kClasses[] = {\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "    {%q, {kRanges + %d, %d}, {kRanges + %d, %d}, %t},\n", r.name, r.tab.off, r.tab.n, r.fold.off, r.fold.n, r.negate)
	}
	b.WriteString("};\n\n}  // namespace\n\n")
	b.WriteString("std::span<const Class> Classes() { return kClasses; }\n")
	b.WriteString("std::span<const FoldRun> FoldRuns() { return kFoldRuns; }\n\n")
	b.WriteString("}  // namespace ksched::cel::unicode_tables\n")

	if *outPath == "" {
		fmt.Print(b.String())
		return
	}
	if err := os.WriteFile(*outPath, []byte(b.String()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen-unicode-tables:", err)
		os.Exit(1)
	}
}
