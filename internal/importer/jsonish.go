package importer

import (
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The JSON in modeling documents is written for people: `// comments`, trailing commas, `...` for
// "and so on", several documents one after the other without an enclosing array, and — in the
// Chinese template — full-width quotes, colons and commas (“id”：“user_123”，). parseJSONish reads all
// of that into ordered values; it never panics and gives up with an error on anything else.

// object is a JSON object that keeps its keys in order.
type object struct {
	keys []string
	m    map[string]any
}

func (o *object) get(k string) (any, bool) {
	if o == nil {
		return nil, false
	}
	v, ok := o.m[k]
	return v, ok
}

func (o *object) set(k string, v any) {
	if _, ok := o.m[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.m[k] = v
}

// number keeps the literal so that decimals can be counted.
type number struct {
	f   float64
	lit string
}

func (n number) isInt() bool { return !strings.ContainsAny(n.lit, ".eE") }

func (n number) decimals() int {
	if i := strings.IndexByte(n.lit, '.'); i >= 0 {
		j := strings.IndexAny(n.lit, "eE")
		if j < 0 {
			j = len(n.lit)
		}
		return j - i - 1
	}
	return 0
}

type jsonParser struct {
	s     string
	i     int
	depth int
	// comments collects the text of every comment passed, for arrays that elide elements.
	comments []string
}

// list is a JSON array; elided says the example left elements out ("...", "// 98 more records"), and
// more is how many it says were left out (0 when it does not say).
type list struct {
	items  []any
	elided bool
	more   int
}

var errJSON = errors.New("not JSON")

const maxJSONDepth = 64

// parseJSONish parses one or more values; several top-level values come back as one array.
func parseJSONish(s string) (vals []any, err error) {
	p := &jsonParser{s: s}
	for {
		p.skip()
		if p.i >= len(p.s) {
			break
		}
		if p.peek() == ',' {
			p.i++
			continue
		}
		v, err := p.value()
		if err != nil {
			return vals, err
		}
		if v != skipValue {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return nil, errJSON
	}
	return vals, nil
}

type skipMarker struct{}

var skipValue = skipMarker{}

func (p *jsonParser) peek() rune {
	r, _ := utf8.DecodeRuneInString(p.s[p.i:])
	return r
}

// skip passes whitespace and comments.
func (p *jsonParser) skip() {
	for p.i < len(p.s) {
		r, w := utf8.DecodeRuneInString(p.s[p.i:])
		switch {
		case unicode.IsSpace(r) || r == '\ufeff':
			p.i += w
		case strings.HasPrefix(p.s[p.i:], "//") || r == '#':
			j := strings.IndexByte(p.s[p.i:], '\n')
			if j < 0 {
				j = len(p.s) - p.i
			}
			p.comments = append(p.comments, p.s[p.i:p.i+j])
			p.i += j
		case strings.HasPrefix(p.s[p.i:], "/*"):
			if j := strings.Index(p.s[p.i+2:], "*/"); j >= 0 {
				p.i += j + 4
			} else {
				p.i = len(p.s)
			}
		default:
			return
		}
	}
}

func isColon(r rune) bool { return r == ':' || r == '：' }
func isComma(r rune) bool { return r == ',' || r == '，' || r == '、' }
func isQuote(r rune) bool {
	return r == '"' || r == '“' || r == '”' || r == '\'' || r == '‘' || r == '’'
}

// ellipsis passes "...", "…" and "etc" standing for elided content.
func (p *jsonParser) ellipsis() bool {
	for _, e := range []string{"...", "…", "etc."} {
		if strings.HasPrefix(p.s[p.i:], e) {
			p.i += len(e)
			return true
		}
	}
	return false
}

func (p *jsonParser) value() (any, error) {
	p.skip()
	if p.i >= len(p.s) {
		return nil, errJSON
	}
	if p.ellipsis() {
		return skipValue, nil
	}
	r, w := utf8.DecodeRuneInString(p.s[p.i:])
	switch {
	case r == '{':
		p.i += w
		return p.object()
	case r == '[':
		p.i += w
		return p.array()
	case isQuote(r):
		return p.str()
	case r == '-' || r == '+' || (r >= '0' && r <= '9'):
		return p.num()
	}
	word := p.word()
	switch word {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null", "None", "undefined":
		return nil, nil
	case "":
		return nil, errJSON
	}
	return word, nil // an unquoted word is read as a string
}

func (p *jsonParser) word() string {
	j := p.i
	for j < len(p.s) {
		r, w := utf8.DecodeRuneInString(p.s[j:])
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '$' || r == '-' || r == '.' || r == '@' || r == '/') {
			break
		}
		j += w
	}
	word := p.s[p.i:j]
	p.i = j
	return word
}

func (p *jsonParser) object() (any, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxJSONDepth {
		return nil, errJSON
	}
	o := &object{m: map[string]any{}}
	for {
		p.skip()
		if p.i >= len(p.s) {
			return nil, errJSON
		}
		if p.ellipsis() {
			continue
		}
		r, w := utf8.DecodeRuneInString(p.s[p.i:])
		if r == '}' {
			p.i += w
			return o, nil
		}
		if isComma(r) {
			p.i += w
			continue
		}
		var key string
		if isQuote(r) {
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			key = k.(string)
		} else {
			key = p.word()
			if key == "" {
				return nil, errJSON
			}
		}
		p.skip()
		r, w = utf8.DecodeRuneInString(p.s[p.i:])
		if !isColon(r) {
			return nil, errJSON
		}
		p.i += w
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		if v != skipValue {
			o.set(key, v)
		}
	}
}

func (p *jsonParser) array() (any, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxJSONDepth {
		return nil, errJSON
	}
	out := &list{items: []any{}}
	nc := len(p.comments)
	for {
		p.skip()
		if p.i >= len(p.s) {
			return nil, errJSON
		}
		for _, c := range p.comments[nc:] {
			if strings.Contains(c, "...") || strings.Contains(c, "…") || strings.Contains(strings.ToLower(c), "more") {
				out.elided = true
				if n := leadingCount(c); n > 0 {
					out.more = n
				}
			}
		}
		nc = len(p.comments)
		if p.ellipsis() {
			out.elided = true
			continue
		}
		r, w := utf8.DecodeRuneInString(p.s[p.i:])
		if r == ']' {
			p.i += w
			return out, nil
		}
		if isComma(r) {
			p.i += w
			continue
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		if v == skipValue {
			out.elided = true
		} else {
			out.items = append(out.items, v)
		}
	}
}

func (p *jsonParser) str() (any, error) {
	open, w := utf8.DecodeRuneInString(p.s[p.i:])
	p.i += w
	var sb strings.Builder
	for p.i < len(p.s) {
		r, w := utf8.DecodeRuneInString(p.s[p.i:])
		p.i += w
		switch {
		case r == '\\' && p.i < len(p.s):
			e, w := utf8.DecodeRuneInString(p.s[p.i:])
			p.i += w
			switch e {
			case 'n':
				sb.WriteByte('\n')
			case 't':
				sb.WriteByte('\t')
			case 'r':
				sb.WriteByte('\r')
			case 'u':
				if p.i+4 <= len(p.s) {
					if n, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 32); err == nil {
						sb.WriteRune(rune(n))
						p.i += 4
						continue
					}
				}
				sb.WriteRune(e)
			default:
				sb.WriteRune(e)
			}
		case closes(open, r):
			return sb.String(), nil
		case r == '\n':
			return nil, errJSON
		default:
			sb.WriteRune(r)
		}
	}
	return nil, errJSON
}

func closes(open, r rune) bool {
	switch open {
	case '\'', '‘', '’':
		return r == '\'' || r == '’' || r == '‘'
	}
	return r == '"' || r == '”' || r == '“'
}

func (p *jsonParser) num() (any, error) {
	j := p.i
	for j < len(p.s) && strings.IndexByte("+-0123456789.eE_", p.s[j]) >= 0 {
		j++
	}
	lit := strings.ReplaceAll(p.s[p.i:j], "_", "")
	p.i = j
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		// "2024-01-01" unquoted, or "1.2.3": read the rest as a word.
		return lit + p.word(), nil
	}
	return number{f: f, lit: strings.TrimPrefix(lit, "+")}, nil
}

// leadingCount finds the first whole number in a comment ("// ... 98 more records" gives 98).
func leadingCount(s string) int {
	n, in := 0, false
	for _, r := range s {
		if r >= '0' && r <= '9' {
			n, in = n*10+int(r-'0'), true
			if n > 1_000_000 {
				return 0
			}
			continue
		}
		if in {
			return n
		}
	}
	return n
}
