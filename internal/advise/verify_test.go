package advise_test

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cosmosdv/validate/internal/advise"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/pipeline"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/report"
	"github.com/cosmosdv/validate/internal/target"
)

// claimTolerance is how far a run's saving may be from advise's claim (the issue's ±15%).
const claimTolerance = 0.15

// awaitingOneEstimator are variants whose claim the run does not confirm, each with the reason. It
// is empty since run's production figure is plan's (issue 24): every claim is checked. Strict: a
// listed variant that the run confirms fails the test.
var awaitingOneEstimator = map[string]string{}

// TestRecommendedVariants_RunConfirmsTheClaim writes every example's recommended variants with
// WriteVariants, reads each file back as `validate run` would, runs the design and each variant end
// to end on the embedded engine (20 samples), and checks that the run's traffic-weighted
// production RU/s changes by what advise claimed, within ±15% (and at least a tenth of an RU/s).
func TestRecommendedVariants_RunConfirmsTheClaim(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every example and its variants on the embedded engine")
	}
	files, _ := filepath.Glob("../../designs/*.yaml")
	if len(files) == 0 {
		t.Fatal("no example designs")
	}
	checked := 0
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { checked += len(confirmClaims(t, f)) })
	}
	if checked == 0 {
		t.Error("no recommended variant of any example was confirmed: the test checked nothing")
	}
}

// TestRecommendedVariants_ArrayElements: a board whose cards, an array of objects, move one at a
// time (testdata/board-cards.yaml). advise recommends the cards as documents of their own in the
// board's partition, and the run of the written variant confirms the claim as above.
func TestRecommendedVariants_ArrayElements(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a design and its variants on the embedded engine")
	}
	confirmed := confirmClaims(t, "testdata/board-cards.yaml")
	if !slices.Contains(confirmed, "split-board-cards") {
		t.Errorf("confirmed %v, want split-board-cards among them", confirmed)
	}
}

// confirmClaims writes the recommended variants of the design at path with WriteVariants, reads
// each file back as `validate run` would, runs the design and each variant end to end on the
// embedded engine (20 samples), and checks that the run's traffic-weighted production RU/s changes
// by what advise claimed, within ±15% (and at least a tenth of an RU/s). It returns the names of
// the variants the run confirmed.
func confirmClaims(t *testing.T, path string) []string {
	t.Helper()
	d, err := design.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := advise.Advise(d, advise.Options{})
	if err != nil {
		t.Fatal(err)
	}
	written, err := advise.WriteVariants(t.TempDir(), a, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(written) != len(a.Recommended) {
		t.Fatalf("wrote %d variants for %d recommendations", len(written), len(a.Recommended))
	}
	if len(written) == 0 {
		return nil
	}
	var confirmedNames []string
	base := runRUs(t, d)
	for i, path := range written {
		v, err := design.Load(path)
		if err != nil {
			t.Fatalf("%s: the written variant does not parse: %v", path, err)
		}
		claim := a.Recommended[i].Change.RUs
		got := runRUs(t, v) - base
		confirmed := math.Abs(got-claim) <= math.Max(claimTolerance*math.Abs(claim), 0.1)
		key := d.Name + "/" + a.Recommended[i].Name
		why, awaited := awaitingOneEstimator[key]
		switch {
		case confirmed && awaited:
			t.Errorf("%s: the run now confirms the claim (%+.2f RU/s claimed, %+.2f run): remove it from awaitingOneEstimator", key, claim, got)
		case confirmed:
			t.Logf("%s: claimed %+.2f RU/s, run %+.2f", key, claim, got)
			confirmedNames = append(confirmedNames, a.Recommended[i].Name)
		case awaited:
			t.Logf("%s: claimed %+.2f RU/s, run %+.2f: awaiting one estimator (%s)", key, claim, got, why)
		default:
			t.Errorf("%s: advise claimed %+.2f RU/s, the run changed the production RU/s by %+.2f (design %.2f)", key, claim, got, base)
		}
	}
	return confirmedNames
}

// runRUs runs d on the embedded engine and returns its traffic-weighted production RU/s as the run
// reports it: each container's modeled load at production when the design states one, else at the
// seeded scale.
func runRUs(t *testing.T, d *design.Design) float64 {
	t.Helper()
	var stdout, stderr bytes.Buffer
	// 20 samples: a point read at 400 requests a second of products whose embedded reviews vary
	// from 0 to 8 moves the load by tens of RU/s between a 3-sample median and the next.
	c := pipeline.Config{Target: target.Config{Kind: record.KindEmbedded}, Samples: 20, Stdout: &stdout, Stderr: &stderr}
	out, err := pipeline.Validate(context.Background(), []*design.Design{d}, c)
	if err != nil || len(out.Reports) != 1 {
		t.Fatalf("%s: run: %v\n%s", d.Name, err, stderr.String())
	}
	return loadOf(out.Reports[0])
}

func loadOf(r *report.Report) float64 {
	total := 0.0
	for _, c := range r.Containers {
		l := c.Modeled
		if l == nil {
			continue
		}
		if l.Scale == report.VerdictOnProjected {
			total += l.ProductionAvg
		} else {
			total += l.Avg
		}
	}
	return total
}

// TestRecommendedVariants_NewDomains (#37): two designs of new domains, testdata/advise/ — a social
// graph whose "who added me" lookup fans out (the secondary container kept from the change feed
// takes fewer RU/s but costs more a month once its lease container is provisioned, as it must be in a
// provisioned account, so advise recommends the indexing change only: TestSecondary_FanOutLookup)
// and orders keyed by a status without headroom (advise recommends a key with headroom). Each
// recommended variant's claim is confirmed by a run.
func TestRecommendedVariants_NewDomains(t *testing.T) {
	if testing.Short() {
		t.Skip("runs designs and their variants on the embedded engine")
	}
	for path, want := range map[string]string{
		"../../testdata/advise/friends-fanout.yaml":      "index-Social",
		"../../testdata/advise/orders-status-tight.yaml": "key-Orders",
	} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			if got := confirmClaims(t, path); !slices.Contains(got, want) {
				t.Errorf("confirmed %v, want %s among them", got, want)
			}
		})
	}
}
