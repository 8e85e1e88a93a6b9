package cost

import (
	"math"
	"strings"
	"testing"
)

func within(got, want, pct float64) bool {
	return math.Abs(got-want) <= math.Abs(want)*pct/100
}

// TestPoint_WorkedExamples checks the worked formulas of understand-request-unit-consumption.md and the
// figures of optimize-cost-reads-writes.md.
func TestPoint_WorkedExamples(t *testing.T) {
	const oneKB = 1024
	tests := []struct {
		name string
		op   PointOp
		want float64
		pct  float64
	}{
		{"create 1 KB, 10 terms", PointOp{Kind: Create, SizeBytes: oneKB, IndexedTerms: 10}, 7.0, 5},
		{"replace 1 KB, 2 changed", PointOp{Kind: Replace, SizeBytes: oneKB, OldSizeBytes: oneKB, IndexedTerms: 10, ChangedTerms: 2}, 10.8, 5},
		{"upsert over 1 KB, 2 changed", PointOp{Kind: Upsert, SizeBytes: oneKB, OldSizeBytes: oneKB, ChangedTerms: 2}, 10.8, 5},
		{"patch 1 KB, 2 changed, 2 ops", PointOp{Kind: Patch, SizeBytes: oneKB, OldSizeBytes: oneKB, ChangedTerms: 2, PatchOps: 2}, 11.6, 5},
		{"delete 1 KB, 10 terms", PointOp{Kind: Delete, SizeBytes: oneKB, IndexedTerms: 10}, 7.0, 5},
		// "Inserting a 1 KB item without indexing costs around ~5.5 RUs": with the policy excluding
		// everything, id and _ts stay indexed (index-policy.md), so the item has 2 terms.
		{"insert 1 KB unindexed", PointOp{Kind: Create, SizeBytes: oneKB, IndexedTerms: 2}, 5.5, 5},
		{"read 1 KB", PointOp{Kind: Read, SizeBytes: oneKB}, 1, 5},
		{"read 1 KB strong", PointOp{Kind: Read, SizeBytes: oneKB, Consistency: Strong}, 2, 5},
		{"read 1 KB bounded", PointOp{Kind: Read, SizeBytes: oneKB, Consistency: BoundedStaleness}, 2, 5},
		{"read of a tiny item costs the 1 KB charge", PointOp{Kind: Read, SizeBytes: 200}, 1, 0.01},
		{"write unchanged by Strong", PointOp{Kind: Create, SizeBytes: oneKB, IndexedTerms: 10, Consistency: Strong}, 7.0, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Point(tt.op); !within(got, tt.want, tt.pct) {
				t.Errorf("Point = %.3f RU, want %.3f ± %v%%", got, tt.want, tt.pct)
			}
		})
	}
}

// TestPoint_PatchOverReplace holds the patch base to the published rule itself: the worked formula
// of understand-request-unit-consumption.md charges a patch its replace plus 0.4 RU per operation
// (11.6 = 10.8 + 0.4 × 2). The 5% bound of the worked examples above would let 0.24 RU pass.
func TestPoint_PatchOverReplace(t *testing.T) {
	const oneKB = 1024
	replace := Point(PointOp{Kind: Replace, SizeBytes: oneKB, OldSizeBytes: oneKB, IndexedTerms: 10, ChangedTerms: 2})
	for _, ops := range []int{1, 2, 10} {
		patch := Point(PointOp{Kind: Patch, SizeBytes: oneKB, OldSizeBytes: oneKB, IndexedTerms: 10, ChangedTerms: 2, PatchOps: ops})
		if d, want := patch-replace, 0.4*float64(ops); math.Abs(d-want) > 0.01 {
			t.Errorf("patch of %d operations costs %.3f RU over its replace, want the published 0.4 RU an operation (%.1f)", ops, d, want)
		}
	}
}

func TestPoint_Properties(t *testing.T) {
	// Replace costs about twice a create (both documents) when few terms change.
	create := Point(PointOp{Kind: Create, SizeBytes: 4096, IndexedTerms: 2})
	replace := Point(PointOp{Kind: Replace, SizeBytes: 4096, ChangedTerms: 2})
	if r := replace / create; r < 1.7 || r > 2.3 {
		t.Errorf("replace/create = %.2f, want about 2", r)
	}
	// Larger items never cost less.
	prevR, prevW := 0.0, 0.0
	for b := 0; b <= 3<<20; b += 7919 {
		r := Point(PointOp{Kind: Read, SizeBytes: b})
		w := Point(PointOp{Kind: Create, SizeBytes: b})
		if r < prevR || w < prevW {
			t.Fatalf("charge fell at %d bytes", b)
		}
		prevR, prevW = r, w
	}
	// Bad input is not a panic and not negative.
	for _, op := range []PointOp{{Kind: "bogus", SizeBytes: -5, IndexedTerms: -3}, {Kind: Patch, PatchOps: -1}} {
		if got := Point(op); got < 0 || math.IsNaN(got) {
			t.Errorf("Point(%+v) = %v", op, got)
		}
	}
	// Between published points the charge is interpolated linearly: 3 KB read is halfway 1.04..1.14.
	if got := Point(PointOp{Kind: Read, SizeBytes: 3 * 1024}); math.Abs(got-1.09) > 1e-9 {
		t.Errorf("read 3 KB = %v, want 1.09", got)
	}
}

func TestBatch_SumOfOperations(t *testing.T) {
	ops := []PointOp{
		{Kind: Create, SizeBytes: 1024, IndexedTerms: 10},
		{Kind: Create, SizeBytes: 1024, IndexedTerms: 10},
		{Kind: Read, SizeBytes: 1024},
	}
	want := 2*Point(ops[0]) + Point(ops[2])
	if got := Batch(ops); math.Abs(got-want) > 1e-9 {
		t.Errorf("Batch = %v, want %v", got, want)
	}
	if got := Batch(nil); got != 0 {
		t.Errorf("Batch(nil) = %v", got)
	}
}

// TestQuery_Properties checks consequences of the query terms a designer relies on (the figures
// themselves are held in fidelity_test.go).
func TestQuery_Properties(t *testing.T) {
	// A projection costs about what SELECT * costs: the work is loading the documents.
	star, proj := Query(factsCLStar), Query(factsCLProj)
	if r := proj / star; r < 0.85 || r > 1.15 {
		t.Errorf("projection / SELECT * = %.2f, want about 1", r)
	}
	// A one-document query grows with the document's size more slowly than a point read does.
	small := Query(QueryFacts{IndexLookups: 1, IndexEntriesRead: 1, DocsLoaded: 1, BytesLoaded: 1024, DocsOutput: 1, BytesOutput: 1024})
	big := Query(QueryFacts{IndexLookups: 1, IndexEntriesRead: 1, DocsLoaded: 1, BytesLoaded: 128 << 10, DocsOutput: 1, BytesOutput: 128 << 10})
	readSmall, readBig := Point(PointOp{Kind: Read, SizeBytes: 1024}), Point(PointOp{Kind: Read, SizeBytes: 128 << 10})
	if big-small >= readBig-readSmall {
		t.Errorf("query grows %.2f RU from 1 to 128 KB, point read %.2f: want the query slower", big-small, readBig-readSmall)
	}
}

// TestQuery_IndexEntries checks that range scans cost with the entries they read and that a
// composite slice reads fewer.
func TestQuery_IndexEntries(t *testing.T) {
	base := QueryFacts{IndexLookups: 3, DocsLoaded: 10, BytesLoaded: 10 << 10, DocsOutput: 10, BytesOutput: 10 << 10}
	ranges, slice := base, base
	ranges.IndexEntriesRead = 8_000 + 100_000 + 100_000
	slice.IndexEntriesRead = 4_000 + 4_000
	if Query(ranges) <= 2*Query(slice) {
		t.Errorf("range scans %.2f RU vs composite slices %.2f RU: want over twice", Query(ranges), Query(slice))
	}
}

// TestQuery_ScanValues checks that a full index scan's distinct values, counted in IndexEntriesRead
// as well, are charged once, at queryScanValue, and the other entries at queryIndexEntry.
func TestQuery_ScanValues(t *testing.T) {
	base := QueryFacts{IndexLookups: 2, DocsLoaded: 10, BytesLoaded: 10 << 10, DocsOutput: 10, BytesOutput: 10 << 10}
	ranged, both := base, base
	ranged.IndexEntriesRead = 60_000
	both.IndexEntriesRead, both.IndexScanValues = 100_000, 40_000
	got := Query(both) - Query(ranged)
	if want := 40_000 * Current.QueryScanValue.Value; math.Abs(got-want) > 1e-9 {
		t.Errorf("40,000 scan values beside 60,000 entries add %.4f RU, want %.4f (each charged once, at queryScanValue)", got, want)
	}
}

func TestQuery_MinimumAndPartitions(t *testing.T) {
	if got := Query(QueryFacts{}); math.Abs(got-2.3) > 1e-9 {
		t.Errorf("empty query = %v, want 2.3", got)
	}
	// devblogs: a query for one 1 KB item costs "about 2.3 RU", a point read about 1; the indexed
	// floor measured by courselabs is 2.82 RU.
	if got := Query(QueryFacts{IndexLookups: 1, IndexEntriesRead: 1, DocsLoaded: 1, BytesLoaded: 1024, DocsOutput: 1, BytesOutput: 1024, PartitionsChecked: 1}); got < 2.3 || got > 2.9 {
		t.Errorf("1 KB query = %v, want between 2.3 and 2.9", got)
	}
	// how-to-query-container.md: "a minimum of about 2.5 RUs each time you check a physical
	// partition's index for results even if no items in the physical partition match".
	nothing := func(p int) float64 { return Query(QueryFacts{PartitionsChecked: p, IndexLookups: 1}) }
	for _, p := range []int{1, 5, 20} {
		if got, want := nothing(p), 2.5*float64(p); math.Abs(got-want) > 1e-9 {
			t.Errorf("indexed query finding nothing over %d partitions = %v, want %v (2.5 each)", p, got, want)
		}
	}
	// A scan reaches every partition without checking an index: the request minimum each, inside
	// partitioning-overview.md's "2-3 RU" per partition.
	if d := Query(QueryFacts{PartitionsChecked: 10}) - Query(QueryFacts{PartitionsChecked: 1}); math.Abs(d-9*2.3) > 1e-9 {
		t.Errorf("9 extra partitions of a scan add %v RU, want 20.7", d)
	}
	// Entries found in every partition: each also pays its first seek, 2.8 RU per partition.
	all := func(p int) float64 {
		return Query(QueryFacts{PartitionsChecked: p, IndexLookups: 1, IndexEntriesRead: 100_000})
	}
	if d := (all(20) - all(5)) / 15; math.Abs(d-2.8) > 1e-6 {
		t.Errorf("entries in every partition: %v RU per partition added, want 2.8", d)
	}
	if got, want := Current.PartitionChecks(QueryFacts{PartitionsChecked: 20, IndexLookups: 1, IndexEntriesRead: 100_000}), all(20)-all(1); math.Abs(got-want) > 1e-6 {
		t.Errorf("PartitionChecks = %v, want %v", got, want)
	}
	if got, want := Query(QueryFacts{Consistency: Strong}), 4.6; math.Abs(got-want) > 1e-9 {
		t.Errorf("strong minimum = %v, want %v", got, want)
	}
	if got := Query(QueryFacts{DocsLoaded: -4, BytesLoaded: -1, JoinRows: -2}); got != 2.3 {
		t.Errorf("negative facts = %v, want 2.3", got)
	}
	if got := Current.MinQuery(4, Session); math.Abs(got-4*2.3) > 1e-9 {
		t.Errorf("MinQuery(4) = %v", got)
	}
}

func TestRateCard_EveryCoefficientHasASource(t *testing.T) {
	c := Current
	if c.Version == "" || c.Date == "" {
		t.Fatal("rate card has no version or date")
	}
	for _, k := range c.Coefficients() {
		if k.Name == "" || k.Unit == "" || k.Source == "" {
			t.Errorf("coefficient %+v lacks a name, unit or source", k)
		}
		if k.Source == SrcAssumed && k.Note == "" {
			t.Errorf("assumed coefficient %q does not say why", k.Name)
		}
	}
	for _, tb := range []SizeTable{c.ReadBySize, c.WriteBySize} {
		if tb.Source == "" || len(tb.Points) == 0 {
			t.Errorf("size table without source or points")
		}
		for i := 1; i < len(tb.Points); i++ {
			if tb.Points[i].KB <= tb.Points[i-1].KB {
				t.Errorf("size table not increasing at %v", tb.Points[i])
			}
		}
	}
	if !strings.Contains(c.ManualPrice.Unit, "100 RU/s") {
		t.Errorf("manual price unit %q is not per 100 RU/s", c.ManualPrice.Unit)
	}
}
