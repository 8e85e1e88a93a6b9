package pipeline

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/record"
)

// TestPartitionsFromTarget: a run reads the partitions its target gave each container (a fresh
// container's, from its throughput, as on an account); the modeled run priced with those counts
// agrees with the target on every pattern of every example within ±10%, while priced with the
// design's production partitions it does not (iot Readings: 2 at creation, 8 at production); the
// findings say how many each side had and what matching would take.
func TestPartitionsFromTarget(t *testing.T) {
	files, err := filepath.Glob("../../designs/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example designs (%v)", err)
	}
	target := startEngineWith(t, nil) // partitions by the throughput at creation, as a fresh container gets
	pp := &PartitionPlan{}
	model := startEngineWith(t, pp.Lookup)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			d, err := design.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			for ci := range d.Containers {
				for ti := range d.Containers[ci].Documents {
					if dt := &d.Containers[ci].Documents[ti]; dt.Count > 0 {
						dt.Count = max(3, dt.Count/100)
					}
				}
			}
			ctx := context.Background()
			o := Options{Samples: 3, Database: "t-" + d.Name}
			measured, err := Run(ctx, d, target, record.TargetInfo{Kind: record.KindEndpoint}, o)
			if err != nil {
				t.Fatal(err)
			}
			if len(measured.Partitions) != len(d.Containers) {
				t.Fatalf("partitions read for %v, want all %d containers", measured.Partitions, len(d.Containers))
			}
			run := func(db string, matched bool) *record.Run {
				pp.Set(d, db)
				if matched {
					pp.SetCounts(db, measured.Partitions)
				}
				r, err := Run(ctx, d, model, record.TargetInfo{Kind: record.KindEmbedded}, Options{Samples: 3, Database: db})
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			matched := run("m-"+d.Name, true)
			for name, n := range measured.Partitions {
				if matched.Partitions[name] != n {
					t.Errorf("%s: modeled with %d partitions, the target had %d", name, matched.Partitions[name], n)
				}
			}
			worst, worstID := worstGap(measured, matched)
			if worst > 0.10 {
				t.Errorf("with partitions matched, %s differs by %.1f%%", worstID, worst*100)
			}

			fs := partitionFindings(staticPlan(d, staticOptions(1, cost.Current, nil)), measured, matched, cost.Current)
			if len(fs) != len(d.Containers) {
				t.Errorf("%d partition findings, want one per container: %+v", len(fs), fs)
			}
			if d.Name != "iot" {
				return
			}
			// iot's Readings: 2 partitions at creation (autoscale 20,000 ÷ 10,000), 8 at production.
			if i := slices.IndexFunc(fs, func(f record.Finding) bool { return f.Subject == "container Readings" }); i < 0 ||
				!strings.Contains(fs[i].Message, "target 2, modeled 2, design's production 8") || !strings.Contains(fs[i].Message, "autoscale max of 80000 RU/s") {
				t.Errorf("Readings finding: %+v", fs)
			}
			unmatched := run("u-"+d.Name, false)
			if gap, id := worstGap(measured, unmatched); gap <= 0.10 {
				t.Errorf("with the design's partitions the worst gap is %.1f%% (%s): the test shows nothing", gap*100, id)
			}
		})
	}
}

// worstGap is the largest relative difference between two runs' median charges, and its pattern.
func worstGap(a, b *record.Run) (float64, string) {
	worst, id := 0.0, ""
	for i, p := range a.Patterns {
		ma, mb := medianRU(p), medianRU(b.Patterns[i])
		if ma <= 0 || mb <= 0 {
			continue
		}
		if g := math.Abs(mb/ma - 1); g > worst {
			worst, id = g, p.ID
		}
	}
	return worst, id
}

func medianRU(p record.Pattern) float64 {
	var xs []float64
	for _, e := range p.Executions {
		if e.Error == "" {
			xs = append(xs, e.RU)
		}
	}
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}
