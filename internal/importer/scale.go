package importer

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
)

// What a team writes about size and shape outside the requirements' template: a scale table (documents
// per type now and in a year), per-parent counts in a sentence ("about 30 members a guild (max 100)",
// "a guild has about 6 channels") and the SDK the backend uses. The modeling prompt asks for each
// (shared/seeds/001: "Scale: … total volume/size of Documents … for top Entities", "User → Orders:
// 1:Many (avg 5 orders per user, max 1000)"); teams write them in these shapes.

// readScaleTables reads the tables whose first column names entities and whose other columns hold
// counts ("Documents at launch", "In a year"): the column of the furthest horizon is the production
// count, the nearest the seeded proportions.
func (b *builder) readScaleTables(doc *mdDoc, file string) {
	for _, s := range doc.sections {
		for _, bl := range s.blocks {
			if bl.kind != blockTable || len(bl.rows) < 2 || len(bl.rows[0]) < 2 {
				continue
			}
			h0 := norm(bl.rows[0][0].text)
			if !hasAny(h0, "type", "entity", "document", "item", "collection", "类型", "实体", "文档") {
				continue
			}
			if tableSection(s) {
				continue
			}
			var cols []int // count columns, in order
			for ci, h := range bl.rows[0][1:] {
				t := norm(h.text)
				if hasAny(t, "size", "kb", "bytes", "gb", "大小", "rps", "ru", "rate") {
					continue
				}
				if hasAny(t, "count", "documents", "docs", "items", "launch", "now", "today", "year", "month", "volume", "total", "production",
					"数量", "文档数", "一年", "上线", "当前") {
					cols = append(cols, ci+1)
				}
			}
			if len(cols) == 0 {
				continue
			}
			prod, now := cols[len(cols)-1], cols[0]
			for _, ci := range cols {
				t := norm(bl.rows[0][ci].text)
				if hasAny(t, "year", "production", "一年", "target", "12 month") {
					prod = ci
				}
			}
			read := 0
			for ri, row := range bl.rows[1:] {
				if len(row) <= prod || row[0].text == "" {
					continue
				}
				w := identifier(strings.Trim(row[0].text, "`* "), "")
				if w == "" {
					continue
				}
				k := strings.ToLower(singular(w))
				line := bl.line + ri + 2
				qs := quantities(row[prod].text)
				if len(qs) == 0 || qs[0].v < 1 {
					continue
				}
				b.scale[k] = qs[0].v
				b.scaleFrom[k] = fmt.Sprintf("the scale table's %q column: %s (%s line %d)", bl.rows[0][prod].text, excerpt(row[prod].text, 20), file, line)
				if now != prod && len(row) > now {
					if qn := quantities(row[now].text); len(qn) > 0 && qn[0].v >= 1 {
						b.scaleNow[k] = qn[0].v
					}
				}
				read++
			}
			if read > 0 && doc == b.md {
				b.used[s] = true
			}
		}
	}
}

// readScaleLines reads a data model's own scale line ("Scale: 12M parcels in the first year, 4M at
// go-live"), as the requirements' is read, unless the requirements or a table gave the figures.
func (b *builder) readScaleLines() {
	if len(b.scale) > 0 {
		return
	}
	save := b.o.RequirementsFile
	b.o.RequirementsFile = b.mdName() // readScale cites the requirements' name
	defer func() { b.o.RequirementsFile = save }()
	for _, s := range b.md.sections {
		for _, bl := range s.blocks {
			if (bl.kind == blockItem || bl.kind == blockPara) && hasAny(norm(bl.label), "scale", "规模", "volume", "数据量") {
				n := len(b.scale)
				for _, sent := range sentences(bl.value) {
					if perParentRe.MatchString(sent) || hasRe.MatchString(sent) {
						continue // "a parcel gets about 8 scan events" is a count per parent
					}
					b.readScale(sent, bl.line)
				}
				if len(b.scale) > n {
					b.used[s] = true
				}
			}
		}
	}
}

// horizonRe reads a count with its horizon in a sentence: "6M members today", "plan for 9M members
// within a year", "1.5M articles by next year".
var horizonRe = regexp.MustCompile(`(?i)(\d+(?:,\d{3})*(?:\.\d+)?\s*[kmb]?)\s+([a-z][a-z-]+)\s+(?:[a-z]+\s+){0,2}?(today|now|at launch|at go-live|currently|within a year|in a year|next year|in 12 months|within 12 months|by year end|in the first year|after a year|a year from now|by next year)\b`)

// readScaleSentences reads counts with a horizon from the data model's prose when nothing else gave
// the scale: the furthest horizon is production, "today" the seeded proportions.
func (b *builder) readScaleSentences() {
	if len(b.scale) > 0 {
		return
	}
	for _, s := range b.md.sections {
		for _, bl := range s.blocks {
			if bl.kind != blockItem && bl.kind != blockPara || bl.text == "" {
				continue
			}
			for _, sent := range sentences(bl.text) {
				for _, m := range horizonRe.FindAllStringSubmatch(sent, -1) {
					qs := quantities(m[1])
					w := strings.ToLower(singular(m[2]))
					if len(qs) == 0 || qs[0].v < 1 || !isIdent(w) || len(w) < 3 {
						continue
					}
					h := strings.ToLower(m[3])
					if hasAny(h, "today", "now", "launch", "go-live", "currently") {
						b.scaleNow[w] = qs[0].v
						if _, ok := b.scale[w]; ok {
							continue
						}
					}
					b.scale[w] = qs[0].v
					b.scaleFrom[w] = fmt.Sprintf("the sentence %q (%s line %d)", excerpt(sent, 100), b.mdName(), bl.line)
					b.used[s] = true
				}
			}
		}
	}
	for k, v := range b.scaleNow {
		if b.scale[k] == v {
			delete(b.scaleNow, k) // only one horizon: no proportions of its own
		}
	}
}

// perParentRes read per-parent counts in prose: "about 30 members a guild (max 100)", "~6 channels per
// guild", "a guild has about 6 channels, at most 20", "each order holds up to 50 lines".
var (
	perParentRe = regexp.MustCompile(`(?i)(?:about|around|roughly|~|≈|avg|average|typically|on average)?\s*(\d+(?:,\d{3})*(?:\.\d+)?)\s+([a-z][a-z-]*?)s?\s+(?:a|per|each|in a|in each|for each|for every|every)\s+([a-z][a-z-]*)\b`)
	hasRe       = regexp.MustCompile(`(?i)\b(?:a|an|each|every|one|the average|the typical)\s+([a-z][a-z-]*)\s+(?:has|holds|keeps|gets|contains|owns|carries)\s+(?:about|around|roughly|~|≈|on average|typically|up to)?\s*(\d+(?:,\d{3})*(?:\.\d+)?)\s+([a-z][a-z-]*?)s?\b`)
	perMaxRe    = regexp.MustCompile(`(?i)(?:max(?:imum)?|at most|up to|no more than|capped at)\s*:?\s*(\d+(?:,\d{3})*)`)
)

// thousandsRe restores a thousands separator the clause split turned into ";".
var thousandsRe = regexp.MustCompile(`(\d);(\d{3})`)

// timeWords are nouns after "a"/"per" that make a figure a rate, not a count per parent.
var timeWords = map[string]bool{"second": true, "sec": true, "minute": true, "min": true, "hour": true, "day": true, "week": true, "month": true, "year": true, "request": true, "query": true, "call": true}

// readPerParent reads per-parent counts from the prose of doc into relations.
func (b *builder) readPerParent(doc *mdDoc, file string) {
	for _, s := range doc.sections {
		for _, bl := range s.blocks {
			if bl.kind != blockPara && bl.kind != blockItem || bl.text == "" {
				continue
			}
			for _, sent := range sentences(bl.text) {
				b.perParentSentence(sent, file, bl.line, s, doc)
			}
		}
	}
}

func (b *builder) perParentSentence(sent, file string, line int, s *section, doc *mdDoc) {
	if !strings.ContainsAny(sent, "0123456789") {
		return
	}
	t := strings.ReplaceAll(sent, ",", ";")
	t = thousandsRe.ReplaceAllString(t, "$1$2")
	add := func(parent, child, num string, rest string) {
		parent, child = strings.ToLower(singular(parent)), strings.ToLower(singular(child))
		if timeWords[parent] || parent == child || child == "ru" || child == "rps" || child == "kb" || child == "gb" {
			return
		}
		qs := quantities(num)
		if len(qs) == 0 || qs[0].v <= 0 {
			return
		}
		for _, r := range b.rels {
			if r.parent == parent && r.child == child {
				return // the requirements' relationship comes first
			}
		}
		r := relation{parent: parent, child: child, avg: qs[0].v, text: sent, line: line, file: file}
		if m := perMaxRe.FindStringSubmatch(rest); m != nil {
			if q := quantities(m[1]); len(q) > 0 && q[0].v >= r.avg {
				r.max = q[0].v
			}
		}
		if strings.Contains(strings.ToLower(sent[:min(len(sent), strings.Index(strings.ToLower(t), strings.ToLower(num))+1)]), "up to") {
			r.max, r.avg = r.avg, r.avg/2
		}
		b.rels = append(b.rels, r)
		if doc == b.md {
			b.used[s] = true
		}
	}
	for _, m := range perParentRe.FindAllStringSubmatchIndex(t, -1) {
		rest := t[m[1]:min(len(t), m[1]+40)]
		if strings.ContainsAny(t[m[1]:min(len(t), m[1]+1)], "/") {
			continue
		}
		add(t[m[6]:m[7]], t[m[4]:m[5]], t[m[2]:m[3]], rest)
	}
	for _, m := range hasRe.FindAllStringSubmatchIndex(t, -1) {
		rest := t[m[1]:min(len(t), m[1]+40)]
		add(t[m[2]:m[3]], t[m[6]:m[7]], t[m[4]:m[5]], rest)
	}
}

// sdkWords find the SDK a team says the backend uses.
var sdkWords = []struct {
	words []string
	sdk   string
}{
	{[]string{".net sdk", "dotnet sdk", "c# sdk", "microsoft.azure.cosmos", ".net v3 sdk", ".net core sdk"}, design.SDKDotNet},
	{[]string{"java sdk", "azure-cosmos java", "com.azure:azure-cosmos", "spring data", "java v4 sdk"}, design.SDKJava},
	{[]string{"python sdk", "azure-cosmos python", "pip install azure-cosmos", "from azure.cosmos", "import azure.cosmos"}, design.SDKPython},
	{[]string{"javascript sdk", "node.js sdk", "node sdk", "typescript sdk", "@azure/cosmos", "js sdk"}, design.SDKJavaScript},
	{[]string{"go sdk", "azcosmos", "golang sdk"}, design.SDKGo},
}

// readSDK sets app.sdk from the first sentence naming one SDK.
func (b *builder) readSDK() {
	for _, s := range b.md.sections {
		for _, bl := range s.blocks {
			if bl.kind != blockPara && bl.kind != blockItem || bl.text == "" {
				continue
			}
			t := norm(bl.text)
			var found []string
			for _, w := range sdkWords {
				for _, x := range w.words {
					if strings.Contains(t, x) {
						found = append(found, w.sdk)
						break
					}
				}
			}
			if len(found) == 0 {
				continue
			}
			if len(found) > 1 {
				b.headerGap(fmt.Sprintf("%s line %d names several SDKs (%s): app.sdk not set; set the one the backend uses", b.mdName(), bl.line, strings.Join(found, ", ")))
				return
			}
			b.d.App = &design.App{SDK: found[0]}
			said := bl.text
			for _, sent := range sentences(bl.text) {
				if hasAny(norm(sent), "sdk", "microsoft.azure.cosmos", "@azure/cosmos", "azcosmos", "azure-cosmos") {
					said = sent
					break
				}
			}
			b.note("app", "app.sdk from %q (%s line %d)", excerpt(said, 90), b.mdName(), bl.line)
			return
		}
	}
}

// containersNamed lists the containers a text names, by name (whole words), in order of the draft.
func (b *builder) containersNamed(text string) []*contInfo {
	t := strings.ToLower(text)
	var out []*contInfo
	for _, c := range b.conts {
		if wordIndex(t, strings.ToLower(c.name)) >= 0 {
			out = append(out, c)
		}
	}
	return out
}
