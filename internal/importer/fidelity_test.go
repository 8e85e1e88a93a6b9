package importer

import (
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

// TestDraftFidelity holds the four drafting defects of issue 29 on a template document (corpus
// ticketing.md): a composite index stated in prose and in the policy JSON is drafted once; "set
// /status, set /paidAt" keeps both operations (paidAt, which the examples lack, becomes an app field);
// a check-out described as a transactional batch becomes op: batch with its three operations; a title
// and codes get neither a person's name nor a word.
func TestDraftFidelity(t *testing.T) {
	res := importFile(t, "testdata/corpus/ticketing.md", "")
	if res.Design == nil {
		t.Fatalf("the draft does not parse: %v", res.Problems)
	}
	c := res.Design.Containers[0]
	if n := len(c.Indexing.Composite); n != 1 {
		t.Errorf("%d composite indexes, want the one stated twice drafted once: %v", n, c.Indexing.Composite)
	}
	pat := map[string]design.AccessPattern{}
	for _, p := range res.Design.AccessPatterns {
		pat[p.ID] = p
	}
	var patch []string
	for _, op := range pat["AP4"].Patch {
		patch = append(patch, op.Op+" "+op.Path)
	}
	if got := strings.Join(patch, ", "); got != "set /status, set /paidAt" {
		t.Errorf("AP4 patch: %s", got)
	}
	var batch []string
	for _, op := range pat["AP3"].Batch {
		s := op.Op + " " + op.Document
		for _, p := range op.Patch {
			s += p.Op + " " + p.Path
		}
		batch = append(batch, strings.TrimSpace(s))
	}
	if got := strings.Join(batch, ", "); pat["AP3"].Op != design.OpBatch || got != "delete, create ticket, patch incr /soldCount" {
		t.Errorf("AP3 %s: %s", pat["AP3"].Op, got)
	}
	gens := map[string]string{}
	for _, dt := range c.Documents {
		for _, nf := range dt.Fields {
			gens[dt.Type+"."+nf.Name] = nf.Field.Gen
		}
		if dt.Type == "ticket" && !strings.Contains(strings.Join(dt.AppFields, " "), "/paidAt") {
			t.Errorf("ticket's appFields %v lack /paidAt", dt.AppFields)
		}
	}
	for f, want := range map[string]string{"event.title": "text", "event.venueCode": "code", "ticket.orderCode": "code", "hold.customerId": "code"} {
		if gens[f] != want {
			t.Errorf("%s: gen %q, want %q", f, gens[f], want)
		}
	}
}

// TestGeneratorsByName: a field's name decides between a person's name, a title and a code before its
// examples' shape does.
func TestGeneratorsByName(t *testing.T) {
	for _, c := range []struct {
		name, typ string
		vals      []any
		want      string
	}{
		{"title", "event", []any{"Midnight Orchestra", "Harbor Jazz"}, "text"},
		{"name", "event", []any{"Harbor Jazz", "Blue Note"}, "text"},
		{"name", "customer", []any{"Ada Lovelace", "Alan Turing"}, "fullName"},
		{"venueCode", "event", []any{"VEN-AMS-02", "VEN-LIS-01"}, "code"},
		{"trackingNumber", "order", []any{"1Z 999 AA1", "1Z 999 AA2"}, "code"},
		{"externalId", "order", []any{"x/1", "y/2"}, "code"},
	} {
		f, _ := inferValue(fieldNameFor(c.name, c.typ), c.vals, false)
		if f.Gen != c.want {
			t.Errorf("%s of %s %v: gen %q, want %q", c.name, c.typ, c.vals, f.Gen, c.want)
		}
	}
}
