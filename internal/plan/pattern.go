package plan

import (
	"fmt"
	"math"
	"strings"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
)

// estimatePattern computes a pattern's static charge, floor and throughput, and the findings about
// its query (one that does not parse, an ORDER BY the service refuses).
func estimatePattern(rc *cost.RateCard, s *sizer, ests map[string]docEstimate, ap *design.AccessPattern, partitions int) (Pattern, []Warning) {
	var warnings []Warning
	pp := Pattern{ID: ap.ID, Name: ap.Name, Container: ap.Container, Op: ap.Op, Basis: "static",
		EstimateRU: ap.Estimate.RU, AvgRPS: ap.RPS.Avg, PeakRPS: ap.RPS.Peak}
	if pp.PeakRPS < pp.AvgRPS {
		pp.PeakRPS = pp.AvgRPS // no peak given: the average is the peak
	}
	level := cost.Consistency(consistencyOf(s.d, ap))
	regions := max(s.d.Regions, 1)
	pp.SinglePartition = ap.Op != design.OpQuery || (len(ap.PartitionKey) > 0 && len(ap.PartitionKey) == len(s.c.PartitionKey))

	typeFor := func(names ...string) (*design.DocType, docEstimate) {
		for _, n := range names {
			if dt := s.docType(n); dt != nil {
				return dt, ests[n]
			}
		}
		dt := &s.c.Documents[0]
		return dt, ests[dt.Type]
	}
	point := func(kind cost.OpKind, e docEstimate, patch []design.PatchOp, minimal bool) (cost.PointOp, string) {
		size, terms := e.Bytes, e.Terms
		if minimal {
			size, terms = e.MinBytes, e.MinTerms
		}
		op := cost.PointOp{Kind: kind, SizeBytes: int(math.Round(size)), IndexedTerms: int(math.Round(terms)),
			Consistency: level, Regions: regions}
		switch kind {
		case cost.Replace:
			op.OldSizeBytes = op.SizeBytes
			op.ChangedTerms = changedTerms(e, minimal)
		case cost.Patch:
			op.OldSizeBytes = op.SizeBytes
			op.PatchOps = max(len(patch), 1)
			op.ChangedTerms = patchTerms(e, patch, minimal)
		case cost.Upsert:
			// A fresh document: charged as a create (the item is new).
		}
		return op, fmt.Sprintf("%s %.1f KB, %d terms", kind, size/1024, op.IndexedTerms)
	}

	switch ap.Op {
	case design.OpQuery:
		pp.Basis = "static, rough"
		qe := s.estimateQuery(ap, ests, partitions)
		warnings = qe.Warnings
		pp.ModelRU = rc.QueryPages(qe.Facts, qe.Pages)
		f := qe.Facts
		pp.Facts = &f
		pp.Pages = qe.Pages
		pp.Scope = qe.Scope
		pp.Unestimated = qe.Unestimated
		pp.FloorRU = rc.MinQuery(f.PartitionsChecked, level)
		pp.Detail = fmt.Sprintf("%d loaded (%.1f KB), %s, %d returned in %d page(s), %d partition(s)", f.DocsLoaded, float64(f.BytesLoaded)/1024, entriesText(f), f.DocsOutput, qe.Pages, f.PartitionsChecked)
		if len(qe.Notes) > 0 {
			pp.Detail += "; " + strings.Join(qe.Notes, "; ")
		}
	case design.OpChangeFeed:
		pp.Basis = "static, rough"
		pp.SinglePartition = len(ap.PartitionKey) > 0 || partitions <= 1 || ap.ChangeFeed.Scope == "range"
		pp.ModelRU, pp.FloorRU, pp.Detail = s.estimateChangeFeed(rc, ests, ap, partitions, level)
	case design.OpBatch:
		var ops, floor []cost.PointOp
		n := 0
		for _, b := range ap.Batch {
			kind := opKind(b.Op)
			_, e := typeFor(b.Document, ap.Sample, ap.Document)
			if kind == cost.Read || kind == cost.Delete || kind == cost.Patch {
				_, e = typeFor(ap.Sample, b.Document)
			}
			op, _ := point(kind, e, b.Patch, false)
			mop, _ := point(kind, e, b.Patch, true)
			for range max(b.Repeat, 1) {
				ops = append(ops, op)
				floor = append(floor, mop)
				n++
			}
		}
		pp.ModelRU = rc.Batch(ops)
		pp.FloorRU = rc.Batch(floor)
		pp.Detail = fmt.Sprintf("%d operations, sum of their charges", n)
	default:
		kind := opKind(ap.Op)
		var e docEstimate
		switch kind {
		case cost.Create, cost.Upsert, cost.Replace:
			_, e = typeFor(ap.Document, ap.Sample)
		default:
			_, e = typeFor(ap.Sample, ap.Document)
		}
		op, detail := point(kind, e, ap.Patch, false)
		mop, _ := point(kind, e, ap.Patch, true)
		pp.ModelRU = rc.Point(op)
		pp.FloorRU = rc.Point(mop)
		pp.Detail = detail
		if kind == cost.Replace || kind == cost.Patch {
			pp.Detail += fmt.Sprintf(", %d changed", op.ChangedTerms)
		}
	}
	pp.ModelRU = round(pp.ModelRU, 2)
	pp.FloorRU = round(math.Min(pp.FloorRU, pp.ModelRU), 2)
	pp.DiffRU = round(pp.EstimateRU-pp.ModelRU, 2)
	if pp.ModelRU > 0 {
		pp.DiffPct = round(100*pp.DiffRU/pp.ModelRU, 1)
	}
	pp.AvgRUs = round(cost.RUPerSecond(pp.ModelRU, pp.AvgRPS), 2)
	pp.PeakRUs = round(cost.RUPerSecond(pp.ModelRU, pp.PeakRPS), 2)
	return pp, warnings
}

func opKind(op string) cost.OpKind {
	switch op {
	case design.OpRead:
		return cost.Read
	case design.OpReplace:
		return cost.Replace
	case design.OpUpsert:
		return cost.Upsert
	case design.OpPatch:
		return cost.Patch
	case design.OpDelete:
		return cost.Delete
	}
	return cost.Create
}

// changedTerms estimates the indexed terms a replace with a freshly generated document changes: every
// indexed leaf whose value is generated (constants and copies stay). At the floor, none change.
func changedTerms(e docEstimate, minimal bool) int {
	if minimal {
		return 0
	}
	var n float64
	for _, li := range e.leaves {
		if li.indexed && !li.stable {
			n += li.count
		}
	}
	return int(math.Round(n))
}

// patchTerms counts the indexed leaves a patch touches. At the floor (minimal) it counts only what
// every execution changes: an incr by a non-zero amount. A set, replace or add can write the value
// already there (a constant, a field of the sample, {now} within the same second, or a path an
// earlier execution set), and the engine, like the service, charges no index work for a term that
// did not change: ecommerce AP7 sets /status to "shipped" on orders that are shipped already.
func patchTerms(e docEstimate, patch []design.PatchOp, minimal bool) int {
	n := 0
	for _, op := range patch {
		if minimal && (op.Op != "incr" || isZero(op.Value)) {
			continue
		}
		path := strings.ReplaceAll(strings.Trim(op.Path, "/"), "/", ".")
		if li, ok := e.leaves[path]; ok {
			if li.indexed {
				n++
			}
			continue
		}
		// A path the generators do not produce (a new property) is indexed if the policy says so;
		// a path into an object counts its indexed leaves.
		found := false
		for p, li := range e.leaves {
			if strings.HasPrefix(p, path+".") && li.indexed {
				n++
				found = true
			}
		}
		if !found && op.Op != "remove" && e.pol.Indexed(strings.Split(path, ".")) {
			n++
		}
	}
	return n
}

// isZero reports whether an incr amount is zero (or missing): such an incr changes nothing.
func isZero(v any) bool {
	switch x := v.(type) {
	case int:
		return x == 0
	case int64:
		return x == 0
	case uint64:
		return x == 0
	case float64:
		return x == 0
	case nil:
		return true
	}
	return false
}
