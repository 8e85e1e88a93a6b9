package sql

import "testing"

// TestFullIndexScanValues: a full index scan's reads are its path's distinct values, reported as
// IndexScanValues and counted in IndexEntriesRead too, which stays the sum of IndexReads' entries;
// beside a seek the scan reads at most the seek's documents (the seek first).
func TestFullIndexScanValues(t *testing.T) {
	src := docs(t, products) // categories coats, coats, shorts, bikes, bikes; five names; quantities 4, 0, 12, 2, 7
	for _, tc := range []struct {
		q             string
		entries, scan int
	}{
		{`SELECT VALUE p.id FROM p WHERE CONTAINS(p.category, "o")`, 3, 3},                      // three distinct categories
		{`SELECT VALUE p.id FROM p WHERE CONTAINS(p.category, "o") AND p.quantity > 3`, 6, 3},   // the range's 3 entries and the scan's 3 values
		{`SELECT VALUE p.id FROM p WHERE p.category = "coats" AND ENDSWITH(p.name, "t")`, 2, 2}, // five names, at most the seek's 2 documents
		{`SELECT VALUE p.id FROM p WHERE p.quantity > 3`, 3, 0},
	} {
		f := run(t, tc.q, src, Options{}).Facts
		sum, scan := 0, 0
		for _, r := range f.IndexReads {
			sum += r.Entries
			if r.Kind == "scan" {
				scan += r.Entries
			}
		}
		if f.IndexEntriesRead != tc.entries || f.IndexScanValues != tc.scan || f.IndexEntriesRead != sum || f.IndexScanValues != scan {
			t.Errorf("%s: %d entries, %d of them scan values (%+v), want %d and %d", tc.q, f.IndexEntriesRead, f.IndexScanValues, f.IndexReads, tc.entries, tc.scan)
		}
	}
}
