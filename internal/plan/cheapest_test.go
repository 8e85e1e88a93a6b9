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
