package celcompare

import "fmt"

// Expressions over Kubernetes' URL library: url() and isURL() of strings
// built from pieces Go's url.ParseRequestURI and url.Parse read differently
// (schemes, user info, bracketed and escaped hosts, ports, escaped paths,
// queries, fragments), the accessors, getQuery() looked up and compared
// (never iterated in order: Go's map order is random), URL equality (by the
// reassembled text), URL map keys (by identity), type() and comparisons
// across kinds; mixed into the boolean, integer and string generators of
// gen.go.

var (
	urlWholePool  = []string{"*", "/path", "example.com", "", "//a/b", "///a", "http:/a/b", "mailto:x@y.com", ":foo", "a\tb", "/a b?x=1#y"}
	urlSchemePool = []string{"http", "https", "HTTP", "ftp", "mailto", "h+t-t.p", "1x", ""}
	urlSepPool    = []string{"://", "://", "://", ":", ":/", ""}
	urlUserPool   = []string{"", "", "", "u@", "u:p@", "u%40x:p@", "a b@", "a@b@", "%zz@", "u:@"}
	urlHostPool   = []string{"example.com", "EXAMPLE.com", "[::1]", "[fe80::1%25en0]", "[1.2.3.4]", "[x]", "[::1", "a[", "%c3%a9", "%41", "a b", "é", "", "a:b", "10.0.0.1", "[::ffff:1.2.3.4]", "[::1%25]"}
	urlPortPool   = []string{"", "", ":80", ":", ":0080", ":x", ":8080:90"}
	urlPathPool   = []string{"", "/", "/p", "/a b", "/a%20b", "/%41", "/a%2Fb", "/é", "/a{b", "/%zz", "/*", "//x", "/a%7c|", "/a;b=c", "/%c3", "/a%3fb"}
	urlQueryPool  = []string{"", "", "?", "?a=1&a=2&b", "?a+b=c%20d", "?a=%zz&b=1", "?a=1;b=2", "?=x", "?&&a", "?é=é", "?%", "?b?", "?x=1"}
	urlFragPool   = []string{"", "", "#", "#frag", "#%zz", "#x y", "#a%20b", "#?q"}
	urlQueryKeys  = []string{"a", "b", "a b", "", "é", "x", "b?"}
	urlAccessors  = []string{"getScheme", "getHost", "getHostname", "getPort", "getEscapedPath"}
)

// urlText returns a string expression meant for url() or isURL().
func (g *Gen) urlText() string {
	switch g.r.Intn(10) {
	case 0:
		return quote(g.pick(urlWholePool))
	case 1:
		if g.deeper() {
			return g.sub(g.str)
		}
		return quote(g.pick(urlWholePool))
	case 2:
		// Two halves joined at run time.
		return fmt.Sprintf("%s + %s", quote(g.pick(urlSchemePool)+g.pick(urlSepPool)+g.pick(urlHostPool)),
			quote(g.pick(urlPathPool)+g.pick(urlQueryPool)))
	default:
		return quote(g.pick(urlSchemePool) + g.pick(urlSepPool) + g.pick(urlUserPool) + g.pick(urlHostPool) +
			g.pick(urlPortPool) + g.pick(urlPathPool) + g.pick(urlQueryPool) + g.pick(urlFragPool))
	}
}

// urlVal returns a kubernetes.URL value (or dyn holding one).
func (g *Gen) urlVal() string {
	if !g.deeper() {
		return fmt.Sprintf("url(%s)", g.urlText())
	}
	switch g.r.Intn(6) {
	case 0:
		return fmt.Sprintf("(%s ? %s : %s)", g.sub(g.boolean), g.sub(g.urlVal), g.sub(g.urlVal))
	case 1:
		return fmt.Sprintf("dyn(%s)", g.sub(g.urlVal))
	case 2:
		return fmt.Sprintf("[%s, %s][%d]", g.sub(g.urlVal), g.sub(g.urlVal), g.r.Intn(2))
	case 3:
		return fmt.Sprintf("optional.of(%s).value()", g.sub(g.urlVal))
	default:
		return fmt.Sprintf("url(%s)", g.urlText())
	}
}

func (g *Gen) urlQueryMap() string {
	return fmt.Sprintf("%s.getQuery()", g.sub(g.urlVal))
}

// urlQueryLiteral returns a map literal that getQuery() may equal.
func (g *Gen) urlQueryLiteral() string {
	return g.pick([]string{`{}`, `{"a": ["1", "2"], "b": [""]}`, `{"a b": ["c d"]}`, `{"b": ["1"]}`, `{"": ["x"]}`,
		`{"a": [""]}`, `{"é": ["é"]}`, `{"x": ["1"]}`, `{"b?": [""]}`})
}

func (g *Gen) urlBoolean() string {
	switch g.r.Intn(12) {
	case 0, 1:
		return fmt.Sprintf("isURL(%s)", g.urlText())
	case 2, 3:
		return fmt.Sprintf("%s %s %s", g.sub(g.urlVal), g.pick([]string{"==", "!="}), g.sub(g.urlVal))
	case 4:
		return fmt.Sprintf("%s in [%s, %s]", g.sub(g.urlVal), g.sub(g.urlVal), g.sub(g.urlVal))
	case 5:
		return fmt.Sprintf("%s %s %s", g.urlQueryMap(), g.pick([]string{"==", "!="}), g.urlQueryLiteral())
	case 6:
		return fmt.Sprintf("%s in %s", quote(g.pick(urlQueryKeys)), g.urlQueryMap())
	case 7:
		// Order-independent walks of the query map.
		k := quote(g.pick(urlQueryKeys))
		return g.pick([]string{
			fmt.Sprintf("%s.exists(k, k == %s)", g.urlQueryMap(), k),
			fmt.Sprintf("%s.all(k, k != %s)", g.urlQueryMap(), k),
			fmt.Sprintf("%s[%s] == [%s]", g.urlQueryMap(), k, quote(g.pick([]string{"1", "", "2", "é", "c d"}))),
			fmt.Sprintf("%s[?%s].hasValue()", g.urlQueryMap(), k),
		})
	case 8:
		return fmt.Sprintf("type(%s) %s %s", g.sub(g.urlVal), g.pick([]string{"==", "!="}),
			g.pick([]string{"type(1)", "map", "string", fmt.Sprintf("type(%s)", g.sub(g.urlVal))}))
	case 9:
		// Across kinds: false, no overload, or a key that is not there.
		v := g.sub(g.urlVal)
		return g.pick([]string{
			fmt.Sprintf("dyn(%s) == %s", v, g.sub(g.str)),
			fmt.Sprintf("%s == dyn(%s)", g.sub(g.str), v),
			fmt.Sprintf("dyn(%s) in %s", v, g.sub(g.strList)),
			fmt.Sprintf("dyn(%s) in {%s: 1}", v, quote(g.pick(stringPool))),
			fmt.Sprintf("{\"a\": 1}[dyn(%s)] == 1", v),
			fmt.Sprintf("dyn(%s).%s() == \"\"", g.sub(g.str), g.pick(urlAccessors)),
		})
	case 10:
		// URL map keys: each url() call is its own key.
		v := g.sub(g.urlVal)
		return g.pick([]string{
			fmt.Sprintf("{%s: 1, %s: 2}.size() == 2", v, g.sub(g.urlVal)),
			fmt.Sprintf("%s in {%s: 1}", v, g.sub(g.urlVal)),
			fmt.Sprintf("{%s: 1}.size() == 1", v),
		})
	default:
		return fmt.Sprintf("%s %s %s", g.sub(g.urlString), g.pick([]string{"==", "!=", "<"}), g.sub(g.str))
	}
}

func (g *Gen) urlInteger() string {
	switch g.r.Intn(4) {
	case 0:
		return fmt.Sprintf("size(%s)", g.urlQueryMap())
	case 1:
		return fmt.Sprintf("%s[%s].size()", g.urlQueryMap(), quote(g.pick(urlQueryKeys)))
	case 2:
		return fmt.Sprintf("%s.%s().size()", g.sub(g.urlVal), g.pick(urlAccessors))
	default:
		return fmt.Sprintf("size(%s)", g.sub(g.urlString))
	}
}

func (g *Gen) urlString() string {
	if g.chance(80) {
		return fmt.Sprintf("%s.%s()", g.sub(g.urlVal), g.pick(urlAccessors))
	}
	return fmt.Sprintf("%s[%s][0]", g.urlQueryMap(), quote(g.pick(urlQueryKeys)))
}
