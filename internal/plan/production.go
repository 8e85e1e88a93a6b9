package plan

import (
	"fmt"
	"math"
	"slices"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
)

// A query's charge at production scale is the estimator's (estimateQuery) over the production
// sizer: the documents per type and the key values production holds, the same statistics and rules
// as at the seeded scale. This file spells the two evaluations out side by side.

// productionArithmetic is the production figure spelled out, one line per step: the documents in
// scope at both scales, the key values the scope follows, the facts at each scale and what the
// rate card makes of them, and the partitions beyond the first.
func productionArithmetic(rc *cost.RateCard, seeded, prod queryEstimate, scopeBasis []string, partitionBasis string) []string {
	growth := 1.0
	if seeded.Scope > 0 {
		growth = prod.Scope / seeded.Scope
	}
	lines := []string{fmt.Sprintf("documents in scope: %s seeded, %s at production (×%.4g)", countText(seeded.Scope), countText(prod.Scope), growth)}
	for _, b := range scopeBasis {
		lines = append(lines, "key values: "+b)
	}
	lines = append(lines,
		fmt.Sprintf("seeded facts: %s → %.2f RU in %d page(s)", factText(seeded.Facts), rc.QueryPages(seeded.Facts, seeded.Pages), seeded.Pages),
		fmt.Sprintf("production facts: %s → %.2f RU in %d page(s)", factText(prod.Facts), rc.QueryPages(prod.Facts, prod.Pages), prod.Pages))
	if p := prod.Facts.PartitionsChecked; p > 1 {
		lines = append(lines, fmt.Sprintf("%d physical partitions at production (%s): %.1f RU for the %d beyond the first (each a request minimum, its index check and, where the index finds entries, the first seek)",
			p, partitionBasis, rc.PartitionChecks(prod.Facts), p-1))
	}
	return slices.Clip(lines)
}

// countText prints a document count: whole below a million, with significant digits above.
func countText(n float64) string {
	if n < 1e6 {
		return fmt.Sprintf("%.0f", n)
	}
	return fmt.Sprintf("%.4g", n)
}

// FactText is one line of a query's facts, as reports print them.
func FactText(f cost.QueryFacts) string { return factText(f) }

func factText(f cost.QueryFacts) string {
	return fmt.Sprintf("%s, %d loaded (%.1f KB), %d evaluated, %d returned (%.1f KB), %d rows, %d sorted, %d partition(s)",
		entriesText(f), f.DocsLoaded, float64(f.BytesLoaded)/1024, f.DocsEvaluated, f.DocsOutput, float64(f.BytesOutput)/1024,
		f.JoinRows, f.SortedInMemory, max(f.PartitionsChecked, 1))
}

// entriesText is the index entries of f, with the distinct values full index scans read among them
// when there are any (they are priced apart).
func entriesText(f cost.QueryFacts) string {
	if f.IndexScanValues > 0 {
		return fmt.Sprintf("%d index entries (%d of them distinct values of a full index scan)", f.IndexEntriesRead, f.IndexScanValues)
	}
	return fmt.Sprintf("%d index entries", f.IndexEntriesRead)
}

// whole is v rounded to a count in [0, MaxInt]: an estimate past what an int holds (a huge
// storage figure) is the largest count, never the negative number a float64 beyond the int range
// converts to, which cost.Query would read as 0; NaN is 0.
func whole(v float64) int {
	switch {
	case !(v > 0): // NaN too
		return 0
	case v >= math.MaxInt64:
		return math.MaxInt
	}
	return int(math.Round(v))
}

// whole64 is whole for byte totals.
func whole64(v float64) int64 { return int64(whole(v)) }

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
