package importer

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Helpers over short strings that the syntax tree already isolated: a heading, a label, one table
// cell, one list item. None of them looks at the markdown source as a whole.

// norm lowercases and folds full-width characters a Chinese document uses for ASCII ones.
func norm(s string) string {
	return strings.ToLower(fullWidth.Replace(s))
}

// fullWidth is built once: a strings.Replacer builds its tables on first use, which costs more than
// most texts it is given.
var fullWidth = strings.NewReplacer("：", ":", "，", ",", "（", "(", "）", ")", "＃", "#", "／", "/", "～", "~", "×", "x")

func hasAny(s string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// quantity is a number found in text with the words around it.
type quantity struct {
	v      float64
	pos    int
	before string // up to 24 bytes of text before the number, lowercased
	after  string // up to 24 bytes after
}

var numRe = regexp.MustCompile(`(\d+(?:,\d{3})*(?:\.\d+)?)\s*([kKmMbB万千亿])?`)

// quantities finds the numbers of a short text, with K/M/B and 万/千/亿 multipliers and thousands
// separators ("4,000", "1.2K", "10M", "5万").
func quantities(s string) []quantity {
	s = norm(s)
	var out []quantity
	for _, m := range numRe.FindAllStringSubmatchIndex(s, -1) {
		lit := strings.ReplaceAll(s[m[2]:m[3]], ",", "")
		v, err := strconv.ParseFloat(lit, 64)
		if err != nil {
			continue
		}
		end := m[3]
		if m[4] >= 0 {
			// A multiplier letter must end the word: "5k" but not "5kb" or "10ms".
			next := m[5]
			if next < len(s) && isWordByte(s[next]) {
				m[4] = -1
			} else {
				switch s[m[4]:m[5]] {
				case "k", "千":
					v *= 1e3
				case "m":
					v *= 1e6
				case "b":
					v *= 1e9
				case "万":
					v *= 1e4
				case "亿":
					v *= 1e8
				}
				end = m[5]
			}
		}
		q := quantity{v: v, pos: m[0]}
		q.before = s[max(0, m[0]-24):m[0]]
		q.after = s[end:min(len(s), end+24)]
		out = append(out, q)
	}
	return out
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// ruFigures finds request-charge figures: "1 RU", "~3.5 RUs", "2-5 RU" (the upper bound), but not
// rates ("500 RU/s", "RU per second").
var ruRe = regexp.MustCompile(`(?i)(\d+(?:\.\d+)?)(?:\s*(?:-|–|~|to)\s*(\d+(?:\.\d+)?))?\s*(?:rus?|request units?)\b`)

type ruFigure struct {
	v     float64
	pos   int
	rng   bool
	label string
}

func ruFigures(s string) []ruFigure {
	s = norm(s)
	var out []ruFigure
	for _, m := range ruRe.FindAllStringSubmatchIndex(s, -1) {
		rest := strings.TrimSpace(s[m[1]:])
		if strings.HasPrefix(rest, "/s") || strings.HasPrefix(rest, "/秒") || strings.HasPrefix(rest, "/ s") ||
			strings.HasPrefix(rest, "per second") || strings.HasPrefix(rest, "/sec") || strings.HasPrefix(rest, "/month") {
			continue
		}
		v, _ := strconv.ParseFloat(s[m[2]:m[3]], 64)
		f := ruFigure{v: v, pos: m[0], label: s[m[0]:m[1]]}
		if m[4] >= 0 {
			if hi, err := strconv.ParseFloat(s[m[4]:m[5]], 64); err == nil && hi > v {
				f.v, f.rng = hi, true
			}
		}
		if f.v > 0 {
			out = append(out, f)
		}
	}
	return out
}

// patternRefRe finds references to numbered access patterns: "AP3", "Pattern #3", "pattern 3", "#3",
// "模式 3", "访问模式#3".
var patternRefRe = regexp.MustCompile(`(?i)(?:\bap[-\s]?|\bpattern\s*#?\s*|模式\s*#?\s*|#)(\d{1,3})\b`)

type patternRef struct {
	id  string
	pos int
}

func patternRefs(s string) []patternRef {
	s = norm(s)
	var out []patternRef
	for _, m := range patternRefRe.FindAllStringSubmatchIndex(s, -1) {
		n, _ := strconv.Atoi(s[m[2]:m[3]])
		out = append(out, patternRef{id: "AP" + strconv.Itoa(n), pos: m[0]})
	}
	return out
}

// patternID turns a table's pattern cell ("1", "#1", "AP1", "AP-01", "Pattern 1") into "AP1".
func patternID(cellText string) string {
	if refs := patternRefs(cellText); len(refs) > 0 {
		return refs[0].id
	}
	t := strings.TrimSpace(cellText)
	n := 0
	digits := 0
	for _, r := range t {
		if r >= '0' && r <= '9' {
			n = n*10 + int(r-'0')
			digits++
			if digits > 3 {
				return ""
			}
			continue
		}
		if digits > 0 {
			break
		}
		if !strings.ContainsRune("#.apAP- ", r) {
			return ""
		}
	}
	if digits == 0 {
		return ""
	}
	return "AP" + strconv.Itoa(n)
}

// identifier makes a name usable as a container, type or design name: letters, digits, - and _.
func identifier(s string, sep string) string {
	var sb strings.Builder
	up := false
	for _, r := range strings.TrimSpace(s) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-':
			if up && sep == "" {
				r = unicode.ToUpper(r)
			}
			sb.WriteRune(r)
			up = false
		default:
			if sb.Len() > 0 {
				if sep == "" {
					up = true
				} else if !strings.HasSuffix(sb.String(), sep) {
					sb.WriteString(sep)
				}
			}
		}
	}
	out := strings.Trim(sb.String(), "-_")
	if r := []rune(out); len(r) > 60 {
		out = strings.Trim(string(r[:60]), "-_")
	}
	return out
}

// singular strips an English plural ending: orders → order, categories → category, boxes → box.
func singular(s string) string {
	l := strings.ToLower(s)
	switch {
	case strings.HasSuffix(l, "ies") && len(l) > 4:
		return s[:len(s)-3] + "y"
	case strings.HasSuffix(l, "sses") || strings.HasSuffix(l, "xes") || strings.HasSuffix(l, "ches"):
		return s[:len(s)-2]
	case strings.HasSuffix(l, "ss") || strings.HasSuffix(l, "us"):
		return s
	case strings.HasSuffix(l, "s") && len(l) > 3:
		return s[:len(s)-1]
	}
	return s
}

// roundUp rounds v up to a multiple of step, at least lo.
func roundUp(v float64, step, lo int) int {
	n := int(math.Ceil(v/float64(step))) * step
	return max(n, lo)
}

func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// pathTokens finds property paths in a short text: code spans first, else words starting with "/".
func pathTokens(text string, code []string) []string {
	var out []string
	add := func(p string) {
		p = strings.Trim(p, " \"'`.,;:()[]{}")
		if strings.HasPrefix(p, "/") && len(p) > 1 || p == "/*" {
			out = append(out, p)
		}
	}
	for _, c := range code {
		for _, f := range strings.FieldsFunc(c, func(r rune) bool { return r == ',' || r == ' ' || r == '，' || r == '、' }) {
			add(f)
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, f := range strings.FieldsFunc(text, func(r rune) bool {
		return r == ',' || r == ' ' || r == '，' || r == '、' || r == '(' || r == ')' || r == '（' || r == '）'
	}) {
		add(f)
	}
	return out
}
