package importer

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
)

// row is one access pattern as the tables give it, merged across the data model's and the
// requirements' tables.
type row struct {
	id                              string
	order                           int
	desc, ops, conts, rps, ru, kind string
	notes, consistency              string
	code                            []string
	extra                           []string
	line                            int
	from                            string
	peakText, avgText               string
	// extra2 are TODOs about how the row was read (prose patterns cite their source lines); ruV is a
	// charge read from prose (ruNote says where) and measured one the document says was measured.
	extra2        []string
	ruV, measured float64
	ruNote        string
	// Rates read from prose (rates): per second; rateOne is a single figure called neither average
	// nor peak. rateNotes say where they came from; rateTodos what a person should check.
	rateRead                   bool
	rateAvg, ratePeak, rateOne float64
	rateNotes, rateTodos       []string
}

// column roles, recognised from header words in English or Chinese.
func columnRole(h string) string {
	h = norm(h)
	switch {
	case hasAny(h, "cosmos db operation", "operation", "操作", "api call", "sdk call") || h == "op" || h == "ops":
		return "ops"
	case hasAny(h, "peak", "峰值") && hasAny(h, "rps", "qps", "rate", "请求", "/s"):
		if hasAny(h, "avg", "average", "平均") {
			return "rps"
		}
		return "peak"
	case hasAny(h, "avg rps", "average rps", "平均 rps", "平均rps", "avg qps"):
		return "avg"
	case !hasAny(h, "ru", "charge", "cost", "latency", "ms", "size") && (h == "peak" || strings.HasPrefix(h, "peak ") || strings.HasPrefix(h, "peak/") || h == "峰值"):
		return "peak"
	case !hasAny(h, "ru", "charge", "cost", "latency", "ms", "size") && (h == "avg" || h == "average" || h == "mean" || h == "typical" || h == "normal" ||
		strings.HasPrefix(h, "avg ") || strings.HasPrefix(h, "avg/") || strings.HasPrefix(h, "average ") || h == "平均"):
		return "avg"
	case hasAny(h, "rps", "qps", "requests/s", "requests per second", "每秒请求", "请求/秒", "请求速率", "tps"):
		return "rps"
	case hasAny(h, "ru", "request unit", "请求单位"):
		return "ru"
	case hasAny(h, "container", "容器", "index"):
		return "conts"
	case h == "pattern #" || h == "pattern" || h == "#" || h == "id" || h == "ap" || h == "ap #" || h == "no." || h == "编号" ||
		h == "模式" || h == "模式 #" || h == "模式#" || h == "序号" || h == "pattern id" || h == "access pattern #":
		return "id"
	case hasAny(h, "description", "描述", "pattern name", "name", "名称", "access pattern", "访问模式", "use case", "用例") || h == "what":
		return "desc"
	case hasAny(h, "consisten", "一致性"):
		return "consistency"
	case h == "status" || h == "状态":
		return "status"
	case hasAny(h, "attributes", "属性"):
		return "attrs"
	case h == "type" || h == "类型" || h == "read/write" || h == "读/写":
		return "kind"
	case hasAny(h, "note", "备注", "implementation", "实现", "design consideration", "设计考虑"):
		return "notes"
	}
	return ""
}

func (b *builder) collectRows() []*row {
	byID := map[string]*row{}
	var out []*row
	read := func(doc *mdDoc, file string) {
		for _, s := range doc.sections {
			for _, bl := range s.blocks {
				if bl.kind != blockTable || len(bl.rows) < 2 {
					continue
				}
				roles := make([]string, len(bl.rows[0]))
				idCol, useful := -1, 0
				for i, h := range bl.rows[0] {
					roles[i] = columnRole(h.text)
					switch roles[i] {
					case "id":
						if idCol < 0 {
							idCol = i
						} else {
							roles[i] = "desc" // "ID | Pattern | ...": the second is the name
							useful++
						}
					case "ops", "rps", "peak", "avg", "ru", "desc":
						useful++
					}
				}
				if idCol < 0 || useful == 0 {
					continue
				}
				if doc == b.md {
					b.used[s] = true
				}
				for ri, cells := range bl.rows[1:] {
					if idCol >= len(cells) {
						continue
					}
					id := patternID(cells[idCol].text)
					if id == "" {
						continue
					}
					r := byID[id]
					if r == nil {
						r = &row{id: id, order: len(out), line: bl.line + ri + 2, from: file}
						byID[id] = r
						out = append(out, r)
					}
					for ci, c := range cells {
						if ci >= len(roles) || c.text == "" {
							continue
						}
						r.code = append(r.code, c.code...)
						switch roles[ci] {
						case "ops":
							r.ops = orKeep(r.ops, c.text)
						case "desc":
							r.desc = orKeep(r.desc, c.text)
						case "conts":
							r.conts = orKeep(r.conts, c.text)
						case "rps":
							r.rps = orKeep(r.rps, c.text)
						case "peak":
							r.peakText = orKeep(r.peakText, c.text)
						case "avg":
							r.avgText = orKeep(r.avgText, c.text)
						case "ru":
							r.ru = orKeep(r.ru, c.text)
						case "kind":
							r.kind = orKeep(r.kind, c.text)
						case "notes":
							r.notes = strings.TrimSpace(r.notes + " " + c.text)
						case "id":
						case "consistency":
							r.consistency = orKeep(r.consistency, c.text)
						case "status":
						case "attrs":
							r.notes = strings.TrimSpace(r.notes + " attributes: " + c.text)
						default:
							r.extra = append(r.extra, fmt.Sprintf("%s: %s", bl.rows[0][ci].text, excerpt(c.text, 80)))
						}
					}
				}
			}
		}
	}
	read(b.md, b.mdName())
	if b.req != nil {
		read(b.req, b.o.RequirementsFile)
	}
	sort.SliceStable(out, func(i, j int) bool { return idNum(out[i].id) < idNum(out[j].id) })
	return out
}

func idNum(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "AP"))
	return n
}

func orKeep(old, s string) string {
	if old != "" {
		return old
	}
	return s
}

// maxDraftPatterns bounds the patterns of one draft, which keeps it far below the design file's size
// limit whatever the markdown holds (modeling documents have tens).
const maxDraftPatterns = 500

func (b *builder) readPatterns() {
	rows := b.collectRows()
	rows = append(rows, b.proseRows(rows)...)
	if len(rows) > maxDraftPatterns {
		b.headerGap(fmt.Sprintf("access patterns of %s after the first %d were not drafted (a draft holds at most %d): from %q (line %d) on",
			b.mdName(), maxDraftPatterns, maxDraftPatterns, excerpt(rows[maxDraftPatterns].desc, 60), rows[maxDraftPatterns].line))
		rows = rows[:maxDraftPatterns]
	}
	for _, r := range rows {
		b.pattern1(r)
	}
	if len(b.d.AccessPatterns) == 0 {
		// The design needs one pattern to parse; a read of the first type keeps it honest and visible.
		c := &b.d.Containers[0]
		ap := design.AccessPattern{ID: "AP1", Name: "Read one document (placeholder)", Container: c.Name, Op: design.OpRead,
			Sample: c.Documents[0].Type, RPS: design.RPS{Avg: 0}, Estimate: design.Estimate{RU: 1}}
		b.d.AccessPatterns = append(b.d.AccessPatterns, ap)
		b.gap("accessPatterns[0].id", "no access-pattern table was found in %s (a table with a pattern-number column and an operations, RPS or description column): this placeholder keeps the draft readable", b.mdName())
	}
}

type opGuess struct {
	op, why string
}

// opOf reads the operation from the "Cosmos DB Operations" text (and the requirements' Read/Write).
func opOf(r *row, sql string) opGuess {
	t := norm(r.ops)
	if t == "" {
		t = norm(r.desc + " " + r.notes)
	}
	switch {
	case hasAny(t, "change feed", "更改源", "变更源", "stored procedure", "存储过程", "trigger", "触发器"):
		return opGuess{"", "a change feed, stored procedure or trigger is not an operation the validator runs"}
	case hasAny(t, "transactionalbatch", "transactional batch", "batch", "事务批", "批处理", "批量"):
		return opGuess{design.OpBatch, ""}
	case hasAny(t, "patch", "补丁", "修补", "部分更新", "incr"):
		return opGuess{design.OpPatch, ""}
	case hasAny(t, "upsert", "插入或更新", "更新插入"):
		return opGuess{design.OpUpsert, ""}
	case hasAny(t, "replace", "替换"):
		return opGuess{design.OpReplace, ""}
	case hasAny(t, "delete", "删除", "remove"):
		return opGuess{design.OpDelete, ""}
	case hasAny(t, "point read", "point-read", "readitem", "read item", "点读", "点读取", "get by id", "getitem"):
		return opGuess{design.OpRead, ""}
	case sql != "" || hasAny(t, "query", "select", "查询", "sql"):
		return opGuess{design.OpQuery, ""}
	case hasAny(t, "create", "insert", "createitem", "创建", "插入", "新增", "写入", "add "):
		return opGuess{design.OpCreate, ""}
	case hasAny(t, "update", "更新", "modify", "修改"):
		return opGuess{design.OpPatch, "\"update\" drafted as a patch; make it a replace if the whole document is rewritten"}
	case hasAny(t, "read", "读取", "get", "fetch", "获取"):
		return opGuess{design.OpRead, "\"read\" drafted as a point read"}
	}
	k := norm(r.kind)
	switch {
	case hasAny(k, "write", "写"):
		return opGuess{design.OpCreate, "only the requirements' type \"Write\" says what this is: drafted as a create"}
	case hasAny(k, "read", "读"):
		return opGuess{design.OpRead, "only the requirements' type \"Read\" says what this is: drafted as a point read"}
	}
	return opGuess{"", "the operation could not be read from " + strconv.Quote(excerpt(r.ops, 60))}
}

// sqlOf finds the query text: a code span with SELECT, else the text from SELECT on.
func sqlOf(r *row) string {
	for _, c := range r.code {
		if strings.HasPrefix(strings.ToUpper(strings.TrimSpace(c)), "SELECT") {
			return strings.TrimSpace(c)
		}
	}
	for _, t := range []string{r.ops, r.notes, r.desc} {
		if i := strings.Index(strings.ToUpper(t), "SELECT "); i >= 0 {
			return strings.TrimSpace(t[i:])
		}
	}
	return ""
}

func (b *builder) pattern1(r *row) {
	path := fmt.Sprintf("accessPatterns[%d]", len(b.d.AccessPatterns))
	sql := sqlOf(r)
	g := opOf(r, sql)
	name := orWord(r.desc, orWord(r.ops, r.id))
	if g.op == "" {
		text := fmt.Sprintf("%s %q (%s line %d) not drafted: %s. Operations: %q", r.id, excerpt(name, 80), filepathBase(r.from), r.line, g.why, excerpt(r.ops, 100))
		b.unplaced = append(b.unplaced, "TODO(import): "+text)
		b.todos++
		b.gaps = append(b.gaps, Unmapped{Text: text})
		return
	}
	ap := design.AccessPattern{ID: r.id, Name: excerpt(name, 120), Op: g.op}
	if g.why != "" {
		b.todo(path+".op", "%s", g.why)
	}
	// Container.
	ci := b.patternContainer(r)
	how := ""
	switch {
	case ci >= 0:
	case b.served[r.id] != "":
		for i, c := range b.d.Containers {
			if c.Name == b.served[r.id] {
				ci = i
			}
		}
	}
	if ci < 0 {
		ci = b.containerByType(r.desc + " " + r.ops + " " + sql)
		how = "by the document type it mentions"
	}
	if ci < 0 {
		ci = b.containerByField(pathTokens(r.ops+" "+r.notes, r.code), sql)
		how = "by the fields it names"
	}
	if g.op == design.OpQuery && sql != "" {
		given := "the row"
		if how != "" {
			given = "its " + strings.TrimPrefix(strings.TrimPrefix(how, "by "), "the ")
		}
		for _, e := range r.extra2 {
			if strings.HasPrefix(e, "container from ") {
				given = strings.TrimPrefix(e, "container from ")
			}
		}
		if nci, why := b.placeQuery(ci, given, sql); why != "" {
			if nci != ci {
				// The text around the query named another container: that reading is replaced.
				var keep []string
				for _, e := range r.extra2 {
					if !strings.HasPrefix(e, "container from ") {
						keep = append(keep, e)
					}
				}
				r.extra2 = keep
			}
			ci, how = nci, ""
			b.todo(path+".container", "%s", why)
		} else if nci != ci {
			ci = nci
		}
	}
	for _, e := range r.extra2 {
		b.todo(path+".name", "%s", e)
	}
	if ci < 0 {
		ci = 0
		how = "the first container: nothing in the row names one"
	}
	if how != "" && len(b.d.Containers) > 1 {
		b.todo(path+".container", "container chosen %s", how)
	}
	c := &b.d.Containers[ci]
	ap.Container = c.Name
	// The type it acts on.
	t, tWhy := pickType(c, r.desc+" "+r.ops+" "+r.notes, sql)
	if tWhy != "" && len(c.Documents) > 1 {
		b.todo(path+".sample", "%s", tWhy)
	}
	switch ap.Op {
	case design.OpRead, design.OpReplace, design.OpDelete:
		ap.Sample = t.Type
	case design.OpCreate, design.OpUpsert:
		ap.Document = t.Type
		if t.Parent != nil {
			ap.Sample = t.Parent.Type
		}
	case design.OpPatch:
		ap.Sample = t.Type
		ap.Patch = b.patchOps(path, r, t, c)
	case design.OpBatch:
		b.batchOps(path, &ap, r, t, c)
	case design.OpQuery:
		b.query(path, &ap, r, sql, t, c)
	}
	if lvl := consistencyIn(norm(r.consistency)); lvl != "" && (ap.Op == design.OpRead || ap.Op == design.OpQuery) {
		ap.Consistency = lvl
	} else if r.consistency != "" && lvl == "" {
		b.gap(path+".name", "consistency %q not understood", r.consistency)
	}
	b.rpsOf(path, &ap, r)
	b.estimateOf(path, &ap, r)
	for _, e := range r.extra {
		b.gap(path+".name", "column not mapped: %s", e)
	}
	if r.notes != "" {
		b.note(path+".name", "notes: %s", excerpt(r.notes, 150))
	}
	b.d.AccessPatterns = append(b.d.AccessPatterns, ap)
}

func filepathBase(p string) string {
	if i := strings.LastIndexAny(p, "/\\"); i >= 0 {
		return p[i+1:]
	}
	return p
}

func (b *builder) patternContainer(r *row) int {
	t := strings.ToLower(r.conts)
	if t == "" {
		return -1
	}
	best, at := -1, 1<<30
	for i, c := range b.d.Containers {
		if j := strings.Index(t, strings.ToLower(c.Name)); j >= 0 && j < at {
			best, at = i, j
		}
	}
	return best
}

func (b *builder) containerByType(text string) int {
	t := strings.ToLower(text)
	for i, c := range b.d.Containers {
		for _, d := range c.Documents {
			if mentions(t, d.Type) {
				return i
			}
		}
	}
	return -1
}

// containerByField is the container whose types have every field a row names (`/balance`, c.status).
func (b *builder) containerByField(paths []string, sql string) int {
	var names []string
	for _, p := range paths {
		names = append(names, strings.Split(strings.TrimPrefix(p, "/"), "/")[0])
	}
	for _, f := range sqlFilters(sql) {
		names = append(names, f.path[0])
	}
	if len(names) == 0 {
		return -1
	}
	for i, c := range b.d.Containers {
		for _, d := range c.Documents {
			all := true
			for _, n := range names {
				if _, ok := d.Fields.Lookup(n); !ok {
					all = false
				}
			}
			if all {
				return i
			}
		}
	}
	return -1
}

func mentions(lower, typ string) bool {
	ty := strings.ToLower(typ)
	for _, w := range strings.FieldsFunc(lower, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r > 127)
	}) {
		if w == ty || singular(w) == ty || w == strings.ReplaceAll(ty, "-", "") {
			return true
		}
	}
	return false
}

// pickType chooses the document type a pattern acts on: the type its query pins (c.type = 'order'),
// else the first type its text mentions, else the container's first type.
func pickType(c *design.Container, text, sql string) (*design.DocType, string) {
	if sql != "" {
		for _, f := range sqlFilters(sql) {
			if len(f.path) == 1 && hasAny(strings.ToLower(f.path[0]), "type", "kind") && f.lit != "" {
				for i := range c.Documents {
					if strings.EqualFold(c.Documents[i].Type, identifier(f.lit, "-")) {
						return &c.Documents[i], ""
					}
				}
			}
		}
	}
	lower := strings.ToLower(text + " " + sql)
	for _, zh := range sortedKeys(zhNouns) {
		if strings.Contains(lower, zh) {
			lower += " " + zhNouns[zh]
		}
	}
	bestI, bestAt := -1, 1<<30
	for i := range c.Documents {
		ty := strings.ToLower(c.Documents[i].Type)
		for _, w := range []string{ty, ty + "s", ty + "es", strings.TrimSuffix(ty, "y") + "ies"} {
			if j := wordIndex(lower, w); j >= 0 && j < bestAt {
				bestI, bestAt = i, j
			}
		}
	}
	if bestI >= 0 {
		return &c.Documents[bestI], ""
	}
	return &c.Documents[0], fmt.Sprintf("no document type named in the row; %q is a guess", c.Documents[0].Type)
}

func wordIndex(s, w string) int {
	for off := 0; ; {
		j := strings.Index(s[off:], w)
		if j < 0 {
			return -1
		}
		j += off
		before := j == 0 || !isWordByte(s[j-1])
		after := j+len(w) >= len(s) || !isWordByte(s[j+len(w)])
		if before && after {
			return j
		}
		off = j + 1
	}
}

func (b *builder) rpsOf(path string, ap *design.AccessPattern, r *row) {
	var avg, peak float64
	var notes, todos []string
	where := fmt.Sprintf("%s line %d", filepathBase(orWord(r.from, b.mdName())), r.line)
	if r.rateRead {
		avg, peak = r.rateAvg, r.ratePeak
		if avg == 0 {
			avg = r.rateOne
		}
		notes, todos = r.rateNotes, r.rateTodos
	} else {
		// Table cells: a column per figure ("Avg RPS", "Peak RPS") or one rate column.
		cell := func(text, label string) rateSet {
			t := norm(text)
			if labelOf(t, false) == "" {
				t += " " + label
			}
			return pickRates(t, true, where)
		}
		if r.avgText != "" {
			rs := cell(r.avgText, "avg")
			avg = rs.avg
			notes, todos = append(notes, rs.notes...), append(todos, rs.todos...)
		}
		if r.peakText != "" {
			rs := cell(r.peakText, "peak")
			peak = rs.peak
			if peak == 0 && avg == 0 {
				avg = rs.avg // a per-day "peak" column: an average, with its TODO
			}
			notes, todos = append(notes, rs.notes...), append(todos, rs.todos...)
		}
		if r.rps != "" && (avg == 0 || peak == 0) {
			rs := pickRates(norm(r.rps), true, where)
			if peak == 0 {
				peak = rs.peak
			}
			switch {
			case avg == 0 && rs.avg > 0:
				avg = rs.avg
			case avg == 0 && rs.one > 0 && peak > 0 && rs.one <= peak:
				avg = rs.one
			case avg == 0 && rs.one > 0:
				avg = rs.one
			}
			notes, todos = append(notes, rs.notes...), append(todos, rs.todos...)
		}
	}
	if avg == 0 && peak == 0 {
		if v, ok := b.rpsProse[r.id]; ok {
			avg = v
			todos = append(todos, fmt.Sprintf("%g RPS read from the prose; no RPS column for this pattern", v))
		}
	}
	switch {
	case avg == 0 && peak == 0:
		b.gap(path+".rps", "no request rate found for %s (%s): 0 keeps it out of capacity figures until you set it", r.id, where)
	case avg == 0:
		avg = peak
		todos = append(todos, "only a peak is given: average set to it")
	}
	if peak < avg {
		peak = avg
	}
	ap.RPS = design.RPS{Avg: round4(avg), Peak: round4(peak)}
	for _, n := range notes {
		b.note(path+".rps", "%s", n)
	}
	for _, t := range todos {
		b.todo(path+".rps", "%s", t)
	}
}

// round4 rounds a rate to four significant figures (a per-day rate is a small fraction a second).
func round4(v float64) float64 {
	f, _ := strconv.ParseFloat(perSecond(v), 64)
	return f
}

// zhNouns names common entities in Chinese, so that a Chinese pattern row finds English type names.
var zhNouns = map[string]string{"订单": "order", "顾客": "customer", "客户": "customer", "用户": "user", "产品": "product", "商品": "product",
	"评论": "review comment", "设备": "device", "会话": "session", "事件": "event", "帖子": "post", "玩家": "player", "分数": "score",
	"租户": "tenant", "消息": "message", "支付": "payment", "付款": "payment", "餐厅": "restaurant", "菜单": "menu", "读数": "reading"}

// referenceRU are the seed prompt's own reference charges for 1 KB documents (point read 1, query
// 2–5, write 5, update 7, delete 5), used only when the markdown gives no figure.
var referenceRU = map[string]float64{design.OpRead: 1, design.OpQuery: 3, design.OpCreate: 5, design.OpUpsert: 5,
	design.OpReplace: 7, design.OpPatch: 7, design.OpDelete: 5, design.OpBatch: 10}

func (b *builder) estimateOf(path string, ap *design.AccessPattern, r *row) {
	if r.ruV > 0 {
		ap.Estimate.RU = r.ruV
		ap.Estimate.Measured = r.measured
		b.todo(path+".estimate", "%s", r.ruNote)
	} else if fs := ruFigures(r.ru); len(fs) > 0 {
		ap.Estimate.RU = fs[0].v
	} else if qs := quantities(r.ru); len(qs) > 0 && qs[0].v > 0 {
		ap.Estimate.RU = qs[0].v
		if strings.ContainsAny(r.ru, "-–~") && len(qs) > 1 {
			ap.Estimate.RU = max(qs[0].v, qs[1].v)
			b.todo(path+".estimate", "a range (%q): the upper figure is the estimate", r.ru)
		}
	} else if fs := ruFigures(r.ops + " " + r.notes); len(fs) > 0 {
		ap.Estimate.RU = fs[0].v
		b.todo(path+".estimate", "read from the row's text (%q)", fs[0].label)
	} else if f, ok := b.ruProse[r.id]; ok {
		ap.Estimate.RU = f.v
		b.todo(path+".estimate", "read from the prose: %s", f.label)
		if f.rng {
			b.todo(path+".estimate", "a range: the upper figure is the estimate")
		}
	} else {
		ap.Estimate.RU = referenceRU[ap.Op]
		b.gap(path+".estimate", "no RU figure for %s in the markdown (%s line %d): %g RU is the modeling prompt's reference charge for a 1 KB %s; put your own figure here",
			r.id, filepathBase(orWord(r.from, b.mdName())), r.line, ap.Estimate.RU, ap.Op)
	}
	if ap.Estimate.RU <= 0 || ap.Estimate.RU > 1e6 {
		ap.Estimate.RU = referenceRU[ap.Op]
	}
}

func (b *builder) patchOps(path string, r *row, t *design.DocType, c *design.Container) []design.PatchOp {
	ops, unknown := patchFromText(r.ops+" "+r.notes, r.code, t, c)
	if len(ops) > 0 {
		b.todo(path+".patch", "patch operations read from the row (%s line %d); check each value", filepathBase(r.from), r.line)
		if len(unknown) > 0 {
			addAppFields(t, unknown)
			b.gap(path+".patch", "%s: not a field of the examples of %q (added to its appFields); the value is a guess", strings.Join(unknown, ", "), t.Type)
		}
		return ops
	}
	keys := keyNames(c)
	text := norm(r.ops + " " + r.notes)
	// Nothing named: change the first field that looks like state.
	for _, nf := range t.Fields {
		if keys[nf.Name] || nf.Field.Copy != "" || nf.Field.Template != "" || nf.Name == "type" {
			continue
		}
		if nf.Field.OneOf != nil || nf.Field.Gen == "isoTime" || nf.Field.Gen == "int" || nf.Field.Gen == "money" || nf.Field.Gen == "decimal" {
			f := nf.Field
			ops = append(ops, patchFor(nf.Name, &f, text, ""))
			b.gap(path+".patch", "the row names no path: patching %s is a guess", nf.Name)
			return ops
		}
	}
	b.gap(path+".patch", "the row names no path: setting /updatedAt (added to the type's appFields) is a placeholder")
	addAppFields(t, []string{"/updatedAt"})
	return []design.PatchOp{{Op: "set", Path: "/updatedAt", Value: "{now}"}}
}

// addAppFields records paths the application writes that the examples do not show, so that lint and
// the seeder know them.
func addAppFields(t *design.DocType, paths []string) {
	for _, p := range paths {
		if !slicesContains(t.AppFields, p) {
			t.AppFields = append(t.AppFields, p)
		}
	}
}

func keyNames(c *design.Container) map[string]bool {
	keys := map[string]bool{}
	for _, k := range c.PartitionKey {
		keys[strings.Split(strings.TrimPrefix(k, "/"), "/")[0]] = true
	}
	return keys
}

// patchFromText reads every path a patch description names, each with the operation the word before
// it says ("set /status, set /paidAt", "increment /soldCount", "remove /hold"). A path the examples do
// not have is kept (a field set later in the document's life, like paidAt) and listed in unknown.
func patchFromText(text string, code []string, t *design.DocType, c *design.Container) (ops []design.PatchOp, unknown []string) {
	keys := keyNames(c)
	lower := norm(text)
	prev := 0
	seen := map[string]bool{}
	for _, p := range pathTokens(text, code) {
		name := strings.Split(strings.TrimPrefix(p, "/"), "/")[0]
		if p == "/*" || keys[name] || name == "id" || seen[p] || len(ops) >= design.MaxPatchOps || !placeholderName(name) {
			continue
		}
		seen[p] = true
		// The words between the previous path and this one say what is done to it.
		at := strings.Index(lower[prev:], strings.ToLower(p))
		verb := ""
		if at >= 0 {
			verb = lower[prev : prev+at]
			prev += at + len(p)
		}
		f, ok := t.Fields.Lookup(name)
		if !ok {
			unknown = append(unknown, p)
			f = nil
		}
		ops = append(ops, patchFor(name, f, lower, verb))
	}
	return ops, unknown
}

// patchFor drafts one patch operation on a top-level field: the verb before the path decides the
// operation when it names one; else the field's generator does (numbers are incremented, times set to
// now, enums set to a value). f is nil for a field the examples do not have.
func patchFor(name string, f *design.Field, text, verb string) design.PatchOp {
	p := "/" + name
	var fl design.Field
	if f != nil {
		fl = *f
	}
	numeric := fl.Gen == "int" || fl.Gen == "decimal" || fl.Gen == "money"
	timeLike := fl.Gen == "isoTime" || f == nil && (strings.HasSuffix(name, "At") || nameHas(name, "date", "time", "timestamp"))
	v := strings.TrimSpace(verb)
	switch {
	case hasAny(v, "remove", "delete", "unset", "删除", "移除"):
		return design.PatchOp{Op: "remove", Path: p}
	case hasAny(v, "increment", "incr", "decrement", "递增", "+1", "+="), numeric && !hasAny(v, "set"), f == nil && hasAny(text, "increment", "incr") && nameHas(name, "count", "total", "num", "qty", "quantity"):
		by := 1
		if hasAny(v, "decrement") {
			by = -1
		}
		return design.PatchOp{Op: "incr", Path: p, Value: by}
	case timeLike:
		return design.PatchOp{Op: "set", Path: p, Value: "{now}"}
	case len(fl.OneOf) > 0:
		return design.PatchOp{Op: "set", Path: p, Value: fl.OneOf[len(fl.OneOf)-1]}
	case fl.Array != nil:
		if hasAny(v, "add", "append", "push") {
			return design.PatchOp{Op: "add", Path: p + "/-", Value: "TODO"}
		}
		return design.PatchOp{Op: "set", Path: p, Value: []any{}}
	case f == nil || !placeholderName(name):
		return design.PatchOp{Op: "set", Path: p, Value: "TODO"}
	}
	return design.PatchOp{Op: "set", Path: p, Value: "{" + name + "}"}
}

// batchOps drafts a transactional batch from its description: each clause ("delete the hold",
// "create the ticket", "increment the event's /soldCount") becomes one operation on the type it names,
// in the sampled partition. Without clauses it is one create of the row's type.
func (b *builder) batchOps(path string, ap *design.AccessPattern, r *row, t *design.DocType, c *design.Container) {
	// A batch works in one logical partition: sample the partition's owner.
	owner := t
	if t.Parent != nil {
		if p := c.DocType(t.Parent.Type); p != nil {
			owner = p
		}
	}
	ap.Sample = owner.Type
	text := r.ops + " " + r.notes
	if i := strings.Index(norm(text), "batch"); i >= 0 {
		text = text[i+len("batch"):]
	}
	ops, guessed := batchFromText(text, r.code, t, c)
	if len(ops) > 0 {
		ap.Batch = ops
		onCopy := ""
		for _, o := range ops {
			if o.ItemID != "" {
				onCopy = fmt.Sprintf("; ids resolve against the sampled %q, so reads, deletes and patches act on a copy of it", owner.Type)
			}
		}
		b.todo(path+".batch", "operations read from the row (%s line %d)%s", filepathBase(r.from), r.line, onCopy)
		for _, g := range guessed {
			b.todo(path+".batch", "%s", g)
		}
		return
	}
	n := 1
	for _, q := range quantities(r.ops) {
		if q.v >= 2 && q.v <= 100 && q.v == float64(int(q.v)) {
			n = int(q.v)
			break
		}
	}
	ap.Batch = []design.BatchOp{{Op: design.OpCreate, Document: t.Type, Repeat: n}}
	b.todo(path+".batch", "drafted as %d create(s) of %q in the sampled partition; list the batch's real operations", n, t.Type)
}

// splitClauses splits a description of several operations at commas, semicolons and joining words
// ("plus", "and then", "and", "followed by"), keeping the text's case (paths are case-sensitive).
func splitClauses(text string) []string {
	clauses := strings.FieldsFunc(text, func(r rune) bool {
		return r == ',' || r == ';' || r == ':' || r == '、' || r == '+' || r == '；' || r == '，' || r == '：'
	})
	var parts []string
	for _, cl := range clauses {
		for _, sep := range []string{" and then ", " then ", " and ", " plus ", " followed by ", " And ", " Plus ", "然后", "并且"} {
			cl = strings.ReplaceAll(cl, sep, "\x00")
		}
		parts = append(parts, strings.Split(cl, "\x00")...)
	}
	return parts
}

// batchFromText splits a batch's description into clauses and reads an operation from each.
func batchFromText(text string, code []string, t *design.DocType, c *design.Container) (ops []design.BatchOp, guessed []string) {
	parts := splitClauses(text)
	total := 0
	for _, orig := range parts {
		orig = strings.TrimSpace(orig)
		cl := norm(orig)
		op := ""
		switch {
		case hasAny(cl, "upsert"):
			op = design.OpUpsert
		case hasAny(cl, "create", "insert", "write a", "add a", "add the", "创建", "插入", "新增"):
			op = design.OpCreate
		case hasAny(cl, "replace", "overwrite", "替换"):
			op = design.OpReplace
		case hasAny(cl, "delete", "remove", "删除"):
			op = design.OpDelete
		case hasAny(cl, "increment", "decrement", "patch", "set ", "update", "mark", "递增", "更新", "补丁"):
			op = design.OpPatch
		case hasAny(cl, "read", "get ", "读取"):
			op = design.OpRead
		}
		if op == "" {
			continue
		}
		typ := t
		found := false
		for i := range c.Documents {
			if mentions(cl, c.Documents[i].Type) {
				typ, found = &c.Documents[i], true
				break
			}
		}
		if !found {
			guessed = append(guessed, fmt.Sprintf("%q names no document type of %s; %q is a guess", excerpt(cl, 60), c.Name, typ.Type))
		}
		repeat := 1
		for _, q := range quantities(cl) {
			if q.v >= 2 && q.v <= 100 && q.v == float64(int(q.v)) && !strings.HasPrefix(strings.TrimSpace(q.before), "/") {
				repeat = int(q.v)
				break
			}
		}
		if total += repeat; total > design.MaxBatchOps {
			break
		}
		bo := design.BatchOp{Op: op, Repeat: repeat}
		switch op {
		case design.OpCreate, design.OpUpsert:
			bo.Document = typ.Type
		case design.OpReplace:
			bo.Document, bo.ItemID = typ.Type, "{id}"
		case design.OpRead, design.OpDelete:
			bo.ItemID = "{id}"
		case design.OpPatch:
			bo.ItemID = "{id}"
			var spans []string
			for _, s := range code {
				if strings.Contains(orig, s) {
					spans = append(spans, s)
				}
			}
			p, unknown := patchFromText(orig, spans, typ, c)
			if len(p) == 0 {
				p = []design.PatchOp{{Op: "set", Path: "/updatedAt", Value: "{now}"}}
				addAppFields(typ, []string{"/updatedAt"})
				guessed = append(guessed, fmt.Sprintf("%q names no path: setting /updatedAt (added to %q's appFields) is a placeholder", excerpt(cl, 60), typ.Type))
			}
			if len(unknown) > 0 {
				addAppFields(typ, unknown)
				guessed = append(guessed, fmt.Sprintf("%s: not a field of the examples of %q (added to its appFields); the value is a guess", strings.Join(unknown, ", "), typ.Type))
			}
			bo.Patch = p
		}
		if bo.Repeat == 1 {
			bo.Repeat = 0
		}
		ops = append(ops, bo)
	}
	return ops, guessed
}
