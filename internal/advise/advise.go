// Package advise is `validate advise`: it proposes changes to a design — the indexing policy, the
// partition key, embedding or referencing related documents, a secondary container or a global
// secondary index for a cross-partition query — and prices each one. advise adds search, not a
// model: every candidate is a variant design, and every figure of it is plan.Build's at the design's
// production scale, the same estimator `validate plan` prints (a pattern's production charge, its
// request rates, each container's load, partitions and cheapest monthly cost).
package advise

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/lint"
	"github.com/cosmosdv/validate/internal/plan"
)

// SchemaVersion is the version of the JSON form of an Advice. Changes are additive only.
const SchemaVersion = 1

// DefaultMaxCandidates is how many variant designs Advise prices for one design at most: the
// search is bounded so that advice takes seconds on the examples (each candidate is one
// plan.Build).
const DefaultMaxCandidates = 50

// Options tune Advise.
type Options struct {
	// RateCard is the card to price with (nil = cost.Current).
	RateCard *cost.RateCard
	// Rules is a calibration profile's decided rules (cost.Profile.Selection); nil = defaults.
	Rules *cost.Selection
	// Seed is the generator seed whose seeded counts the plans use (0 = plan.DefaultSeed).
	Seed int64
	// MaxCandidates caps the variants priced (0 = DefaultMaxCandidates).
	MaxCandidates int
	// Headroom is the share of a logical partition's limits a key's busiest logical partition may
	// use and still rank among the keys with headroom (plan.Options.Headroom; 0 =
	// cost.DefaultKeyHeadroom).
	Headroom float64
}

// Totals are a design's traffic-weighted figures at production scale.
type Totals struct {
	// RUs is Σ over the access patterns of the production charge × the average request rate.
	RUs float64 `json:"rus"`
	// WriteRUs, QueryRUs and ReadRUs are the parts of RUs from writes (create, upsert, replace,
	// patch, delete, batch), from queries and from the other reads (point reads and change feeds):
	// they add up to RUs (each rounded).
	WriteRUs float64 `json:"writeRUs"`
	QueryRUs float64 `json:"queryRUs"`
	ReadRUs  float64 `json:"readRUs"`
	// PeakRUs is Σ of the production charge × the peak request rate.
	PeakRUs float64 `json:"peakRUs"`
	// MonthlyUSD is plan's monthly cost: each container in its cheapest feasible mode.
	MonthlyUSD float64 `json:"monthlyUSD"`
}

// Change is what a variant changes against the design: negative is a saving.
type Change struct {
	RUs        float64 `json:"rus"`
	WriteRUs   float64 `json:"writeRUs"`
	QueryRUs   float64 `json:"queryRUs"`
	ReadRUs    float64 `json:"readRUs"`
	MonthlyUSD float64 `json:"monthlyUSD"`
}

// Advice is the advice for one design.
type Advice struct {
	SchemaVersion int    `json:"schemaVersion"`
	Design        string `json:"design"`
	File          string `json:"file,omitempty"`
	// Basis says where every figure comes from.
	Basis    string `json:"basis"`
	Baseline Totals `json:"baseline"`
	// Indexing is the index what-if of each container with a consistent policy.
	Indexing []IndexAdvice `json:"indexing"`
	// Keys are the partition-key alternatives of each container, ranked.
	Keys []KeyAdvice `json:"keys"`
	// Relations answers embed or reference for every parent/child relationship and every array of
	// objects.
	Relations []Relation `json:"relations"`
	// Secondary prices a secondary container and a global secondary index for each cross-partition
	// query.
	Secondary []Secondary `json:"secondary"`
	// Recommended are the variants advise recommends, each a design that `validate run` and
	// `validate compare` can check (--write-variants).
	Recommended []Variant `json:"recommended"`
	// Candidates is how many variant designs were priced; Capped is true when the search stopped at
	// MaxCandidates and some candidates were not priced (Skipped says which).
	Candidates int      `json:"candidates"`
	Capped     bool     `json:"capped"`
	Skipped    []string `json:"skipped,omitempty"`
	// Nothing is true when no change lowers the cost: the design is as good as advise can tell.
	Nothing bool `json:"nothingToImprove"`
	// Notes are findings about the search itself (a variant that could not be built, …).
	Notes []string `json:"notes,omitempty"`
	// Billing is plan.AutoscaleBilling when a figure prices a container in autoscale on its average
	// RU/s (no traffic shape): such monthly figures are lower bounds.
	Billing string `json:"billing,omitempty"`
}

// Variant is one recommended design change with its claim.
type Variant struct {
	// Name is a short stable name: index-UserOrders, key-Orders, embed-order, secondary-AP5, …
	Name string `json:"name"`
	// What says what changes, in words.
	What string `json:"what"`
	// Change is the claim: the variant's totals minus the design's.
	Change Change `json:"change"`
	Totals Totals `json:"totals"`
	// Design is the variant; Write renders it.
	Design *design.Design `json:"-"`
	// MootWith names the other recommendations this one is an alternative to: both change the same
	// access pattern (its definition or its charge), so their changes do not add up, and once one is
	// applied the other's figure no longer holds ("embed-review: both change AP2"). Every
	// recommendation's change is its own, against the design: the list is of alternatives, not a sum.
	MootWith []string `json:"mootWith,omitempty"`
	// changed are the patterns whose charge or definition the variant changes (recommend).
	changed []string
}

// Alternatives is what advise says of its recommendations: each is priced alone.
const Alternatives = "alternatives, not cumulative: each change above is priced alone against the design"

// markMoot fills MootWith: two recommendations that change the same access pattern.
func markMoot(vs []Variant) {
	for i := range vs {
		for j := range vs {
			if i == j {
				continue
			}
			var common []string
			for _, id := range vs[i].changed {
				if slices.Contains(vs[j].changed, id) {
					common = append(common, id)
				}
			}
			if len(common) > 0 {
				vs[i].MootWith = append(vs[i].MootWith, fmt.Sprintf("%s: both change %s", vs[j].Name, strings.Join(common, ", ")))
			}
		}
	}
}

// Basis is how advise computes, in the words the reports print.
const Basis = "every figure is `validate plan`'s (plan.Build) for the design or a variant of it: a query's charge projected to the design's production scale when it states one, else the seeded one; point operations at their charge; RU/s = charge × average requests per second; monthly = each container in its cheapest mode, as plan prices it"

// significant is the least change (in RU/s, and as a share of the design's) a recommendation must
// bring (assumed: below it the figures' rounding decides, not the design).
const (
	significantRUs   = 0.5
	significantShare = 0.005
)

// CannotRunError is Advise's answer to a design with patterns that cannot run as written (a patch
// the service refuses, a query that finds nothing, a field no type has): pricing them would price
// what cannot happen. Findings are lint's, with their file:line:column.
type CannotRunError struct {
	Findings []lint.Finding
}

func (e *CannotRunError) Error() string {
	lines := make([]string, len(e.Findings))
	for i, f := range e.Findings {
		lines[i] = "  " + f.String()
	}
	return fmt.Sprintf("advise prices only what can run: %d problem(s) make patterns fail or find nothing (validate lint); fix them first:\n%s",
		len(e.Findings), strings.Join(lines, "\n"))
}

// Advise prices the candidate changes of d and recommends the ones that lower its cost. A design
// with patterns that cannot run as written (lint.CannotRun) is refused with a *CannotRunError.
func Advise(d *design.Design, opts Options) (*Advice, error) {
	if d == nil {
		return nil, errors.New("advise: no design")
	}
	if broken := lint.CannotRun(lint.Check(d)); len(broken) > 0 {
		return nil, &CannotRunError{Findings: broken}
	}
	s := &search{d: d, opts: opts, max: cmp.Or(opts.MaxCandidates, DefaultMaxCandidates), variants: map[string]priced{}}
	base, err := s.build(d)
	if err != nil {
		return nil, err
	}
	s.base = base
	s.baseT = totalsOf(base)
	a := &Advice{SchemaVersion: SchemaVersion, Design: d.Name, File: d.File, Basis: Basis, Baseline: s.baseT,
		Indexing: []IndexAdvice{}, Keys: []KeyAdvice{}, Relations: []Relation{}, Secondary: []Secondary{}, Recommended: []Variant{}}
	s.a = a
	// The containers whose key or throughput does not fit are searched first (their keys), then
	// indexing, the other containers' keys, relationships and copies.
	first, rest := s.urgent()
	s.keys(first)
	s.indexing()
	s.keys(rest)
	slices.SortStableFunc(a.Keys, func(x, y KeyAdvice) int {
		return cmp.Compare(containerIndex(d, x.Container), containerIndex(d, y.Container))
	})
	s.relations()
	s.secondary()
	a.Candidates = s.priced
	a.Capped = len(a.Skipped) > 0
	a.Nothing = len(a.Recommended) == 0
	markMoot(a.Recommended)
	// Autoscale priced on the average RU/s is a lower bound: the same caveat plan prints, in its
	// one wording (plan.AutoscaleBilling), when any plan behind the figures prices autoscale that way.
	if d.Traffic == nil {
		auto := usesAutoscale(base)
		for _, v := range s.variants {
			auto = auto || usesAutoscale(v.p)
		}
		if auto {
			a.Billing = plan.AutoscaleBilling
		}
	}
	return a, nil
}

// search is the state of one Advise: the design, its plan and the candidates priced so far.
type search struct {
	d      *design.Design
	opts   Options
	max    int
	priced int
	base   *plan.Plan
	baseT  Totals
	a      *Advice
	// variants are the priced variants by name, for the recommendations made after ranking.
	variants map[string]priced
}

// priced is a variant design and its plan.
type priced struct {
	p *plan.Plan
	d *design.Design
}

// rateCard is the card the plans price with.
func (s *search) rateCard() *cost.RateCard {
	if s.opts.RateCard != nil {
		return s.opts.RateCard
	}
	return cost.Current
}

// build is the one estimator: plan.Build at the options' rate card and seed.
func (s *search) build(d *design.Design) (*plan.Plan, error) {
	return plan.Build(d, plan.Options{RateCard: s.opts.RateCard, Rules: s.opts.Rules, Seed: s.opts.Seed, Headroom: s.opts.Headroom})
}

// price builds the plan of a candidate variant, counting it against the cap. It returns nil (and
// records what was skipped) when the cap is reached, and an error when the variant is not a
// design the parser accepts.
func (s *search) price(what string, v *design.Design) (*plan.Plan, *design.Design, error) {
	if s.priced >= s.max {
		s.a.Skipped = append(s.a.Skipped, what)
		return nil, nil, nil
	}
	s.priced++
	// Through the parser: a variant advise writes must be a design lint and run accept.
	c, err := design.Clone(v)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: the variant is not a valid design: %w", what, err)
	}
	p, err := s.build(c)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	return p, c, nil
}

// capNote is why an option the cap left out has no figures.
const capNote = "the search reached its cap of variants (--max-variants raises it)"

// note records a finding about the search.
func (s *search) note(format string, args ...any) {
	s.a.Notes = append(s.a.Notes, fmt.Sprintf(format, args...))
}

// recommend adds a variant to the recommendations. Every pattern whose charge the change moves by
// more than 1% states the variant's figure as its estimate, so that the written variant's run
// judges it against what the variant costs, not the design's figure (a write made cheaper would
// otherwise fail its old estimate).
func (s *search) recommend(name, what string, p *plan.Plan, v *design.Design) {
	moved := map[string]bool{}
	for _, pp := range p.Patterns {
		if bp := patternPlan(s.base, pp.ID); bp != nil && math.Abs(Charge(pp)-Charge(*bp)) > 0.01*Charge(*bp)+0.005 {
			moved[pp.ID] = true
		}
	}
	if v != nil && len(moved) > 0 {
		c := *v
		c.AccessPatterns = slices.Clone(v.AccessPatterns)
		estimates(&c, p, moved)
		v = &c
	}
	// The patterns the variant changes: its charge moved, or its definition (query, operation,
	// container) differs or is gone.
	var changed []string
	for _, bp := range s.base.Patterns {
		bi := patternIndex(s.d, bp.ID)
		if bi < 0 {
			continue
		}
		ap := s.d.AccessPatterns[bi]
		k := -1
		if v != nil {
			k = patternIndex(v, bp.ID)
		}
		switch {
		case moved[bp.ID]:
		case v != nil && (k < 0 || v.AccessPatterns[k].Query != ap.Query || v.AccessPatterns[k].Op != ap.Op || v.AccessPatterns[k].Container != ap.Container):
		default:
			continue
		}
		changed = append(changed, bp.ID)
	}
	t := totalsOf(p)
	s.a.Recommended = append(s.a.Recommended, Variant{Name: name, What: what, Change: diff(s.baseT, t), Totals: t, Design: v, changed: changed})
}

// Charge is a pattern's production charge per execution, the figure every total here rests on:
// the query's projected charge when plan judged it at production scale, else the model's charge
// (point operations do not change with scale). It is the one place advise reads a charge from a
// plan, so that it follows plan wherever plan puts its production figure.
func Charge(pp plan.Pattern) float64 {
	if pp.JudgedOn == "projected" {
		return pp.ProductionRU
	}
	return pp.ModelRU
}

// IsWrite reports whether an operation writes documents.
func IsWrite(op string) bool {
	switch op {
	case design.OpCreate, design.OpUpsert, design.OpReplace, design.OpPatch, design.OpDelete, design.OpBatch:
		return true
	}
	return false
}

// PatternRUs is a pattern's traffic-weighted production load: Charge × average request rate.
func PatternRUs(pp plan.Pattern) float64 { return cost.RUPerSecond(Charge(pp), pp.AvgRPS) }

func totalsOf(p *plan.Plan) Totals {
	var t Totals
	for _, pp := range p.Patterns {
		r := PatternRUs(pp)
		t.RUs += r
		t.PeakRUs += cost.RUPerSecond(Charge(pp), pp.PeakRPS)
		switch {
		case IsWrite(pp.Op):
			t.WriteRUs += r
		case pp.Op == design.OpQuery:
			t.QueryRUs += r
		default:
			t.ReadRUs += r
		}
	}
	t.RUs, t.WriteRUs, t.QueryRUs, t.ReadRUs, t.PeakRUs = round2(t.RUs), round2(t.WriteRUs), round2(t.QueryRUs), round2(t.ReadRUs), round2(t.PeakRUs)
	t.MonthlyUSD = p.MonthlyUSD
	return t
}

func diff(a, b Totals) Change {
	return Change{RUs: round2(b.RUs - a.RUs), WriteRUs: round2(b.WriteRUs - a.WriteRUs),
		QueryRUs: round2(b.QueryRUs - a.QueryRUs), ReadRUs: round2(b.ReadRUs - a.ReadRUs), MonthlyUSD: round2(b.MonthlyUSD - a.MonthlyUSD)}
}

// saves reports whether a change is a saving worth recommending: fewer RU/s by more than the
// rounding of the figures, and no dearer a month; or cheaper a month with no more RU/s.
func (s *search) saves(c Change) bool {
	least := math.Max(significantRUs, significantShare*s.baseT.RUs)
	switch {
	case c.RUs < -least && c.MonthlyUSD <= 0.005:
		return true
	case c.MonthlyUSD < -0.01 && c.RUs <= least:
		return true
	}
	return false
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// containerPlan is a container's figures in a plan.
func containerPlan(p *plan.Plan, name string) *plan.Container {
	for i := range p.Containers {
		if p.Containers[i].Name == name {
			return &p.Containers[i]
		}
	}
	return nil
}

// patternPlan is a pattern's figures in a plan.
func patternPlan(p *plan.Plan, id string) *plan.Pattern {
	for i := range p.Patterns {
		if p.Patterns[i].ID == id {
			return &p.Patterns[i]
		}
	}
	return nil
}

// containerRUs is the traffic-weighted load of the patterns of one container, and of its writes
// and queries.
func containerRUs(p *plan.Plan, name string) (all, writes, queries float64) {
	for _, pp := range p.Patterns {
		if pp.Container != name {
			continue
		}
		r := PatternRUs(pp)
		all += r
		if IsWrite(pp.Op) {
			writes += r
		} else if pp.Op == design.OpQuery {
			queries += r
		}
	}
	return round2(all), round2(writes), round2(queries)
}

// newWarnings are the codes and subjects of warnings a variant's plan has that the design's has not,
// limited to the codes that say the variant breaks something (an ORDER BY the service refuses, a
// query that does not parse, a document type without the key).
func newWarnings(base, v *plan.Plan) []string {
	had := map[string]bool{}
	for _, w := range base.Warnings {
		had[w.Code+"|"+w.Subject] = true
	}
	var out []string
	for _, w := range v.Warnings {
		switch w.Code {
		case "query-order-by", "query-syntax", "missing-key", "indexing-policy":
		default:
			continue
		}
		if !had[w.Code+"|"+w.Subject] {
			out = append(out, w.Subject+" ("+w.Code+")")
		}
	}
	return out
}

func containerIndex(d *design.Design, name string) int {
	for i := range d.Containers {
		if d.Containers[i].Name == name {
			return i
		}
	}
	return -1
}

// slug makes a name safe for a file name and a container name.
func slug(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return strings.Trim(b.String(), "-")
}

// dearer lists the queries whose charge a variant raises by more than 1%: the ones a removed index
// served.
func (s *search) dearer(p *plan.Plan) []string {
	var out []string
	for _, pp := range p.Patterns {
		bp := patternPlan(s.base, pp.ID)
		if bp != nil && pp.Op == design.OpQuery && Charge(pp) > Charge(*bp)*1.01+0.01 {
			out = append(out, pp.ID)
		}
	}
	return out
}

// estimates sets the estimate of each pattern of a variant that advise made or redid to the
// variant's own plan figure, so that the written variant states what it is expected to cost.
func estimates(v *design.Design, p *plan.Plan, ids map[string]bool) {
	for i := range v.AccessPatterns {
		ap := &v.AccessPatterns[i]
		if !ids[ap.ID] {
			continue
		}
		if pp := patternPlan(p, ap.ID); pp != nil {
			ap.Estimate.RU = math.Max(round2(Charge(*pp)), 0.01)
		}
	}
}

func vdPatterns(v *design.Design) []string {
	var out []string
	for _, ap := range v.AccessPatterns {
		out = append(out, ap.ID)
	}
	return out
}

// usesAutoscale reports whether p recommends autoscale for a container.
func usesAutoscale(p *plan.Plan) bool {
	if p == nil {
		return false
	}
	for _, c := range p.Containers {
		if c.Recommended.Mode == cost.Autoscale {
			return true
		}
	}
	return false
}
