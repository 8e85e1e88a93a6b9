package plan

import (
	"strconv"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

// payments is the design: payments keyed by merchant and month, 50,000 merchants, 3 months,
// with KEY as the hierarchical key and SIZE the bytes of a payment's note.
const payments = `version: 1
name: payments
containers:
  - name: Payments
    partitionKey: KEY
    throughput: {manual: 4000}
    documents:
      - type: payment
        count: 3000
        production: PRODUCTION
        id: "pay-{uuid}"
        fields:
          merchantId: {gen: code, prefix: m-, cardinality: 500, productionCardinality: 50000}
          month: {oneOf: ["2026-09", "2026-10", "2026-11"]}
          note: {gen: text, bytes: SIZE}
accessPatterns:
  - id: AP1
    name: a merchant's payments of a month
    container: Payments
    op: query
    sample: payment
    query: SELECT * FROM c WHERE c.merchantId = @m AND c.month = @mo
    params: {"@m": "{merchantId}", "@mo": "{month}"}
    partitionKey: KEY_VALUES
    rps: {avg: 1}
    estimate: {ru: 30}
`

func paymentsPlan(t *testing.T, key string, production int, noteBytes string) *Plan {
	t.Helper()
	values := `["{merchantId}", "{month}"]`
	if strings.HasPrefix(key, "[/month") {
		values = `["{month}", "{merchantId}"]`
	}
	src := strings.NewReplacer("KEY_VALUES", values, "KEY", key, "PRODUCTION", strconv.Itoa(production), "SIZE", noteBytes).Replace(payments)
	d, err := design.Parse([]byte(src), "payments.yaml")
	if err != nil {
		t.Fatalf("design: %v", err)
	}
	p, err := Build(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func hpkMessage(p *Plan) string {
	for _, w := range p.Warnings {
		if w.Code == "hpk-order" {
			return w.Message
		}
	}
	return ""
}

// TestHPKOrder_HighCardinalityFirst holds hpk-order to hierarchical-partition-keys.md: every level,
// starting with the first, should have high cardinality. [/merchantId, /month] (50,000 merchants,
// 3 months) is what the documentation asks for and raises nothing; [/month, /merchantId] puts every
// write of a month under one of 3 prefixes and is told to put the merchant first. The old advice —
// order the levels "broadest first", the 3-value month before the merchants — must never return.
func TestHPKOrder_HighCardinalityFirst(t *testing.T) {
	if msg := hpkMessage(paymentsPlan(t, "[/merchantId, /month]", 1_000_000, "200")); msg != "" {
		t.Errorf("[/merchantId, /month] follows the documentation, got hpk-order: %s", msg)
	}
	msg := hpkMessage(paymentsPlan(t, "[/month, /merchantId]", 1_000_000, "200"))
	for _, want := range []string{"first level /month has 3 distinct values", "partitionKey: [/merchantId, /month]", "hierarchical-partition-keys.md"} {
		if !strings.Contains(msg, want) {
			t.Errorf("[/month, /merchantId]: want %q in %q", want, msg)
		}
	}
	for _, old := range []string{"[/month, /merchantId]", "broadest first", "narrow to broad"} {
		if strings.Contains(msg, old) {
			t.Errorf("the old advice returned (%q): %s", old, msg)
		}
	}
}

// TestHPKOrder_UniqueLastLevel holds hpk-order to hierarchical-partition-keys-unlimited-scale.md: a
// key whose largest logical partition (a merchant's month) may outgrow the 20 GB limit ends with a
// unique level, /id; one whose logical partitions stay small, or that ends with /id, is left alone.
func TestHPKOrder_UniqueLastLevel(t *testing.T) {
	// 30 billion payments of ~20 KB: the largest logical partition holds over half the 20 GB limit.
	p := paymentsPlan(t, "[/merchantId, /month]", 30_000_000_000, "20000")
	msg := hpkMessage(p)
	for _, want := range []string{"largest logical partition", "the last level /month is not unique", "partitionKey: [/merchantId, /month, /id]", "hierarchical-partition-keys-unlimited-scale.md"} {
		if !strings.Contains(msg, want) {
			t.Errorf("large logical partitions: want %q in %q", want, msg)
		}
	}
	if msg := hpkMessage(paymentsPlan(t, "[/merchantId, /month, /id]", 30_000_000_000, "20000")); msg != "" {
		t.Errorf("a key that ends with /id: got hpk-order: %s", msg)
	}
}

// TestHPKOrder_LowFirstLevelEdge holds hpkLowFirstLevel at its edge both ways: a first level of 9
// values under 50,000 merchants is told to put the merchant first, one of 10 is not (×0.6 and ×1.5
// of the constant each fail here).
func TestHPKOrder_LowFirstLevelEdge(t *testing.T) {
	for _, tc := range []struct {
		regions int
		flagged bool
	}{{9, true}, {10, false}} { // literal: the edge of hpkLowFirstLevel (10)
		src := strings.NewReplacer("KEY_VALUES", `["{region}", "{merchantId}"]`, "KEY", "[/region, /merchantId]", "PRODUCTION", "1000000", "SIZE", "200",
			`month: {oneOf: ["2026-09", "2026-10", "2026-11"]}`, "month: {const: x}\n          region: {gen: code, prefix: r-, cardinality: "+strconv.Itoa(tc.regions)+", productionCardinality: "+strconv.Itoa(tc.regions)+"}",
			"c.month = @mo", "c.region = @mo", `"@mo": "{month}"`, `"@mo": "{region}"`).Replace(payments)
		d, err := design.Parse([]byte(src), "payments.yaml")
		if err != nil {
			t.Fatalf("design: %v", err)
		}
		p, err := Build(d, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if msg := hpkMessage(p); (msg != "") != tc.flagged {
			t.Errorf("%d regions first: hpk-order %q, want flagged %v", tc.regions, msg, tc.flagged)
		}
	}
}
