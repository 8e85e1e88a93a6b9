// Package importer drafts a design file from the markdown a data-modeling session produces
// (cosmosdb_data_model.md, optionally with cosmosdb_requirements.md): container sections with example
// documents, partition keys, indexing policies, the numbered access-pattern table with request rates,
// RU figures in prose, capacity and prices. It sits before design in the pipeline: its output is
// design YAML, which it parses with the design package to make sure the draft reads.
//
// Everything inferred that a person should check carries a "# TODO(import): …" comment saying why;
// what cannot be mapped stays in the draft as a TODO, never silently dropped.
package importer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/cosmosdv/validate/internal/design"
)

// Options tune Import.
type Options struct {
	// File names the markdown in messages and the draft's header ("" for a reader).
	File string
	// Requirements is the optional cosmosdb_requirements.md: scale, relationships and its access
	// pattern table; RequirementsFile names it.
	Requirements     []byte
	RequirementsFile string
	// Name overrides the design name (default: from the document's title or the file name).
	Name string
}

// Result is a draft design.
type Result struct {
	// YAML is the draft design file.
	YAML []byte
	// Design is the draft as the design package reads it; nil when it does not parse (a bug, which
	// Problems then describes).
	Design   *design.Design
	Problems error
	// TODOs counts the "# TODO(import)" comments of the draft.
	TODOs                       int
	Containers, Types, Patterns int
	// Unmapped lists what the markdown does not say or the importer could not map (each also a
	// TODO(import) in the draft): the questions to ask the document's author. Never nil.
	Unmapped []Unmapped
}

// Unmapped is one thing the draft could not take from the markdown.
type Unmapped struct {
	// Path is the draft's field the gap is about ("accessPatterns[2].rps"); "" for the document.
	Path string `json:"path,omitempty"`
	// Text says what is missing or was guessed, and where in the markdown.
	Text string `json:"text"`
}

// MaxInput is the largest markdown Import reads (1 MiB; modeling documents are tens of KB).
const MaxInput = 1 << 20

// Import drafts a design from a data-model markdown document. It never fails on content: what it
// cannot map becomes a TODO in the draft. It returns an error only for input it refuses to read.
func Import(src []byte, o Options) (res *Result, err error) {
	return ImportContext(context.Background(), src, o)
}

// ErrEmpty is the error for a markdown with nothing in it: there is no model to draft, and a
// placeholder draft would only hide that.
var ErrEmpty = errors.New("the markdown is empty: nothing to draft (give the data model's markdown, e.g. a cosmosdb_data_model.md)")

// ImportContext is Import that stops when ctx ends (returning its error) and refuses markdown whose
// parsing would take more work than its size justifies (ErrTooComplex): see bounds.go.
func ImportContext(ctx context.Context, src []byte, o Options) (res *Result, err error) {
	if len(src) > MaxInput || len(o.Requirements) > MaxInput {
		return nil, fmt.Errorf("markdown larger than %d bytes", MaxInput)
	}
	if len(bytes.TrimSpace(src)) == 0 {
		return nil, ErrEmpty
	}
	b := &builder{o: o, notes: map[string][]string{}, served: map[string]string{}}
	// Design files are UTF-8; so is everything the draft quotes. Lines are kept short and nesting
	// shallow, so that parsing stays linear.
	md, changed := boundLines(clean(src))
	if b.md, err = parseMarkdown(ctx, md); err != nil {
		return nil, err
	}
	if changed > 0 {
		b.header0 = append(b.header0, fmt.Sprintf("TODO(import): %s in %s wrapped or cut to be read: lines over %d bytes, block quotes nested over %d deep or leading markers over %d bytes",
			design.Count(changed, "line"), b.mdName(), MaxLine, MaxNesting, MaxIndent))
		b.todos++
	}
	if len(o.Requirements) > 0 {
		req, _ := boundLines(clean(o.Requirements))
		if b.req, err = parseMarkdown(ctx, req); err != nil {
			return nil, err
		}
	}
	b.build()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.checkSkew(ctx)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out, err := b.emit()
	if err != nil {
		return nil, fmt.Errorf("write the draft: %w", err)
	}
	res = &Result{YAML: out, TODOs: b.todos, Containers: len(b.d.Containers), Patterns: len(b.d.AccessPatterns), Unmapped: append([]Unmapped{}, b.gaps...)}
	for _, c := range b.d.Containers {
		res.Types += len(c.Documents)
	}
	name := "draft.yaml"
	if o.File != "" {
		name = strings.TrimSuffix(o.File, filepath.Ext(o.File)) + ".yaml"
	}
	res.Design, res.Problems = design.Parse(out, name)
	return res, nil
}

// clean makes the input valid UTF-8 holding only what a design may hold (design.BadRune):
// control characters, invisible format characters (a bidirectional override, a zero-width space)
// and U+2028/U+2029 become spaces; tabs are expanded to the next multiple of four columns
// (CommonMark's tab stop), so that no tab reaches a name in the draft while indentation keeps its
// meaning; line breaks stay.
func clean(src []byte) []byte {
	src = bytes.ToValidUTF8(src, []byte("\uFFFD"))
	// A lone CR ends a line in CommonMark: one line ending, \n, from here on.
	src = bytes.ReplaceAll(bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n")), []byte("\r"), []byte("\n"))
	var b bytes.Buffer
	b.Grow(len(src))
	col := 0
	for _, r := range string(src) {
		switch {
		case r == '\n':
			b.WriteRune(r)
			col = 0
			continue
		case r == '\t':
			n := 4 - col%4
			b.WriteString("    "[:n])
			col += n
			continue
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0xfeff || r >= 0xd800 && r <= 0xdfff || r == 0xfffe || r == 0xffff,
			r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r):
			r = ' '
		}
		b.WriteRune(r)
		col++
	}
	return b.Bytes()
}

// builder accumulates the draft.
type builder struct {
	o       Options
	md, req *mdDoc
	d       design.Design
	// notes maps a field path of the draft ("containers[0].partitionKey") to comments above it.
	notes map[string][]string
	todos int
	// header holds comment lines for the top of the file; unplaced holds patterns that could not be
	// drafted, commented out.
	header0  []string
	unplaced []string
	// conts parallels d.Containers with what was read for each.
	conts []*contInfo
	// served maps a pattern id to the container whose section says it serves it.
	served map[string]string
	// ruProse maps a pattern id to an RU figure found in prose, and where.
	ruProse map[string]ruFigure
	// rpsProse maps a pattern id to a request rate found in prose (hot-partition analysis).
	rpsProse map[string]float64
	// rels are the relationships of the requirements ("User → Orders: avg 5, max 1000").
	rels []relation
	// scale maps an entity word (singular, lower case) to its production count; scaleFrom to where
	// the requirements say so.
	scale     map[string]float64
	scaleFrom map[string]string
	// scaleNow maps an entity word to the nearest horizon of a scale table ("at launch"), which gives
	// the seeded proportions; scale holds the furthest ("in a year"), the production count.
	scaleNow map[string]float64
	// used marks the sections whose content was mapped.
	used map[*section]bool
	// iacUsed are the sections a provisioning snippet was read from.
	iacUsed []*section
	// groups holds each container's document types with their examples, for sizeCounts.
	groups []containerGroups
	// gaps are what the markdown did not say or could not be mapped, for Result.Unmapped.
	gaps []Unmapped
	// skewCands are the key fields whose distribution checkSkew checks before a TODO suggests one.
	skewCands []skewCand
}

func (b *builder) todo(path, format string, args ...any) {
	b.notes[path] = append(b.notes[path], "TODO(import): "+fmt.Sprintf(format, args...))
	b.todos++
}

// gap is a TODO about something the markdown does not say or the importer could not map: it is also
// listed in Result.Unmapped, the questions to ask the document's author.
func (b *builder) gap(path, format string, args ...any) {
	b.todo(path, format, args...)
	b.gaps = append(b.gaps, Unmapped{Path: path, Text: fmt.Sprintf(format, args...)})
}

// headerGap is a gap about the whole document, written at the top of the draft.
func (b *builder) headerGap(text string) {
	b.header0 = append(b.header0, "TODO(import): "+text)
	b.todos++
	b.gaps = append(b.gaps, Unmapped{Text: text})
}

func (b *builder) note(path, format string, args ...any) {
	b.notes[path] = append(b.notes[path], fmt.Sprintf(format, args...))
}

func (b *builder) mdName() string {
	if b.o.File == "" {
		return "the markdown"
	}
	return filepath.Base(b.o.File)
}

func (b *builder) header() []string {
	src := b.mdName()
	if b.o.RequirementsFile != "" {
		src += " and " + filepath.Base(b.o.RequirementsFile)
	}
	h := []string{
		"Drafted by `validate import` from " + src + ".",
		fmt.Sprintf("%d TODO(import) comments mark what was inferred or could not be mapped: check each one, then run", b.todos),
		"`validate lint` and `validate run` on this file. Seeded counts are small on purpose; production size",
		"belongs in each type's `production` count and scale.storageGB.",
	}
	if len(b.header0) > 0 {
		h = append(h, "")
		for _, l := range b.header0 {
			h = append(h, wrap(l, 96)...)
		}
	}
	return h
}

func (b *builder) build() {
	b.used = map[*section]bool{}
	b.d.Version = 1
	b.naming()
	b.scale, b.scaleFrom, b.scaleNow = map[string]float64{}, map[string]string{}, map[string]float64{}
	if b.req != nil {
		b.readRequirements()
		b.readScaleTables(b.req, b.reqName())
		b.readPerParent(b.req, b.reqName())
	}
	b.readScaleTables(b.md, b.mdName())
	b.readScaleLines()
	b.readScaleSentences()
	b.readContainers()
	b.readPerParent(b.md, b.mdName())
	b.readProse()
	b.readAccount()
	b.readSDK()
	b.buildTypes()
	b.readPatterns()
	b.readHourlyTraffic()
	b.reportUnmapped()
}

// naming sets the design name from Options, the first H1, or the file name.
func (b *builder) naming() {
	name := b.o.Name
	from := "option"
	if name == "" {
		for _, s := range b.md.sections {
			if s.level == 1 {
				t := norm(s.title)
				for _, w := range []string{"azure cosmos db nosql data model", "azure cosmos db data model", "cosmos db nosql data model",
					"cosmos db data model", "data model", "nosql", "azure cosmos db", "cosmos db", "数据模型", "设计"} {
					t = strings.ReplaceAll(t, w, " ")
				}
				name = identifier(t, "-")
				from = "the title"
				break
			}
		}
	}
	if name == "" && b.o.File != "" {
		base := strings.TrimSuffix(filepath.Base(b.o.File), filepath.Ext(b.o.File))
		base = strings.TrimSuffix(strings.TrimPrefix(base, "cosmosdb_"), "_data_model")
		name = identifier(strings.ToLower(base), "-")
		from = "the file name"
	}
	if name == "" || name == "data-model" {
		name = "imported"
		from = "nothing (no title)"
	}
	b.d.Name = strings.ToLower(name)
	b.d.Database = b.d.Name
	if from != "option" {
		b.todo("name", "design name taken from %s; it also names the database", from)
	}
	// The design philosophy's first paragraph is the description.
	for _, s := range b.md.sections {
		if t := norm(s.title); hasAny(t, "design philosophy", "设计理念", "设计思路", "overview", "概述") {
			for _, bl := range s.blocks {
				if bl.kind == blockPara && bl.text != "" {
					b.d.Description = excerpt(bl.text, 200)
					b.used[s] = true
					break
				}
			}
			break
		}
	}
}

// maxUnmappedSections bounds the sections listed as not mapped.
const maxUnmappedSections = 100

// reportUnmapped lists, at the top of the draft, the sections none of whose content was mapped.
func (b *builder) reportUnmapped() {
	listed, more := 0, 0
	defer func() {
		if more > 0 {
			b.headerGap(fmt.Sprintf("%d more sections of %s not mapped (only the first %d are listed)", more, b.mdName(), maxUnmappedSections))
		}
	}()
	for _, s := range b.md.sections {
		if b.used[s] || s.level == 0 && len(s.blocks) == 0 || s.level == 1 {
			continue
		}
		var parts []string
		for _, bl := range s.blocks {
			switch bl.kind {
			case blockPara, blockItem:
				if bl.text != "" && !isChecklist(bl.text) {
					parts = append(parts, bl.text)
				}
			case blockCode:
				parts = append(parts, fmt.Sprintf("(a %s code block)", orWord(bl.lang, "plain")))
			case blockTable:
				parts = append(parts, fmt.Sprintf("(a table of %d rows)", len(bl.rows)-1))
			}
		}
		if len(parts) == 0 {
			continue
		}
		title, line := s.title, s.line
		if title == "" {
			title, line = "(before the first heading)", 1
		}
		if listed++; listed > maxUnmappedSections {
			more++
			continue
		}
		b.headerGap(fmt.Sprintf("not mapped: section %q (%s line %d): %s", title, b.mdName(), line, excerpt(strings.Join(parts, " "), 160)))
	}
}

func isChecklist(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "[ ]") || strings.HasPrefix(s, "[x]") || strings.HasSuffix(s, "✅")
}

func orWord(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
