package plan

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine/sql"
)

// The production-scale projection, one code path for `validate plan` and `validate run`
// (internal/project): a query's execution facts at two seeded sizes (the design and HalfScale of
// it, same seed), each fact fitted as fact ∝ n^k through them (n the documents in the query's
// scope), evaluated at the documents in scope at production (the pattern's ScopeGrowth), and priced
// with cost.QueryPages. run takes the facts from executing the query in process over generated
// documents; plan from its static estimate at both sizes. Only where the facts come from differs.

// FactNames are the facts the projection fits, in report order.
var FactNames = []string{"indexEntries", "docsLoaded", "bytesLoaded", "docsEvaluated", "docsOutput", "bytesOutput", "joinRows", "functionCalls", "sortedInMemory"}

// factValue is a reference to one fitted fact of f, by its index in FactNames.
func factValue(f *cost.QueryFacts, i int) float64 {
	switch FactNames[i] {
	case "bytesLoaded":
		return float64(f.BytesLoaded)
	case "bytesOutput":
		return float64(f.BytesOutput)
	}
	return float64(*factInts(f)[i])
}

// setFact sets fact i of f to v, saturated: a projection past what the count holds (a fact growing
// as n^2 over a growth of 10^10) is the largest count, never the negative number a float64 beyond
// the int range converts to, which cost.Query would read as 0 and price below the seeded charge.
func setFact(f *cost.QueryFacts, i int, v float64) {
	n := saturatedCount(v)
	switch FactNames[i] {
	case "bytesLoaded":
		f.BytesLoaded = n
	case "bytesOutput":
		f.BytesOutput = n
	default:
		*factInts(f)[i] = int(n)
	}
}

// saturatedCount is v rounded to a count in [0, MaxInt64]; NaN is 0.
func saturatedCount(v float64) int64 {
	switch {
	case !(v > 0): // NaN too
		return 0
	case v >= math.MaxInt64: // 2^63 as a float64: beyond every int64
		return math.MaxInt64
	}
	return int64(math.Round(v))
}

func factInts(f *cost.QueryFacts) []*int {
	return []*int{&f.IndexEntriesRead, &f.DocsLoaded, nil, &f.DocsEvaluated, &f.DocsOutput, nil, &f.JoinRows, &f.FunctionCalls, &f.SortedInMemory}
}

// MedianFacts is the median of every fitted fact (and of the index lookups) over executions; the
// consistency is the first's.
func MedianFacts(fs []cost.QueryFacts) cost.QueryFacts {
	var out cost.QueryFacts
	if len(fs) == 0 {
		return out
	}
	med := func(get func(f *cost.QueryFacts) float64) float64 {
		vs := make([]float64, len(fs))
		for i := range fs {
			vs[i] = get(&fs[i])
		}
		slices.Sort(vs)
		return vs[len(vs)/2]
	}
	for i := range FactNames {
		setFact(&out, i, med(func(f *cost.QueryFacts) float64 { return factValue(f, i) }))
	}
	out.IndexLookups = int(med(func(f *cost.QueryFacts) float64 { return float64(f.IndexLookups) }))
	out.Consistency = fs[0].Consistency
	return out
}

// exponent fits fact ∝ n^k through the two seeded sizes: k = ln(F1/F2) / ln(n1/n2), clamped to
// [0, 2]. A fact that is zero at the smaller size and not at the larger grows linearly (k = 1,
// assumed); one that is zero at the larger does not grow. Facts either follow the documents in
// scope (a scan, a range, a value shared by a share of the documents: k = 1) or do not (a key's own
// documents, TOP: k = 0); a measured k near 0 or 1 is taken as that integer, and any other k is
// kept as measured. "Near" is within snapTo, or within two standard errors of k when the fact rests
// on few items: c1 and c2 are the items counted behind the fact at each size (documents, entries,
// rows; for bytes, the documents they belong to), taken as Poisson counts (assumed: which and how
// many documents match is what varies between seeded sizes), so ln F has a variance of about 1/c
// and k a standard error of √(1/c1 + 1/c2) / ln(n1/n2). With 11 documents at one size and 7 at the
// other, k = 0.65 ± 0.7 says nothing but "it grows", so it is 1; with hundreds it is kept.
func exponent(f1, f2, n1, n2, c1, c2 float64) float64 {
	switch {
	case f1 <= 0 || n1 <= n2 || n2 <= 0:
		return 0
	case f2 <= 0:
		return 1
	}
	k := math.Min(math.Max(math.Log(f1/f2)/math.Log(n1/n2), 0), 2)
	near := snapTo
	if c1 > 0 && c2 > 0 {
		near = math.Max(near, 2*math.Sqrt(1/c1+1/c2)/math.Log(n1/n2))
	}
	whole := math.Min(math.Round(k), 1)
	if math.Abs(k-whole) <= near {
		return whole
	}
	return k
}

// snapTo is how close a measured growth exponent must be to 0 or 1 to be taken as that, however
// many items it rests on.
const snapTo = 0.3

// countOf is the index in FactNames of the fact whose value counts the items behind fact i: the
// documents for a byte total, the fact itself otherwise.
func countOf(i int) int {
	switch FactNames[i] {
	case "bytesLoaded":
		return slices.Index(FactNames, "docsLoaded")
	case "bytesOutput":
		return slices.Index(FactNames, "docsOutput")
	}
	return i
}

// Draw is one execution of a query at one seeded size: its facts and the documents in its scope.
type Draw struct {
	Facts cost.QueryFacts
	Scope float64
}

// Projected is one query's projection: the facts at both seeded sizes, the fit, and the charges.
type Projected struct {
	Seeded, Smaller cost.QueryFacts
	// N1 and N2 are the documents in scope at the seeded and the smaller size (of the median draw);
	// Growth is the documents in scope at production ÷ at the seeded size.
	N1, N2, Growth float64
	// Draws1 and Draws2 are the central draws at each size (central), Sum1 and Sum2 the documents
	// in scope summed over them: what the exponents were fitted on.
	Draws1, Draws2 int
	Sum1, Sum2     float64
	// Fit is each fact's exponent, by FactNames.
	Fit map[string]float64
	// Production is the facts at production.
	Production             cost.QueryFacts
	SeededPages, ProdPages int
	SeededRU, ProjectedRU  float64
	// Partitions is the physical partitions the query checks (at both sizes, as the engine
	// simulates production's); PartitionBasis says where the container's count comes from.
	Partitions     int
	PartitionBasis string
	// HalfChildren is true when the smaller size is HalfChildren rather than HalfScale.
	HalfChildren bool
	// ScopeBasis is the pattern's Pattern.ScopeBasis: the key values its scope growth assumed.
	ScopeBasis []string
	rc         *cost.RateCard // the rate card both sizes were priced with
}

// Limit is what bounds a query's result whatever the documents in scope: its TOP. A fitted fact
// grows without end, so a TOP k whose seeded scope held fewer than k items would otherwise be
// projected to return, and load, more than k at production.
type Limit struct {
	// Top is k of TOP k, 0 when the query has no TOP (or its count is a parameter).
	Top int
	// Stops reports that execution stops once Top items are produced: no in-memory sort, grouping,
	// aggregate, DISTINCT or JOIN, so the documents loaded and evaluated, and the index entries
	// read, are bounded with the output.
	Stops bool
}

// LimitOf is the Limit of a query analysed against its container's policy.
func LimitOf(a sql.Analysis) Limit {
	if a.Top <= 0 {
		return Limit{}
	}
	ordered := a.Shape.OrderBy > 0 || len(a.OrderBy) > 0
	stops := len(a.Aggregates) == 0 && !a.Shape.GroupBy && !a.Shape.Distinct && !a.SearchSort &&
		len(a.Joins) == 0 && (!ordered || a.OrderStreams)
	return Limit{Top: a.Top, Stops: stops}
}

// bound applies l to production facts f over partitions physical partitions (each returns at most
// Top items to the merge): the output is capped and, when execution stops at Top, the documents
// loaded and evaluated, their bytes and function calls, and the index entries read scale down with
// it: an ordered walk reads the entries of the documents it walks, and an intersection of postings
// streamed until Top documents are found reads that share of each list, as the engine charges an
// execution that stops early (sql.stoppedEarly). Nothing goes below the seeded facts, which were
// measured with the same TOP.
func (l Limit) bound(f *cost.QueryFacts, seeded cost.QueryFacts, partitions int) {
	k := l.Top * max(partitions, 1)
	if l.Top <= 0 || f.DocsOutput <= k {
		return
	}
	r := float64(k) / float64(f.DocsOutput)
	f.DocsOutput, f.BytesOutput = k, max(int64(float64(f.BytesOutput)*r), seeded.BytesOutput)
	if !l.Stops {
		return
	}
	scale := func(v, floor int) int { return max(int(math.Round(float64(v)*r)), floor) }
	f.DocsLoaded = scale(f.DocsLoaded, seeded.DocsLoaded)
	f.BytesLoaded = max(int64(float64(f.BytesLoaded)*r), seeded.BytesLoaded)
	f.DocsEvaluated = scale(f.DocsEvaluated, seeded.DocsEvaluated)
	f.FunctionCalls = scale(f.FunctionCalls, seeded.FunctionCalls)
	f.IndexEntriesRead = scale(f.IndexEntriesRead, seeded.IndexEntriesRead)
}

// Project fits every fact of f1 (n1 documents in scope) and f2 (n2, the smaller seeded size),
// evaluates them at growth × n1 over partitions physical partitions, bounds them by the query's
// limit, and prices both sizes with rc. basis says where the partitions come from (the
// container's storage basis). It is ProjectDraws with one draw at each size (plan's static
// estimate, whose facts are expected values).
func Project(rc *cost.RateCard, f1, f2 cost.QueryFacts, n1, n2, growth float64, partitions int, basis string, limit Limit) Projected {
	return ProjectDraws(rc, []Draw{{f1, n1}}, []Draw{{f2, n2}}, growth, partitions, basis, limit)
}

// ProjectDraws is the projection of a query executed with several parameter draws at each seeded
// size (run's). The growth of each fact is fitted on the ratio of its sums over the central draws
// of each size (ranked by charge, the tenth either side of the median: see central), Σ F1 / Σ F2 against Σ n1 / Σ n2, so that it follows the design rather than which key
// values the draws happened to pick: the median of a few draws over small per-key counts is mostly
// noise, while a sum over every draw would let a hot key value, drawn as often as it holds
// documents, speak for the typical one. The charge is projected from the median draw's facts at the
// seeded size, the typical execution the run reports, scaled by growth^k.
func ProjectDraws(rc *cost.RateCard, d1, d2 []Draw, growth float64, partitions int, basis string, limit Limit) Projected {
	if rc == nil {
		rc = cost.Current
	}
	f1, f2 := MedianFacts(drawFacts(d1)), MedianFacts(drawFacts(d2))
	n1, n2 := medianScope(d1), medianScope(d2)
	p := Projected{Seeded: f1, Smaller: f2, N1: n1, N2: n2, Growth: growth, Fit: map[string]float64{},
		Partitions: max(partitions, 1), PartitionBasis: basis, rc: rc}
	c1, c2 := central(rc, d1), central(rc, d2)
	p.Draws1, p.Draws2 = len(c1), len(c2)
	s1, s2 := sumDraws(c1), sumDraws(c2)
	p.Sum1, p.Sum2 = s1[len(FactNames)], s2[len(FactNames)]
	fp := f1
	fp.IndexReads = nil
	for i, name := range FactNames {
		c := countOf(i)
		// The exponent as Arithmetic prints it, so that the production facts follow from the lines
		// shown (seeded × growth^k).
		k := round(exponent(s1[i], s2[i], p.Sum1, p.Sum2, s1[c], s2[c]), 2)
		p.Fit[name] = k
		setFact(&fp, i, factValue(&f1, i)*math.Pow(math.Max(growth, 0), k))
	}
	limit.bound(&fp, f1, p.Partitions)
	p.Seeded.PartitionsChecked, fp.PartitionsChecked = p.Partitions, p.Partitions
	p.Production = fp
	p.SeededPages, p.ProdPages = Pages(p.Seeded.DocsOutput), Pages(fp.DocsOutput)
	p.SeededRU = rc.QueryPages(p.Seeded, p.SeededPages)
	p.ProjectedRU = rc.QueryPages(fp, p.ProdPages)
	return p
}

func drawFacts(ds []Draw) []cost.QueryFacts {
	fs := make([]cost.QueryFacts, len(ds))
	for i := range ds {
		fs[i] = ds[i].Facts
	}
	return fs
}

// central is the draws whose charge (by rc, then documents in scope) ranks between the 40th and the
// 60th percentile (at least the median one): the typical executions, without the key values a
// skewed distribution makes large (a hot value held by 30% of the documents is drawn 30% of the
// time) or small. The run's reported figure is the median charge, so the draws around it are the
// ones whose growth it should follow.
func central(rc *cost.RateCard, ds []Draw) []Draw {
	if len(ds) <= 2 {
		return ds
	}
	type ranked struct {
		d  Draw
		ru float64
	}
	s := make([]ranked, len(ds))
	for i, d := range ds {
		s[i] = ranked{d, rc.QueryPages(d.Facts, Pages(d.Facts.DocsOutput))}
	}
	slices.SortStableFunc(s, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.ru, b.ru), cmp.Compare(a.d.Scope, b.d.Scope))
	})
	lo, hi := len(s)*2/5, (len(s)*3+4)/5
	lo, hi = min(lo, len(s)/2), max(hi, len(s)/2+1)
	out := make([]Draw, 0, hi-lo)
	for _, r := range s[lo:hi] {
		out = append(out, r.d)
	}
	return out
}

// CentralScope is the documents in scope summed over the central draws: what UseHalfChildren
// compares between sizes when there are several draws.
func CentralScope(rc *cost.RateCard, ds []Draw) float64 {
	if rc == nil {
		rc = cost.Current
	}
	return sumDraws(central(rc, ds))[len(FactNames)]
}

// sumDraws is every fitted fact summed over the draws, by FactNames, then the documents in scope.
func sumDraws(ds []Draw) []float64 {
	s := make([]float64, len(FactNames)+1)
	for j := range ds {
		for i := range FactNames {
			s[i] += factValue(&ds[j].Facts, i)
		}
		s[len(FactNames)] += ds[j].Scope
	}
	return s
}

// medianScope is the documents in scope of the median draw (by scope).
func medianScope(ds []Draw) float64 {
	if len(ds) == 0 {
		return 0
	}
	ns := make([]float64, len(ds))
	for i := range ds {
		ns[i] = ds[i].Scope
	}
	slices.Sort(ns)
	return ns[len(ns)/2]
}

// Pages is the number of requests a query returning out items takes at the default page size.
func Pages(out int) int {
	n := out / defaultPageSize
	if out%defaultPageSize != 0 {
		n++ // out+defaultPageSize-1 would overflow a saturated count
	}
	return max(1, n)
}

// Factor is ProjectedRU ÷ SeededRU, the factor reports apply to a seeded charge (1 when there is
// no seeded charge).
func (p Projected) Factor() float64 {
	if p.SeededRU > 0 {
		return p.ProjectedRU / p.SeededRU
	}
	return 1
}

// Arithmetic spells the projection out, one line per step, so a reader can check it by hand.
func (p Projected) Arithmetic() []string {
	var growths []string
	for _, name := range FactNames {
		if k := p.Fit[name]; k != 0 {
			growths = append(growths, fmt.Sprintf("%s ∝ n^%.2f", name, k))
		}
	}
	if len(growths) == 0 {
		growths = append(growths, "no fact grows with n")
	}
	smaller := "at the smaller seeded size"
	if p.HalfChildren {
		smaller = "with half the children per parent"
	}
	lines := []string{
		fmt.Sprintf("documents in scope: %.0f seeded, %.0f %s; production ×%.4g → %.4g", p.N1, p.N2, smaller, p.Growth, p.N1*p.Growth),
	}
	for _, b := range p.ScopeBasis {
		lines = append(lines, "key values: "+b)
	}
	lines = append(lines, "fitted: "+strings.Join(growths, ", ")+p.fittedOn(),
		fmt.Sprintf("seeded facts: %s → %.2f RU in %d page(s)", factText(p.Seeded), p.SeededRU, p.SeededPages),
		fmt.Sprintf("production facts: %s → %.2f RU in %d page(s)", factText(p.Production), p.ProjectedRU, p.ProdPages))
	if p.Partitions > 1 {
		lines = append(lines, fmt.Sprintf("%d physical partitions at production (%s): %.1f RU for the %d beyond the first (each a request minimum, its index check and, where the index finds entries, the first seek)",
			p.Partitions, p.PartitionBasis, p.rc.PartitionChecks(p.Production), p.Partitions-1))
	}
	return slices.Clip(lines)
}

// fittedOn says what the exponents were fitted on when there were several draws.
func (p Projected) fittedOn() string {
	if p.Draws1 <= 1 && p.Draws2 <= 1 {
		return ""
	}
	return fmt.Sprintf(" (on each fact summed over the %d and %d central draws: %.0f and %.0f documents in scope)", p.Draws1, p.Draws2, p.Sum1, p.Sum2)
}

func factText(f cost.QueryFacts) string {
	return fmt.Sprintf("%d index entries, %d loaded (%.1f KB), %d evaluated, %d returned (%.1f KB), %d rows, %d sorted, %d partition(s)",
		f.IndexEntriesRead, f.DocsLoaded, float64(f.BytesLoaded)/1024, f.DocsEvaluated, f.DocsOutput, float64(f.BytesOutput)/1024,
		f.JoinRows, f.SortedInMemory, max(f.PartitionsChecked, 1))
}

// HalfScale is d at the smaller seeded size: every root type's count and every generator's
// cardinality halved (at least 1), but a cardinality whose production number is stated
// (productionCardinality); children per parent and named value sets unchanged. That is how
// the projection assumes the seeded volume grows towards production (ScopeGrowth): more roots, and
// more distinct values where a cardinality sets them, each value keeping its share.
func HalfScale(d *design.Design) *design.Design {
	return scaled(d, false)
}

// HalfChildren is d with the children per parent halved (rounded up) and nothing else changed: the
// second size of a query whose scope is one key value's documents, which HalfScale leaves as they
// are, so that how its facts grow with the children in its partition is measured (UseHalfChildren).
func HalfChildren(d *design.Design) *design.Design {
	return scaled(d, true)
}

// UseHalfChildren reports whether a query whose scope held n1 documents seeded and n2 at HalfScale,
// and grows by growth to production, is fitted against HalfChildren instead: its scope did not
// shrink at HalfScale (a key value's own documents), yet it changes at production.
func UseHalfChildren(n1, n2, growth float64) bool {
	return n2 >= n1 && n1 > 0 && math.Abs(growth-1) > 1e-9
}

func scaled(d *design.Design, children bool) *design.Design {
	h := *d
	h.Containers = make([]design.Container, len(d.Containers))
	for i, c := range d.Containers {
		c.Documents = slices.Clone(c.Documents)
		for j := range c.Documents {
			dt := &c.Documents[j]
			switch {
			case children && dt.Parent != nil:
				pa := *dt.Parent
				pa.Per.Min = (pa.Per.Min + 1) / 2
				pa.Per.Max = max((pa.Per.Max+1)/2, pa.Per.Min)
				dt.Parent = &pa
			case !children:
				if dt.Count > 0 {
					dt.Count = max(1, dt.Count/2)
				}
				dt.Fields = halfFields(dt.Fields)
			}
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
	// A stated production cardinality says the values do not grow with the documents: they keep
	// their number at the smaller size too, so that each value's documents halve as they grow at
	// production.
	if f.Cardinality > 0 && f.ProductionCardinality == 0 {
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

// scopeBasis is Pattern.ScopeBasis for ap: for each type holding the key levels ap gives, the key
// paths whose values a generator with a cardinality sets, with the production values the scope
// growth used: stated (productionCardinality), or grown with the type's documents (assumed).
// Empty without a key or without a stated production scale.
func (st *cstate) scopeBasis(ap *design.AccessPattern) []string {
	k := len(ap.PartitionKey)
	if k == 0 || !st.stated {
		return nil
	}
	ps := st.keySizer()
	var out []string
	seen := map[*design.Field]bool{}
	for i := range st.s.c.Documents {
		dt := &st.s.c.Documents[i]
		// The finest level decides (prefixDist): the one with the most values at production.
		path, most := "", 0.0
		for _, p := range st.s.c.PartitionKey[:min(k, len(st.s.c.PartitionKey))] {
			if l := ps.keyLevel(dt, p, 0); l.Known && l.Card >= most {
				path, most = p, l.Card
			}
		}
		if path != "" {
			ft, f := st.s.cardinalityField(dt, path, 0)
			if f == nil || seen[f] {
				continue
			}
			seen[f] = true
			where := fmt.Sprintf("%s (generated on %s)", path, ft.Type)
			if f.ProductionCardinality > 0 {
				out = append(out, fmt.Sprintf("%s: stated production values: %.4g (cardinality %d seeded)", where, f.ProductionCardinality, f.Cardinality))
				continue
			}
			prod := math.Min(float64(f.Cardinality)*ps.growth(ft), ps.count(ft, 0))
			out = append(out, fmt.Sprintf("%s: cardinality %d seeded, assumed to grow with documents: %d → %.4g (state productionCardinality if production has a fixed number)", where, f.Cardinality, f.Cardinality, prod))
		}
	}
	return out
}
