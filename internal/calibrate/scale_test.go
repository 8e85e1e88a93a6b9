package calibrate

import (
	"bytes"
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/target"
)

// TestScale_CoversTheRules: every rule no published figure decides has a probe shape, and on the
// probe documents its alternatives give query metrics far enough apart to be told apart.
func TestScale_CoversTheRules(t *testing.T) {
	probes := map[string]ruleProbe{}
	for _, rp := range ruleProbes {
		probes[rp.rule] = rp
	}
	for _, r := range cost.Rules() {
		rp, ok := probes[r.Name]
		if !ok {
			if r.Assumed() {
				t.Errorf("rule %s is assumed and has no probe in ruleProbes (internal/calibrate/scale.go): add the shape its pins names (%q), "+
					"as a growth probe when no count of the query metrics tells its alternatives apart", r.Name, r.Pins)
			}
			continue
		}
		checkProbe(t, r, rp, rp.need())
	}
}

// checkProbe holds that each alternative of r, run on the embedded engine over n-document probes,
// is the one rp decides.
func checkProbe(t *testing.T, r cost.Rule, rp ruleProbe, n int) {
	t.Helper()
	preds := map[string]float64{}
	for _, alt := range r.AlternativeNames() {
		var large []string
		if rp.growth {
			large = []string{rp.query}
		}
		res, err := embeddedProbes(context.Background(), n, (*cost.Selection)(nil).With(r.Name, alt), []string{rp.query}, large)
		if err != nil {
			t.Fatal(err)
		}
		var l queryResult
		if rp.growth {
			l = res.large[0]
		}
		preds[alt] = rp.decides(res.small[0], l)
	}
	for alt, v := range preds {
		if got, ok := nearest(v, preds, rp.growth); !ok || got != alt {
			t.Errorf("rule %s: %s gives %s %g, which decides %q (ok %v); the alternatives give %v", r.Name, alt, rp.metric, v, got, ok, preds)
		}
	}
}

// TestScale_GrowthProbe: a rule decided by how the request charge grows from the smaller container
// to the larger one (the form a rule about work that grows with the documents takes, where no
// count of the query metrics differs) tells its alternatives apart: aggregate-without-filter's
// COUNT grows with the documents loaded under loads, far less under index.
func TestScale_GrowthProbe(t *testing.T) {
	r, _ := cost.LookupRule(cost.RuleAggregateNoFilter)
	checkProbe(t, r, ruleProbe{rule: r.Name, query: "SELECT VALUE COUNT(1) FROM c", metric: metricCharge, growth: true}, 50)
}

func TestScale_Nearest(t *testing.T) {
	preds := map[string]float64{"stops": 10, "scans": 1000}
	for measured, want := range map[float64]string{0: "stops", 12: "stops", 90: "stops", 120: "scans", 5000: "scans"} {
		if got, ok := nearest(measured, preds, false); !ok || got != want {
			t.Errorf("nearest(%g) = %s %v, want %s", measured, got, ok, want)
		}
	}
	if _, ok := nearest(10, map[string]float64{"a": 10, "b": 12}, false); ok {
		t.Error("alternatives 10 and 12 were told apart")
	}
	growth := map[string]float64{"postings": 1.3, "seek": 1.0}
	if got, ok := nearest(1.01, growth, true); !ok || got != "seek" {
		t.Errorf("growth 1.01: %s %v", got, ok)
	}
	if got, ok := nearest(1.25, growth, true); !ok || got != "postings" {
		t.Errorf("growth 1.25: %s %v", got, ok)
	}
	if _, ok := nearest(1.0, map[string]float64{"a": 1.0, "b": 1.02}, true); ok {
		t.Error("growth 1.0 and 1.02 were told apart")
	}
}

// TestScale_PreviewThenYes: on an account, the preview (sizes, seeding RU and time, the capacity
// mode's cost) is printed and nothing is created without --yes.
func TestScale_PreviewThenYes(t *testing.T) {
	for _, serverless := range []bool{false, true} {
		var status bytes.Buffer
		_, err := Scale(context.Background(), ScaleConfig{Target: target.Config{Kind: record.KindAccount, Endpoint: "https://nowhere.invalid:443/"},
			Documents: 20, Serverless: serverless, Status: &status})
		if !errors.Is(err, ErrNeedsYes) {
			t.Fatalf("err = %v, want ErrNeedsYes", err)
		}
		out := status.String()
		for _, want := range []string{"2 probe containers of 20 and 80 documents", "RU to seed", "RU of probe queries"} {
			if !strings.Contains(out, want) {
				t.Errorf("preview lacks %q:\n%s", want, out)
			}
		}
		mode := "each billed for at least one hour"
		if serverless {
			mode = "a serverless container tops out at 5000 RU/s"
		}
		if !strings.Contains(out, mode) {
			t.Errorf("serverless %v: preview lacks %q:\n%s", serverless, mode, out)
		}
	}
}

// scaleAgainst runs a scale calibration of 20-document probes against url.
func scaleAgainst(ctx context.Context, url string) (*cost.Profile, error, string) {
	var status strings.Builder
	p, err := Scale(ctx, ScaleConfig{Target: target.Config{Kind: record.KindEndpoint, Endpoint: url, Key: engine.EmulatorKey},
		Documents: 20, RunID: "faults", Status: &status, CleanupWithin: 2 * time.Second})
	return p, err, status.String()
}

// TestScale_NoMetricsNoProfile: a target that returns no query metrics decides nothing: the
// calibration fails saying so, and deletes what it created.
func TestScale_NoMetricsNoProfile(t *testing.T) {
	eng := serve(t, nil)
	u, _ := url.Parse(eng)
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(r *http.Response) error {
		r.Header.Del("x-ms-documentdb-query-metrics")
		return nil
	}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	p, err, status := scaleAgainst(context.Background(), srv.URL)
	if err == nil || p != nil || !strings.Contains(err.Error(), "no query metrics") {
		t.Fatalf("profile %v, err %v", p, err)
	}
	if dbs := databases(t, eng); len(dbs) != 0 || !strings.Contains(status, "deleted database cdv-calibrate-scale-faults") {
		t.Errorf("left %v; status:\n%s", dbs, status)
	}
}

// TestScale_InterruptedDeletes: Ctrl-C while the probes are seeded ends the calibration and
// deletes the database all the same.
func TestScale_InterruptedDeletes(t *testing.T) {
	eng := serve(t, nil)
	u, _ := url.Parse(eng)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rp := httputil.NewSingleHostReverseProxy(u)
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/docs") && r.Method == http.MethodPost {
			once.Do(cancel) // the first document written: the user presses Ctrl-C
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	_, err, status := scaleAgainst(ctx, srv.URL)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if dbs := databases(t, eng); len(dbs) != 0 || !strings.Contains(status, "deleted database cdv-calibrate-scale-faults") {
		t.Errorf("left %v; status:\n%s", dbs, status)
	}
}

// TestScale_GrowthPinsIndexEntry: against an engine whose index entries and full-index-scan values
// cost 2.5 times the built-in figures, the range shape's growth pins queryIndexEntry and the CONTAINS
// shape's queryScanValue at those figures; against the plain engine, at the built-in ones; the
// equality shape warns of nothing either way. Each within what the two reported charges' two
// decimals allow on the difference (±0.005 RU each, up to 0.01 RU over the entries or values read
// more: a fit's Resolution; the modeled charges are the engine's, unrounded), at the default 1,500
// and 6,000 documents.
// (The engine stands in for an account whose behaviour is known: this proves the pipeline, not
// fidelity to the service.)
func TestScale_GrowthPinsIndexEntry(t *testing.T) {
	builtin := map[string]float64{"queryIndexEntry": cost.Current.QueryEntry.Value, "queryScanValue": cost.Current.QueryScanValue.Value}
	for _, factor := range []float64{1, 2.5} {
		card := cost.Current.Clone()
		card.QueryEntry.Value = builtin["queryIndexEntry"] * factor
		card.QueryScanValue.Value = builtin["queryScanValue"] * factor
		var status strings.Builder
		p, err := Scale(context.Background(), ScaleConfig{Target: target.Config{Kind: record.KindEndpoint, Endpoint: serve(t, card), Key: engine.EmulatorKey},
			RunID: "growth", Status: &status, Yes: true})
		if err != nil {
			t.Fatalf("×%g: %v\n%s", factor, err, status.String())
		}
		fits := p.GrowthFits()
		if len(fits) != 2 || fits[0].Key != "queryIndexEntry" || fits[0].Shape != "range" ||
			fits[1].Key != "queryScanValue" || fits[1].Shape != "contains" {
			t.Fatalf("×%g: growth fits %+v, want queryIndexEntry from range and queryScanValue from contains; growth %+v", factor, fits, p.Growth)
		}
		for _, f := range fits {
			want := builtin[f.Key] * factor
			t.Logf("×%g: fitted %s %g, want %g (%+.2f%%, resolution ±%.1f%%); %s %g → %g RU, %g → %g RU modeled",
				factor, f.Key, f.Fitted, want, (f.Fitted/want-1)*100, f.Resolution/want*100, f.Shape,
				f.Small.RU, f.Large.RU, f.Small.Modeled, f.Large.Modeled)
			if !f.Pinned || math.Abs(f.Fitted-want) > f.Resolution {
				t.Errorf("×%g: fitted %s %g (pinned %v), want %g within ±%.2g", factor, f.Key, f.Fitted, f.Pinned, want, f.Resolution)
			}
		}
		if w := p.GrowthWarnings(); len(w) != 0 {
			t.Errorf("×%g: warnings %v", factor, w)
		}
		if err := p.Check(target.SDKVersion); err != nil {
			t.Errorf("×%g: %v", factor, err)
		}
		if c := p.Card(); c.QueryEntry.Value != fits[0].Fitted || c.QueryScanValue.Value != fits[1].Fitted {
			t.Errorf("×%g: the profile's card charges %g an entry and %g a value, not the fitted %g and %g",
				factor, c.QueryEntry.Value, c.QueryScanValue.Value, fits[0].Fitted, fits[1].Fitted)
		}
	}
}

// TestScale_GrowthPointModeledUnrounded: a growth point's modeled charge is the card's charge of
// the engine's facts, page by page, not the charge the engine's response rounded to two decimals:
// only the reported side of a growth fit is rounded, which is what the fit's Resolution counts.
func TestScale_GrowthPointModeledUnrounded(t *testing.T) {
	pages := []cost.QueryFacts{
		{PartitionsChecked: 1, IndexLookups: 1, IndexEntriesRead: 1234, DocsOutput: 1, BytesOutput: 4, Consistency: cost.Session},
		{IndexEntriesRead: 777, Consistency: cost.Session},
	}
	var want, reported float64
	for _, f := range pages {
		want += cost.Current.Query(f)
		reported += math.Round(cost.Current.Query(f)*100) / 100 // what the response's header says
	}
	if reported == want {
		t.Fatalf("the facts' charge %g has two decimals: the test tells nothing", want)
	}
	modeled := queryResult{ru: reported, metrics: map[string]float64{}, facts: pages}
	pt := growthPoint(1500, queryResult{ru: 3.04, metrics: map[string]float64{"retrievedDocumentCount": 0}}, modeled)
	if math.Abs(pt.Modeled-want) > 1e-12 || pt.RU != 3.04 || pt.Facts["indexEntriesRead"] != 2011 {
		t.Errorf("growth point %+v: modeled %g, want the facts' unrounded %g (the response said %g)", pt, pt.Modeled, want, reported)
	}
}
