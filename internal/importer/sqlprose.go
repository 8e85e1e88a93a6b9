package importer

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Documents written by people rather than by the modeling prompt keep their access patterns in prose:
// a lead-in sentence with the rate and the charge ("The order history page — about 150 requests a
// second at peak, 6–9 RU each in our tests:") and a ```sql block, or a sentence naming operations on
// a container ("each checkout costs ~20 RU: a cart replace plus an order create"). proseRows turns
// each SQL block (fenced, indented or a code span starting with SELECT) and each such sentence into a
// pattern row, which pattern1 then drafts like a table row. What is inferred is cited with its line.

// proseRows returns the rows of the SQL blocks and operation sentences outside the pattern tables,
// numbered after the tables' last pattern. A SQL block that a table row already holds, or whose text
// names a table pattern ("AP3", "Pattern #3"), adds its SQL to that row instead.
func (b *builder) proseRows(table []*row) []*row {
	next := 0
	byID := map[string]*row{}
	known := map[string]bool{}
	for _, r := range table {
		next = max(next, idNum(r.id))
		byID[r.id] = r
		if q := sqlOf(r); q != "" {
			known[normSQL(q)] = true
		}
	}
	var out []*row
	add := func(r *row) {
		next++
		r.id = "AP" + strconv.Itoa(next)
		r.order = len(table) + len(out)
		r.from = b.mdName()
		out = append(out, r)
	}
	for si, s := range b.md.sections {
		if tableSection(s) && len(table) > 0 {
			continue
		}
		if len(table)+len(out) > maxDraftPatterns {
			break // readPatterns says the rest was not drafted
		}
		for i, bl := range s.blocks {
			var sqls []string
			inline := false
			switch bl.kind {
			case blockCode:
				if bl.lang != "sql" && bl.lang != "" && bl.lang != "cosmos" && bl.lang != "nosql" && bl.lang != "sql92" {
					continue
				}
				sqls = splitSQL(bl.body)
			case blockTable:
				if tableSection(s) {
					continue
				}
				for ri, cells := range bl.rows[1:] {
					r := b.tableSQLRow(bl, cells, bl.line+ri+2)
					if r == nil {
						// A row naming an operation on a container, with its rates: a pattern too.
						if r = b.tableOpRow(bl, cells, bl.line+ri+2); r != nil {
							b.used[s] = true
							add(r)
						}
						continue
					}
					if known[normSQL(sqlOf(r))] {
						continue
					}
					known[normSQL(sqlOf(r))] = true
					r.line = bl.line + ri + 2
					r.extra2 = append([]string{fmt.Sprintf("drafted from the table row at %s line %d", b.mdName(), r.line)}, r.extra2...)
					if c := b.sectionContainer(si); c != "" {
						r.conts = c
					}
					b.used[s] = true
					add(r)
				}
				continue
			case blockPara, blockItem:
				for _, c := range bl.code {
					if isSelect(c) {
						sqls = append(sqls, c)
						inline = true
					}
				}
				if len(sqls) == 0 {
					if j := strings.Index(strings.ToUpper(bl.text), "SELECT "); j >= 0 && strings.Contains(strings.ToUpper(bl.text[j:]), " FROM ") && isSelect(bl.text[j:]) {
						sqls, inline = []string{bl.text[j:]}, true
					}
				}
			}
			for k, sql := range sqls {
				sql = strings.Join(strings.Fields(strings.TrimRight(strings.TrimSpace(sql), ";")), " ")
				if known[normSQL(sql)] {
					continue
				}
				known[normSQL(sql)] = true
				ctx := b.aroundSQL(si, i, inline)
				if ref := patternRefs(ctx.leadText); len(ref) > 0 && byID[ref[0].id] != nil && sqlOf(byID[ref[0].id]) == "" {
					// The table's pattern, its query given in prose.
					t := byID[ref[0].id]
					t.code = append(t.code, sql)
					t.extra2 = append(t.extra2, fmt.Sprintf("query from the SQL block at %s line %d", b.mdName(), bl.line))
					continue
				}
				r := &row{desc: ctx.name, ops: "query", code: []string{sql}, line: bl.line, conts: ctx.container}
				if len(sqls) > 1 {
					r.desc = fmt.Sprintf("%s (%d)", ctx.name, k+1)
				}
				r.extra2 = append(r.extra2, fmt.Sprintf("drafted from the SQL block at %s line %d; name from %s", b.mdName(), bl.line, ctx.nameFrom))
				if ctx.containerFrom != "" {
					r.extra2 = append(r.extra2, "container from "+ctx.containerFrom)
				}
				b.figures(r, ctx.parts...)
				b.used[s] = true
				add(r)
			}
		}
	}
	if len(table)+len(out) <= maxDraftPatterns {
		for _, r := range b.proseOps(table) {
			add(r)
		}
	}
	return out
}

// tableSection: a section that holds a pattern table (its SQL is the table's).
func tableSection(s *section) bool {
	for _, bl := range s.blocks {
		if bl.kind == blockTable && len(bl.rows) > 1 {
			for _, h := range bl.rows[0] {
				if columnRole(h.text) == "id" {
					return true
				}
			}
		}
	}
	return false
}

func isSelect(s string) bool {
	t := strings.ToUpper(strings.TrimSpace(s))
	return strings.HasPrefix(t, "SELECT ") && strings.Contains(t, " FROM ")
}

func normSQL(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(strings.TrimRight(s, "; ")), " "))
}

// splitSQL splits a code block into its SELECT statements (separated by ";" or blank lines); comment
// lines ("-- …") are dropped.
func splitSQL(body string) []string {
	var out []string
	var cur []string
	flush := func() {
		if q := strings.TrimSpace(strings.Join(cur, "\n")); isSelect(q) {
			out = append(out, q)
		}
		cur = nil
	}
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "--") || strings.HasPrefix(t, "//"):
			continue
		case t == "":
			flush()
			continue
		}
		for strings.Contains(t, ";") {
			i := strings.Index(t, ";")
			cur = append(cur, t[:i])
			flush()
			t = strings.TrimSpace(t[i+1:])
		}
		if t != "" {
			if isSelect(t) && len(cur) > 0 {
				flush()
			}
			cur = append(cur, t)
		}
	}
	flush()
	return out
}

// sqlContext is what the text around a SQL block says about it.
type sqlContext struct {
	name, nameFrom           string
	parts                    []textPart // the lead-in and the paragraph after, where rates and charges are read
	leadText                 string
	container, containerFrom string
}

// aroundSQL reads the lead-in (the paragraph or item right before the block, or the block's own text
// for an inline query), the paragraph after it (unless it introduces the next block) and the nearest
// heading.
func (b *builder) aroundSQL(si, i int, inline bool) sqlContext {
	s := b.md.sections[si]
	bl := s.blocks[i]
	var ctx sqlContext
	var lead *block
	if inline {
		lead = bl
	} else if i > 0 && (s.blocks[i-1].kind == blockPara || s.blocks[i-1].kind == blockItem) && s.blocks[i-1].text != "" {
		lead = s.blocks[i-1]
	}
	if lead != nil {
		text := lead.text
		if inline {
			// The words before the query are its lead-in.
			if j := strings.Index(strings.ToUpper(text), "SELECT "); j > 0 {
				text = text[:j]
			}
			for _, c := range lead.code {
				if isSelect(c) {
					text = strings.ReplaceAll(text, c, " ")
				}
			}
		}
		ctx.leadText = text
		ctx.parts = append(ctx.parts, textPart{text, lead.line})
		if n := leadName(text); n != "" {
			ctx.name, ctx.nameFrom = n, fmt.Sprintf("the lead-in at line %d", lead.line)
		}
	}
	if !inline && i+1 < len(s.blocks) {
		if after := s.blocks[i+1]; after.kind == blockPara && !strings.HasSuffix(strings.TrimSpace(after.text), ":") &&
			(i+2 >= len(s.blocks) || s.blocks[i+2].kind != blockCode) {
			ctx.parts = append(ctx.parts, textPart{after.text, after.line})
		}
	}
	if ctx.name == "" {
		t := s.title
		if t == "" {
			t = "Query"
		}
		ctx.name, ctx.nameFrom = excerpt(t, 80), fmt.Sprintf("the heading at line %d", s.line)
	}
	// The container: the section's heading (or an enclosing one), else the lead-in.
	if c := b.sectionContainer(si); c != "" {
		ctx.container, ctx.containerFrom = c, b.sectionContainerFrom(si)
	}
	if ctx.container == "" && lead != nil {
		if c := b.mentioned(lead.text); c != nil {
			ctx.container, ctx.containerFrom = c.name, fmt.Sprintf("the lead-in at line %d", lead.line)
		}
	}
	return ctx
}

// sectionContainer is the container the heading of section si (or of an enclosing section) names.
func (b *builder) sectionContainer(si int) string {
	if k := b.sectionContainerAt(si); k >= 0 {
		return b.mentioned(b.md.sections[k].title).name
	}
	return ""
}

func (b *builder) sectionContainerFrom(si int) string {
	k := b.sectionContainerAt(si)
	return fmt.Sprintf("the heading %q (line %d)", b.md.sections[k].title, b.md.sections[k].line)
}

func (b *builder) sectionContainerAt(si int) int {
	level := b.md.sections[si].level
	for k := si; k >= 0; k-- {
		sk := b.md.sections[k]
		if k < si && sk.level >= level {
			continue // a sibling, not an enclosing section
		}
		if sk.level <= 1 {
			break // the document's title names its subject, not a container
		}
		if b.mentioned(sk.title) != nil {
			return k
		}
		level = sk.level
	}
	return -1
}

// tableSQLRow reads a table row holding a query (a SELECT code span or cell): its name from the first
// other cell, its rates and charge from the rest, a bare number taking its unit from the column's
// header ("RPS", "RU").
func (b *builder) tableSQLRow(bl *block, cells []cell, line int) *row {
	sql, sqlCol := "", -1
	for ci, c := range cells {
		for _, code := range c.code {
			if isSelect(code) {
				sql, sqlCol = code, ci
			}
		}
		if sql == "" && isSelect(c.text) {
			sql, sqlCol = c.text, ci
		}
		if sql != "" {
			break
		}
	}
	if sql == "" {
		return nil
	}
	r := &row{ops: "query", code: []string{strings.Join(strings.Fields(sql), " ")}}
	var parts []textPart
	for ci, c := range cells {
		if ci == sqlCol || c.text == "" {
			continue
		}
		h := ""
		if ci < len(bl.rows[0]) {
			h = bl.rows[0][ci].text
		}
		if r.desc == "" && rangeRURe.FindStringIndex(norm(c.text)) == nil && rateRe.FindStringIndex(norm(c.text)) == nil && leadFigure.FindStringIndex(c.text) == nil {
			r.desc = excerpt(c.text, 80)
			r.extra2 = append(r.extra2, fmt.Sprintf("name from the column %q", h))
			continue
		}
		text := c.text
		switch columnRole(h) {
		case "rps", "peak", "avg":
			if rateRe.FindStringIndex(norm(text)) == nil {
				text += " rps"
			}
			switch columnRole(h) {
			case "peak":
				text += " at peak"
			case "avg":
				text += " avg"
			}
		case "ru":
			if rangeRURe.FindStringIndex(norm(text)) == nil {
				text += " RU"
			}
		}
		parts = append(parts, textPart{text, line})
	}
	if r.desc == "" {
		r.desc = excerpt(r.code[0], 60)
	}
	b.figures(r, parts...)
	return r
}

// tableOpRow reads a table row without a pattern number or a query that names an operation on a
// container ("point read on Members", "transactional batch on Members: create a txn, patch …") with its
// rates and charge in columns: its name from the first cell, the operations as proseOps reads them.
func (b *builder) tableOpRow(bl *block, cells []cell, line int) *row {
	roles := make([]string, len(bl.rows[0]))
	rateCol := false
	for i, h := range bl.rows[0] {
		roles[i] = columnRole(h.text)
		rateCol = rateCol || roles[i] == "rps" || roles[i] == "peak" || roles[i] == "avg"
	}
	if !rateCol || len(cells) == 0 {
		return nil
	}
	var text []string
	for ci, c := range cells {
		if ci < len(roles) && (roles[ci] == "" || roles[ci] == "desc" || roles[ci] == "ops" || roles[ci] == "notes" || roles[ci] == "conts") {
			text = append(text, c.text)
		}
	}
	joined := strings.Join(text, "; ")
	ops := b.opsIn(joined)
	if len(ops) == 0 {
		return nil
	}
	r := &row{desc: excerpt(cells[0].text, 80), line: line, conts: ops[0].cont}
	var parts []string
	for _, o := range ops {
		parts = append(parts, o.text)
	}
	switch {
	case len(ops) > 1 || hasAny(norm(joined), "transactional batch", "batch"):
		r.ops = "transactional batch: " + strings.Join(parts, ", ")
	default:
		r.ops = ops[0].op + " " + ops[0].text
	}
	r.extra2 = append(r.extra2, fmt.Sprintf("drafted from the table row at %s line %d", b.mdName(), line))
	for ci, c := range cells {
		if ci >= len(roles) {
			continue
		}
		switch roles[ci] {
		case "rps":
			r.rps = orKeep(r.rps, c.text)
		case "peak":
			r.peakText = orKeep(r.peakText, c.text)
		case "avg":
			r.avgText = orKeep(r.avgText, c.text)
		case "ru":
			if rangeRURe.FindStringIndex(norm(c.text)) == nil {
				b.figures(r, textPart{c.text + " RU", line})
			} else {
				b.figures(r, textPart{c.text, line})
			}
		}
	}
	return r
}

// leadName is a pattern's name from its lead-in: the words before the first dash, colon, bracket or
// figure ("The order history page — about 150 requests …" gives "The order history page").
func leadName(text string) string {
	t := strings.TrimSpace(text)
	cut := len(t)
	for _, sep := range []string{" — ", " – ", " - ", ":", "：", "(", "（", ",", "，", ";", "~", "≈", ". ", "。"} {
		if j := strings.Index(t, sep); j > 0 && j < cut {
			cut = j
		}
	}
	// A figure ends the name only when it is the pattern's rate or charge ("… — about 150 requests a
	// second"); "Last 50 messages of a channel" keeps its number.
	if m := figureStart(t); m >= 0 && m < cut {
		cut = m
	}
	t = strings.TrimRight(strings.TrimSpace(t[:cut]), ".,;:~≈")
	for trimmed := true; trimmed; {
		trimmed = false
		for _, w := range []string{"about", "around", "roughly", "at", "with", "costs", "cost", "which", "that", "reads", "runs", "is", "are",
			"takes", "for", "of", "and", "every", "each", "some", "approximately", "nearly", "over", "under", "up to", "~"} {
			if u := strings.TrimSuffix(t, " "+w); u != t {
				t, trimmed = strings.TrimSpace(u), true
			}
		}
	}
	if len([]rune(t)) < 3 {
		return ""
	}
	return excerpt(t, 80)
}

var leadFigure = regexp.MustCompile(`\d`)

// figureStart is where the first rate or charge of a lead-in starts (-1 when it has none): a number
// with a rate's or a charge's unit, or one after "about", "~" or "≈".
func figureStart(t string) int {
	at := -1
	if !strings.ContainsAny(t, "0123456789") {
		return -1
	}
	lower := norm(t)
	if len(lower) != len(t) {
		lower = strings.ToLower(t) // full-width folding changed the length: positions would not match
	}
	if fs := readRates(lower, false); len(fs) > 0 {
		at = fs[0].start
	}
	if m := rangeRURe.FindStringIndex(lower); m != nil && (at < 0 || m[0] < at) {
		at = m[0]
	}
	for _, m := range leadFigure.FindAllStringIndex(t, -1) {
		before := strings.TrimRight(lower[:m[0]], " ")
		if strings.HasSuffix(before, "~") || strings.HasSuffix(before, "≈") || strings.HasSuffix(before, "about") || strings.HasSuffix(before, "around") ||
			strings.HasSuffix(before, "roughly") || strings.HasSuffix(before, "约") {
			if at < 0 || m[0] < at {
				at = m[0]
			}
			break
		}
	}
	return at
}

// rateRe finds request rates in prose: "150 requests a second", "~60 rps", "2k req/s", "40 calls per
// second", "300 QPS".
var rateRe = regexp.MustCompile(`(?i)(\d+(?:[.,]\d+)*)\s*([km])?\s*(?:rps|qps|tps|req/s|reqs?/sec|requests?/s(?:ec)?|(?:requests?|calls?|queries|reads|writes|lookups|times|hits|executions)\s+(?:a|per|each|/)\s*(?:second|sec|s)\b|/s\b|per second|次/秒|每秒)`)

// rangeRURe finds charges, with ranges: "~3 RU", "6–9 RU", "6 to 9 RUs", "7.2 request units".
var rangeRURe = regexp.MustCompile(`(?i)(\d+(?:\.\d+)?)(?:\s*(?:-|–|—|to)\s*(\d+(?:\.\d+)?))?\s*(?:rus?|request units?)\b`)

// textPart is a paragraph of prose and its line.
type textPart struct {
	text string
	line int
}

// figures reads the rates and the charge of a pattern from its text, each with a TODO quoting the
// words it came from. A charge the text says was measured is kept as the measurement.
func (b *builder) figures(r *row, parts ...textPart) {
	var est, meas float64
	var estNote, measNote string
	for _, p := range parts {
		b.rates(r, norm(p.text), p.line)
		for _, sent := range sentences(norm(p.text)) {
			b.charges(sent, p.line, &est, &meas, &estNote, &measNote)
		}
	}
	switch {
	case est > 0:
		r.ruV, r.ruNote = est, "charge from "+estNote
		if meas > 0 {
			r.ruNote += "; measured " + strconv.FormatFloat(meas, 'f', -1, 64) + " RU as the document says (" + measNote + "): kept as estimate.measured, shown beside the model's figure"
		}
	case meas > 0:
		r.ruV, r.ruNote = meas, "charge from "+measNote+", which the document says was measured: it is the estimate and, as estimate.measured, shown beside the model's figure"
	}
	r.measured = meas
}

// rates reads the request rates of one paragraph of a pattern's text (pickRates), filling what an
// earlier paragraph did not give.
func (b *builder) rates(r *row, t string, line int) {
	rs := pickRates(t, false, fmt.Sprintf("%s line %d", b.mdName(), line))
	if rs.avg == 0 && rs.peak == 0 && rs.one == 0 {
		return
	}
	if r.rateRead && (r.rateAvg > 0 || r.rateOne > 0) && r.ratePeak > 0 {
		return
	}
	if !r.rateRead {
		r.rateRead = true
		r.rateAvg, r.ratePeak, r.rateOne = rs.avg, rs.peak, rs.one
		r.rateNotes = append(r.rateNotes, rs.notes...)
		r.rateTodos = append(r.rateTodos, rs.todos...)
		return
	}
	// A later paragraph completes what the first gave.
	if r.ratePeak == 0 && rs.peak > 0 {
		r.ratePeak = rs.peak
		r.rateNotes = append(r.rateNotes, rs.notes...)
	}
	if r.rateAvg == 0 && r.rateOne == 0 && (rs.avg > 0 || rs.one > 0) {
		r.rateAvg, r.rateOne = rs.avg, rs.one
		r.rateNotes = append(r.rateNotes, rs.notes...)
		r.rateTodos = append(r.rateTodos, rs.todos...)
	}
}

// charges reads the charges of one sentence: the first is the estimate; one whose sentence says it was
// measured is the designer's measurement.
func (b *builder) charges(sent string, line int, est, meas *float64, estNote, measNote *string) {
	for _, m := range rangeRURe.FindAllStringSubmatchIndex(sent, -1) {
		rest := strings.TrimSpace(sent[m[1]:])
		if strings.HasPrefix(rest, "/s") || strings.HasPrefix(rest, "/ s") || strings.HasPrefix(rest, "per second") || strings.HasPrefix(rest, "/sec") {
			continue
		}
		lo, _ := strconv.ParseFloat(sent[m[2]:m[3]], 64)
		v, label := lo, ""
		if m[4] >= 0 {
			if hi, err := strconv.ParseFloat(sent[m[4]:m[5]], 64); err == nil && hi > lo {
				v = (lo + hi) / 2
				label = fmt.Sprintf("; the range %s–%s RU: its midpoint", sent[m[2]:m[3]], sent[m[4]:m[5]])
			}
		}
		if v <= 0 || v > 1e6 {
			continue
		}
		quote := fmt.Sprintf("%q (%s line %d)%s", excerpt(window(sent, m[0]-40, m[1]+25), 90), b.mdName(), line, label)
		if measuredRe.MatchString(sent) {
			if *meas == 0 {
				*meas, *measNote = v, quote
			}
		} else if *est == 0 {
			*est, *estNote = v, quote
		}
	}
}

// window is s[from:to] widened to whole runes and clipped to s.
func window(s string, from, to int) string {
	from, to = max(0, from), min(len(s), to)
	for from > 0 && !utf8.RuneStart(s[from]) {
		from--
	}
	for to < len(s) && !utf8.RuneStart(s[to]) {
		to++
	}
	if from > 0 {
		// Start at a word.
		if i := strings.IndexByte(s[from:to], ' '); i >= 0 && i < 12 {
			from += i + 1
		}
	}
	return strings.TrimSpace(s[from:to])
}

// measuredRe: words saying a charge was measured rather than estimated.
var measuredRe = regexp.MustCompile(`(?i)\b(measured|in our tests|we tested|observed|we saw|we see|benchmark(?:ed)?|the portal (?:shows|showed)|diagnostics|load test|in testing|实测|测得)`)

// proseOps finds sentences that name an operation on a container or document type together with a
// charge or a rate ("each checkout costs ~20 RU: a cart replace plus an order create"), outside the
// pattern tables and the SQL lead-ins. Several operations on one container become a transactional
// batch; on several containers, one pattern each.
func (b *builder) proseOps(table []*row) []*row {
	var out []*row
	for _, s := range b.md.sections {
		if tableSection(s) && len(table) > 0 {
			continue
		}
		for i, bl := range s.blocks {
			if bl.kind != blockPara && bl.kind != blockItem || bl.text == "" {
				continue
			}
			if i+1 < len(s.blocks) && s.blocks[i+1].kind == blockCode || len(bl.code) > 0 && isSelect(strings.Join(bl.code, " ")) {
				continue // a SQL lead-in
			}
			for _, sent := range sentences(bl.text) {
				t := norm(sent)
				if len(rangeRURe.FindStringIndex(t)) == 0 && len(rateRe.FindStringIndex(t)) == 0 {
					continue
				}
				ops := b.opsIn(sent)
				if len(ops) == 0 {
					continue
				}
				name := leadName(sent)
				if name == "" {
					name = excerpt(sent, 60)
				}
				cite := fmt.Sprintf("drafted from the sentence at %s line %d: %q", b.mdName(), bl.line, excerpt(sent, 100))
				same := true
				for _, o := range ops[1:] {
					same = same && o.cont == ops[0].cont
				}
				switch {
				case len(ops) == 1 || same:
					desc := ops[0].op
					if len(ops) > 1 {
						var parts []string
						for _, o := range ops {
							parts = append(parts, o.text)
						}
						desc = "transactional batch: " + strings.Join(parts, ", ")
					} else {
						desc += " " + sent
					}
					r := &row{desc: name, ops: desc, conts: ops[0].cont, line: bl.line}
					r.extra2 = append(r.extra2, cite)
					if len(ops) > 1 {
						r.extra2 = append(r.extra2, "several operations on one container in one step: drafted as a transactional batch; if they are separate requests, split it")
					}
					b.figures(r, textPart{sent, bl.line})
					out = append(out, r)
				default:
					for _, o := range ops {
						r := &row{desc: name + ": " + o.text, ops: o.op + " " + o.text, conts: o.cont, line: bl.line}
						r.extra2 = append(r.extra2, cite, "one of several operations the sentence names; its figures are for the whole step, so each part's charge is the reference figure: set it")
						b.figures(r, textPart{sent, bl.line})
						r.ruV, r.measured, r.ruNote = 0, 0, ""
						out = append(out, r)
					}
				}
				b.used[s] = true
			}
		}
	}
	return out
}

// proseFigure: a text with a charge or a rate and an operation word, which proseOps reads.
func proseFigure(text string) bool {
	t := norm(text)
	if rangeRURe.FindStringIndex(t) == nil && rateRe.FindStringIndex(t) == nil {
		return false
	}
	for _, w := range opWords {
		if strings.Contains(t, w.word) {
			return true
		}
	}
	return false
}

// sentences splits a paragraph at sentence ends.
func sentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		if (text[i] == '.' || text[i] == '!' || text[i] == '?') && (i+1 == len(text) || text[i+1] == ' ') && !(i > 0 && text[i-1] >= '0' && text[i-1] <= '9' && i+1 < len(text) && i+2 < len(text) && text[i+2] >= '0' && text[i+2] <= '9') {
			out = append(out, strings.TrimSpace(text[start:i+1]))
			start = i + 1
		}
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

type proseOp struct {
	op, text, cont string
}

// opWords maps the words of an operation to the words opOf reads.
var opWords = []struct{ word, op string }{
	{"point read", "point read"}, {"point-read", "point read"}, {"upsert", "upsert"}, {"replace", "replace"},
	{"patch", "patch"}, {"delete", "delete"}, {"create", "create"}, {"insert", "create"},
	{"transactional batch", "transactional batch"}, {"read of", "point read"},
}

// opsIn lists the operations a sentence names, each with the container it names (by its name or a
// document type's), in order; an operation without a container is not one.
func (b *builder) opsIn(t string) []proseOp {
	parts := splitClauses(t)
	var out []proseOp
	for _, orig := range parts {
		p := norm(orig)
		op := ""
		for _, w := range opWords {
			ing := strings.TrimSuffix(w.word, "e") + "ing"
			if wordIndex(p, w.word) >= 0 || w.word != "point read" && (wordIndex(p, w.word+"s") >= 0 || wordIndex(p, w.word+"es") >= 0 || wordIndex(p, ing) >= 0) {
				op = w.op
				break
			}
		}
		if op == "" {
			continue
		}
		cont := ""
		if c := b.mentioned(p); c != nil {
			cont = c.name
		} else if ci := b.containerByType(p); ci >= 0 {
			cont = b.d.Containers[ci].Name
		}
		if cont == "" && len(out) == 0 {
			// "patching /status and /publishedAt on an article": the container is in a later clause.
			rest := norm(t[min(len(t), strings.Index(t, orig)+len(orig)):])
			if c := b.mentioned(rest); c != nil {
				cont = c.name
			} else if ci := b.containerByType(rest); ci >= 0 {
				cont = b.d.Containers[ci].Name
			}
		}
		if cont == "" {
			continue
		}
		out = append(out, proseOp{op: op, text: strings.TrimSpace(orig), cont: cont})
	}
	return out
}
