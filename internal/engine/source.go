package engine

import (
	"slices"
	"strconv"
	"strings"

	"github.com/cosmosdv/validate/internal/engine/index"
	"github.com/cosmosdv/validate/internal/engine/sql"
)

// pathKey joins a property path for map keys.
func pathKey(path []string) string { return strings.Join(path, "\x00") }

// index adds d, whose decoded body is body, to the value and ORDER BY indexes built so far. The
// caller holds p.mu for writing.
func (p *partition) index(d *doc, body map[string]any) {
	for _, ix := range p.all.ord {
		ix.Add(body, d.seq, d)
	}
	if lp := p.logical[d.lpk]; lp != nil {
		for _, ix := range lp.docs.ord {
			ix.Add(body, d.seq, d)
		}
	}
	for _, vi := range p.eq {
		valuesAt(body, vi.path, func(v any) { vi.ix.Add(v, d.seq, d) })
	}
}

// indexed reports whether any value or ORDER BY index of the partition holds d, so that removing
// it needs its body. The caller holds p.mu.
func (p *partition) indexed(d *doc) bool {
	if len(p.all.ord) > 0 || len(p.eq) > 0 {
		return true
	}
	lp := p.logical[d.lpk]
	return lp != nil && len(lp.docs.ord) > 0
}

// unindex removes d, whose decoded body is body (nil when p.indexed(d) is false), from the value
// and ORDER BY indexes. The caller holds p.mu for writing.
func (p *partition) unindex(d *doc, body map[string]any) {
	for _, ix := range p.all.ord {
		ix.Remove(body, d.seq)
	}
	if lp := p.logical[d.lpk]; lp != nil {
		for _, ix := range lp.docs.ord {
			ix.Remove(body, d.seq)
		}
	}
	for _, vi := range p.eq {
		valuesAt(body, vi.path, func(v any) { vi.ix.Remove(v, d.seq) })
	}
}

// valueIndex is the partition's index of one path: its documents under each scalar value, in
// sequence order (which is the document lists' order), values in the service's order.
type valueIndex struct {
	path []string
	ix   *sql.ValueIndex[*doc]
}

// lookupWith answers a lookup from the partition's index for path, building that index on first
// use: find returns the documents of the physical partition, which are then narrowed to the
// source's logical partition and to those not expired. ok=false when the policy does not index
// the path. The caller holds p.mu (read or write).
func (p *partition) lookupWith(c *container, path []string, now int64, lpk string, find func(ix *sql.ValueIndex[*doc]) []*doc) ([]*sql.Document, bool) {
	if len(path) == 0 || !c.policy.Indexed(path) {
		return nil, false
	}
	key := pathKey(path)
	p.eqMu.Lock()
	defer p.eqMu.Unlock() // released by defer: a panic while building must not leave it locked
	vi := p.eq[key]
	if vi == nil {
		if p.eq == nil {
			p.eq = map[string]*valueIndex{}
		}
		vi = &valueIndex{path: slices.Clone(path), ix: sql.NewValueIndex[*doc]()}
		for _, d := range p.all.items {
			if d != nil {
				valuesAt(d.body(), path, func(v any) { vi.ix.Add(v, d.seq, d) })
			}
		}
		p.eq[key] = vi
	}
	hits := find(vi.ix)
	out := make([]*sql.Document, 0, len(hits))
	for _, d := range hits {
		if !d.expired(now) && keyMatches(d.lpk, lpk) {
			out = append(out, d.visit())
		}
	}
	return out, true
}

// partSource is the documents of one physical partition, or of one logical partition in it, as
// the query package sees them. Expired documents are invisible.
type partSource struct {
	c    *container
	p    *partition
	list *docList
	lpk  string
	now  int64
}

// prefixKey is the key a hierarchical-key prefix's documents share: their canonical key (canonicalPK)
// up to the prefix's last level, with the comma that follows it, so that it is a string prefix of
// exactly their keys ("[\"t1\",\"u1\"," for tenant t1, user u1). A source given one holds the prefix's
// documents: the service reads a prefix as the effective-partition-key range its hash spans, the
// documents of its logical partitions, not the whole physical partition (assumed: no document says
// how a prefix query's index reads are scoped; an index organised by effective partition key reads
// that range, as it reads one logical partition for a full key).
func prefixKey(vals []any) string {
	return strings.TrimSuffix(canonicalPK(vals), "]") + ","
}

// isPrefixKey reports whether lpk is a prefixKey rather than one logical partition's key.
func isPrefixKey(lpk string) bool { return strings.HasSuffix(lpk, ",") }

// keyMatches reports whether a document with logical partition key docKey is in the scope lpk: any
// ("" ), a prefix (prefixKey), or one logical partition.
func keyMatches(docKey, lpk string) bool {
	switch {
	case lpk == "":
		return true
	case isPrefixKey(lpk):
		return strings.HasPrefix(docKey, lpk)
	}
	return docKey == lpk
}

func (s *partSource) Scan(fn func(d *sql.Document) bool) {
	if s.list == nil {
		return
	}
	for _, d := range s.list.items {
		if d == nil || d.expired(s.now) || !keyMatches(d.lpk, s.lpk) {
			continue
		}
		if !fn(d.visit()) {
			return
		}
	}
}

func (s *partSource) Len() int {
	if s.list == nil {
		return 0
	}
	if isPrefixKey(s.lpk) {
		n := 0
		for _, d := range s.list.items {
			if d != nil && keyMatches(d.lpk, s.lpk) {
				n++
			}
		}
		return n
	}
	return s.list.live
}

func (s *partSource) Lookup(path []string, v any) ([]*sql.Document, bool) {
	return s.p.lookupWith(s.c, path, s.now, s.lpk, func(ix *sql.ValueIndex[*doc]) []*doc { return ix.Equal(v) })
}

func (s *partSource) LookupIn(path []string, vals []any) ([]*sql.Document, bool) {
	return s.p.lookupWith(s.c, path, s.now, s.lpk, func(ix *sql.ValueIndex[*doc]) []*doc { return ix.In(vals) })
}

func (s *partSource) LookupRange(path []string, r sql.Range) ([]*sql.Document, bool) {
	return s.p.lookupWith(s.c, path, s.now, s.lpk, func(ix *sql.ValueIndex[*doc]) []*doc { return ix.Range(r) })
}

// WalkOrdered walks the source's documents in o's order from the list's index for o, building it
// on first use (under p.eqMu, as queries hold p.mu only for reading); writes keep it up to date
// (partition.index). Ties come in sequence order, which is the list's order. Expired documents are
// skipped, as Scan skips them.
func (s *partSource) WalkOrdered(o *sql.Order, after *sql.Cursor, fn func(d *sql.Document, at *sql.Cursor) bool) bool {
	if s.list == nil {
		return true
	}
	ix := func() *sql.OrderIndex[*doc] {
		s.p.eqMu.Lock()
		defer s.p.eqMu.Unlock() // a panic while building must not leave it locked
		ix := s.list.ord[o.Key()]
		if ix == nil {
			ix = sql.NewOrderIndex[*doc](o)
			for _, d := range s.list.items {
				if d != nil {
					ix.Add(d.body(), d.seq, d)
				}
			}
			if s.list.ord == nil {
				s.list.ord = map[string]*sql.OrderIndex[*doc]{}
			}
			s.list.ord[o.Key()] = ix
		}
		return ix
	}()
	ix.Walk(after, func(d *doc, at *sql.Cursor) bool {
		if d.expired(s.now) || !keyMatches(d.lpk, s.lpk) {
			return true
		}
		return fn(d.visit(), at)
	})
	return true
}

var (
	_ sql.ValueSource   = (*partSource)(nil)
	_ sql.OrderedSource = (*partSource)(nil)
)

// arrayMark prefixes an array position in flattenIndexed's concrete paths, so a path tells whether
// it runs through an array. A property name starting with \x01 would be weighed twice too; the
// only effect is a slightly dearer write.
const arrayMark = "\x01"

func inArray(concrete string) bool { return strings.Contains(concrete, "/"+arrayMark) }

// flattenIndexed records the indexed scalar leaves of a document by their concrete path.
func flattenIndexed(c *container, cur any, path []string, concrete string, out map[string]string) {
	switch x := cur.(type) {
	case map[string]any:
		for k, v := range x {
			if len(path) == 0 && isSystem(k) {
				continue
			}
			flattenIndexed(c, v, append(path, k), concrete+"/"+k, out)
		}
	case []any:
		for i, v := range x {
			flattenIndexed(c, v, append(path, "[]"), concrete+"/"+arrayMark+strconv.Itoa(i), out)
		}
	default:
		if c.policy.Indexed(path) {
			k, _ := scalarKey(x)
			out[concrete] = k
		}
	}
}

// changedTerms counts index terms that differ between two versions of an item: terms added,
// removed or changed in value (an assumed reading of "changed terms" in
// understand-request-unit-consumption.md, which does not define it further).
func changedTerms(c *container, old, nw map[string]any) int {
	a, b := map[string]string{}, map[string]string{}
	flattenIndexed(c, old, nil, "", a)
	flattenIndexed(c, nw, nil, "", b)
	// A leaf inside an array carries index.ArrayLeafTerms terms (index.Compiled.Terms).
	weight := func(concrete string) int {
		if inArray(concrete) {
			return index.ArrayLeafTerms
		}
		return 1
	}
	n := 0
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			n += weight(k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			n += weight(k)
		}
	}
	return n
}
