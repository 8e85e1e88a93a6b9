package importer

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
)

// relation is one line of the requirements' relationship list: "User → Orders: 1:Many (avg 5 orders
// per user, max 1000)".
type relation struct {
	parent, child string // singular, lower case
	avg, max      float64
	text          string
	line          int
	file          string // where a relation read from prose was written; "" for the requirements' list
}

func (b *builder) readRequirements() {
	for _, s := range b.req.sections {
		for _, bl := range s.blocks {
			if bl.kind != blockItem && bl.kind != blockPara {
				continue
			}
			l := norm(bl.label)
			switch {
			case hasAny(l, "scale", "规模", "volume", "数据量"):
				b.readScale(bl.value, bl.line)
			case strings.Contains(bl.label, "→") || strings.Contains(bl.label, "->"):
				b.readRelation(bl)
			}
		}
	}
}

// readScale reads "10M users, 50M orders, 500 GB total" (at line of the requirements) into counts
// per entity word.
func (b *builder) readScale(text string, line int) {
	for _, q := range quantities(text) {
		after := strings.Fields(strings.Trim(q.after, " .,;:()"))
		if len(after) == 0 {
			continue
		}
		w := strings.Trim(after[0], ".,;:()")
		switch {
		case w == "gb" || w == "tb":
			if b.d.Scale.StorageGB == 0 {
				b.d.Scale.StorageGB = q.v * map[string]float64{"gb": 1, "tb": 1024}[w]
				b.todo("scale", "production storage from the requirements' scale: %s", excerpt(text, 100))
			}
		case isIdent(w) && len(w) > 2:
			k := strings.ToLower(singular(w))
			b.scale[k] = q.v
			b.scaleFrom[k] = fmt.Sprintf("%q (%s line %d)", excerpt(text, 100), b.reqName(), line)
		}
	}
}

// reqName is the requirements file's name, as the drafts' comments cite it.
func (b *builder) reqName() string {
	if b.o.RequirementsFile == "" {
		return "the requirements"
	}
	return filepath.Base(b.o.RequirementsFile)
}

func (b *builder) readRelation(bl *block) {
	label := strings.ReplaceAll(bl.label, "->", "→")
	parts := strings.SplitN(label, "→", 2)
	if len(parts) != 2 {
		return
	}
	r := relation{parent: strings.ToLower(singular(identifier(parts[0], ""))), child: strings.ToLower(singular(identifier(parts[1], ""))),
		text: bl.text, line: bl.line}
	for _, q := range quantities(bl.value) {
		switch {
		case hasAny(q.before, "avg", "average", "平均", "约", "~"):
			r.avg = q.v
		case hasAny(q.before, "max", "最多", "最大", "up to"):
			r.max = q.v
		}
	}
	if r.parent != "" && r.child != "" {
		b.rels = append(b.rels, r)
	}
}

// readProse scans every paragraph, list item and table cell of the data model for RU figures next to
// pattern references ("Pattern #1: point read, 1 RU") and request rates in the hot-partition
// analysis ("Pattern #1 at 500 RPS").
func (b *builder) readProse() {
	b.ruProse = map[string]ruFigure{}
	b.rpsProse = map[string]float64{}
	scan := func(text string, line int) {
		refs := patternRefs(text)
		if len(refs) == 0 {
			return
		}
		for _, f := range ruFigures(text) {
			var ref *patternRef
			for i := range refs {
				if refs[i].pos < f.pos {
					ref = &refs[i]
				}
			}
			if ref == nil && len(refs) == 1 {
				ref = &refs[0]
			}
			if ref == nil {
				continue
			}
			if _, ok := b.ruProse[ref.id]; !ok {
				n := norm(text)
				f.label = fmt.Sprintf("%q at %s line %d", excerpt(n[ref.pos:min(len(n), max(f.pos+len(f.label), ref.pos+20))], 90), b.mdName(), line)
				b.ruProse[ref.id] = f
			}
		}
		for _, q := range quantities(text) {
			if !strings.HasPrefix(strings.TrimSpace(q.after), "rps") && !strings.HasPrefix(strings.TrimSpace(q.after), "qps") {
				continue
			}
			var ref *patternRef
			for i := range refs {
				if refs[i].pos < q.pos {
					ref = &refs[i]
				}
			}
			if ref != nil {
				if _, ok := b.rpsProse[ref.id]; !ok {
					b.rpsProse[ref.id] = q.v
				}
			}
		}
	}
	for _, s := range b.md.sections {
		for _, bl := range s.blocks {
			switch bl.kind {
			case blockPara, blockItem:
				scan(bl.text, bl.line)
			}
		}
	}
	// The hot-partition analysis belongs with the containers it names.
	for _, s := range b.md.sections {
		if !hasAny(norm(s.title), "hot partition", "热分区", "hot spot", "hotspot", "hot key", "hot-key", "skew", "热点") {
			continue
		}
		b.used[s] = true
		for _, bl := range s.blocks {
			if bl.text == "" {
				continue
			}
			cis := b.containersNamed(bl.label)
			if len(cis) == 0 {
				cis = b.containersNamed(bl.text)
			}
			if len(cis) == 0 && len(b.conts) == 1 {
				cis = b.conts
			}
			for _, ci := range cis {
				said := bl.value
				if said == "" || bl.label == "" || b.contNamed(bl.label) != ci {
					said = bl.text
				}
				ci.extra = append(ci.extra, fmt.Sprintf("the hot-partition analysis (line %d) says %q: check that the key fields' cardinality and dist reproduce it", bl.line, excerpt(said, 140)))
			}
			if len(cis) == 0 {
				b.headerGap(fmt.Sprintf("hot-partition analysis (line %d) names no container of this draft: %s", bl.line, excerpt(bl.text, 140)))
			}
		}
	}
}

func (b *builder) contNamed(s string) *contInfo {
	t := strings.ToLower(identifier(s, ""))
	if t == "" {
		return nil
	}
	for _, c := range b.conts {
		if strings.EqualFold(c.name, t) || strings.Contains(t, strings.ToLower(c.name)) {
			return c
		}
	}
	return nil
}

// knownRegions are Azure region display names, enough to count the regions a strategy lists.
var knownRegions = []string{"east us 2", "east us", "west us 3", "west us 2", "west us", "central us", "north central us", "south central us",
	"west central us", "canada central", "canada east", "brazil south", "north europe", "west europe", "uk south", "uk west",
	"france central", "germany west central", "switzerland north", "norway east", "sweden central", "poland central", "italy north",
	"east asia", "southeast asia", "japan east", "japan west", "korea central", "australia east", "australia southeast",
	"central india", "south india", "uae north", "south africa north", "eastus2", "eastus", "westus2", "westus3", "westus",
	"northeurope", "westeurope", "southeastasia", "eastasia", "japaneast", "uksouth", "centralus", "中国东部", "中国北部", "美国东部", "西欧", "东南亚"}

// readAccount reads what applies to the whole account: regions, multi-region writes, consistency,
// total storage and the prices the designer assumed.
func (b *builder) readAccount() {
	for _, s := range b.md.sections {
		t := norm(s.title)
		glob := hasAny(t, "global distribution", "全局分布", "multi-region", "多区域")
		costs := hasAny(t, "cost", "成本", "pricing", "价格", "费用")
		for _, bl := range s.blocks {
			if bl.kind != blockItem && bl.kind != blockPara {
				continue
			}
			l, v := norm(bl.label), norm(bl.value)
			if glob && hasAny(l, "multi-region setup", "region", "区域") {
				n := 0
				rest := v
				for _, r := range knownRegions {
					if strings.Contains(rest, r) {
						n++
						rest = strings.ReplaceAll(rest, r, " ")
					}
				}
				if n > 1 && b.d.Regions == 0 {
					b.d.Regions = n
					b.used[s] = true
					b.todo("regions", "%d regions counted in %q (line %d)", n, excerpt(bl.value, 100), bl.line)
				}
				if hasAny(v, "multi-region write", "multi-master", "多区域写入", "多主") && !hasAny(v, "single-region write", "single write", "单区域写入") && n > 1 {
					b.d.MultiRegionWrites = true
					b.todo("multiRegionWrites", "multi-region writes read from line %d", bl.line)
				}
			}
			if glob && hasAny(l, "consistency", "一致性") && b.d.Consistency == "" {
				if c := consistencyIn(v); c != "" {
					b.d.Consistency = c
					b.used[s] = true
					b.todo("consistency", "account consistency read from %q (line %d); per-operation levels are not mapped", excerpt(bl.value, 100), bl.line)
				}
			}
			b.readPrices(bl, costs, s)
			if hasAny(norm(bl.text), "total data size", "total storage", "总数据量", "数据总量", "总存储") && b.d.Scale.StorageGB == 0 {
				for _, q := range quantities(bl.text) {
					a := strings.TrimSpace(q.after)
					if strings.HasPrefix(a, "gb") || strings.HasPrefix(a, "tb") {
						b.d.Scale.StorageGB = q.v
						if strings.HasPrefix(a, "tb") {
							b.d.Scale.StorageGB *= 1024
						}
						b.todo("scale", "production storage from %q (line %d)", excerpt(bl.text, 100), bl.line)
						break
					}
				}
			}
		}
	}
	if b.d.Regions == 1 {
		b.d.Regions = 0
	}
}

// consistencyIn is the consistency level a sentence states: the level named first ("Session (not
// Strong)" is Session), and none for the template's placeholder list ("Session/Eventual/Strong").
func consistencyIn(v string) string {
	first, level, end := -1, "", 0
	for _, c := range []struct{ word, level string }{{"bounded", "BoundedStaleness"}, {"consistent prefix", "ConsistentPrefix"},
		{"strong", "Strong"}, {"session", "Session"}, {"eventual", "Eventual"}, {"强一致", "Strong"}, {"会话", "Session"}, {"最终", "Eventual"}} {
		if i := strings.Index(v, c.word); i >= 0 && (first < 0 || i < first) {
			first, level, end = i, c.level, i+len(c.word)
		}
	}
	if first >= 0 && strings.HasPrefix(strings.TrimLeft(v[end:], " "), "/") {
		return "" // a list of choices, not a choice
	}
	return level
}

// readPrices reads the prices a cost section assumed: "$0.008/RU per hour", "$0.008 per 100 RU/s per
// hour", "$0.25/GB per month", "2,592,000 seconds per month". The design's pricing block lets plan
// check them against the published rate card.
func (b *builder) readPrices(bl *block, costs bool, s *section) {
	text := norm(bl.text)
	if !strings.Contains(text, "$") && !strings.Contains(text, "usd") && !strings.Contains(text, "美元") && !strings.Contains(text, "seconds") && !strings.Contains(text, "秒") {
		return
	}
	for _, q := range quantities(text) {
		after := strings.TrimSpace(q.after)
		before := strings.TrimSpace(q.before)
		money := strings.HasSuffix(before, "$") || strings.HasPrefix(after, "usd") || strings.HasPrefix(after, "美元")
		p := b.pricing()
		switch {
		case (q.v == 2592000 || q.v == 2628000) && hasAny(after, "second", "秒", "s/month", "sec") && hasAny(text, "month", "月"):
			if p.SecondsPerMonth == 0 {
				p.SecondsPerMonth = q.v
				b.todo("pricing", "month length %s s read from line %d", strconv.FormatFloat(q.v, 'f', -1, 64), bl.line)
			}
		case !money || q.v <= 0 || q.v > 100:
			continue
		case hasAny(after, "/gb", "per gb", "gb/month", "每 gb", "/ gb") || hasAny(before+after, "storage", "存储") && hasAny(after, "gb"):
			if p.StoragePerGBMonth == 0 {
				p.StoragePerGBMonth = q.v
				b.todo("pricing", "storage price $%g/GB-month read from line %d", q.v, bl.line)
			}
		case hasAny(after, "100 ru", "100ru"):
			if hasAny(after+before, "autoscale", "自动") {
				continue
			}
			if p.ManualPer100RUsHour == 0 {
				p.ManualPer100RUsHour = q.v
				b.todo("pricing", "throughput price $%g per 100 RU/s-hour read from line %d", q.v, bl.line)
			}
		case hasAny(after, "/ru", "per ru", "/ ru", "每 ru", "ru/hour", "ru per hour", "/ru/"):
			if hasAny(after+before, "autoscale", "自动") {
				continue
			}
			if p.ManualPerRUHour == 0 {
				p.ManualPerRUHour = q.v
				b.todo("pricing", "throughput price $%g per RU/s-hour read from line %d, as written (lint checks the unit)", q.v, bl.line)
			}
		default:
			continue
		}
		b.used[s] = true
	}
	if p := b.d.Pricing; p != nil && *p == (design.Pricing{}) {
		b.d.Pricing = nil
	}
}

func (b *builder) pricing() *design.Pricing {
	if b.d.Pricing == nil {
		b.d.Pricing = &design.Pricing{}
	}
	return b.d.Pricing
}

// throughputOf rounds figures to what the service accepts: manual in steps of 100 from 400, autoscale
// maximum in steps of 1000 from 1000.
func throughputOf(manual, autoscale int) design.Throughput {
	if autoscale > 0 {
		return design.Throughput{AutoscaleMax: min(roundUp(float64(autoscale), 1000, 1000), 1_000_000)}
	}
	return design.Throughput{Manual: min(roundUp(float64(manual), 100, 400), 1_000_000)}
}

// parseThroughput reads "Autoscale, max 4,000 RU/s", "400 RU/s manual", "Serverless".
func parseThroughput(text string) (design.Throughput, string, bool) {
	t := norm(text)
	if hasAny(t, "serverless", "无服务器") && !hasAny(t, "not serverless", "instead of serverless", "rather than serverless") {
		return design.Throughput{Serverless: true}, "serverless", true
	}
	auto := hasAny(t, "autoscale", "auto-scale", "自动缩放", "自动扩展")
	best := 0.0
	for _, q := range quantities(t) {
		a := strings.TrimSpace(q.after)
		if !strings.HasPrefix(a, "ru") && !hasAny(q.before, "max", "最大") {
			continue
		}
		if strings.HasPrefix(a, "ru") && !strings.HasPrefix(a, "ru/s") && !strings.HasPrefix(a, "rus/s") && !strings.HasPrefix(a, "ru/秒") && !strings.HasPrefix(a, "ru per second") {
			continue
		}
		if q.v > best && q.v <= 1_000_000 {
			best = q.v
		}
	}
	switch {
	case best > 0 && auto:
		return throughputOf(0, int(math.Ceil(best))), fmt.Sprintf("autoscale to %g RU/s", best), true
	case best > 0:
		return throughputOf(int(math.Ceil(best)), 0), fmt.Sprintf("%g RU/s", best), true
	case auto:
		return design.Throughput{AutoscaleMax: 1000}, "autoscale without a maximum", true
	}
	return design.Throughput{}, "", false
}

// parseTTL reads "-1 (on, no default)", "86400 seconds", "24 hours", "30 days", "off".
func parseTTL(text string) (*int, bool) {
	t := norm(text)
	if hasAny(t, "off", "disabled", "none", "关闭", "不启用") && !hasAny(t, "-1") {
		return nil, true
	}
	if strings.Contains(t, "-1") || hasAny(t, "no default", "on,", "enabled", "per-document", "per document", "启用") && len(quantities(t)) == 0 {
		v := -1
		return &v, true
	}
	for _, q := range quantities(t) {
		a := strings.TrimSpace(q.after)
		mult := 1.0
		switch {
		case hasAny(a[:min(len(a), 7)], "day", "天"):
			mult = 86400
		case hasAny(a[:min(len(a), 7)], "hour", "小时", "hr"):
			mult = 3600
		case hasAny(a[:min(len(a), 7)], "min", "分钟"):
			mult = 60
		}
		v := int(q.v * mult)
		if v > 0 && v < 1<<31 {
			return &v, true
		}
	}
	return nil, false
}
