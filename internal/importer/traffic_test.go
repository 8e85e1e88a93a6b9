package importer

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

// TestHourlyRateTable (#40 point 1): a rate table by hour becomes traffic.hourly, each hour's rate ÷
// the day's mean. By hand: 22 hours at 100 requests/s and 2 evening hours at 1,200 give a mean of
// (2,200 + 2,400) ÷ 24 = 191.67, so factors of 0.522 and 6.261; the draft parses and lints as a design.
func TestHourlyRateTable(t *testing.T) {
	src, err := os.ReadFile("testdata/corpus/freeform-table.md")
	if err != nil {
		t.Fatal(err)
	}
	var tb strings.Builder
	tb.WriteString("\n## Traffic by hour\n\n| Hour | Requests/s |\n|---|---|\n")
	for h := range 24 {
		rate := "100"
		if h == 19 || h == 20 {
			rate = "1,200"
		}
		fmt.Fprintf(&tb, "| %02d:00 | %s |\n", h, rate)
	}
	res, err := Import(append(src, tb.String()...), Options{File: "inventory.md"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Problems != nil {
		t.Fatalf("draft does not parse: %v\n%s", res.Problems, res.YAML)
	}
	tr := res.Design.Traffic
	if tr == nil || len(tr.Hourly) != 24 {
		t.Fatalf("no hourly traffic in the draft:\n%s", res.YAML)
	}
	sum := 0.0
	for _, f := range tr.Hourly {
		sum += f
	}
	if math.Abs(sum-24) > 1e-6 || tr.Hourly[0] != 0.522 || tr.Hourly[19] != 6.261 {
		t.Errorf("factors %v (sum %v), want 0.522 and 6.261 summing to 24", tr.Hourly, sum)
	}
	if !strings.Contains(string(res.YAML), "TODO(import): hourly factors from the rate table by hour") {
		t.Errorf("no TODO on the traffic:\n%s", res.YAML)
	}
}
