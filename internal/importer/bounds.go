package importer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// Bounds on the work of one import. Markdown parsing is linear in practice but not in the worst case:
// a CommonMark parser scans to the end of the line for a link destination ("[a](" repeated on one
// line is quadratic in the line's length) and walks every open container for every line ("> > > …"
// nested thousands deep is quadratic in the depth). So before parsing, lines are kept short and
// container nesting shallow (boundLines), and while parsing a watchdog counts the parser's steps,
// stops at a budget proportional to the input and answers a cancelled context.
const (
	// MaxLine is the longest line parsed as written; a longer one is wrapped at its last space or
	// comma before the limit (a modeling document's lines are well under 1 KB).
	MaxLine = 4096
	// MaxNesting is the deepest block-quote nesting kept; MaxIndent the widest leading run of
	// spaces and list markers.
	MaxNesting = 16
	MaxIndent  = 256
	// stepsPerByte and baseSteps bound the parser's steps: ordinary documents take under 2 a byte.
	stepsPerByte = 64
	baseSteps    = 1 << 20
	// checkEvery is how many steps pass between looks at the context.
	checkEvery = 1024
)

// ErrTooComplex is returned for markdown whose parsing would take more steps than its size justifies.
var ErrTooComplex = errors.New("the markdown needs more parsing work than its size justifies (pathological nesting or brackets)")

// boundLines wraps lines longer than MaxLine and cuts leading block-quote markers beyond MaxNesting and
// leading marker runs beyond MaxIndent. It returns the text and how many lines it changed.
func boundLines(src []byte) ([]byte, int) {
	if !needsBounding(src) {
		return src, 0
	}
	out := make([]byte, 0, len(src)+len(src)/MaxLine+16)
	changed := 0
	for len(src) > 0 {
		end := bytes.IndexByte(src, '\n')
		line := src
		if end >= 0 {
			line, src = src[:end], src[end+1:]
		} else {
			src = nil
		}
		l, c := boundPrefix(line)
		if c {
			changed++
		}
		if len(l) > MaxLine {
			changed++
			for len(l) > MaxLine {
				cut := bytes.LastIndexAny(l[:MaxLine], " ,")
				if cut < MaxLine/2 {
					cut = MaxLine - 1
				}
				out = append(out, l[:cut+1]...)
				out = append(out, '\n')
				l = l[cut+1:]
			}
		}
		out = append(out, l...)
		if end >= 0 {
			out = append(out, '\n')
		}
	}
	return out, changed
}

// needsBounding is the quick test: any line too long or any prefix too deep.
func needsBounding(src []byte) bool {
	start := 0
	for start <= len(src) {
		end := bytes.IndexByte(src[start:], '\n')
		if end < 0 {
			end = len(src) - start
		}
		line := src[start : start+end]
		if len(line) > MaxLine {
			return true
		}
		if _, c := boundPrefix(line); c {
			return true
		}
		start += end + 1
	}
	return false
}

// boundPrefix limits a line's leading run of container markers (spaces, tabs, '>', list bullets and
// ordinals): at most MaxNesting '>' and MaxIndent bytes in all.
func boundPrefix(line []byte) ([]byte, bool) {
	n, quotes := 0, 0
	for n < len(line) && bytes.IndexByte([]byte(" \t>-*+.)0123456789"), line[n]) >= 0 {
		if line[n] == '>' {
			quotes++
		}
		n++
	}
	if quotes <= MaxNesting && n <= MaxIndent {
		return line, false
	}
	var p []byte
	q := 0
	for _, c := range line[:n] {
		if c == '>' {
			if q++; q > MaxNesting {
				continue
			}
		}
		if len(p) < MaxIndent {
			p = append(p, c)
		}
	}
	return append(p, line[n:]...), true
}

// watch counts a parse's steps and stops it, by a panic that parse recovers, at the budget or when
// the context ends.
type watch struct {
	ctx         context.Context
	steps, max  int
	err         error
	onCheckHook func(steps int) // tests only: called at every context check
}

type stopParse struct{ err error }

func (w *watch) step() {
	w.steps++
	if w.steps > w.max {
		w.err = fmt.Errorf("%w: over %d steps for %d bytes", ErrTooComplex, w.max, (w.max-baseSteps)/stepsPerByte)
		panic(stopParse{w.err})
	}
	if w.steps%checkEvery == 0 {
		if w.onCheckHook != nil {
			w.onCheckHook(w.steps)
		}
		if err := w.ctx.Err(); err != nil {
			w.err = err
			panic(stopParse{err})
		}
	}
}

var watchKey = parser.NewContextKey()

// watchReader counts the block parser's looks at lines.
type watchReader struct {
	text.Reader
	w *watch
}

func (r *watchReader) PeekLine() ([]byte, text.Segment) {
	r.w.step()
	return r.Reader.PeekLine()
}

// watchInline is an inline parser tried first on every character an inline parser starts at; it only
// counts and never parses.
type watchInline struct{ triggers []byte }

func (p *watchInline) Trigger() []byte { return p.triggers }

func (p *watchInline) Parse(_ ast.Node, _ text.Reader, pc parser.Context) ast.Node {
	if w, ok := pc.Get(watchKey).(*watch); ok {
		w.step()
	}
	return nil
}

func newWatchInline() *watchInline {
	seen := map[byte]bool{'~': true} // strikethrough
	for _, v := range parser.DefaultInlineParsers() {
		if slices.Contains(v.Value.(parser.InlineParser).Trigger(), ']') {
			continue // the link parser, left out (markdown.go)
		}
		for _, c := range v.Value.(parser.InlineParser).Trigger() {
			seen[c] = true
		}
	}
	p := &watchInline{}
	for c := range 256 {
		if seen[byte(c)] {
			p.triggers = append(p.triggers, byte(c))
		}
	}
	return p
}

// parseBounded parses src under a watch; it returns the parse's error when the watch stopped it.
func parseBounded(ctx context.Context, src []byte, hook func(int)) (doc ast.Node, steps int, err error) {
	w := &watch{ctx: ctx, max: stepsPerByte*len(src) + baseSteps, onCheckHook: hook}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	pc := parser.NewContext()
	pc.Set(watchKey, w)
	defer func() {
		if r := recover(); r != nil {
			s, ok := r.(stopParse)
			if !ok {
				panic(r)
			}
			doc, err = nil, s.err
		}
		steps = w.steps
	}()
	doc = mdParser.Parser().Parse(&watchReader{Reader: text.NewReader(src), w: w}, parser.WithContext(pc))
	return doc, w.steps, nil
}
