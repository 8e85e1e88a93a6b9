package calibrate

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/target"
)

// serve starts the engine as `validate serve` runs it, with card, and returns its URL.
func serve(t *testing.T, card *cost.RateCard) string {
	t.Helper()
	srv, err := engine.Start(context.Background(), engine.Options{RateCard: card})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	return srv.URL()
}

func calibrate(t *testing.T, kind record.Kind, url string) *cost.Profile {
	t.Helper()
	var status strings.Builder
	p, err := Run(context.Background(), Config{
		Target: target.Config{Kind: kind, Endpoint: url, Key: engine.EmulatorKey},
		Yes:    true, RunID: "test", Status: &status,
		Now: func() time.Time { return time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC) },
	})
	if err != nil {
		t.Fatalf("calibrate: %v\n%s", err, status.String())
	}
	return p
}

func within(t *testing.T, p *cost.Profile, want *cost.RateCard, tol float64) {
	t.Helper()
	byKey := map[string]cost.Param{}
	for _, pr := range cost.Params() {
		byKey[pr.Key] = pr
	}
	for _, c := range p.Coefficients {
		if !c.Pinned {
			t.Errorf("%s: not pinned by the workload (sensitivity %.4f)", c.Key, c.Sensitivity)
			continue
		}
		w := byKey[c.Key].Value(want)
		if math.Abs(c.Fitted-w) > tol*math.Abs(w) {
			t.Errorf("%s: fitted %.6g, want %.6g within %.0f%% (sensitivity %.3f, residual %.4f)", c.Key, c.Fitted, w, tol*100, c.Sensitivity, c.Residual)
		}
	}
}

// TestRun_DefaultCard: against serve with the built-in card, every figure comes back within 2%.
func TestRun_DefaultCard(t *testing.T) {
	p := calibrate(t, record.KindEndpoint, serve(t, nil))
	within(t, p, cost.Current, 0.02)
	if p.SDKVersion != target.SDKVersion || p.Account == "" || p.Date != "2026-11-26" || !p.StrongMeasured {
		t.Errorf("profile header = %+v", p)
	}
}

// TestRun_Perturbed: against serve with several figures changed, the calibration recovers each
// within 5%, through the account path (--target account, the same code as an endpoint).
func TestRun_Perturbed(t *testing.T) {
	card := cost.Current.Clone()
	for _, pr := range cost.Params() {
		switch pr.Key {
		case "queryMin", "queryPartition", "queryDocLoaded", "indexTerm", "queryKBLoaded", "readBySize@16", "writeBySize@64", "querySortDoc", "queryIndexEntry", "queryScanValue":
			pr.Set(card, pr.Value(card)*1.3)
		case "queryDocEvaluated", "patchBase", "queryJoinRow":
			pr.Set(card, pr.Value(card)*0.75)
		}
	}
	p := calibrate(t, record.KindAccount, serve(t, card))
	within(t, p, card, 0.05)
}

// TestRun_AccountNeedsYes: an account is not touched without --yes; the preview is printed.
func TestRun_AccountNeedsYes(t *testing.T) {
	var status strings.Builder
	_, err := Run(context.Background(), Config{
		Target: target.Config{Kind: record.KindAccount, Endpoint: "http://127.0.0.1:1/", Key: engine.EmulatorKey},
		Status: &status,
	})
	if !errors.Is(err, ErrNeedsYes) {
		t.Fatalf("err = %v, want ErrNeedsYes", err)
	}
	if !strings.Contains(status.String(), "RU modeled") || !strings.Contains(status.String(), "$") {
		t.Errorf("no preview: %q", status.String())
	}
}

// cancelOn cancels when a status line containing what is written.
type cancelOn struct {
	what   string
	cancel context.CancelFunc
	seen   strings.Builder
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.seen.Write(p)
	if strings.Contains(string(p), c.what) {
		c.cancel()
	}
	return len(p), nil
}

// TestRun_InterruptDeletesTheDatabase: Ctrl-C (ctx cancelled) once the database exists ends the
// calibration and still deletes it.
func TestRun_InterruptDeletesTheDatabase(t *testing.T) {
	srv, err := engine.Start(context.Background(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	status := &cancelOn{what: "created database", cancel: cancel}
	_, err = Run(ctx, Config{Target: target.Config{Kind: record.KindEndpoint, Endpoint: srv.URL()}, RunID: "intr", Status: status})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled\n%s", err, status.seen.String())
	}
	if !strings.Contains(status.seen.String(), "deleted database cdv-calibrate-intr") {
		t.Errorf("no deletion reported:\n%s", status.seen.String())
	}
	cred, _ := azcosmos.NewKeyCredential(engine.EmulatorKey)
	cl, err := azcosmos.NewClientWithKey(srv.URL(), cred, nil)
	if err != nil {
		t.Fatal(err)
	}
	page, err := cl.NewQueryDatabasesPager("SELECT * FROM c", nil).NextPage(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Databases) != 0 {
		t.Errorf("%d databases left on the server", len(page.Databases))
	}
}

// TestRun_PlaceholderChargesRefused: a target whose charges are all the same (the vNext emulator's
// placeholder) cannot calibrate anything.
func TestRun_PlaceholderChargesRefused(t *testing.T) {
	card := cost.Current.Clone()
	for _, pr := range cost.Params() {
		pr.Set(card, 0)
	}
	_, err := Run(context.Background(), Config{Target: target.Config{Kind: record.KindEndpoint, Endpoint: serve(t, card)}, RunID: "ph"})
	if !errors.Is(err, ErrNotMeasured) {
		t.Fatalf("err = %v, want ErrNotMeasured", err)
	}
}
