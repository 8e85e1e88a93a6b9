package importer

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
)

// contInfo is what the markdown says about one container.
type contInfo struct {
	name string
	line int
	docs []*object
	// docsLine is where the example documents stand; elided marks an example that says it leaves
	// documents out.
	docsLine   int
	translated map[string]string
	keyPaths   []string
	keyText    string
	keyLine    int
	keyFrom    string
	tpText     string
	tpLine     int
	tp         design.Throughput
	tpSet      bool
	ttl        *int
	ttlText    string
	unique     [][]string
	ix         design.Indexing
	ixSet      bool
	ixNotes    []string
	purpose    string
	consist    string
	typeNames  []string
	extra      []string
}

func (b *builder) readContainers() {
	var cur *contInfo
	curLevel := 0
	for _, s := range b.md.sections {
		t := norm(s.title)
		switch {
		case isContainerSection(s):
			cur = &contInfo{name: b.uniqueName(containerName(s.title)), line: s.line, translated: map[string]string{}}
			curLevel = s.level
			b.conts = append(b.conts, cur)
			b.used[s] = true
			b.readContainerBlocks(cur, s.blocks, false)
		case cur != nil && (s.level > curLevel || hasAny(t, "index", "索引")) && !isPatternSection(t):
			b.used[s] = true
			b.readContainerBlocks(cur, s.blocks, hasAny(t, "index", "索引"))
		default:
			cur = nil
		}
	}
	b.readIaC()
	b.readMentions()
	for _, s := range b.iacUsed {
		b.used[s] = true
	}
}

// readMentions reads the sections no container heading claimed: example documents and indexing
// sentences go to the container the section's title or the sentence before them names ("Ledger
// entries:", "## Tickets").
func (b *builder) readMentions() {
	for _, s := range b.md.sections {
		if b.used[s] || isPatternSection(norm(s.title)) {
			continue
		}
		hint := b.mentioned(s.title)
		for _, bl := range s.blocks {
			switch bl.kind {
			case blockPara, blockItem:
				if h := b.mentioned(bl.text); h != nil {
					hint = h
				}
				if hint != nil && hasAny(norm(bl.text), "index", "索引") && len(indexTokens(bl)) > 0 {
					b.proseIndexing(hint, bl)
					b.used[s] = true
				}
			case blockCode:
				if hint != nil && looksLikeJSON(bl) {
					b.readJSONBlock(hint, bl)
					b.used[s] = true
				}
			}
		}
	}
}

// mentioned is the container a short text names as a word ("Ledger", "ledger's", "tickets").
func (b *builder) mentioned(text string) *contInfo {
	lower := strings.ToLower(text)
	for _, c := range b.conts {
		n := strings.ToLower(c.name)
		for _, w := range []string{n, singular(n), n + "s"} {
			if w != "" && wordIndex(lower, w) >= 0 {
				return c
			}
		}
	}
	return nil
}

func isPatternSection(t string) bool {
	return hasAny(t, "access pattern", "访问模式", "hot partition", "热分区", "cost", "成本", "trade-off", "权衡", "global", "全局")
}

// isContainerSection: a heading that names a container ("### UserOrders Container", "### 订单容器")
// with content that describes one, or any section with both a partition key and example documents.
func isContainerSection(s *section) bool {
	t := norm(s.title)
	hasKey, hasDocs := false, false
	for _, bl := range s.blocks {
		if isKeyLabel(norm(bl.label)) {
			hasKey = true
		}
		if bl.kind == blockCode && looksLikeJSON(bl) {
			hasDocs = true
		}
	}
	named := hasAny(t, "container", "容器") && !hasAny(t, "container design", "容器设计", "consolidation", "合并", "analysis", "分析",
		"multi-container", "多容器", "containers/", "overview")
	return named && (hasKey || hasDocs || s.level >= 3) || hasKey && hasDocs
}

func isKeyLabel(l string) bool {
	return hasAny(l, "partition key", "分区键", "partitionkey", "partition-key")
}

func looksLikeJSON(bl *block) bool {
	switch bl.lang {
	case "json", "jsonc", "json5", "javascript", "js":
		return true
	case "":
		t := strings.TrimSpace(bl.body)
		return strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")
	}
	return false
}

// containerName reads "### [UserOrders] Container", "### Container 2: Catalog (products)",
// "### 订单容器" as a name.
func containerName(title string) string {
	t := strings.NewReplacer("`", "", "*", "", "[", " ", "]", " ", "“", " ", "”", " ", "\"", " ").Replace(title)
	for _, sep := range []string{" - ", " — ", " – ", "(", "（"} {
		if i := strings.Index(t, sep); i > 0 {
			t = t[:i]
		}
	}
	if i := strings.IndexAny(t, ":："); i >= 0 {
		before := t[:i]
		_, w := firstRune(t[i:])
		after := strings.TrimSpace(t[i+w:])
		if after != "" && hasAny(norm(before), "container", "容器") {
			t = after
		} else {
			t = before
		}
	}
	var words []string
	for _, w := range strings.Fields(t) {
		lw := strings.ToLower(strings.TrimRight(w, "."))
		if lw == "container" || lw == "containers" || lw == "容器" || lw == "the" || lw == "a" {
			continue
		}
		if _, err := strconv.Atoi(lw); err == nil && len(words) == 0 {
			continue // "1. UserOrders Container", "Container 2"
		}
		w = strings.TrimSuffix(w, "容器")
		if w != "" {
			words = append(words, w)
		}
	}
	name := identifier(strings.Join(words, " "), "")
	if name != "" {
		r := []rune(name)
		if r[0] >= 'a' && r[0] <= 'z' {
			r[0] -= 'a' - 'A'
		}
		name = string(r)
	}
	return name
}

func (b *builder) uniqueName(name string) string {
	if name == "" {
		name = fmt.Sprintf("Container%d", len(b.conts)+1)
	}
	base := name
	for i := 2; ; i++ {
		dup := false
		for _, c := range b.conts {
			if strings.EqualFold(c.name, name) {
				dup = true
			}
		}
		if !dup {
			return name
		}
		name = fmt.Sprintf("%s%d", base, i)
	}
}

func (b *builder) readContainerBlocks(ci *contInfo, blocks []*block, indexing bool) {
	for i, bl := range blocks {
		switch bl.kind {
		case blockCode:
			if looksLikeJSON(bl) {
				b.readJSONBlock(ci, bl)
			}
			continue
		case blockTable:
			continue
		}
		l := norm(bl.label)
		eff := l
		if eff == "" || !knownLabel(eff) {
			eff = norm(bl.parent)
		}
		switch {
		case isKeyLabel(eff):
			if ci.keyText == "" || (bl.label == "" && len(ci.keyPaths) == 0) {
				ci.keyText, ci.keyLine = orWord(bl.value, bl.text), bl.line
				ci.keyPaths = keyPaths(bl.value, bl.code)
				ci.keyFrom = fmt.Sprintf("%s line %d", b.mdName(), bl.line)
			} else if bl.label == "" {
				ci.keyPaths = append(ci.keyPaths, keyPaths(bl.text, bl.code)...)
			}
		case hasAny(eff, "throughput", "吞吐量", "capacity", "容量"):
			ci.tpText += " " + bl.text
			if ci.tpLine == 0 {
				ci.tpLine = bl.line
			}
		case hasAny(eff, "ttl", "time to live", "time-to-live", "生存时间", "过期"):
			ci.ttlText += " " + bl.text
		case hasAny(eff, "unique key", "唯一键", "unique constraint", "唯一约束"):
			if ps := pathTokens(bl.value, bl.code); len(ps) > 0 {
				ci.unique = append(ci.unique, ps)
			}
		case hasAny(eff, "excluded path", "排除路径", "excluded", "exclude"):
			b.addPaths(ci, &ci.ix.Excluded, bl, "excluded")
		case hasAny(eff, "included path", "包含路径", "included", "include"):
			b.addPaths(ci, &ci.ix.Included, bl, "included")
		case hasAny(eff, "composite", "复合索引", "组合索引"):
			if cs := compositeFromText(bl.value, bl.code); len(cs) > 0 {
				ci.ix.Composite = append(ci.ix.Composite, cs...)
				ci.ixSet = true
				ci.ixNotes = append(ci.ixNotes, fmt.Sprintf("composite index read from prose at %s line %d", b.mdName(), bl.line))
			}
		case hasAny(eff, "indexing policy", "索引策略", "indexing mode", "索引模式", "indexing strategy"):
			v := norm(bl.value)
			if hasAny(v, "mode none", "indexingmode: none", "no indexing", "不索引", "关闭索引") {
				ci.ix.Mode, ci.ixSet = "none", true
			}
			ci.ixNotes = append(ci.ixNotes, fmt.Sprintf("the markdown says (line %d): %s", bl.line, excerpt(bl.text, 140)))
		case hasAny(eff, "consisten", "一致性"):
			ci.consist = bl.value
		case hasAny(eff, "access patterns served", "patterns served", "服务的访问模式", "支持的访问模式", "access pattern"):
			for _, r := range patternRefs(bl.text) {
				if _, ok := b.served[r.id]; !ok {
					b.served[r.id] = ci.name
				}
			}
		case hasAny(eff, "document type", "文档类型", "entity types", "实体类型"):
			for _, c := range bl.code {
				ci.typeNames = append(ci.typeNames, c)
			}
		case hasAny(eff, "purpose", "目的", "用途"):
			ci.purpose = bl.value
		case hasAny(eff, "ru impact", "ru 影响", "attributes", "属性", "aggregate boundary", "聚合边界", "justification", "理由"):
			// Read for RU figures and pattern references by the prose pass; nothing to map here.
		case (indexing || hasAny(norm(bl.text), "index", "索引")) && bl.text != "" && len(indexTokens(bl)) > 0:
			b.proseIndexing(ci, bl)
		case bl.label != "" && bl.text != "" && (proseFigure(bl.text) || i+1 < len(blocks) && blocks[i+1].kind == blockCode && len(splitSQL(blocks[i+1].body)) > 0):
			// An operation with its figures, or a query's lead-in: the prose pass drafts it as a
			// pattern (sqlprose.go).
		case bl.label != "" && bl.text != "":
			ci.extra = append(ci.extra, fmt.Sprintf("%q (line %d): %s", bl.label, bl.line, excerpt(bl.value, 120)))
		}
	}
}

func knownLabel(l string) bool {
	return isKeyLabel(l) || hasAny(l, "throughput", "吞吐量", "capacity", "容量", "ttl", "time to live", "time-to-live", "生存时间", "过期",
		"unique", "唯一", "exclude", "排除", "include", "包含", "composite", "复合索引", "组合索引", "index", "索引", "consisten", "一致性",
		"access pattern", "访问模式", "document type", "文档类型", "purpose", "目的", "用途", "ru impact", "attributes", "属性",
		"aggregate", "聚合", "justification", "理由", "entity types", "实体类型")
}

// keyPaths reads the key paths of a "Partition Key" item: its code spans, or the leading words of its
// value up to the justification ("userId - high cardinality").
func keyPaths(value string, code []string) []string {
	var cands []string
	if len(code) > 0 {
		for _, c := range code {
			if strings.ContainsAny(c, "{}\"") { // a JSON snippet: {"paths": [...]}
				if vs, err := parseJSONish(c); err == nil {
					cands = append(cands, jsonKeyPaths(vs[0])...)
				}
				continue
			}
			for _, f := range strings.FieldsFunc(c, func(r rune) bool { return r == ',' || r == ' ' || r == '+' || r == '>' || r == '→' || r == '，' }) {
				cands = append(cands, f)
			}
		}
	} else {
		v := value
		for _, sep := range []string{" - ", " — ", " – ", "(", "（", ". ", "; ", "，", "。"} {
			if i := strings.Index(v, sep); i > 0 {
				v = v[:i]
			}
		}
		for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '+' || r == '→' || r == '，' }) {
			cands = append(cands, f)
		}
	}
	var out []string
	for _, c := range cands {
		c = strings.Trim(c, " \"'`.:;[]()")
		if c == "" || strings.EqualFold(c, "hierarchical") || strings.EqualFold(c, "and") || c == "->" || c == "-" {
			continue
		}
		if !strings.HasPrefix(c, "/") {
			if !isIdent(c) {
				continue
			}
			c = "/" + c
		}
		if validKey(c) {
			out = append(out, c)
		}
	}
	return dedupe(out)
}

func jsonKeyPaths(v any) []string {
	o, ok := v.(*object)
	if !ok {
		return nil
	}
	if pk, ok := o.get("partitionKey"); ok {
		return jsonKeyPaths(pk)
	}
	var out []string
	if ps, ok := o.get("paths"); ok {
		if l, ok := ps.(*list); ok {
			for _, p := range l.items {
				if s, ok := p.(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r >= '0' && r <= '9' || r == '/' || r == '.')) {
			return false
		}
	}
	return true
}

// validKey accepts a key path whose segments can also be placeholders ({tenantId}): ASCII names.
func validKey(p string) bool {
	if !strings.HasPrefix(p, "/") || len(p) < 2 || strings.HasSuffix(p, "/") {
		return false
	}
	for _, seg := range strings.Split(p[1:], "/") {
		if !placeholderName(seg) {
			return false
		}
	}
	return true
}

// placeholderName: a name a {placeholder} can hold.
func placeholderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' && i > 0 || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func dedupe(ss []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// indexPath makes a path usable in an indexing policy: "/name" becomes "/name/?".
func indexPath(p string) (string, bool) {
	p = strings.Trim(p, " \"'`,;")
	if p == "/*" || p == "/" {
		return "/*", true
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	if !strings.HasSuffix(p, "/?") && !strings.HasSuffix(p, "/*") {
		p = strings.TrimSuffix(p, "/") + "/?"
	}
	body := p[:len(p)-2]
	if strings.ContainsAny(body, "*? {}\"'") || strings.Contains(p, "//") {
		return "", false
	}
	return p, true
}

func (b *builder) addPaths(ci *contInfo, dst *[]string, bl *block, which string) {
	ps := pathTokens(bl.value, bl.code)
	if bl.label == "" {
		ps = pathTokens(bl.text, bl.code)
	}
	for _, p := range ps {
		q, ok := indexPath(p)
		if !ok {
			ci.ixNotes = append(ci.ixNotes, fmt.Sprintf("%s path %q (line %d) is not a valid index path; left out", which, p, bl.line))
			continue
		}
		if q != p {
			ci.ixNotes = append(ci.ixNotes, fmt.Sprintf("%s path %q (line %d) written as %q", which, p, bl.line, q))
		}
		*dst = append(*dst, q)
		ci.ixSet = true
	}
}

// proseIndexing reads indexing guidance written as sentences: "Only /status and /createdAt are
// indexed; everything else is excluded."
func (b *builder) proseIndexing(ci *contInfo, bl *block) {
	t := norm(bl.text)
	paths := indexTokens(bl)
	rest := hasAny(t, "everything else", "all other", "other paths", "其他", "其余", "/*")
	excl := hasAny(t, "exclude", "排除", "not index", "don't index", "do not index", "不索引", "不需要索引", "skip", "out of the index", "never be indexed")
	var inc, exc []string
	for _, p := range paths {
		if p == "/*" {
			continue
		}
		q, ok := indexPath(p)
		if !ok {
			continue
		}
		if excl && !rest {
			exc = append(exc, q)
		} else {
			inc = append(inc, q)
		}
	}
	if excl && rest {
		exc = append(exc, "/*")
	}
	if len(inc)+len(exc) == 0 {
		return
	}
	ci.ix.Included = append(ci.ix.Included, inc...)
	ci.ix.Excluded = append(ci.ix.Excluded, exc...)
	ci.ixSet = true
	ci.ixNotes = append(ci.ixNotes, fmt.Sprintf("indexing read from a sentence (line %d): %q", bl.line, excerpt(bl.text, 120)))
}

// indexTokens are the paths a sentence about indexing names: "/status" words, or code spans holding a
// property name (`orderRef`).
func indexTokens(bl *block) []string {
	if ps := pathTokens(bl.text, bl.code); len(ps) > 0 {
		return ps
	}
	var out []string
	for _, c := range bl.code {
		if isIdent(c) && !strings.Contains(c, ".") {
			out = append(out, "/"+c)
		}
	}
	return out
}

// compositeFromText reads "(/userId ASC, /createdAt DESC)" or "`/type` asc + `/ts` desc".
func compositeFromText(value string, code []string) [][]design.CompositePath {
	text := strings.NewReplacer("（", "(", "）", ")", "，", ",", "；", ";").Replace(value)
	if len(code) > 0 && !strings.Contains(text, "/") {
		text = strings.Join(code, ", ")
	}
	var out [][]design.CompositePath
	for _, group := range strings.FieldsFunc(text, func(r rune) bool { return r == ';' || r == '|' || r == '；' || r == ')' }) {
		var cur []design.CompositePath
		words := strings.FieldsFunc(group, func(r rune) bool { return r == ',' || r == ' ' || r == '+' || r == '(' || r == '`' || r == '、' })
		for i, w := range words {
			if !strings.HasPrefix(w, "/") || !validKey(w) {
				continue
			}
			order := "asc"
			if i+1 < len(words) && hasAny(strings.ToLower(words[i+1]), "desc", "降序") {
				order = "desc"
			}
			cur = append(cur, design.CompositePath{Path: w, Order: order})
		}
		if len(cur) >= 2 {
			out = append(out, cur)
		}
	}
	return out
}

// The template's translated JSON keys and values (the Chinese instructions translate the example
// documents and the composite-index JSON) back to what Cosmos DB and the design format call them.
var translatedKeys = map[string]string{
	"复合索引": "compositeIndexes", "组合索引": "compositeIndexes", "路径": "path", "顺序": "order",
	"包含路径": "includedPaths", "排除路径": "excludedPaths", "索引策略": "indexingPolicy", "索引模式": "indexingMode",
	"分区键": "partitionKey", "类型": "type", "姓名": "name", "名称": "name", "电子邮件": "email", "邮箱": "email",
	"用户ID": "userId", "用户id": "userId", "金额": "amount", "时间戳": "timestamp", "状态": "status",
}

var translatedValues = map[string]string{"升序": "ascending", "降序": "descending"}

func translate(v any, seen map[string]string) any {
	switch t := v.(type) {
	case *object:
		o := &object{m: map[string]any{}}
		for _, k := range t.keys {
			nk := k
			if en, ok := translatedKeys[k]; ok {
				nk = en
				seen[k] = en
			}
			o.set(nk, translate(t.m[k], seen))
		}
		return o
	case *list:
		l := &list{elided: t.elided, more: t.more}
		for _, x := range t.items {
			l.items = append(l.items, translate(x, seen))
		}
		return l
	case string:
		if en, ok := translatedValues[t]; ok {
			seen[t] = en
			return en
		}
		if en, ok := translatedKeys[strings.TrimPrefix(t, "/")]; ok && strings.HasPrefix(t, "/") {
			seen[t] = "/" + en
			return "/" + en
		}
	}
	return v
}

var policyKeys = []string{"indexingPolicy", "includedPaths", "excludedPaths", "compositeIndexes", "indexingMode", "defaultTtl",
	"uniqueKeyPolicy", "spatialIndexes", "vectorIndexes", "fullTextIndexes"}

func (b *builder) readJSONBlock(ci *contInfo, bl *block) {
	vals, err := parseJSONish(bl.body)
	if err != nil && len(vals) == 0 {
		ci.extra = append(ci.extra, fmt.Sprintf("a code block at line %d is not JSON this importer can read", bl.line))
		return
	}
	for _, v := range vals {
		v = translate(v, ci.translated)
		switch t := v.(type) {
		case *object:
			if isPolicy(t) {
				b.readPolicy(ci, t, bl.line)
			} else if _, ok := t.get("partitionKey"); ok && len(t.keys) == 1 {
				ci.keyPaths = jsonKeyPaths(t)
				ci.keyFrom = fmt.Sprintf("JSON at %s line %d", b.mdName(), bl.line)
			} else if len(t.keys) > 0 {
				ci.docs = append(ci.docs, t)
				ci.docsLine = bl.line
			}
		case *list:
			for _, x := range t.items {
				if o, ok := x.(*object); ok {
					if isPolicy(o) {
						b.readPolicy(ci, o, bl.line)
					} else {
						ci.docs = append(ci.docs, o)
						ci.docsLine = bl.line
					}
				}
			}
		}
	}
}

func isPolicy(o *object) bool {
	for _, k := range policyKeys {
		if _, ok := o.get(k); ok {
			return true
		}
	}
	if pk, ok := o.get("partitionKey"); ok {
		_, isObj := pk.(*object)
		return isObj
	}
	return false
}

func (b *builder) readPolicy(ci *contInfo, o *object, line int) {
	if ip, ok := o.get("indexingPolicy"); ok {
		if io, ok := ip.(*object); ok {
			b.readPolicy(ci, io, line)
		}
	}
	if pk, ok := o.get("partitionKey"); ok {
		if ps := jsonKeyPaths(pk); len(ps) > 0 {
			ci.keyPaths = ps
			ci.keyFrom = fmt.Sprintf("JSON at %s line %d", b.mdName(), line)
		}
	}
	if m, ok := o.get("indexingMode"); ok {
		if s, ok := m.(string); ok && strings.EqualFold(s, "none") {
			ci.ix.Mode = "none"
			ci.ixSet = true
		}
	}
	for _, which := range []string{"includedPaths", "excludedPaths"} {
		l, ok := getList(o, which)
		if !ok {
			continue
		}
		for _, x := range l.items {
			p := ""
			switch t := x.(type) {
			case string:
				p = t
			case *object:
				if s, ok := t.m["path"].(string); ok {
					p = s
				}
			}
			q, ok := indexPath(p)
			if !ok {
				ci.ixNotes = append(ci.ixNotes, fmt.Sprintf("%s entry %q (line %d) is not a valid index path; left out", which, p, line))
				continue
			}
			if which == "includedPaths" {
				ci.ix.Included = append(ci.ix.Included, q)
			} else {
				ci.ix.Excluded = append(ci.ix.Excluded, q)
			}
			ci.ixSet = true
		}
	}
	if l, ok := getList(o, "compositeIndexes"); ok {
		for _, x := range l.items {
			one, ok := x.(*list)
			if !ok {
				continue
			}
			var cps []design.CompositePath
			for _, e := range one.items {
				eo, ok := e.(*object)
				if !ok {
					continue
				}
				p, _ := eo.m["path"].(string)
				p = strings.TrimSuffix(strings.TrimSuffix(p, "/?"), "/*")
				if !validKey(p) {
					continue
				}
				ord, _ := eo.m["order"].(string)
				order := "asc"
				if hasAny(strings.ToLower(ord), "desc") {
					order = "desc"
				}
				cps = append(cps, design.CompositePath{Path: p, Order: order})
			}
			if len(cps) >= 2 {
				ci.ix.Composite = append(ci.ix.Composite, cps)
				ci.ixSet = true
			} else {
				ci.ixNotes = append(ci.ixNotes, fmt.Sprintf("a composite index at line %d has fewer than two usable paths; left out", line))
			}
		}
	}
	if v, ok := o.get("defaultTtl"); ok {
		if n, ok := v.(number); ok {
			ttl := int(n.f)
			ci.ttl = &ttl
		}
	}
	if ukp, ok := o.get("uniqueKeyPolicy"); ok {
		if uo, ok := ukp.(*object); ok {
			if l, ok := getList(uo, "uniqueKeys"); ok {
				for _, x := range l.items {
					if xo, ok := x.(*object); ok {
						if ps := jsonKeyPaths(xo); len(ps) > 0 {
							ci.unique = append(ci.unique, ps)
						}
					}
				}
			}
		}
	}
	for _, k := range []string{"spatialIndexes", "vectorIndexes", "fullTextIndexes"} {
		if _, ok := o.get(k); ok {
			ci.ixNotes = append(ci.ixNotes, fmt.Sprintf("%s (line %d) has no equivalent in the design format; not mapped", k, line))
		}
	}
}

func getList(o *object, k string) (*list, bool) {
	v, ok := o.get(k)
	if !ok {
		return nil, false
	}
	l, ok := v.(*list)
	return l, ok
}
