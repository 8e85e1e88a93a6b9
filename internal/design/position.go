package design

import (
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// source is what ValuePos needs of the file a design was parsed from: its lines and the style of
// each string scalar.
type source struct {
	lines  []string
	styles map[string]yaml.Style
}

// ValuePos maps a byte offset into the string value at path (a query, a condition) to where that
// byte stands in the design file, through plain, quoted, literal (|) and folded (>) scalars. value
// is the string as the design holds it; when the file does not spell it out as expected (a design
// built in Go, an alias), ValuePos returns the value's own position.
func (d *Design) ValuePos(path, value string, off int) Pos {
	base := d.Positions[path]
	if d.src == nil || base.Line == 0 || off < 0 || off >= len(value) {
		return base
	}
	style, ok := d.src.styles[path]
	if !ok {
		return base
	}
	w := &scalarWalker{lines: d.src.lines, limit: len(value)}
	switch {
	case style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		w.block(base, style&yaml.FoldedStyle != 0)
	case style&yaml.DoubleQuotedStyle != 0:
		w.flow(base, '"')
	case style&yaml.SingleQuotedStyle != 0:
		w.flow(base, '\'')
	default:
		w.flow(base, 0)
	}
	text := w.text.String()
	// The design may hold the value trimmed; find it in what the file spells.
	at := strings.Index(text, value)
	if at < 0 || at+off >= len(w.pos) {
		return base
	}
	return w.pos[at+off]
}

// scalarWalker decodes a scalar from the file's lines, recording for every decoded byte the file
// position it came from.
type scalarWalker struct {
	lines []string
	limit int
	text  strings.Builder
	pos   []Pos
}

func (w *scalarWalker) done() bool { return w.text.Len() > w.limit }

func (w *scalarWalker) emit(s string, p Pos) {
	w.text.WriteString(s)
	for range len(s) {
		w.pos = append(w.pos, p)
	}
}

// runes returns line l (1-based) as runes, or nil past the end.
func (w *scalarWalker) runes(l int) []rune {
	if l < 1 || l > len(w.lines) {
		return nil
	}
	return []rune(strings.TrimSuffix(w.lines[l-1], "\r"))
}

// flow decodes a plain (quote 0), single- or double-quoted scalar starting at start: a line break
// and the next line's indentation fold into one space, blank lines into line breaks.
func (w *scalarWalker) flow(start Pos, quote rune) {
	l, c := start.Line, start.Col-1
	if quote != 0 {
		c++
	}
	var spaces []Pos // whitespace not yet emitted: dropped at a line end
	for !w.done() {
		line := w.runes(l)
		if line == nil {
			return
		}
		if c >= len(line) {
			spaces = nil
			blanks := 0
			l++
			for {
				next := w.runes(l)
				if next == nil {
					return
				}
				if strings.TrimSpace(string(next)) != "" {
					break
				}
				blanks++
				l++
			}
			next := w.runes(l)
			c = 0
			for c < len(next) && (next[c] == ' ' || next[c] == '\t') {
				c++
			}
			if blanks > 0 {
				w.emit(strings.Repeat("\n", blanks), Pos{Line: l, Col: c + 1})
			} else {
				w.emit(" ", Pos{Line: l, Col: c + 1})
			}
			continue
		}
		r, p := line[c], Pos{Line: l, Col: c + 1}
		switch {
		case r == ' ' || r == '\t':
			spaces = append(spaces, p)
			c++
			continue
		case quote == 0 && r == '#' && len(spaces) > 0:
			return
		case quote == '\'' && r == '\'':
			if c+1 < len(line) && line[c+1] == '\'' {
				w.flushSpaces(&spaces)
				w.emit("'", p)
				c += 2
				continue
			}
			return
		case quote == '"' && r == '"':
			return
		case quote == '"' && r == '\\':
			w.flushSpaces(&spaces)
			if c+1 >= len(line) { // an escaped line break: the next line continues without a space
				l, c = l+1, 0
				next := w.runes(l)
				for c < len(next) && (next[c] == ' ' || next[c] == '\t') {
					c++
				}
				continue
			}
			s, n := unescape(line[c+1:])
			w.emit(s, p)
			c += 1 + n
			continue
		}
		w.flushSpaces(&spaces)
		w.emit(string(r), p)
		c++
	}
}

func (w *scalarWalker) flushSpaces(spaces *[]Pos) {
	for _, p := range *spaces {
		w.emit(" ", p)
	}
	*spaces = nil
}

// unescape decodes the escape after a backslash in a double-quoted scalar, returning the decoded
// text and how many runes it used.
func unescape(rs []rune) (string, int) {
	simple := map[rune]string{'0': "\x00", 'a': "\a", 'b': "\b", 't': "\t", '\t': "\t", 'n': "\n", 'v': "\v",
		'f': "\f", 'r': "\r", 'e': "\x1b", ' ': " ", '"': "\"", '/': "/", '\\': "\\", 'N': "\u0085",
		'_': "\u00a0", 'L': "\u2028", 'P': "\u2029"}
	if s, ok := simple[rs[0]]; ok {
		return s, 1
	}
	width := map[rune]int{'x': 2, 'u': 4, 'U': 8}[rs[0]]
	if width == 0 || len(rs) < 1+width {
		return string(rs[0]), 1
	}
	var v rune
	for _, h := range rs[1 : 1+width] {
		v <<= 4
		switch {
		case h >= '0' && h <= '9':
			v |= h - '0'
		case h >= 'a' && h <= 'f':
			v |= h - 'a' + 10
		case h >= 'A' && h <= 'F':
			v |= h - 'A' + 10
		}
	}
	if !utf8.ValidRune(v) {
		v = utf8.RuneError
	}
	return string(v), 1 + width
}

// block decodes a literal or folded block scalar whose indicator stands at start; its content
// starts on the next line, indented at least as much as its first non-blank line.
func (w *scalarWalker) block(start Pos, folded bool) {
	indent := -1
	blanks := 0
	first, prevNormal := true, false
	// The value ends with a line break unless chomped (|-): emit it; the caller finds the value in
	// the text either way.
	defer func() { w.emit("\n", Pos{}) }()
	for l := start.Line + 1; !w.done(); l++ {
		line := w.runes(l)
		if line == nil {
			return
		}
		lead := 0
		for lead < len(line) && line[lead] == ' ' {
			lead++
		}
		if lead == len(line) {
			blanks++
			continue
		}
		if indent < 0 {
			indent = lead
		}
		if lead < indent {
			return
		}
		more := lead > indent || line[indent] == '\t'
		at := Pos{Line: l, Col: indent + 1}
		switch {
		case first:
			w.emit(strings.Repeat("\n", blanks), at)
		case folded && prevNormal && !more && blanks == 0:
			w.emit(" ", at)
		case folded && prevNormal && !more:
			w.emit(strings.Repeat("\n", blanks), at)
		default:
			w.emit(strings.Repeat("\n", blanks+1), at)
		}
		for i, r := range line[indent:] {
			w.emit(string(r), Pos{Line: l, Col: indent + i + 1})
		}
		first, prevNormal, blanks = false, !more, 0
	}
}

// MarkedComment is a comment of the design file that starts with a marker ("TODO(import):"), with
// the comment lines that continue it (indented further), and the field path of the key it stands
// above ("" when it stands above none, as the comments at the top of a file).
type MarkedComment struct {
	Pos  Pos
	Path string
	Text string
}

// MarkedComments lists the comments of the file the design was parsed from that start with marker,
// in file order (nil for a design built in Go).
func (d *Design) MarkedComments(marker string) []MarkedComment {
	if d.src == nil {
		return nil
	}
	var out []MarkedComment
	lines := d.src.lines
	for i := 0; i < len(lines); i++ {
		t := strings.TrimLeft(lines[i], " -")
		if !strings.HasPrefix(t, "# "+marker) {
			continue
		}
		col := strings.Index(lines[i], "#") + 1
		text := strings.TrimSpace(strings.TrimPrefix(t, "# "+marker))
		for i+1 < len(lines) {
			next := lines[i+1]
			j := strings.Index(next, "#")
			if j < 0 || strings.TrimSpace(next[:j]) != "" && strings.TrimSpace(next[:j]) != "-" || !strings.HasPrefix(next[j:], "#   ") {
				break
			}
			text += " " + strings.TrimSpace(next[j+1:])
			i++
		}
		c := MarkedComment{Pos: Pos{Line: i + 1, Col: col}, Text: text}
		c.Pos.Line = d.commentLine(lines, c, marker)
		c.Path = d.pathBelow(i + 1)
		out = append(out, c)
	}
	return out
}

// commentLine finds the line a marked comment starts on (its continuation lines were consumed).
func (d *Design) commentLine(lines []string, c MarkedComment, marker string) int {
	for l := c.Pos.Line; l >= 1; l-- {
		if strings.HasPrefix(strings.TrimLeft(lines[l-1], " -"), "# "+marker) {
			return l
		}
	}
	return c.Pos.Line
}

// pathBelow is the field path of the first key after line (1-based), the least specific when several
// start there (the key, not the flow mapping's entries); "" when the next key is further than the comment block.
func (d *Design) pathBelow(line int) string {
	best, bestLine := "", 0
	for p, pos := range d.Positions {
		if pos.Line <= line {
			continue
		}
		if best == "" || pos.Line < bestLine || pos.Line == bestLine && (len(p) < len(best) || len(p) == len(best) && p < best) {
			best, bestLine = p, pos.Line
		}
	}
	// Only comments right above a key are about it; a blank line ends a comment block.
	for l := line; l < bestLine-1 && l < len(d.src.lines); l++ {
		if strings.TrimSpace(d.src.lines[l]) == "" {
			return ""
		}
	}
	return best
}
