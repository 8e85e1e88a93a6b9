// Package project carries each query pattern's charge from the seeded scale to the design's
// production scale. It executes the pattern's query in process (the engine's query package, no
// HTTP) over the seeded documents and over a second, smaller seeded size (the same design at half
// its root counts and cardinalities, same seed), fits how each execution fact grows with the
// documents in scope, and evaluates the fitted facts at the documents in scope at production:
// documents per logical partition from the key distribution, physical partitions from storage and
// throughput (the figure `validate plan` prints and the engine simulates). The figures are
// modeled, like every figure of the cost model.
package project

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine/index"
	"github.com/cosmosdv/validate/internal/engine/sql"
	"github.com/cosmosdv/validate/internal/plan"
	"github.com/cosmosdv/validate/internal/probe"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/seed"
)

// Draws is how many parameter draws each query pattern is executed with at each size; the median
// of every fact is fitted.
const Draws = 9

// pageSize is the service's default maximum item count per page, which the probe keeps.
const pageSize = 100

// doc is one seeded document as the projection needs it.
type doc struct {
	d   sql.Document
	typ string
	pk  []any
}

// container is what the projection knows about one container.
type container struct {
	c          *design.Container
	pol        *index.Compiled
	docs       []*doc             // the seeded documents
	smaller    []*doc             // the documents of the smaller seeded size (halfScale)
	seeded     map[string]float64 // documents per type, seeded
	production map[string]float64 // documents per type, production
	partitions int
	stated     bool // the design states a production scale for this container
	basis      string
}

// Patterns projects every pattern of d. sp is the seed plan the run seeded with (seed seedN); the
// smaller seeded size is halfScale(d) with the same seed. Patterns whose query cannot be projected
// get a Note saying why.
func Patterns(ctx context.Context, d *design.Design, sp *seed.Plan, seedN int64) ([]record.Projection, error) {
	pl, err := plan.Build(d, plan.Options{Seed: seedN})
	if err != nil {
		return nil, fmt.Errorf("projection: %w", err)
	}
	cs := map[string]*container{}
	for i := range d.Containers {
		c := &d.Containers[i]
		pol, err := plan.CompilePolicy(c.Indexing)
		if err != nil {
			pol = nil // everything indexed, as the plan does
		}
		cs[c.Name] = &container{c: c, pol: pol, seeded: map[string]float64{}, production: map[string]float64{}}
	}
	if err := walk(ctx, sp, cs, func(ct *container, x *doc) {
		ct.docs = append(ct.docs, x)
		ct.seeded[x.typ]++
	}); err != nil {
		return nil, err
	}
	sp2, err := seed.Compile(halfScale(d), seedN)
	if err != nil {
		return nil, fmt.Errorf("projection: the smaller seeded size: %w", err)
	}
	if err := walk(ctx, sp2, cs, func(ct *container, x *doc) { ct.smaller = append(ct.smaller, x) }); err != nil {
		return nil, err
	}
	for _, pc := range pl.Containers {
		ct := cs[pc.Name]
		if ct == nil {
			continue
		}
		ct.partitions = max(pc.Partitions, 1)
		ct.basis = pc.StorageBasis
		seededGB := 0.0
		for _, pd := range pc.Documents {
			seededGB += pd.Count * pd.Bytes / 1e9
		}
		scale := 1.0
		if pc.StorageBasis != "seeded documents (no scale given)" && seededGB > 0 {
			scale, ct.stated = pc.StorageGB/seededGB, true
		}
		for i := range ct.c.Documents {
			dt := &ct.c.Documents[i]
			ct.production[dt.Type] = ct.seeded[dt.Type] * scale
			if dt.Production > 0 {
				ct.production[dt.Type], ct.stated = dt.Production, true
			}
		}
	}
	out := make([]record.Projection, 0, len(d.AccessPatterns))
	for pi := range d.AccessPatterns {
		ap := &d.AccessPatterns[pi]
		ct := cs[ap.Container]
		switch {
		case ct == nil:
			out = append(out, record.Projection{ID: ap.ID, Factor: 1, Note: "no such container"})
		case ap.Op == design.OpChangeFeed:
			out = append(out, record.Projection{ID: ap.ID, Production: ct.stated, Unprojected: true, Factor: 1,
				Note: "change feed: not projected; its charge follows the changes it reads, which the design does not state at production scale"})
		case ap.Op != design.OpQuery:
			out = append(out, record.Projection{ID: ap.ID, Production: ct.stated, Point: true, Factor: 1,
				Note: "point operation: its charge does not change with scale"})
		default:
			out = append(out, ct.project(pi, ap))
		}
	}
	return out, nil
}

// execution is one parameter draw executed at one seeded size.
type execution struct {
	f cost.QueryFacts
	n int // documents in scope
}

// draw is what the projection reports: the median facts at both sizes and the fit.
type draw struct {
	f1, f2     cost.QueryFacts
	n1, n2     int
	growth     float64 // documents in scope at production ÷ seeded
	fit        map[string]float64
	fp         cost.QueryFacts
	pages1, pp int
	seeded     float64
	projected  float64
}

func (ct *container) project(pi int, ap *design.AccessPattern) record.Projection {
	pr := record.Projection{ID: ap.ID, Production: ct.stated, Factor: 1}
	q, err := sql.Parse(ap.Query)
	if err != nil {
		pr.Note = "the query does not parse: " + err.Error()
		return pr
	}
	var key []any
	var ex [2][]execution
	for size, docs := range [][]*doc{ct.docs, ct.smaller} {
		for i := range Draws {
			var sample map[string]any
			if ap.Sample != "" {
				s, ok := pick(docs, ap.Sample, i*7919+pi)
				if !ok {
					pr.Note = "no seeded document of type " + ap.Sample
					return pr
				}
				sample = s
			}
			params, k, err := probe.ParamsFor(ct.c, ap, sample)
			if err != nil {
				pr.Note = err.Error()
				return pr
			}
			key = k
			e, err := ct.execute(q, docs, params, k)
			if err != nil {
				pr.Note = "the query fails in process: " + err.Error()
				return pr
			}
			ex[size] = append(ex[size], e)
			if ap.Sample == "" {
				break // every draw would be the same
			}
		}
	}
	m := draw{f1: medianFacts(ex[0]), f2: medianFacts(ex[1]), n1: medianScope(ex[0]), n2: medianScope(ex[1])}
	// Without a key the query checks every physical partition; a key or a hierarchical prefix is
	// assumed to sit in one, as the plan assumes.
	parts := 1
	if len(key) == 0 {
		parts = ct.partitions
	}
	m.growth = ct.scopeGrowth(ap, key)
	m.fit, m.fp = fitFacts(m.f1, m.f2, m.n1, m.n2, m.growth)
	m.f1.PartitionsChecked, m.fp.PartitionsChecked = parts, parts
	m.pages1, m.pp = pages(m.f1.DocsOutput), pages(m.fp.DocsOutput)
	m.seeded = cost.Current.QueryPages(m.f1, m.pages1)
	m.projected = cost.Current.QueryPages(m.fp, m.pp)

	pr.SeededRU, pr.ProjectedRU = round2(m.seeded), round2(m.projected)
	if m.seeded > 0 {
		pr.Factor = m.projected / m.seeded
	}
	pr.ScopeSeeded, pr.ScopeSmaller, pr.ScopeProduction = m.n1, m.n2, math.Round(float64(m.n1)*m.growth)
	pr.Partitions = parts
	pr.Growth = m.fit
	pr.Arithmetic = arithmetic(ct, m)
	if !ct.stated {
		pr.Note = "no production scale in the design: production scale is the seeded one (" + ct.basis + ")"
	}
	return pr
}

// pick returns the n-th document of type typ (modulo their number).
func pick(docs []*doc, typ string, n int) (map[string]any, bool) {
	var of []*doc
	for _, d := range docs {
		if d.typ == typ {
			of = append(of, d)
		}
	}
	if len(of) == 0 {
		return nil, false
	}
	return of[n%len(of)].d.Body, true
}

// execute runs the query over the documents in the scope of key.
func (ct *container) execute(q *sql.Query, docs []*doc, params map[string]any, key []any) (execution, error) {
	var src sliceSource
	for _, d := range docs {
		if inScope(d.pk, key) {
			src = append(src, &d.d)
		}
	}
	r, err := sql.Execute(q, src, sql.Options{Params: params, Policy: ct.pol})
	if err != nil {
		return execution{}, err
	}
	return execution{f: r.Facts, n: len(src)}, nil
}

// medianFacts is the median of every fact over the executions.
func medianFacts(ex []execution) cost.QueryFacts {
	var out cost.QueryFacts
	if len(ex) == 0 {
		return out
	}
	med := func(get func(f *cost.QueryFacts) float64) float64 {
		vs := make([]float64, len(ex))
		for i := range ex {
			vs[i] = get(&ex[i].f)
		}
		slices.Sort(vs)
		return vs[len(vs)/2]
	}
	rp := factRefs(&out)
	for i, name := range factNames {
		switch {
		case rp[i] != nil:
			*rp[i] = int(med(func(f *cost.QueryFacts) float64 { return float64(*factRefs(f)[i]) }))
		case name == "bytesLoaded":
			out.BytesLoaded = int64(med(func(f *cost.QueryFacts) float64 { return float64(f.BytesLoaded) }))
		default:
			out.BytesOutput = int64(med(func(f *cost.QueryFacts) float64 { return float64(f.BytesOutput) }))
		}
	}
	out.IndexLookups = int(med(func(f *cost.QueryFacts) float64 { return float64(f.IndexLookups) }))
	out.Consistency = ex[0].f.Consistency
	return out
}

// medianScope is the median number of documents in scope over the executions.
func medianScope(ex []execution) int {
	ns := make([]int, len(ex))
	for i := range ex {
		ns[i] = ex[i].n
	}
	slices.Sort(ns)
	if len(ns) == 0 {
		return 0
	}
	return ns[len(ns)/2]
}

func pages(out int) int { return max(1, (out+pageSize-1)/pageSize) }

// inScope reports whether a document with key values pk is in the scope of a query keyed by key (a
// full key, a hierarchical prefix, or none).
func inScope(pk, key []any) bool {
	if len(key) == 0 {
		return true
	}
	if len(pk) < len(key) {
		return false
	}
	for i, v := range key {
		if fmt.Sprint(pk[i]) != fmt.Sprint(v) {
			return false
		}
	}
	return true
}

// scopeGrowth is how many times more documents a query's scope holds at production than seeded.
// Without a key the scope is the container: the growth of all its documents. With a key (or
// prefix) it is one key value's documents: they grow with the production counts when the key's
// finest given level takes its values from a fixed set the design names (a oneOf list, a constant,
// a boolean, an int range), and stay as they are otherwise: ids, uuids, copies of a parent's id,
// and generators with a `cardinality`, which sets how many distinct values the seeded volume has
// (assumed: the number of values grows with the documents, the share of each stays).
func (ct *container) scopeGrowth(ap *design.AccessPattern, key []any) float64 {
	var seeded, prod float64
	for t, n := range ct.seeded {
		seeded += n
		prod += ct.production[t]
	}
	all := 1.0
	if seeded > 0 {
		all = prod / seeded
	}
	if len(key) == 0 {
		return all
	}
	dt := ct.c.DocType(ap.Sample)
	if dt == nil {
		dt = ct.c.DocType(ap.Document)
	}
	if dt == nil && len(ct.c.Documents) > 0 {
		dt = &ct.c.Documents[0]
	}
	if dt == nil || !ct.bounded(dt, ct.c.PartitionKey[len(key)-1], 0) {
		return 1
	}
	return all
}

// bounded reports whether the values of the field at path in type dt come from a fixed set.
func (ct *container) bounded(dt *design.DocType, path string, depth int) bool {
	if depth > 8 {
		return false
	}
	f := fieldAt(dt, path)
	if f == nil {
		return strings.Trim(path, "/") != "id"
	}
	switch {
	case f.Const != nil, len(f.OneOf) > 0, f.Gen == "bool":
		return true
	case f.Gen == "int" && f.Min != nil && f.Max != nil:
		return true
	case f.Copy != "":
		if ref, ok := strings.CutPrefix(f.Copy, "parent."); ok && dt.Parent != nil {
			if pt := ct.c.DocType(dt.Parent.Type); pt != nil {
				return ct.bounded(pt, "/"+strings.ReplaceAll(ref, ".", "/"), depth+1)
			}
		}
		if f.Copy == "id" {
			return false
		}
		return ct.bounded(dt, "/"+strings.ReplaceAll(f.Copy, ".", "/"), depth+1)
	}
	return false
}

// fieldAt finds the field at a key path such as "/tenantId".
func fieldAt(dt *design.DocType, path string) *design.Field {
	fs := dt.Fields
	var f *design.Field
	for seg := range strings.SplitSeq(strings.Trim(path, "/"), "/") {
		g, ok := fs.Lookup(seg)
		if !ok {
			return nil
		}
		f = g
		fs = g.Object
	}
	return f
}

// factNames are the facts the projection fits, in report order.
var factNames = []string{"indexEntries", "docsLoaded", "bytesLoaded", "docsEvaluated", "docsOutput", "bytesOutput", "joinRows", "functionCalls", "sortedInMemory"}

func factRefs(f *cost.QueryFacts) []*int {
	return []*int{&f.IndexEntriesRead, &f.DocsLoaded, nil, &f.DocsEvaluated, &f.DocsOutput, nil, &f.JoinRows, &f.FunctionCalls, &f.SortedInMemory}
}

// exponent fits fact ∝ n^k through the two seeded sizes: k = ln(F1/F2) / ln(n1/n2), clamped to
// [0, 2]. A fact that is zero at the smaller size and not at the larger grows linearly (k = 1,
// assumed); one that is zero at the larger does not grow. The plan's facts either follow the
// documents in scope (a scan, a range, a value shared by a share of the documents: k = 1) or do not
// (a key's own documents, TOP: k = 0); a measured k within snapTo of 0 or 1 is that integer, the
// rest being the noise of small seeded counts (assumed), and any other k is kept as measured.
func exponent(f1, f2 float64, n1, n2 int) float64 {
	switch {
	case f1 <= 0 || n1 <= n2 || n2 <= 0:
		return 0
	case f2 <= 0:
		return 1
	}
	k := math.Min(math.Max(math.Log(f1/f2)/math.Log(float64(n1)/float64(n2)), 0), 2)
	for _, whole := range []float64{0, 1} {
		if math.Abs(k-whole) <= snapTo {
			return whole
		}
	}
	return k
}

// snapTo is how close a measured growth exponent must be to 0 or 1 to be taken as that.
const snapTo = 0.3

// fitFacts fits every fact and evaluates it at growth times the seeded scope.
func fitFacts(f1, f2 cost.QueryFacts, n1, n2 int, growth float64) (map[string]float64, cost.QueryFacts) {
	fit := map[string]float64{}
	fp := f1
	fp.IndexReads = nil
	r1, r2, rp := factRefs(&f1), factRefs(&f2), factRefs(&fp)
	for i, name := range factNames {
		var a, b float64
		if r1[i] != nil {
			a, b = float64(*r1[i]), float64(*r2[i])
		} else if name == "bytesLoaded" {
			a, b = float64(f1.BytesLoaded), float64(f2.BytesLoaded)
		} else {
			a, b = float64(f1.BytesOutput), float64(f2.BytesOutput)
		}
		k := exponent(a, b, n1, n2)
		fit[name] = round2(k)
		v := a * math.Pow(math.Max(growth, 0), k)
		if r1[i] != nil {
			*rp[i] = int(math.Round(v))
		} else if name == "bytesLoaded" {
			fp.BytesLoaded = int64(v)
		} else {
			fp.BytesOutput = int64(v)
		}
	}
	return fit, fp
}

// arithmetic spells the median draw's projection out.
func arithmetic(ct *container, m draw) []string {
	var growths []string
	for _, name := range factNames {
		if k := m.fit[name]; k != 0 {
			growths = append(growths, fmt.Sprintf("%s ∝ n^%.2f", name, k))
		}
	}
	if len(growths) == 0 {
		growths = append(growths, "no fact grows with n")
	}
	lines := []string{
		fmt.Sprintf("documents in scope: %d seeded, %d at the smaller seeded size; production ×%.4g → %.4g", m.n1, m.n2, m.growth, float64(m.n1)*m.growth),
		"fitted: " + strings.Join(growths, ", "),
		fmt.Sprintf("seeded facts: %s → %.2f RU in %d page(s)", factText(m.f1), m.seeded, m.pages1),
		fmt.Sprintf("production facts: %s → %.2f RU in %d page(s)", factText(m.fp), m.projected, m.pp),
	}
	if m.fp.PartitionsChecked > 1 {
		lines = append(lines, fmt.Sprintf("%d physical partitions at production (%s): %.1f RU for the %d beyond the first (each a request minimum, its index check and, where the index finds entries, the first seek)",
			ct.partitions, ct.basis, cost.Current.PartitionChecks(m.fp), m.fp.PartitionsChecked-1))
	}
	return slices.Clip(lines)
}

func factText(f cost.QueryFacts) string {
	return fmt.Sprintf("%d index entries, %d loaded (%.1f KB), %d evaluated, %d returned (%.1f KB), %d rows, %d sorted, %d partition(s)",
		f.IndexEntriesRead, f.DocsLoaded, float64(f.BytesLoaded)/1024, f.DocsEvaluated, f.DocsOutput, float64(f.BytesOutput)/1024,
		f.JoinRows, f.SortedInMemory, max(f.PartitionsChecked, 1))
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// sliceSource is a sql.Source over documents in seeding order.
type sliceSource []*sql.Document

func (s sliceSource) Scan(fn func(d *sql.Document) bool) {
	for _, d := range s {
		if !fn(d) {
			return
		}
	}
}

func (s sliceSource) Len() int { return len(s) }

// walk generates the documents of sp and hands each, decoded, to add with its container.
func walk(ctx context.Context, sp *seed.Plan, cs map[string]*container, add func(*container, *doc)) error {
	return sp.Walk(ctx, func(sd *seed.Doc) error {
		ct := cs[sd.Container]
		if ct == nil {
			return nil
		}
		var body map[string]any
		if err := json.Unmarshal(sd.Body, &body); err != nil {
			return fmt.Errorf("projection: decode %s: %w", sd.ID, err)
		}
		add(ct, &doc{d: sql.Document{Body: body, Size: len(sd.Body)}, typ: sd.Type, pk: sd.PK})
		return nil
	})
}

// halfScale is d at the smaller seeded size: every root type's count and every generator's
// cardinality halved (at least 1); children per parent and named value sets unchanged. That is how
// the projection assumes production grows (scopeGrowth): more roots, and more distinct values where
// a cardinality sets them, each value keeping its share.
func halfScale(d *design.Design) *design.Design {
	h := *d
	h.Containers = make([]design.Container, len(d.Containers))
	for i, c := range d.Containers {
		c.Documents = slices.Clone(c.Documents)
		for j := range c.Documents {
			dt := &c.Documents[j]
			if dt.Count > 0 {
				dt.Count = max(1, dt.Count/2)
			}
			dt.Fields = halfFields(dt.Fields)
		}
		h.Containers[i] = c
	}
	return &h
}

func halfFields(fs design.Fields) design.Fields {
	out := slices.Clone(fs)
	for i := range out {
		out[i].Field = halfField(out[i].Field)
	}
	return out
}

func halfField(f design.Field) design.Field {
	if f.Cardinality > 0 {
		f.Cardinality = max(1, f.Cardinality/2)
	}
	if f.Of != nil {
		of := halfField(*f.Of)
		f.Of = &of
	}
	if len(f.Object) > 0 {
		f.Object = halfFields(f.Object)
	}
	return f
}
