package calibrate

import (
	"bytes"
	"context"
	"errors"
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
				t.Errorf("rule %s is assumed and has no probe in ruleProbes", r.Name)
			}
			continue
		}
		preds := map[string]float64{}
		for _, alt := range r.AlternativeNames() {
			res, err := embeddedProbes(context.Background(), 50, (*cost.Selection)(nil).With(r.Name, alt), []string{rp.query}, false)
			if err != nil {
				t.Fatal(err)
			}
			preds[alt] = res.queries[0].metrics[rp.metric]
		}
		for alt, v := range preds {
			if got, ok := nearest(v, preds); !ok || got != alt {
				t.Errorf("rule %s: %s gives %s %g, which decides %q (ok %v); the alternatives give %v", r.Name, alt, rp.metric, v, got, ok, preds)
			}
		}
	}
}

func TestScale_Nearest(t *testing.T) {
	preds := map[string]float64{"stops": 10, "scans": 1000}
	for measured, want := range map[float64]string{0: "stops", 12: "stops", 90: "stops", 120: "scans", 5000: "scans"} {
		if got, ok := nearest(measured, preds); !ok || got != want {
			t.Errorf("nearest(%g) = %s %v, want %s", measured, got, ok, want)
		}
	}
	if _, ok := nearest(10, map[string]float64{"a": 10, "b": 12}); ok {
		t.Error("alternatives 10 and 12 were told apart")
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
