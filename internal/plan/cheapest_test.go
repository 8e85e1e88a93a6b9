package plan

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

// TestBuild_CheapestAboveDesignedSaysWhy: when the cheapest mode that serves the load costs more
// than the designed throughput, the plan says why (here: 400 RU/s cannot serve a peak of about
// 3,000 RU/s), in the container's JSON and in the text; a design that can serve its peak gets no note.
func TestBuild_CheapestAboveDesignedSaysWhy(t *testing.T) {
	d := smallDesign()
	d.AccessPatterns[0].RPS = design.RPS{Avg: 1000, Peak: 3000}
	p, err := Build(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := p.Containers[0]
	if c.MonthlyUSD <= c.DesignedCost.Total {
		t.Fatalf("cheapest %.2f not above designed %.2f: the test needs an under-provisioned design", c.MonthlyUSD, c.DesignedCost.Total)
	}
	for _, want := range []string{"the designed manual 400 RU/s cannot serve the modeled peak", "the cheapest mode that can", usd(c.MonthlyUSD)} {
		if !strings.Contains(c.RecommendedNote, want) {
			t.Errorf("note %q lacks %q", c.RecommendedNote, want)
		}
	}
	var buf bytes.Buffer
	if err := Render(&buf, p, "text"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "more than designed: "+c.RecommendedNote) || !strings.Contains(buf.String(), "\"more than designed\" says why") {
		t.Errorf("text does not explain the dearer mode:\n%s", buf.String())
	}

	// Provisioned for its peak: the cheapest mode is not dearer, and nothing is said.
	d.Containers[0].Throughput = design.Throughput{Manual: 4000}
	if p, err = Build(d, Options{}); err != nil {
		t.Fatal(err)
	}
	if c := p.Containers[0]; c.RecommendedNote != "" || c.MonthlyUSD > c.DesignedCost.Total {
		t.Errorf("designed %.2f, cheapest %.2f, note %q", c.DesignedCost.Total, c.MonthlyUSD, c.RecommendedNote)
	}
}

// TestBuild_AccountCapacityMode (#37 point 1): serverless is an account-level capacity mode
// (learn.microsoft.com cosmos-db/throughput-serverless, how-to-change-capacity-mode), so plan never
// recommends serverless beside provisioned containers, nor the reverse. A second container with no
// traffic would be cheapest serverless (storage only); beside a manual container it is recommended
// autoscale at its least max, billed at 10%: 100 RU/s ÷ 100 × $0.012 × 730 h = $8.76 plus storage.
// When every container is serverless and a light load fits serverless, both stay serverless (a few
// RU/s on average cost cents a month serverless, against $8.76 each at autoscale's floor); when one
// container's peak (6,000 RU/s of point reads) is over serverless's 5,000 RU/s, the whole account
// is recommended provisioned.
func TestBuild_AccountCapacityMode(t *testing.T) {
	withQuiet := func(users, quiet design.Throughput, peak float64) *design.Design {
		d := smallDesign()
		d.Containers[0].Throughput = users
		q := d.Containers[0]
		q.Name = "Quiet"
		q.Throughput = quiet
		q.Documents = []design.DocType{d.Containers[0].Documents[0]}
		q.Documents[0].Type = "quiet"
		d.Containers = append(d.Containers, q)
		d.AccessPatterns[0].RPS = design.RPS{Avg: peak / 3, Peak: peak}
		return d
	}
	modes := func(d *design.Design) (map[string]string, *Plan) {
		p, err := Build(d, Options{})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, c := range p.Containers {
			out[c.Name] = string(c.Recommended.Mode)
		}
		return out, p
	}
	m, p := modes(withQuiet(design.Throughput{Manual: 400}, design.Throughput{Serverless: true}, 300))
	if m["Quiet"] != "autoscale" || m["Users"] == "serverless" {
		t.Errorf("provisioned account: %v", m)
	}
	q := p.Containers[1]
	if want := 8.76 + q.Options[1].Storage; q.Recommended.RU != 1000 || q.MonthlyUSD < want-0.01 || q.MonthlyUSD > want+0.01 {
		t.Errorf("Quiet: %+v at $%v, want autoscale 1000 at $%.2f", q.Recommended, q.MonthlyUSD, want)
	}
	light := withQuiet(design.Throughput{Serverless: true}, design.Throughput{Serverless: true}, 0.3)
	light.AccessPatterns[1].RPS = design.RPS{Avg: 0.1, Peak: 0.3}
	light.AccessPatterns[2].RPS = design.RPS{Avg: 0.01, Peak: 0.03}
	if m, _ := modes(light); m["Users"] != "serverless" || m["Quiet"] != "serverless" {
		t.Errorf("serverless account, light load: %v", m)
	}
	if m, _ := modes(withQuiet(design.Throughput{Serverless: true}, design.Throughput{Serverless: true}, 6000)); m["Users"] == "serverless" || m["Quiet"] == "serverless" {
		t.Errorf("serverless account over its limit: %v, want every container provisioned", m)
	}
}
