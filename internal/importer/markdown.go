package importer

import (
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/util"
)

// The markdown is read through goldmark (CommonMark with the GFM table extension) into a flat list of
// sections, each a heading and the blocks under it up to the next heading. Nothing below works on the
// raw text: labels, code spans, code fences and table cells come from the syntax tree.

type blockKind int

const (
	blockPara blockKind = iota
	blockItem
	blockCode
	blockTable
)

// block is one paragraph, list item, fenced code block or table.
type block struct {
	kind blockKind
	line int
	// text is the plain text of a paragraph or list item (inline markup removed, soft breaks as spaces).
	text string
	// label is a list item's or paragraph's lead: the bold text before a colon ("Partition Key"), or the
	// text before the first colon when short. parent is the label of the list item this block is
	// nested in ("Included Paths" for the items under it).
	label, value, parent string
	// code holds the code spans of a paragraph, list item or table cell, in order.
	code []string
	// lang and body are a code block's info string and content.
	lang, body string
	// rows holds a table: rows[0] is the header.
	rows [][]cell
}

type cell struct {
	text string
	code []string
}

type section struct {
	level  int
	title  string
	line   int
	blocks []*block
}

type mdDoc struct {
	src      []byte
	sections []*section // sections[0] is the preamble before the first heading (level 0)
	// lineStarts holds the offset after each line break, for lineOf.
	lineStarts []int
}

// mdParser is CommonMark without links, with the GFM tables, strikethrough and task lists, and the
// parse watch of bounds.go. Links are left out because nothing here reads a link's destination and
// CommonMark's link rules are quadratic on unclosed brackets ("[a](" repeated): a link stays as the text
// it is written with.
var mdParser = goldmark.New(goldmark.WithParser(newParser()),
	goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList))

func newParser() parser.Parser {
	inline := []util.PrioritizedValue{util.Prioritized(newWatchInline(), 0)}
	for _, v := range parser.DefaultInlineParsers() {
		if slices.Contains(v.Value.(parser.InlineParser).Trigger(), ']') {
			continue // the link parser
		}
		inline = append(inline, v)
	}
	return parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...), parser.WithInlineParsers(inline...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...))
}

// parseMarkdown reads src (already bounded by boundLines) into sections, under the parse watch: it
// fails only when the context ends or the work budget is spent.
func parseMarkdown(ctx context.Context, src []byte) (*mdDoc, error) {
	root, _, err := parseBounded(ctx, src, nil)
	if err != nil {
		return nil, err
	}
	d := &mdDoc{src: src, sections: []*section{{}}}
	for i, c := range src {
		if c == '\n' {
			d.lineStarts = append(d.lineStarts, i+1)
		}
	}
	d.walkBlocks(root, "")
	return d, nil
}

func (d *mdDoc) cur() *section { return d.sections[len(d.sections)-1] }

// lineOf returns the 1-based line of a byte offset.
func (d *mdDoc) lineOf(off int) int {
	if off < 0 || off > len(d.src) {
		return 0
	}
	// The number of line breaks before off, by binary search (a count from the start for every block
	// would be quadratic in the document).
	return sort.Search(len(d.lineStarts), func(i int) bool { return d.lineStarts[i] > off }) + 1
}

func (d *mdDoc) nodeLine(n ast.Node) int {
	for c := n; c != nil; c = c.FirstChild() {
		if c.Type() == ast.TypeBlock {
			if ls := c.Lines(); ls != nil && ls.Len() > 0 {
				return d.lineOf(ls.At(0).Start)
			}
		}
		if t, ok := c.(*ast.Text); ok {
			return d.lineOf(t.Segment.Start)
		}
	}
	return 0
}

func (d *mdDoc) walkBlocks(n ast.Node, parent string) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		d.walkOne(c, parent)
	}
}

func (d *mdDoc) walkOne(c ast.Node, parent string) {
	{
		switch c := c.(type) {
		case *ast.Heading:
			d.sections = append(d.sections, &section{level: c.Level, title: strings.TrimSpace(d.inlineText(c)), line: d.nodeLine(c)})
		case *ast.Paragraph, *ast.TextBlock:
			b := &block{kind: blockPara, line: d.nodeLine(c), parent: parent}
			b.text, b.code = d.inlineText(c), d.codeSpans(c)
			b.label, b.value = d.labelOf(c, b.text)
			d.cur().blocks = append(d.cur().blocks, b)
		case *ast.List:
			for it := c.FirstChild(); it != nil; it = it.NextSibling() {
				d.listItem(it, parent)
			}
		case *ast.FencedCodeBlock:
			d.cur().blocks = append(d.cur().blocks, &block{kind: blockCode, line: d.nodeLine(c), parent: parent,
				lang: strings.ToLower(string(c.Language(d.src))), body: d.linesText(c)})
		case *ast.CodeBlock:
			d.cur().blocks = append(d.cur().blocks, &block{kind: blockCode, line: d.nodeLine(c), parent: parent, body: d.linesText(c)})
		case *east.Table:
			d.table(c)
		case *ast.Blockquote:
			d.walkBlocks(c, parent)
		}
	}
}

// listItem records one item (its own text) and walks what is nested in it with its label as parent.
func (d *mdDoc) listItem(it ast.Node, parent string) {
	b := &block{kind: blockItem, line: d.nodeLine(it), parent: parent}
	var lead ast.Node
	for c := it.FirstChild(); c != nil; c = c.NextSibling() {
		if _, ok := c.(*ast.Paragraph); ok {
			lead = c
			break
		}
		if _, ok := c.(*ast.TextBlock); ok {
			lead = c
			break
		}
	}
	if lead != nil {
		b.text, b.code = d.inlineText(lead), d.codeSpans(lead)
		b.label, b.value = d.labelOf(lead, b.text)
	}
	d.cur().blocks = append(d.cur().blocks, b)
	label := b.label
	if label == "" {
		label = parent
	}
	for c := it.FirstChild(); c != nil; c = c.NextSibling() {
		if c == lead {
			continue
		}
		d.walkOne(c, label)
	}
}

func (d *mdDoc) table(t *east.Table) {
	b := &block{kind: blockTable, line: d.nodeLine(t)}
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var row []cell
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			row = append(row, cell{text: strings.TrimSpace(d.inlineText(c)), code: d.codeSpans(c)})
		}
		b.rows = append(b.rows, row)
	}
	if len(b.rows) > 0 {
		d.cur().blocks = append(d.cur().blocks, b)
	}
}

func (d *mdDoc) linesText(n ast.Node) string {
	var sb strings.Builder
	ls := n.Lines()
	for i := 0; i < ls.Len(); i++ {
		seg := ls.At(i)
		sb.Write(seg.Value(d.src))
	}
	return sb.String()
}

// inlineText is the plain text of a block's inline content.
func (d *mdDoc) inlineText(n ast.Node) string {
	var sb strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			sb.Write(c.Value(d.src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				sb.WriteByte(' ')
			}
		case *ast.String:
			sb.Write(c.Value)
		case *ast.AutoLink:
			sb.Write(c.URL(d.src))
		case *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return strings.Join(strings.Fields(sb.String()), " ")
}

func (d *mdDoc) codeSpans(n ast.Node) []string {
	var out []string
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if cs, ok := c.(*ast.CodeSpan); ok && entering {
			out = append(out, strings.TrimSpace(d.inlineText(cs)))
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out
}

// labelOf finds a block's lead label: "**Partition Key**: /userId - ..." gives ("Partition Key",
// "/userId - ..."). Without bold text, a short text before the first colon is the label.
func (d *mdDoc) labelOf(n ast.Node, full string) (label, value string) {
	if first := n.FirstChild(); first != nil {
		if em, ok := first.(*ast.Emphasis); ok && em.Level == 2 {
			label = strings.TrimSpace(d.inlineText(em))
			rest := strings.TrimSpace(strings.TrimPrefix(full, label))
			label = strings.TrimRight(label, ":： ")
			rest = strings.TrimLeft(rest, ":： ")
			return label, rest
		}
	}
	// "Partition key is `/cityId`." reads as the label it names.
	for _, lead := range []string{"partition key is ", "the partition key is ", "partition key = ", "分区键是"} {
		if strings.HasPrefix(strings.ToLower(full), lead) {
			return "Partition key", strings.TrimSpace(full[len(lead):])
		}
	}
	if i := strings.IndexAny(full, ":："); i > 0 && i <= 40 {
		head := strings.TrimSpace(full[:i])
		if !strings.ContainsAny(head, "`{}[]()\"'") && len(strings.Fields(head)) <= 5 {
			_, w := firstRune(full[i:])
			return head, strings.TrimSpace(full[i+w:])
		}
	}
	return "", full
}

func firstRune(s string) (rune, int) {
	for _, r := range s {
		return r, len(string(r))
	}
	return 0, 0
}
