// Package project carries each query pattern's charge from the seeded scale to the design's
// production scale. It executes the pattern's query in process (the engine's query package, no
// HTTP) over the seeded documents and over a second, smaller seeded size (plan.HalfScale: half the
// root counts and cardinalities, same seed; plan.HalfChildren, half the children per parent, for a
// query scoped to one key value), and hands the facts to plan.Project, the one projection plan and
// run share: each fact's growth with the documents in scope fitted, evaluated at the documents in
// scope at production (plan's scope growth from the production counts and key distribution) over
// the physical partitions plan computes from storage and throughput. The figures are modeled, like
// every figure of the cost model.
package project

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine/index"
	"github.com/cosmosdv/validate/internal/engine/sql"
	"github.com/cosmosdv/validate/internal/indexpolicy"
	"github.com/cosmosdv/validate/internal/plan"
	"github.com/cosmosdv/validate/internal/probe"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/seed"
)

// Draws is how many parameter draws each query pattern is executed with at each size. The draws
// pick the same sample documents at every size (the first of their type, which the seeded sizes
// share: the same roots, with the same values), spread evenly over them, and every fact's growth is
// fitted on its sum over the draws (plan.ProjectDraws). In process a draw costs one pass over the
// container's seeded documents.
const Draws = 32

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
	c       *design.Container
	pol     *index.Compiled
	search  *sql.Search // the container's full-text and vector settings, as the engine reads them
	docs    []*doc      // the seeded documents
	smaller []*doc      // the documents of the smaller seeded size (plan.HalfScale)
	plan    *plan.Container
	// children returns the documents of plan.HalfChildren (halfChildren), generated on first use.
	children     func() ([]*doc, error)
	halfChildren []*doc
}

// Patterns projects every pattern of d. sp is the seed plan the run seeded with (seed seedN); the
// smaller seeded size is plan.HalfScale(d) with the same seed. The production counts, the physical
// partitions and each query's scope growth are the plan's (plan.Build), and the fit is plan.Project:
// only the facts differ, executed here where plan estimates them. Patterns whose query cannot be
// projected get a Note saying why.
func Patterns(ctx context.Context, d *design.Design, sp *seed.Plan, seedN int64) ([]record.Projection, error) {
	pl, err := plan.Build(d, plan.Options{Seed: seedN})
	if err != nil {
		return nil, fmt.Errorf("projection: %w", err)
	}
	cs := map[string]*container{}
	for i := range d.Containers {
		c := &d.Containers[i]
		pol, err := indexpolicy.Compile(c.Indexing)
		if err != nil {
			pol = nil // everything indexed, as the plan does
		}
		cs[c.Name] = &container{c: c, pol: pol, search: searchOf(c)}
	}
	for i := range pl.Containers {
		if ct := cs[pl.Containers[i].Name]; ct != nil {
			ct.plan = &pl.Containers[i]
		}
	}
	if err := walk(ctx, sp, cs, func(ct *container, x *doc) { ct.docs = append(ct.docs, x) }); err != nil {
		return nil, err
	}
	sp2, err := seed.Compile(plan.HalfScale(d), seedN)
	if err != nil {
		return nil, fmt.Errorf("projection: the smaller seeded size: %w", err)
	}
	if err := walk(ctx, sp2, cs, func(ct *container, x *doc) { ct.smaller = append(ct.smaller, x) }); err != nil {
		return nil, err
	}
	// plan.HalfChildren's documents, for queries scoped to one key value, generated once if needed.
	var childrenErr error
	childrenDone := false
	halfChildren := func() error {
		if childrenDone {
			return childrenErr
		}
		childrenDone = true
		sp3, err := seed.Compile(plan.HalfChildren(d), seedN)
		if err != nil {
			childrenErr = fmt.Errorf("projection: the smaller seeded size: %w", err)
			return childrenErr
		}
		childrenErr = walk(ctx, sp3, cs, func(ct *container, x *doc) { ct.halfChildren = append(ct.halfChildren, x) })
		return childrenErr
	}
	for _, ct := range cs {
		ct.children = func() ([]*doc, error) {
			err := halfChildren()
			return ct.halfChildren, err
		}
	}
	out := make([]record.Projection, 0, len(d.AccessPatterns))
	for pi := range d.AccessPatterns {
		ap := &d.AccessPatterns[pi]
		ct := cs[ap.Container]
		switch {
		case ct == nil || ct.plan == nil:
			out = append(out, record.Projection{ID: ap.ID, Factor: 1, Note: "no such container"})
		case ap.Op == design.OpChangeFeed:
			out = append(out, record.Projection{ID: ap.ID, Production: ct.plan.ProductionScale, Unprojected: true, Factor: 1,
				Note: "a change feed's charge follows the changes it reads, which the design does not state at production scale"})
		case ap.Op != design.OpQuery:
			out = append(out, record.Projection{ID: ap.ID, Production: ct.plan.ProductionScale, Point: true, Factor: 1,
				Note: "point operation: its charge does not change with scale"})
		default:
			pr := ct.project(pi, ap, pl.Patterns[pi].ScopeGrowth, pl.Patterns[pi].ScopeBasis)
			if len(pr.Arithmetic) == 0 {
				// Not projected (the Note says why): reports show and judge the seeded figure as
				// such, never as a projection by ×1.
				pr.Unprojected = true
			}
			out = append(out, pr)
		}
	}
	return out, nil
}

func (ct *container) project(pi int, ap *design.AccessPattern, growth float64, scopeBasis []string) record.Projection {
	pr := record.Projection{ID: ap.ID, Production: ct.plan.ProductionScale, Factor: 1}
	q, err := sql.Parse(ap.Query)
	if err != nil {
		pr.Note = "the query does not parse: " + err.Error()
		return pr
	}
	var key []any
	// shared is how many sample documents every size holds (the draws pick among those).
	shared := 0
	if ap.Sample != "" {
		shared = min(count(ct.docs, ap.Sample), count(ct.smaller, ap.Sample))
	}
	// runAt executes the draws over docs.
	runAt := func(docs []*doc) ([]plan.Draw, string) {
		var ex []plan.Draw
		for i := range Draws {
			var sample map[string]any
			if ap.Sample != "" {
				s, ok := pick(docs, ap.Sample, spread(i, shared))
				if !ok {
					return nil, "no seeded document of type " + ap.Sample
				}
				sample = s
			}
			params, k, err := probe.ParamsFor(ct.c, ap, sample)
			if err != nil {
				return nil, err.Error()
			}
			key = k
			e, err := ct.execute(q, docs, params, k)
			if err != nil {
				return nil, "the query fails in process: " + err.Error()
			}
			ex = append(ex, e)
			if ap.Sample == "" {
				break // every draw would be the same
			}
		}
		return ex, ""
	}
	ex1, note := runAt(ct.docs)
	if note != "" {
		pr.Note = note
		return pr
	}
	ex2, note := runAt(ct.smaller)
	if note != "" {
		pr.Note = note
		return pr
	}
	n1, n2 := plan.CentralScope(cost.Current, ex1), plan.CentralScope(cost.Current, ex2)
	children := plan.UseHalfChildren(n1, n2, growth)
	if children {
		// One key value's documents: HalfScale leaves them as they are, HalfChildren does not.
		docs, err := ct.children()
		if err != nil {
			pr.Note = err.Error()
			return pr
		}
		if ap.Sample != "" && count(docs, ap.Sample) < shared {
			// The sample is a child type: draw among the documents all three sizes hold.
			shared = count(docs, ap.Sample)
			if ex1, note = runAt(ct.docs); note != "" {
				pr.Note = note
				return pr
			}
		}
		if ex2, note = runAt(docs); note != "" {
			pr.Note = note
			return pr
		}
	}
	// Without a key the query checks every physical partition; a key or a hierarchical prefix is
	// assumed to sit in one, as the plan assumes.
	parts := 1
	if len(key) == 0 {
		parts = ct.plan.Partitions
	}
	m := plan.ProjectDraws(cost.Current, ex1, ex2, growth, parts, ct.plan.StorageBasis, plan.LimitOf(sql.Analyze(q, ct.pol)))
	m.HalfChildren, m.ScopeBasis = children, scopeBasis

	pr.SeededRU, pr.ProjectedRU = round2(m.SeededRU), round2(m.ProjectedRU)
	pr.Factor = m.Factor()
	pr.ScopeSeeded, pr.ScopeSmaller, pr.ScopeProduction = int(m.N1), int(m.N2), math.Round(m.N1*growth)
	pr.Partitions = m.Partitions
	pr.Growth = m.Fit
	pr.Arithmetic = m.Arithmetic()
	if !ct.plan.ProductionScale {
		pr.Note = "no production scale in the design: production scale is the seeded one (" + ct.plan.StorageBasis + ")"
	}
	return pr
}

// count is the number of documents of type typ.
func count(docs []*doc, typ string) int {
	n := 0
	for _, d := range docs {
		if d.typ == typ {
			n++
		}
	}
	return n
}

// spread is the sample document draw i picks among the first shared of its type: evenly spread,
// so that the draws stand for the type's documents and not for a few of them.
func spread(i, shared int) int {
	if shared <= 0 {
		return i
	}
	if shared < Draws {
		return i % shared
	}
	return (2*i + 1) * shared / (2 * Draws)
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
func (ct *container) execute(q *sql.Query, docs []*doc, params map[string]any, key []any) (plan.Draw, error) {
	var src sliceSource
	for _, d := range docs {
		if inScope(d.pk, key) {
			src = append(src, &d.d)
		}
	}
	r, err := sql.Execute(q, src, sql.Options{Params: params, Policy: ct.pol, Search: ct.search})
	if err != nil {
		return plan.Draw{}, err
	}
	return plan.Draw{Facts: r.Facts, Scope: float64(len(src))}, nil
}

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

// searchOf is the container's full-text policy and index and its vector embedding policy as the
// engine reads them from the container provision creates (nil when it has none), so that a search
// query executes in process as it does in the run.
func searchOf(c *design.Container) *sql.Search {
	if c.FullText == nil && len(c.Vectors) == 0 {
		return nil
	}
	s := &sql.Search{FullText: map[string]bool{}, FullTextIndexed: map[string]bool{}, Vectors: map[string]string{}}
	if c.FullText != nil {
		for _, p := range c.FullText.Paths {
			s.FullText[p] = true
		}
	}
	if c.Indexing != nil {
		for _, p := range c.Indexing.FullText {
			s.FullTextIndexed[p] = true
		}
	}
	for _, v := range c.Vectors {
		dist := strings.ToLower(v.Distance)
		if dist == "" {
			dist = "cosine"
		}
		s.Vectors[v.Path] = dist
	}
	return s
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
