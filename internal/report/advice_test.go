package report_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/pipeline"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/report"
)

// TestSuggestions_ImproveTheExamples applies every suggestion the example designs produce on the
// embedded engine, runs the design again and requires the pattern's median charge to drop: advice
// that would not help is not given.
func TestSuggestions_ImproveTheExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every example design twice")
	}
	client := startEngine(t)
	files, err := filepath.Glob("../../designs/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example designs: %v", err)
	}
	total := 0
	for i, f := range files {
		d, err := design.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		before := run(t, client, d, i*10)
		for _, ap := range d.AccessPatterns {
			for _, s := range report.Suggestions(d, &ap, before[ap.ID]) {
				total++
				t.Run(ap.ID+" "+s.Text, func(t *testing.T) {
					d2, err := design.Load(f)
					if err != nil {
						t.Fatal(err)
					}
					ap2 := d2.Pattern(ap.ID)
					s.Apply(d2, ap2)
					if err := d2.Validate(); err != nil {
						t.Fatalf("the suggestion leaves an invalid design: %v", err)
					}
					after := run(t, client, d2, i*10+total)
					// The mean, not the median: the same seed draws the same parameters in both runs, and
					// an index that serves the executions that find something (catalog AP2: most
					// products have no review) lowers the mean while the median stays at the minimum.
					was, is := meanRU(before[ap.ID]), meanRU(after[ap.ID])
					if failed(after[ap.ID]) {
						t.Fatalf("after the suggestion the pattern fails: %+v", after[ap.ID].Executions[0])
					}
					if is >= was {
						t.Errorf("%s: mean %.3f RU before, %.3f RU after: the advice does not improve the pattern", ap.ID, was, is)
					}
					t.Logf("%s: %.3f RU -> %.3f RU", ap.ID, was, is)
				})
			}
		}
	}
	if total == 0 {
		t.Fatal("the examples produce no suggestion: the test checks nothing")
	}
}

func run(t *testing.T, client *azcosmos.Client, d *design.Design, n int) map[string]*record.Pattern {
	t.Helper()
	ctx := context.Background() // no deadline: a run slowed by a busy machine is not wrong
	d.Database = d.Name + "-advice-" + string(rune('a'+n%26)) + string(rune('a'+n/26%26))
	r, err := pipeline.Run(ctx, d, client, record.TargetInfo{Kind: "embedded", ChargeSource: "model"}, pipeline.Options{Seed: 1, Samples: 5})
	if err != nil {
		t.Fatalf("run %s: %v", d.Name, err)
	}
	out := map[string]*record.Pattern{}
	for i := range r.Patterns {
		out[r.Patterns[i].ID] = &r.Patterns[i]
	}
	return out
}

func failed(p *record.Pattern) bool {
	for _, e := range p.Executions {
		if e.Error != "" {
			return true
		}
	}
	return false
}

func meanRU(p *record.Pattern) float64 {
	if len(p.Executions) == 0 {
		return 0
	}
	sum := 0.0
	for _, e := range p.Executions {
		sum += e.RU
	}
	return sum / float64(len(p.Executions))
}

func startEngine(t *testing.T) *azcosmos.Client {
	t.Helper()
	srv, err := engine.Start(context.Background(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Close bounds its own grace (engine.closeGrace) and then closes every connection; a
		// deadline of the caller's would leave connections open once a busy machine reached it.
		_ = srv.Close(context.Background())
	})
	cred, err := azcosmos.NewKeyCredential(srv.Key())
	if err != nil {
		t.Fatal(err)
	}
	client, err := azcosmos.NewClientWithKey(srv.URL(), cred, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	return client
}
