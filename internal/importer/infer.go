package importer

import (
	"fmt"
	"math"
	"net/mail"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/cosmosdv/validate/internal/design"
)

// typeGroup is the example documents of one document type.
type typeGroup struct {
	name   string
	docs   []*object
	t      *design.DocType
	parent *typeGroup
	// parentOf maps a document to its parent document (child types only).
	parentOf map[*object]*object
	idPrefix string
}

var typeFields = []string{"type", "docType", "documentType", "entityType", "_type", "recordType", "itemType"}

var systemProps = map[string]bool{"_rid": true, "_self": true, "_etag": true, "_ts": true, "_attachments": true, "_lsn": true}

func (b *builder) buildTypes() {
	if len(b.conts) == 0 {
		b.gap("containers", "no container section was recognised in %s (a heading naming a container with a partition key or example documents); this placeholder container keeps the draft readable", b.mdName())
		b.conts = append(b.conts, &contInfo{name: "Items", translated: map[string]string{}})
	}
	for ci, c := range b.conts {
		b.d.Containers = append(b.d.Containers, design.Container{Name: c.name})
		b.buildContainer(ci, c)
	}
	b.sizeCounts()
	b.productionCounts()
	b.keyCardinalities()
	b.refCardinalities()
	b.scaleNote()
}

// scaleNote tells the reader of a draft with both a storage figure and production counts what lint
// will check between them, and what a disagreement usually means in a draft: its documents hold
// only the example fields, so they are smaller than the real ones.
func (b *builder) scaleNote() {
	if b.d.Scale.StorageGB <= 0 {
		return
	}
	for _, c := range b.d.Containers {
		for _, t := range c.Documents {
			if t.Production > 0 {
				b.note("scale", "`validate lint` checks this figure against the production counts × the drafted document sizes (within 2×, finding "+
					"scale-storage). A draft's documents hold only the fields its examples show: when the two disagree, add the real documents' fields "+
					"(or targetBytes), correct the counts, or, if the figure covers more than these documents, lower it")
				return
			}
		}
	}
}

func (b *builder) buildContainer(idx int, ci *contInfo) {
	path := fmt.Sprintf("containers[%d]", idx)
	c := &b.d.Containers[idx]
	if ci.purpose != "" {
		b.note(path+".name", "%s", excerpt(ci.purpose, 180))
	}
	for _, e := range ci.extra {
		if strings.HasPrefix(e, "the hot-partition analysis") {
			b.gap(path+".name", "%s", e)
			continue
		}
		b.gap(path+".name", "not mapped: %s", e)
	}
	if len(ci.translated) > 0 {
		var pairs []string
		for _, k := range sortedKeys(ci.translated) {
			pairs = append(pairs, k+" → "+ci.translated[k])
		}
		b.todo(path+".documents", "the examples use the template's translated keys; read as %s", strings.Join(pairs, ", "))
	}

	// Partition key.
	var keys []string
	for _, k := range ci.keyPaths {
		if !strings.HasPrefix(k, "/") {
			k = "/" + k
		}
		if validKey(k) {
			keys = append(keys, k)
		} else {
			b.gap(path+".partitionKey", "%q is not a usable key path; left out", k)
		}
	}
	fieldsOf := docFieldNames(ci.docs)
	switch {
	case len(keys) == 0 && len(ci.docs) > 0:
		k := "/id"
		for _, cand := range []string{"partitionKey", "pk", "partition_key", "PartitionKey"} {
			if fieldsOf[cand] {
				k = "/" + cand
				break
			}
		}
		keys = []string{k}
		b.gap(path+".partitionKey", "no partition key stated for %s; %s is a guess from the examples", ci.name, k)
	case len(keys) == 0:
		keys = []string{"/id"}
		b.gap(path+".partitionKey", "no partition key stated for %s; /id is a placeholder", ci.name)
	default:
		if ci.keyFrom != "" {
			b.note(path+".partitionKey", "from %s%s", ci.keyFrom, justification(ci.keyText))
		}
	}
	if len(keys) > design.MaxKeyLevels {
		b.todo(path+".partitionKey", "the markdown names %d key paths (%s); a hierarchical key has at most %d", len(keys), strings.Join(keys, ", "), design.MaxKeyLevels)
		keys = keys[:design.MaxKeyLevels]
	}
	for i, k := range keys {
		top := strings.Split(strings.TrimPrefix(k, "/"), "/")[0]
		if len(ci.docs) > 0 && !fieldsOf[top] && k != "/id" {
			for _, f := range sortedKeys(fieldsOf) {
				if strings.EqualFold(f, top) || strings.EqualFold(strings.ReplaceAll(f, "_", ""), strings.ReplaceAll(top, "_", "")) {
					b.todo(path+".partitionKey", "the key %s is written %q in the examples; using /%s", k, f, f)
					keys[i] = "/" + f
				}
			}
		}
	}
	c.PartitionKey = dedupe(keys)

	// Throughput.
	switch {
	case ci.tpSet:
		c.Throughput = ci.tp
		b.note(path+".throughput", "from %s", ci.tpText)
	default:
		if tp, what, ok := parseThroughput(ci.tpText); ok {
			c.Throughput = tp
			b.todo(path+".throughput", "read as %s from %q", what, excerpt(ci.tpText, 120))
		} else {
			c.Throughput = design.Throughput{Manual: 400}
			if strings.TrimSpace(ci.tpText) != "" {
				b.gap(path+".throughput", "no RU/s figure in %q; manual 400 is the service's minimum", excerpt(ci.tpText, 120))
			} else {
				b.gap(path+".throughput", "no throughput stated for %s (its section: %s line %d); manual 400 is the service's minimum", ci.name, b.mdName(), ci.line)
			}
		}
	}

	// TTL.
	if ci.ttl != nil {
		c.DefaultTTL = ci.ttl
	} else if ci.ttlText != "" {
		if v, ok := parseTTL(ci.ttlText); ok {
			c.DefaultTTL = v
			b.todo(path+".defaultTtl", "read from %q", excerpt(ci.ttlText, 100))
		} else {
			b.gap(path+".name", "TTL mentioned but not understood: %q", excerpt(ci.ttlText, 100))
		}
	}
	if c.DefaultTTL == nil && fieldsOf["ttl"] {
		v := -1
		c.DefaultTTL = &v
		b.todo(path+".defaultTtl", "the examples carry a ttl field, which the service ignores unless TTL is on: -1 turns it on without a default")
	}
	if c.DefaultTTL != nil && *c.DefaultTTL == 0 {
		c.DefaultTTL = nil
	}
	if c.DefaultTTL != nil && *c.DefaultTTL < -1 {
		b.gap(path+".name", "TTL %d is not valid; left off", *c.DefaultTTL)
		c.DefaultTTL = nil
	}

	// Unique keys.
	for _, u := range ci.unique {
		var ok []string
		for _, p := range u {
			if validKey(p) {
				ok = append(ok, p)
			}
		}
		if len(ok) > 0 {
			c.UniqueKeys = append(c.UniqueKeys, ok)
		}
	}
	if len(c.UniqueKeys) > 0 {
		b.todo(path+".uniqueKeys", "a unique key holds within one logical partition; check every document type generates these paths")
	}

	// Indexing.
	if ci.ixSet {
		ix := ci.ix
		ix.Included, ix.Excluded = dedupe(ix.Included), dedupe(ix.Excluded)
		inExcl := map[string]bool{}
		for _, p := range ix.Excluded {
			inExcl[p] = true
		}
		var inc []string
		for _, p := range ix.Included {
			if inExcl[p] {
				ci.ixNotes = append(ci.ixNotes, fmt.Sprintf("%s was both included and excluded; kept as excluded", p))
				continue
			}
			inc = append(inc, p)
		}
		ix.Included = inc
		ix.Composite = b.dedupeComposites(ci, ix.Composite)
		if ix.Mode == "none" {
			ix.Included, ix.Composite, ix.Excluded = nil, nil, nil
		}
		c.Indexing = &ix
		b.note(path+".indexing", "from the markdown's indexing policy")
	}
	for _, n := range ci.ixNotes {
		b.todo(path+".indexing", "%s", n)
		if c.Indexing == nil {
			c.Indexing = &design.Indexing{}
		}
	}
	if c.Indexing != nil && c.Indexing.Mode == "" && len(c.Indexing.Included)+len(c.Indexing.Excluded)+len(c.Indexing.Composite) == 0 {
		c.Indexing = nil
		if len(ci.ixNotes) > 0 {
			b.notes[path+".documents"] = append(b.notes[path+".documents"], b.notes[path+".indexing"]...)
		}
	}

	if ci.consist != "" {
		if lvl := consistencyIn(norm(ci.consist)); lvl != "" && b.d.Consistency == "" && lvl != "Session" {
			b.d.Consistency = lvl
			b.todo("consistency", "%s's section asks for %s consistency; the design sets it for the account", ci.name, lvl)
		}
	}

	b.buildDocTypes(idx, ci, path)
}

func justification(keyText string) string {
	t := strings.TrimSpace(keyText)
	for _, sep := range []string{" - ", " — ", " – "} {
		if i := strings.Index(t, sep); i >= 0 {
			return ": " + excerpt(t[i+len(sep):], 150)
		}
	}
	return ""
}

func docFieldNames(docs []*object) map[string]bool {
	out := map[string]bool{}
	for _, d := range docs {
		for _, k := range d.keys {
			out[k] = true
		}
	}
	return out
}

// groupDocs splits a container's examples into document types: by their type field, else by shape.
func groupDocs(docs []*object, container string) ([]*typeGroup, string) {
	tf := ""
	for _, f := range typeFields {
		n := 0
		for _, d := range docs {
			if s, ok := d.m[f].(string); ok && s != "" {
				n++
			}
		}
		if n > 0 && n*2 >= len(docs) {
			tf = f
			break
		}
	}
	var groups []*typeGroup
	find := func(name string) *typeGroup {
		for _, g := range groups {
			if g.name == name {
				return g
			}
		}
		g := &typeGroup{name: name}
		groups = append(groups, g)
		return g
	}
	var rest []*object
	for _, d := range docs {
		if s, ok := d.m[tf].(string); ok && tf != "" && identifier(s, "-") != "" {
			g := find(identifier(s, "-"))
			g.docs = append(g.docs, d)
			continue
		}
		rest = append(rest, d)
	}
	// By shape: documents whose keys mostly agree are one type.
	var shapes []*typeGroup
	var keysets []map[string]bool
	for _, d := range rest {
		ks := map[string]bool{}
		for _, k := range d.keys {
			ks[k] = true
		}
		placed := false
		for i, s := range keysets {
			if jaccard(s, ks) >= 0.6 {
				shapes[i].docs = append(shapes[i].docs, d)
				for k := range ks {
					s[k] = true
				}
				placed = true
				break
			}
		}
		if !placed {
			shapes = append(shapes, &typeGroup{docs: []*object{d}})
			keysets = append(keysets, ks)
		}
	}
	for _, s := range shapes {
		name := ""
		if len(shapes) == 1 && len(groups) == 0 {
			name = strings.ToLower(singular(identifier(container, "-")))
		} else if p := idPrefix(stringsOf(s.docs, "id")); p != "" {
			name = identifier(strings.ToLower(strings.Trim(p, "_-:#.")), "-")
		}
		if name == "" || name == "id" {
			name = strings.ToLower(singular(identifier(container, "-")))
		}
		if name == "" {
			name = "item"
		}
		base := name
		for i := 2; ; i++ {
			dup := false
			for _, g := range groups {
				if g.name == name {
					dup = true
				}
			}
			if !dup {
				break
			}
			name = fmt.Sprintf("%s%d", base, i)
		}
		s.name = name
		groups = append(groups, s)
	}
	return groups, tf
}

func jaccard(a, b map[string]bool) float64 {
	inter, union := 0, len(a)
	for k := range b {
		if a[k] {
			inter++
		} else {
			union++
		}
	}
	if union == 0 {
		return 1
	}
	return float64(inter) / float64(union)
}

func stringsOf(docs []*object, field string) []string {
	var out []string
	for _, d := range docs {
		if s, ok := scalarString(d.m[field]); ok {
			out = append(out, s)
		}
	}
	return out
}

func scalarString(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case number:
		return t.lit, true
	case bool:
		return strconv.FormatBool(t), true
	}
	return "", false
}

// idPrefix is the part the ids share before their distinguishing part: "user_123", "user_456" give
// "user_"; "ORD-2024-0001" gives "ORD-2024-".
func idPrefix(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	p := ids[0]
	for _, id := range ids[1:] {
		for !strings.HasPrefix(id, p) {
			p = p[:len(p)-1]
		}
	}
	if len(ids) == 1 || p == ids[0] {
		// One example (or all equal): cut before the trailing run of digits, or after the last separator.
		s := ids[0]
		j := len(s)
		for j > 0 && (s[j-1] >= '0' && s[j-1] <= '9') {
			j--
		}
		if j < len(s) && j > 0 {
			p = s[:j]
		} else if i := strings.LastIndexAny(s, "_-:#."); i > 0 {
			p = s[:i+1]
		} else {
			p = ""
		}
	}
	// Back off to the last separator, else to a letter/digit boundary.
	if i := strings.LastIndexAny(p, "_-:#./"); i >= 0 {
		return validPrefix(p[:i+1])
	}
	for len(p) > 0 {
		last := p[len(p)-1]
		if strings.IndexByte("_-:#./", last) >= 0 {
			break
		}
		if len(p) < len(ids[0]) && unicode.IsLetter(rune(last)) && ids[0][len(p)] >= '0' && ids[0][len(p)] <= '9' {
			break
		}
		p = p[:len(p)-1]
	}
	return validPrefix(p)
}

func validPrefix(p string) string {
	if !isPrintableASCII(p) || len(p) > 40 {
		return ""
	}
	return p
}

func isPrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e || s[i] == '{' || s[i] == '}' {
			return false
		}
	}
	return true
}

// dedupeComposites keeps the first of composite indexes stated more than once (in prose and in the
// policy JSON, say): the service would refuse the duplicate and lint flags it in a hand-written design.
func (b *builder) dedupeComposites(ci *contInfo, cs [][]design.CompositePath) [][]design.CompositePath {
	seen := map[string]bool{}
	var out [][]design.CompositePath
	for _, c := range cs {
		var k []string
		for _, p := range c {
			k = append(k, p.Path+" "+p.Order)
		}
		key := strings.Join(k, ", ")
		if seen[key] {
			ci.ixNotes = append(ci.ixNotes, fmt.Sprintf("composite index (%s) stated more than once in the markdown; drafted once", key))
			continue
		}
		seen[key] = true
		out = append(out, c)
	}
	return out
}

func (b *builder) buildDocTypes(idx int, ci *contInfo, path string) {
	c := &b.d.Containers[idx]
	groups, tf := groupDocs(ci.docs, ci.name)
	if len(groups) == 0 {
		name := strings.ToLower(singular(identifier(ci.name, "-")))
		if len(ci.typeNames) > 0 {
			name = identifier(ci.typeNames[0], "-")
		}
		if name == "" {
			name = "item"
		}
		g := &typeGroup{name: name}
		groups = []*typeGroup{g}
		b.gap(path+".documents", "%s has no example documents in the markdown: this type only generates the key, so add its fields", ci.name)
	} else {
		b.note(path+".documents", "%d example document(s) at %s line %d, grouped by %s", len(ci.docs), b.mdName(), ci.docsLine, orWord(tfWord(tf), "shape"))
	}
	b.findParents(c, groups)
	// Type names are unique in a design, not only in a container: a name another container's types
	// already hold (two containers whose names cut to the same type name) gets a number.
	taken := map[string]bool{}
	for _, oc := range b.d.Containers[:idx] {
		for _, t := range oc.Documents {
			taken[strings.ToLower(t.Type)] = true
		}
	}
	for _, g := range groups {
		base := g.name
		for i := 2; taken[strings.ToLower(g.name)]; i++ {
			g.name = fmt.Sprintf("%s%d", base, i)
		}
		taken[strings.ToLower(g.name)] = true
	}
	// Parents are inferred before their children, whose fields may copy theirs; the file keeps the
	// examples' order.
	types := make([]design.DocType, len(groups))
	done := map[*typeGroup]bool{}
	var infer func(ti int)
	infer = func(ti int) {
		g := groups[ti]
		if done[g] {
			return
		}
		done[g] = true
		if g.parent != nil {
			for pi, p := range groups {
				if p == g.parent {
					infer(pi)
				}
			}
		}
		types[ti] = design.DocType{Type: g.name}
		g.t = &types[ti]
		b.inferFields(fmt.Sprintf("%s.documents[%d]", path, ti), c, g, tf)
	}
	for ti := range groups {
		infer(ti)
	}
	c.Documents = types
	// The counts are set once every container is known (sizeCounts); record the groups for it.
	b.groups = append(b.groups, containerGroups{idx: idx, path: path, groups: groups})
}

func tfWord(tf string) string {
	if tf == "" {
		return ""
	}
	return "their " + strconv.Quote(tf) + " field"
}

// inferFields turns example documents into field generators.
func (b *builder) inferFields(path string, c *design.Container, g *typeGroup, tf string) {
	t := g.t
	ids := stringsOf(g.docs, "id")
	t.ID = ""
	switch {
	case len(ids) > 0 && allMatch(ids, isUUID):
		t.ID = g.name + "-{uuid}"
	case len(ids) > 0:
		p := idPrefix(ids)
		if p == "" {
			p = g.name + "-"
		}
		g.idPrefix = p
		t.ID = p + "{seq}"
	default:
		t.ID = g.name + "-{seq}"
	}
	var order []string
	seen := map[string]bool{}
	for _, d := range g.docs {
		for _, k := range d.keys {
			if !seen[k] {
				seen[k] = true
				order = append(order, k)
			}
		}
	}
	derived := map[string]string{} // field → what it is derived from
	var dropped []string
	for _, name := range order {
		if name == "id" {
			continue
		}
		if systemProps[name] || strings.HasPrefix(name, "_") || strings.TrimSpace(name) == "" || strings.ContainsAny(name, "{}") {
			dropped = append(dropped, name)
			continue
		}
		var vals []any
		present := 0
		for _, d := range g.docs {
			if v, ok := d.m[name]; ok {
				present++
				if v != nil {
					vals = append(vals, v)
				}
			}
		}
		fp := path + ".fields." + name
		f, why := b.deriveField(g, name, derived)
		if why == "" {
			f, why = inferValue(fieldNameFor(name, g.name), vals, name == tf)
		} else {
			b.note(fp, "%s", why)
			why = ""
		}
		if why != "" {
			b.todo(fp, "%s", why)
		}
		if present < len(g.docs) && len(g.docs) > 1 {
			f.Optional = math.Round(float64(len(g.docs)-present)/float64(len(g.docs))*100) / 100
			if f.Optional >= 1 {
				f.Optional = 0.99
			}
		}
		t.Fields = append(t.Fields, design.NamedField{Name: name, Field: f})
	}
	if len(dropped) > 0 {
		b.todo(path+".fields", "system or reserved properties in the examples are not generated: %s", strings.Join(dropped, ", "))
	}
	if len(g.docs) > 0 {
		b.todo(path+".fields", "generators inferred from %d example(s) of %q: check ranges, enums and cardinalities", len(g.docs), g.name)
	}
	if hasComposite(ids, t.Fields, g.docs) {
		b.todo(path+".id", "the example ids combine other fields; drafted as a prefix and a sequence number so seeded ids stay unique")
	}
	// Every key path must be generated, and not optionally.
	for _, kp := range c.PartitionKey {
		if kp == "/id" {
			continue
		}
		segs := strings.Split(strings.TrimPrefix(kp, "/"), "/")
		f := ensurePath(&t.Fields, segs)
		if f.Optional > 0 {
			f.Optional = 0
			b.todo(path+".fields."+segs[0], "key field %s is missing from some examples; a key field must always be present", kp)
		}
		if isZeroField(f) {
			if g.parent != nil && len(segs) == 1 {
				f.Copy = "parent." + segs[0]
				b.todo(path+".fields."+segs[0], "the examples of %q lack the key %s: copied from the parent %q", g.name, kp, g.parent.name)
			} else {
				f.Gen, f.Prefix = "code", segs[len(segs)-1]+"-"
				f.Cardinality = 20
				b.todo(path+".fields."+segs[0], "the examples of %q lack the key %s: generated with 20 distinct values; say how many there are", g.name, kp)
			}
		}
	}
	// The first key level of a root type drawn from the few values the examples show would put all
	// documents in a handful of partitions: generate codes like them instead; sizeCounts sets how many.
	if k := strings.TrimPrefix(c.PartitionKey[0], "/"); g.parent == nil && !strings.Contains(k, "/") && k != "id" {
		if f, ok := t.Fields.Lookup(k); ok && (len(f.OneOf) > 0 || f.Const != nil) {
			var ss []string
			for _, v := range append(f.OneOf, f.Const) {
				if s, ok := v.(string); ok {
					ss = append(ss, s)
				}
			}
			p := idPrefix(ss)
			if p == "" {
				p = k + "-"
			}
			*f = design.Field{Gen: "code", Prefix: p}
			b.todo(path+".fields."+k, "the examples show only %d value(s) of the key %s; drafted as codes %q…", len(ss), k, p)
		}
	}
	// A parent key must exist on the parent too: guard copies that point nowhere.
	fixParentCopies(t, g)
}

func isZeroField(f *design.Field) bool {
	return f.Const == nil && f.Copy == "" && f.Template == "" && f.Gen == "" && f.OneOf == nil && f.Array == nil && len(f.Object) == 0
}

func ensurePath(fs *design.Fields, segs []string) *design.Field {
	for i := range *fs {
		if (*fs)[i].Name == segs[0] {
			f := &(*fs)[i].Field
			if len(segs) == 1 {
				return f
			}
			if len(f.Object) == 0 {
				*f = design.Field{}
			}
			return ensurePath(&f.Object, segs[1:])
		}
	}
	*fs = append(*fs, design.NamedField{Name: segs[0]})
	f := &(*fs)[len(*fs)-1].Field
	if len(segs) == 1 {
		return f
	}
	return ensurePath(&f.Object, segs[1:])
}

func fixParentCopies(t *design.DocType, g *typeGroup) {
	for i := range t.Fields {
		f := &t.Fields[i].Field
		if rest, ok := strings.CutPrefix(f.Copy, "parent."); ok {
			if g.parent == nil || (rest != "id" && !hasField(g.parent.t, rest)) {
				f.Copy = ""
				f.Gen, f.Prefix = "code", t.Fields[i].Name+"-"
			}
		}
	}
}

func hasField(t *design.DocType, name string) bool {
	if t == nil {
		return false
	}
	_, ok := t.Fields.Lookup(name)
	return ok
}

func hasComposite(ids []string, fs design.Fields, docs []*object) bool {
	for _, d := range docs {
		id, _ := scalarString(d.m["id"])
		for _, k := range d.keys {
			if k == "id" {
				continue
			}
			if s, ok := scalarString(d.m[k]); ok && len(s) >= 3 && s != id && strings.Contains(id, s) && len(id) > len(s)+1 && strings.ContainsAny(s, "0123456789") {
				return true
			}
		}
	}
	return false
}

// deriveField finds a field that copies another: the id, another field of the same document, a field
// of the parent, or a template of other fields. It returns a zero field and "" when there is none.
func (b *builder) deriveField(g *typeGroup, name string, derived map[string]string) (design.Field, string) {
	if len(g.docs) == 0 {
		return design.Field{}, ""
	}
	eq := func(get func(d *object) (string, bool)) bool {
		n := 0
		for _, d := range g.docs {
			v, ok := scalarString(d.m[name])
			if !ok {
				if _, present := d.m[name]; present {
					return false
				}
				continue
			}
			w, ok := get(d)
			if !ok || v != w || v == "" {
				return false
			}
			n++
		}
		return n > 0
	}
	if eq(func(d *object) (string, bool) { return scalarString(d.m["id"]) }) {
		derived[name] = "id"
		return design.Field{Copy: "id"}, "the same value as the id in every example"
	}
	if g.parent != nil {
		cands := []string{"id"}
		if placeholderName(name) {
			cands = []string{name, "id"}
		}
		for _, k := range g.parent.docs[0].keys {
			if k != name && k != "id" && placeholderName(k) {
				cands = append(cands, k)
			}
		}
		for _, pk := range cands {
			if eq(func(d *object) (string, bool) {
				p := g.parentOf[d]
				if p == nil {
					return "", false
				}
				return scalarString(p.m[pk])
			}) {
				derived[name] = "parent." + pk
				return design.Field{Copy: "parent." + pk}, fmt.Sprintf("the parent %s's %s in every example", g.parent.name, pk)
			}
		}
	}
	for _, other := range g.docs[0].keys {
		if other == name || other == "id" || dependsOn(derived, other, name) || !placeholderName(other) {
			continue
		}
		if eq(func(d *object) (string, bool) { return scalarString(d.m[other]) }) {
			derived[name] = other
			return design.Field{Copy: other}, "the same value as " + other + " in every example"
		}
	}
	if tpl := templateOf(g.docs, name, derived); tpl != "" {
		derived[name] = tpl
		return design.Field{Template: tpl}, "built from other fields in every example; check the separator"
	}
	return design.Field{}, ""
}

func dependsOn(derived map[string]string, from, on string) bool {
	for i := 0; i < 10 && from != ""; i++ {
		d := derived[from]
		if d == on || strings.Contains(d, "{"+on+"}") {
			return true
		}
		from = d
	}
	return false
}

// templateOf finds "{tenantId}_{customerId}" when every example's value is other fields' values
// joined by short separators.
func templateOf(docs []*object, name string, derived map[string]string) string {
	v0, ok := docs[0].m[name].(string)
	if !ok || len(v0) < 3 {
		return ""
	}
	type cand struct{ k, v string }
	var cands []cand
	for _, k := range docs[0].keys {
		if k == name || dependsOn(derived, k, name) || !isIdent(k) || strings.Contains(k, ".") || strings.Contains(k, "/") {
			continue
		}
		s, ok := scalarString(docs[0].m[k])
		_, isNum := docs[0].m[k].(number)
		if ok && (len(s) >= 2 || isNum && s != "") && s != v0 && strings.Contains(v0, s) {
			cands = append(cands, cand{k, s})
		}
	}
	if len(cands) == 0 {
		return ""
	}
	sort.SliceStable(cands, func(i, j int) bool { return len(cands[i].v) > len(cands[j].v) })
	tpl := v0
	used := 0
	for _, c := range cands {
		if strings.Contains(tpl, c.v) {
			tpl = strings.Replace(tpl, c.v, "{"+c.k+"}", 1)
			used++
		}
	}
	lit := tpl
	for _, c := range cands {
		lit = strings.ReplaceAll(lit, "{"+c.k+"}", "")
	}
	if used == 0 || len(lit) > 8 || strings.ContainsAny(lit, "{}") {
		return ""
	}
	for _, d := range docs {
		v, ok := d.m[name].(string)
		if !ok {
			continue
		}
		if fill(tpl, d) != v {
			return ""
		}
	}
	return tpl
}

func fill(tpl string, d *object) string {
	var sb strings.Builder
	for {
		i := strings.IndexByte(tpl, '{')
		if i < 0 {
			sb.WriteString(tpl)
			return sb.String()
		}
		j := strings.IndexByte(tpl[i:], '}')
		if j < 0 {
			return ""
		}
		sb.WriteString(tpl[:i])
		s, _ := scalarString(d.m[tpl[i+1:i+j]])
		sb.WriteString(s)
		tpl = tpl[i+j+1:]
	}
}

func allMatch(ss []string, f func(string) bool) bool {
	for _, s := range ss {
		if !f(s) {
			return false
		}
	}
	return len(ss) > 0
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, r := range s {
		switch i {
		case 8, 13, 18, 23:
			if r != '-' {
				return false
			}
		default:
			if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
				return false
			}
		}
	}
	return true
}

func isEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && strings.Contains(s[strings.IndexByte(s, '@'):], ".")
}

var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04:05.000", "2006-01-02 15:04:05", "2006-01-02T15:04Z", "2006-01-02T15:04"}

func parseTime(s string) (time.Time, bool) {
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

func parseDate(s string) (time.Time, bool) {
	for _, l := range []string{"2006-01-02", "2006-01-02T15", "2006-01-02-15", "2006-01"} {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

func lname(name string) string { return strings.ToLower(strings.ReplaceAll(name, "_", "")) }

func nameHas(name string, words ...string) bool { return hasAny(lname(name), words...) }

var enumWords = []string{"status", "state", "type", "kind", "category", "tier", "role", "level", "plan", "priority", "currency",
	"channel", "platform", "device", "source", "mode", "region", "stage", "visibility", "method", "gender", "unit", "severity", "genre"}

var moneyWords = []string{"price", "amount", "total", "cost", "balance", "revenue", "fee", "subtotal", "tax", "salary", "spend", "discount", "payment"}

// inferValue picks a generator for a field from its example values. The second result is a reason
// to check it, or "" when the choice is plain.
func inferValue(name string, vals []any, isType bool) (design.Field, string) {
	if len(vals) == 0 {
		return design.Field{Const: nil}, "only null in the examples: kept as a null constant"
	}
	kinds := map[string]int{}
	for _, v := range vals {
		kinds[kindOf(v)]++
	}
	kind, best := "", 0
	for _, k := range []string{"string", "number", "bool", "object", "array"} {
		if kinds[k] > best {
			kind, best = k, kinds[k]
		}
	}
	why := ""
	if len(kinds) > 1 {
		why = fmt.Sprintf("the examples mix %d kinds of value; drafted as %s", len(kinds), kind)
	}
	var same []any
	for _, v := range vals {
		if kindOf(v) == kind {
			same = append(same, v)
		}
	}
	var f design.Field
	var w string
	switch kind {
	case "string":
		f, w = inferString(name, same, isType)
	case "number":
		f, w = inferNumber(name, same)
	case "bool":
		f = design.Field{Gen: "bool"}
	case "object":
		f, w = inferObject(same)
	case "array":
		f, w = inferArray(name, same)
	}
	return f, joinWhy(why, w)
}

func joinWhy(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

func kindOf(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case number:
		return "number"
	case bool:
		return "bool"
	case *object:
		return "object"
	case *list:
		return "array"
	}
	return "null"
}

func inferString(name string, vals []any, isType bool) (design.Field, string) {
	ss := make([]string, len(vals))
	distinct := map[string]bool{}
	var uniq []any
	for i, v := range vals {
		ss[i] = v.(string)
		if !distinct[ss[i]] {
			distinct[ss[i]] = true
			uniq = append(uniq, ss[i])
		}
	}
	if isType && len(distinct) == 1 {
		return design.Field{Const: ss[0]}, ""
	}
	if ts, ok := timesOf(ss, parseTime); ok {
		return design.Field{Gen: "isoTime", From: ts[0], To: ts[1]}, ""
	}
	if ts, ok := timesOf(ss, parseDate); ok {
		return design.Field{Gen: "isoTime", From: ts[0], To: ts[1]}, "the examples are dates or time bins; the generator writes full RFC 3339 timestamps"
	}
	switch {
	case allMatch(ss, isEmail):
		return design.Field{Gen: "email", Unique: nameHas(name, "email", "mail")}, ""
	case allMatch(ss, isUUID):
		return design.Field{Gen: "uuid"}, ""
	case nameHas(name, "firstname", "givenname"):
		return design.Field{Gen: "firstName"}, ""
	case nameHas(name, "lastname", "surname", "familyname"):
		return design.Field{Gen: "lastName"}, ""
	case nameHas(name, "phone", "mobile", "tel"):
		return design.Field{Gen: "phone"}, ""
	case nameHas(name, "city"):
		return design.Field{Gen: "city"}, ""
	case nameHas(name, "country"):
		return design.Field{Gen: "country"}, ""
	case isTitleField(name):
		// A title is text of its examples' length, never a person's name however it is capitalised.
		if allMatch(ss, func(s string) bool { return len(strings.Fields(s)) <= 1 }) {
			return design.Field{Gen: "word"}, ""
		}
		return design.Field{Gen: "text", Bytes: roundUp(float64(avgLen(ss)), 10, 10)}, ""
	case isPersonField(name) && allMatch(ss, looksLikePersonName):
		return design.Field{Gen: "fullName"}, ""
	}
	enumish := nameHas(name, enumWords...) || len(vals) > len(distinct)
	short := allMatch(ss, func(s string) bool {
		return len(s) <= 24 && !strings.ContainsAny(s, "0123456789") && len(strings.Fields(s)) <= 2
	})
	if len(distinct) <= 6 && (enumish && short || len(distinct) == 1 && short && !nameHas(name, "name", "title", "description", "text")) {
		why := ""
		if len(vals) < 4 {
			why = fmt.Sprintf("enum from %d example value(s); add the values the application uses", len(distinct))
		}
		return design.Field{OneOf: uniq}, why
	}
	if p := idPrefix(ss); p != "" && allMatch(ss, func(s string) bool { return len(s) > len(p) && isAlnum(s[len(p):]) }) {
		f := design.Field{Gen: "code", Prefix: p}
		return f, ""
	}
	if isCodeField(name) {
		// Codes, references and ids are codes, with the examples' common prefix (the generator adds
		// its own "-"), never words or text.
		return design.Field{Gen: "code", Prefix: strings.TrimRight(idPrefix(ss), "-_:#./")}, ""
	}
	avg := avgLen(ss)
	if avg > 32 || allMatch(ss, func(s string) bool { return len(strings.Fields(s)) >= 3 }) {
		return design.Field{Gen: "text", Bytes: roundUp(float64(avg), 10, 10)}, ""
	}
	if allMatch(ss, func(s string) bool { return len(strings.Fields(s)) > 1 }) {
		return design.Field{Gen: "text", Bytes: roundUp(float64(avg), 10, 10)}, ""
	}
	return design.Field{Gen: "word"}, ""
}

func isAlnum(s string) bool {
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return s != ""
}

func avgLen(ss []string) int {
	n := 0
	for _, s := range ss {
		n += len(s)
	}
	return n / max(1, len(ss))
}

// isTitleField: a field that names a thing, not a person ("title", "subject", "headline"; a plain
// "name" is a title unless its type is a person's, see fieldNameFor).
func isTitleField(name string) bool {
	n := lname(name)
	return n == "title" || n == "subject" || n == "headline" || n == "heading" || n == "caption" || n == "label" ||
		strings.HasSuffix(n, "title") || n == "eventname" || n == "productname" || n == "itemname"
}

// isCodeField: a field whose name says it is an identifier or a code ("venueCode", "orderRef",
// "ticketId", "sku", "serialNumber").
func isCodeField(name string) bool {
	n := lname(name)
	for _, suf := range []string{"id", "code", "ref", "reference", "sku", "number", "no", "key", "token"} {
		if n == suf || strings.HasSuffix(n, suf) && len(n) > len(suf) && name[len(name)-len(suf)] >= 'A' && name[len(name)-len(suf)] <= 'Z' {
			return true
		}
	}
	return false
}

// personTypes are document types whose plain "name" is a person's name.
var personTypes = []string{"user", "customer", "player", "member", "author", "person", "employee", "patient", "student",
	"contact", "profile", "owner", "agent", "driver", "guest", "attendee", "speaker", "staff", "teacher", "doctor", "account"}

// fieldNameFor is the name a field's generator is chosen by: a plain "name" or "displayName" of a
// type that is not a person's ("event", "product") is read as a title.
func fieldNameFor(name, typ string) string {
	if n := lname(name); n == "name" || n == "displayname" {
		t := strings.ToLower(typ)
		for _, p := range personTypes {
			if strings.Contains(t, p) {
				return name
			}
		}
		return "title"
	}
	return name
}

func isPersonField(name string) bool {
	n := lname(name)
	return n == "name" || n == "fullname" || n == "displayname" || hasAny(n, "customername", "username", "authorname", "ownername",
		"playername", "contactname", "patientname", "studentname", "membername", "sendername", "recipientname")
}

func looksLikePersonName(s string) bool {
	ws := strings.Fields(s)
	if len(ws) < 2 || len(ws) > 3 {
		return false
	}
	for _, w := range ws {
		r := []rune(w)
		if !unicode.IsUpper(r[0]) {
			return false
		}
	}
	return true
}

// timesOf returns from/to dates bracketing the values, at least 30 days apart.
func timesOf(ss []string, parse func(string) (time.Time, bool)) ([2]string, bool) {
	var lo, hi time.Time
	for i, s := range ss {
		t, ok := parse(s)
		if !ok {
			return [2]string{}, false
		}
		if i == 0 || t.Before(lo) {
			lo = t
		}
		if i == 0 || t.After(hi) {
			hi = t
		}
	}
	from := lo.UTC().Truncate(24 * time.Hour)
	to := hi.UTC().Truncate(24*time.Hour).AddDate(0, 0, 1)
	if to.Sub(from) < 30*24*time.Hour {
		to = from.AddDate(0, 0, 30)
	}
	return [2]string{from.Format("2006-01-02"), to.Format("2006-01-02")}, true
}

func inferNumber(name string, vals []any) (design.Field, string) {
	lo, hi := math.Inf(1), math.Inf(-1)
	ints := true
	dec := 0
	distinct := map[float64]bool{}
	for _, v := range vals {
		n := v.(number)
		lo, hi = math.Min(lo, n.f), math.Max(hi, n.f)
		if !n.isInt() {
			ints = false
		}
		dec = max(dec, n.decimals())
		distinct[n.f] = true
	}
	ln := lname(name)
	if ln == "ttl" || strings.HasSuffix(ln, "version") || ln == "v" {
		if len(distinct) == 1 {
			return design.Field{Const: vals[0].(number).f}, ""
		}
	}
	if ints && lo >= 1e9 && hi <= 4.1e9 && nameHas(name, "ts", "time", "at", "date", "epoch", "timestamp", "created", "updated") {
		from := time.Unix(int64(lo), 0).UTC().Truncate(24 * time.Hour)
		to := time.Unix(int64(hi), 0).UTC().Truncate(24*time.Hour).AddDate(0, 0, 1)
		if to.Sub(from) < 30*24*time.Hour {
			to = from.AddDate(0, 0, 30)
		}
		return design.Field{Gen: "epoch", From: from.Format("2006-01-02"), To: to.Format("2006-01-02")}, ""
	}
	// Widen a narrow sample: a few examples rarely show the whole range.
	wlo, whi := lo, hi
	if lo == hi {
		if lo >= 0 {
			wlo, whi = math.Floor(lo/2), math.Ceil(hi*2)+1
		} else {
			wlo, whi = lo*2, 0
		}
	}
	if ints {
		return design.Field{Gen: "int", Min: ptr(wlo), Max: ptr(whi)}, ""
	}
	if nameHas(name, moneyWords...) || dec == 2 {
		return design.Field{Gen: "money", Min: ptr(math.Floor(wlo)), Max: ptr(math.Ceil(whi))}, ""
	}
	d := min(dec, 10)
	return design.Field{Gen: "decimal", Min: ptr(math.Floor(wlo)), Max: ptr(math.Ceil(whi)), Decimals: &d}, ""
}

func ptr[T any](v T) *T { return &v }

func inferObject(vals []any) (design.Field, string) {
	var order []string
	seen := map[string]bool{}
	for _, v := range vals {
		for _, k := range v.(*object).keys {
			if !seen[k] {
				seen[k] = true
				order = append(order, k)
			}
		}
	}
	var fs design.Fields
	var whys []string
	for _, k := range order {
		if strings.HasPrefix(k, "_") || k == "" || strings.ContainsAny(k, "{}") {
			continue
		}
		var sub []any
		present := 0
		for _, v := range vals {
			if x, ok := v.(*object).m[k]; ok {
				present++
				if x != nil {
					sub = append(sub, x)
				}
			}
		}
		f, w := inferValue(k, sub, false)
		if present < len(vals) {
			f.Optional = math.Min(0.99, math.Round(float64(len(vals)-present)/float64(len(vals))*100)/100)
		}
		if w != "" {
			whys = append(whys, k+": "+w)
		}
		fs = append(fs, design.NamedField{Name: k, Field: f})
	}
	if len(fs) == 0 {
		return design.Field{Const: map[string]any{}}, "an empty object in the examples"
	}
	return design.Field{Object: fs}, strings.Join(whys, "; ")
}

func inferArray(name string, vals []any) (design.Field, string) {
	lo, hi := math.MaxInt, 0
	var items []any
	why := ""
	for _, v := range vals {
		l := v.(*list)
		n := len(l.items)
		if l.elided {
			more := l.more
			if more == 0 {
				more = max(4*n, 10)
				why = "the example elides elements without saying how many; the length is a guess"
			}
			n += more
		}
		lo, hi = min(lo, len(l.items)), max(hi, n)
		items = append(items, l.items...)
	}
	if hi == lo && hi > 0 {
		lo = max(0, hi/2)
		hi = hi * 2
	}
	if hi == 0 {
		hi = 3
		why = joinWhy(why, "only empty arrays in the examples; the element generator is a guess")
	}
	if hi > 1000 {
		why = joinWhy(why, fmt.Sprintf("up to %d elements in production; seeded with at most 1000", hi))
		hi = 1000
	}
	lo = min(lo, hi)
	of := design.Field{Gen: "word"}
	if len(items) > 0 {
		var w string
		of, w = inferValue(singular(name), items, false)
		if of.Array != nil {
			// The design format has no arrays of arrays; an inner array is drafted as text.
			of = design.Field{Gen: "word"}
			w = joinWhy(w, "an array of arrays is drafted as an array of words")
		}
		if w != "" {
			why = joinWhy(why, "elements: "+w)
		}
		of.Optional = 0
	}
	return design.Field{Array: &design.ArraySpec{Min: lo, Max: hi}, Of: &of}, why
}

// findParents makes T a child of P when every example of T shares its first key value with an example
// of P whose id a field of T holds (order.userId = user.id, event.sessionId = session.id). Among
// several candidates the one referenced by the deepest key level wins (an event belongs to its
// session rather than to its user).
func (b *builder) findParents(c *design.Container, groups []*typeGroup) {
	first := strings.TrimPrefix(c.PartitionKey[0], "/")
	level := map[string]int{}
	for i, kp := range c.PartitionKey {
		level[strings.TrimPrefix(kp, "/")] = i + 1
	}
	same := func(a, b *object, f string) bool {
		x, ok1 := scalarString(a.m[f])
		y, ok2 := scalarString(b.m[f])
		return ok1 && ok2 && x == y
	}
	ancestor := func(a, of *typeGroup) bool {
		for p := of; p != nil; p = p.parent {
			if p == a {
				return true
			}
		}
		return false
	}
	for _, g := range groups {
		if len(g.docs) == 0 {
			continue
		}
		var best *typeGroup
		var bestMap map[*object]*object
		bestScore := -1
		for _, p := range groups {
			if p == g || len(p.docs) == 0 || ancestor(g, p) {
				continue
			}
			pmap := map[*object]*object{}
			score := 0
			for _, d := range g.docs {
				for _, pd := range p.docs {
					if first != "id" && !same(d, pd, first) {
						continue
					}
					pid, ok := scalarString(pd.m["id"])
					if !ok {
						continue
					}
					for _, f := range d.keys {
						if v, ok := scalarString(d.m[f]); ok && f != "id" && v == pid {
							pmap[d] = pd
							score = max(score, level[f])
							break
						}
					}
					if pmap[d] != nil {
						break
					}
				}
			}
			if len(pmap) == len(g.docs) && score > bestScore {
				best, bestMap, bestScore = p, pmap, score
			}
		}
		if best != nil {
			g.parent, g.parentOf = best, bestMap
		}
	}
}
