package seed

import (
	"encoding/json"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

// TestProduces_EveryGeneratedValue: Produces never says a generator cannot give a value it gave
// (every scalar top-level field of the shop design's documents), and says so of constants it
// cannot give.
func TestProduces_EveryGeneratedValue(t *testing.T) {
	d := shopDesign(300)
	p, err := Compile(d, 5)
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]design.Fields{}
	for _, dt := range d.Containers[0].Documents {
		fields[dt.Type] = dt.Fields
	}
	checked := 0
	for _, doc := range walkAll(t, p) {
		var m map[string]any
		if err := json.Unmarshal(doc.Body, &m); err != nil {
			t.Fatal(err)
		}
		for _, nf := range fields[doc.Type] {
			v, ok := m[nf.Name]
			switch v.(type) {
			case string, float64, bool:
			default:
				continue
			}
			if !ok {
				continue
			}
			if possible, known := Produces(&nf.Field, v); known && !possible {
				t.Fatalf("%s.%s: Produces says %v is never generated", doc.Type, nf.Name, v)
			}
			checked++
		}
	}
	if checked < 1000 {
		t.Fatalf("checked only %d values", checked)
	}
	f := func(v float64) *float64 { return &v }
	never := []struct {
		f design.Field
		v any
	}{
		{design.Field{Gen: "sku"}, "SKU-1"},
		{design.Field{Gen: "sku", Prefix: "P"}, "SKU-123456"},
		{design.Field{Gen: "code", Prefix: "cust", Cardinality: 100}, "cust-1"},
		{design.Field{Gen: "int", Min: f(1), Max: f(9)}, 10.0},
		{design.Field{Gen: "int", Min: f(1), Max: f(9)}, "3"},
		{design.Field{Gen: "city"}, "Atlantis"},
		{design.Field{Template: "order-{seq}"}, "invoice-1"},
		{design.Field{OneOf: []any{"open", "paid"}}, "shipped"},
	}
	for _, c := range never {
		if possible, known := Produces(&c.f, c.v); possible || !known {
			t.Errorf("%+v with %v: possible %v, known %v; want never", c.f, c.v, possible, known)
		}
	}
	if possible, known := Produces(&design.Field{Gen: "sku"}, "SKU-123456"); !possible || !known {
		t.Errorf("sku SKU-123456: possible %v, known %v", possible, known)
	}
	if _, known := Produces(&design.Field{Gen: "email"}, "a@b.c"); known {
		t.Error("email: known, want unknown")
	}
}
