package calibrate

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/cost"
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
