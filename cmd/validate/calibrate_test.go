package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/target"
)

// startServeEndpoint runs `validate serve --port 0 args...` and returns its URL; the server stops with the test.
func startServeEndpoint(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, append([]string{"serve", "--port", "0", "--compute-port", "0"}, args...), &out, &bytes.Buffer{})
	}()
	t.Cleanup(func() { cancel(); <-done })
	re := regexp.MustCompile(`listening on (http://\S+) \(charges: ([^)]*\)?)`)
	m, code := out.waitFor(re, done)
	if m == nil {
		done <- code // for the cleanup's wait
		t.Fatalf("validate serve exited %d with no ready line: %q", code, out.String())
	}
	return m[1]
}

// TestCalibrate_ServeWithRateCard: `validate serve --rate-card` charges with a changed card;
// `validate calibrate` against it recovers every changed figure within 5%; `run --calibration` and
// `plan --calibration` then label their modeled charges with the profile's account and date.
func TestCalibrate_ServeWithRateCard(t *testing.T) {
	dir := t.TempDir()
	cardFile := filepath.Join(dir, "card.json")
	changed := map[string]float64{"queryMin": 2.9, "queryPartition": 3.2, "indexTerm": 0.25, "queryDocLoaded": 0.006, "queryKBOutput": 0.0045}
	body := map[string]any{}
	for k, v := range changed {
		body[k] = map[string]float64{"value": v}
	}
	b, _ := json.Marshal(body)
	if err := os.WriteFile(cardFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	url := startServeEndpoint(t, "--rate-card", cardFile)

	profile := filepath.Join(dir, "calibration.json")
	code, stdout, stderr := runCLI(t, "calibrate", "--target", "endpoint", "--endpoint", url, "--out", profile, "--run-id", "t1")
	if code != ExitOK {
		t.Fatalf("calibrate exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "RU modeled") || !strings.Contains(stderr, "deleted database cdv-calibrate-t1") {
		t.Errorf("no preview or no cleanup line:\n%s", stderr)
	}
	raw, err := os.ReadFile(profile)
	if err != nil {
		t.Fatal(err)
	}
	var p cost.Profile
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	for _, c := range p.Coefficients {
		if want, ok := changed[c.Key]; ok && math.Abs(c.Fitted/want-1) > 0.05 {
			t.Errorf("%s: fitted %g, want %g within 5%%", c.Key, c.Fitted, want)
		}
	}
	label := "model (calibrated: " + p.Account + ", " + p.Date + ")"

	code, stdout, stderr = runCLI(t, "run", "--calibration", profile, "--samples", "2", "--progress", "none", repo("designs", "catalog.yaml"))
	if code != ExitOK && code != ExitFindings {
		t.Fatalf("run exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "modeled charges "+label) || !strings.Contains(stdout, "modeled ("+label+")") {
		t.Errorf("run report does not label the modeled charges %q:\n%s", label, stdout)
	}
	code, stdout, stderr = runCLI(t, "plan", "--calibration", profile, repo("designs", "catalog.yaml"))
	if code != ExitOK && code != ExitFindings {
		t.Fatalf("plan exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "Charges: "+label) {
		t.Errorf("plan does not label its charges %q:\n%s", label, stdout)
	}
	// The same through the configuration file's calibration key.
	cfg := filepath.Join(dir, "validate.yaml")
	if err := os.WriteFile(cfg, []byte("calibration: "+profile+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stdout, _ = runCLI(t, "--config", cfg, "plan", repo("designs", "catalog.yaml")); !strings.Contains(stdout, "Charges: "+label) {
		t.Errorf("plan with calibration: in the config file does not label its charges:\n%s", stdout)
	}

	// A profile from another SDK version is refused, saying why.
	bad := filepath.Join(dir, "other-sdk.json")
	if err := os.WriteFile(bad, bytes.Replace(raw, []byte(`"sdkVersion": "`+p.SDKVersion), []byte(`"sdkVersion": "v0.9.0`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, "run", "--calibration", bad, repo("designs", "catalog.yaml"))
	if code != ExitUsage || !strings.Contains(stderr, "measured through azcosmos v0.9.0") {
		t.Errorf("run with another SDK's profile: exit %d, %s", code, stderr)
	}
}

// TestCalibrate_Usage: calibrate needs an account or endpoint, and --yes on an account.
func TestCalibrate_Usage(t *testing.T) {
	code, _, stderr := runCLI(t, "calibrate", "--target", "embedded")
	if code != ExitUsage || !strings.Contains(stderr, "account or an endpoint") {
		t.Errorf("embedded: exit %d, %s", code, stderr)
	}
	url := startServeEndpoint(t)
	code, _, stderr = runCLI(t, "calibrate", "--target", "account", "--endpoint", url, "--key", "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==")
	if code != ExitUsage || !strings.Contains(stderr, "--yes") || !strings.Contains(stderr, "RU modeled") {
		t.Errorf("account without --yes: exit %d, %s", code, stderr)
	}
}

// TestCalibrate_ScaleAgainstServeRules: the band's pipeline end to end against a stand-in whose
// behaviour is known (serve is our engine: this proves the pipeline, not fidelity to the service).
// Without a profile every query of rules-band.yaml shows its band in every report format; `validate
// calibrate --scale` against `serve --rules order-top-unserved-filter=scans` pins scans (and the
// other rules' defaults), deletes what it created, and a run and a plan with that profile show no
// band and name the calibration.
func TestCalibrate_ScaleAgainstServeRules(t *testing.T) {
	dir := t.TempDir()
	designFile := repo("testdata", "designs", "rules-band.yaml")

	out := filepath.Join(dir, "reports")
	code, stdout, stderr := runCLI(t, "run", "--samples", "2", "--progress", "none", "--out", out, "--format", "text,md,json,html,junit", designFile)
	if code != ExitOK && code != ExitFindings {
		t.Fatalf("run exit %d\n%s\n%s", code, stdout, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*"))
	if len(files) < 5 {
		t.Fatalf("reports: %v", files)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want := "rule order-top-unserved-filter unvalidated"
		if strings.HasSuffix(f, ".json") {
			want = `"band":{"lowRU":`
			b = bytes.ReplaceAll(bytes.ReplaceAll(b, []byte(" "), nil), []byte("\n"), nil)
		}
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("%s lacks %q", filepath.Base(f), want)
		}
		// The container's production load and its monthly cost rest on the three rules too: the
		// JSON report carries plan's ends of them.
		if strings.HasSuffix(f, ".json") {
			checkLoadBand(t, b, designFile)
		}
	}

	url := startServeEndpoint(t, "--rules", "order-top-unserved-filter=scans")
	profile := filepath.Join(dir, "scale.json")
	code, stdout, stderr = runCLI(t, "calibrate", "--scale", "--scale-docs", "50", "--target", "endpoint", "--endpoint", url, "--out", profile, "--run-id", "s1")
	if code != ExitOK {
		t.Fatalf("calibrate --scale exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"2 probe containers of 50 and 200 documents", "RU to seed", "billed for at least one hour", "deleted database cdv-calibrate-scale-s1"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("calibrate --scale stderr lacks %q:\n%s", want, stderr)
		}
	}
	// 50 → 200 documents are too few for the charges' two decimals to resolve the index entry.
	if !regexp.MustCompile(`not pinned +queryIndexEntry `).MatchString(stdout) || !strings.Contains(stdout, "give --scale-docs 515 or more") ||
		!strings.Contains(stdout, "0 figures pinned by growth") {
		t.Errorf("calibrate --scale does not say the growth pinned nothing and why:\n%s", stdout)
	}
	raw, err := os.ReadFile(profile)
	if err != nil {
		t.Fatal(err)
	}
	var p cost.Profile
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{cost.RuleTopUnservedFilter: cost.AltScans, cost.RulePKOrderComposite: cost.AltSorts, cost.RuleAggregateNoFilter: cost.AltLoads}
	got := map[string]string{}
	for _, r := range p.Rules {
		got[r.Rule] = r.Alternative
	}
	for rule, alt := range want {
		if got[rule] != alt {
			t.Errorf("rule %s: profile pins %q, want %q (serve ran --rules order-top-unserved-filter=scans)", rule, got[rule], alt)
		}
	}
	if len(p.Growth) == 0 || p.Scale == nil || p.Scale.CapacityMode != "provisioned" {
		t.Errorf("no growth or probe description: %s", raw)
	}

	label := "calibrated: " + p.Account + ", " + p.Date
	code, stdout, stderr = runCLI(t, "run", "--calibration", profile, "--samples", "2", "--progress", "none", designFile)
	if code != ExitOK && code != ExitFindings {
		t.Fatalf("run exit %d\n%s\n%s", code, stdout, stderr)
	}
	if strings.Contains(stdout, "unvalidated") || !strings.Contains(stdout, "rule order-top-unserved-filter=scans "+label) {
		t.Errorf("run with the profile still shows a band, or does not name the calibration %q:\n%s", label, stdout)
	}
	code, stdout, _ = runCLI(t, "plan", "--calibration", profile, designFile)
	if (code != ExitOK && code != ExitFindings) || strings.Contains(stdout, "unvalidated") || !strings.Contains(stdout, "order-top-unserved-filter=scans ("+label+")") {
		t.Errorf("plan with the profile: exit %d, a band left or no calibration named:\n%s", code, stdout)
	}

	// Into a file that holds the account's fitted figures: one profile holds both, each with its date.
	both := filepath.Join(dir, "both.json")
	fit := cost.Profile{SchemaVersion: cost.ProfileSchemaVersion, Account: p.Account, Date: "2026-01-02", SDKVersion: p.SDKVersion,
		Coefficients: []cost.FittedParam{{Key: "queryMin", Published: 2.3, Fitted: 2.6, Pinned: true}}, Measurements: []cost.Measurement{}}
	fb, _ := json.Marshal(fit)
	if err := os.WriteFile(both, fb, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runCLI(t, "calibrate", "--scale", "--scale-docs", "50", "--target", "endpoint", "--endpoint", url, "--out", both, "--run-id", "s2")
	if code != ExitOK || !strings.Contains(stderr, "already holds the 1 figure fitted on 2026-01-02") {
		t.Fatalf("calibrate --scale into a fitted profile: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, "run", "--calibration", both, "--samples", "2", "--progress", "none", designFile)
	if (code != ExitOK && code != ExitFindings) || strings.Contains(stdout, "unvalidated") ||
		!strings.Contains(stdout, "model (calibrated: "+p.Account+", 2026-01-02)") || !strings.Contains(stdout, "scans "+label) {
		t.Errorf("run with both: exit %d, want the figures' label and the rules' label and no band:\n%s\n%s", code, stdout, stderr)
	}
}

// checkLoadBand: a run's JSON report carries the band of the container's production load and of
// its monthly cost, at the ends plan computes for them (plan --format json).
func checkLoadBand(t *testing.T, reportJSON []byte, designFile string) {
	t.Helper()
	var rep struct {
		Containers []struct {
			Modeled struct {
				PeakBand *struct{ Low, High float64 } `json:"peakBand"`
			} `json:"modeled"`
		} `json:"containers"`
		MonthlyCost struct {
			RequiredBand *struct{ Low, High float64 } `json:"requiredBand"`
		} `json:"monthlyCost"`
	}
	if err := json.Unmarshal(reportJSON, &rep); err != nil || len(rep.Containers) != 1 {
		t.Fatalf("run JSON: %v", err)
	}
	code, stdout, stderr := runCLI(t, "plan", "--format", "json", designFile)
	if code != ExitOK && code != ExitFindings {
		t.Fatalf("plan exit %d\n%s", code, stderr)
	}
	var p struct {
		Containers []struct {
			LoadBand *struct {
				Low, High struct {
					PeakRUs    float64 `json:"peakRUs"`
					MonthlyUSD float64 `json:"monthlyUSD"`
				}
			} `json:"loadBand"`
		} `json:"containers"`
	}
	if err := json.Unmarshal([]byte(stdout), &p); err != nil || len(p.Containers) != 1 || p.Containers[0].LoadBand == nil {
		t.Fatalf("plan JSON has no load band: %v\n%s", err, stdout)
	}
	lb := p.Containers[0].LoadBand
	if b := rep.Containers[0].Modeled.PeakBand; b == nil || b.Low != lb.Low.PeakRUs || b.High != lb.High.PeakRUs {
		t.Errorf("run's peak band %+v, plan's ends %g–%g", b, lb.Low.PeakRUs, lb.High.PeakRUs)
	}
	if b := rep.MonthlyCost.RequiredBand; b == nil || b.Low != lb.Low.MonthlyUSD || b.High != lb.High.MonthlyUSD {
		t.Errorf("run's monthly cost band %+v, plan's ends $%g–$%g", b, lb.Low.MonthlyUSD, lb.High.MonthlyUSD)
	}
}

// TestRules_Lists: `validate rules` names every rule with alternatives, its default and what pins
// it; --format json is the registry.
func TestRules_Lists(t *testing.T) {
	code, stdout, stderr := runCLI(t, "rules")
	if code != ExitOK {
		t.Fatalf("rules exit %d: %s", code, stderr)
	}
	for _, r := range cost.Rules() {
		if !strings.Contains(stdout, r.Name) || !strings.Contains(stdout, "* "+r.Default) || !strings.Contains(stdout, r.Pins) {
			t.Errorf("rules does not list %s with its default and what pins it:\n%s", r.Name, stdout)
		}
	}
	code, stdout, _ = runCLI(t, "rules", "--format", "json")
	var got []cost.Rule
	if err := json.Unmarshal([]byte(stdout), &got); code != ExitOK || err != nil || len(got) != len(cost.Rules()) {
		t.Errorf("rules --format json: exit %d, %v, %d rules", code, err, len(got))
	}
}

// TestCalibrate_ScaleGrowthPinsIndexEntry: `validate calibrate --scale` against `serve --rate-card`
// whose index entries cost 2.5 times the built-in figure, and a full index scan's distinct values
// twice it, writes a profile whose range growth pins queryIndexEntry within 3% (the charges' two
// decimals allow ±2% at 1,500 and 6,000 documents) and whose CONTAINS growth pins queryScanValue
// within 10%, prints them built-in → fitted, and a plan and a run with that profile charge a range
// query over a million index entries more than without it, labelled calibrated. Serve is our engine
// with a known card: this proves the pipeline, not fidelity to the service.
func TestCalibrate_ScaleGrowthPinsIndexEntry(t *testing.T) {
	dir := t.TempDir()
	want := cost.Current.QueryEntry.Value * 2.5
	wantScan := cost.Current.QueryScanValue.Value * 2
	cardFile := filepath.Join(dir, "card.json")
	if err := os.WriteFile(cardFile, []byte(`{"queryIndexEntry": {"value": `+strconv.FormatFloat(want, 'g', -1, 64)+
		`}, "queryScanValue": {"value": `+strconv.FormatFloat(wantScan, 'g', -1, 64)+`}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	url := startServeEndpoint(t, "--rate-card", cardFile)
	profile := filepath.Join(dir, "scale.json")
	code, stdout, stderr := runCLI(t, "calibrate", "--scale", "--scale-docs", "1500", "--target", "endpoint", "--endpoint", url, "--out", profile, "--run-id", "g1")
	if code != ExitOK {
		t.Fatalf("calibrate --scale exit %d\n%s\n%s", code, stdout, stderr)
	}
	_, p, err := cost.LoadCalibration(profile, target.SDKVersion)
	if err != nil {
		t.Fatal(err)
	}
	fits := p.GrowthFits()
	if len(fits) != 2 || fits[0].Key != "queryIndexEntry" || fits[1].Key != "queryScanValue" || !fits[1].Pinned {
		t.Fatalf("growth fits %+v", fits)
	}
	// The CONTAINS shape's distinct values: 4,500 more at the larger size; the two reported charges'
	// two decimals allow up to 0.01 RU ÷ 4,500 on the fit (its Resolution), 4.5% of the doubled
	// figure (the modeled charges are unrounded).
	t.Logf("fitted queryScanValue %g, want %g (%+.2f%%)", fits[1].Fitted, wantScan, (fits[1].Fitted/wantScan-1)*100)
	if math.Abs(fits[1].Fitted-wantScan) > fits[1].Resolution {
		t.Errorf("fitted queryScanValue %g, want %g within ±%.2g", fits[1].Fitted, wantScan, fits[1].Resolution)
	}
	t.Logf("fitted queryIndexEntry %g, want %g (%+.2f%%)", fits[0].Fitted, want, (fits[0].Fitted/want-1)*100)
	if math.Abs(fits[0].Fitted/want-1) > 0.03 {
		t.Errorf("fitted queryIndexEntry %g, want %g within 3%%", fits[0].Fitted, want)
	}
	t.Logf("calibrate --scale printed:\n%s", stdout)
	if !regexp.MustCompile(`pinned +queryIndexEntry +built-in 6\.48e-05 → fitted 0\.000\d+ RU/entry .*range growth`).MatchString(stdout) ||
		!regexp.MustCompile(`pinned +queryScanValue +built-in`).MatchString(stdout) || !strings.Contains(stdout, "2 figures pinned by growth") {
		t.Errorf("calibrate --scale does not print the pinned figure:\n%s", stdout)
	}

	// A range COUNT over a tenant's 500,000 production documents: a million index entries.
	tiny, err := os.ReadFile(repo("testdata", "designs", "tiny.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	design := strings.NewReplacer("c.status = 'new'", "c.status >= 'a'", "SELECT c.id FROM", "SELECT VALUE COUNT(1) FROM",
		"cardinality: 2}", "cardinality: 2, productionCardinality: 2}", "count: 300\n", "count: 300\n        production: 1000000\n").Replace(string(tiny))
	designFile := filepath.Join(dir, "range.yaml")
	if err := os.WriteFile(designFile, []byte(design), 0o644); err != nil {
		t.Fatal(err)
	}
	label := "model (calibrated: " + p.Account + ", " + p.Date + ")"
	planned := func(args ...string) (float64, string) {
		t.Helper()
		code, stdout, stderr := runCLI(t, append(append([]string{"plan", "--format", "json"}, args...), designFile)...)
		if code != ExitOK && code != ExitFindings {
			t.Fatalf("plan %v: exit %d\n%s", args, code, stderr)
		}
		var out struct {
			Patterns []struct {
				ID           string  `json:"id"`
				ProductionRU float64 `json:"productionRU"`
			} `json:"patterns"`
		}
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatalf("plan json: %v\n%s", err, stdout)
		}
		for _, ap := range out.Patterns {
			if ap.ID == "Q1" {
				return ap.ProductionRU, stdout
			}
		}
		t.Fatalf("plan has no Q1:\n%s", stdout)
		return 0, ""
	}
	base, _ := planned()
	cal, out := planned("--calibration", profile)
	t.Logf("plan, range COUNT over 10^6 entries: %g RU built-in, %g RU calibrated", base, cal)
	if !(cal > base*2) || !strings.Contains(out, `"version":"`+cost.Current.Version+`+calibrated"`) {
		t.Errorf("plan with the profile charges Q1 %g RU (without %g), or its rate card is not the calibrated one:\n%s", cal, base, out)
	}
	ran := func(args ...string) (float64, string) {
		t.Helper()
		code, stdout, stderr := runCLI(t, append(append([]string{"run", "--samples", "2", "--progress", "none", "--format", "json"}, args...), designFile)...)
		if code != ExitOK && code != ExitFindings {
			t.Fatalf("run %v: exit %d\n%s", args, code, stderr)
		}
		var out struct {
			ModelCard string `json:"modelCard"`
			Patterns  []struct {
				ID      string `json:"id"`
				Modeled struct {
					Projected float64 `json:"projected"`
				} `json:"modeled"`
			} `json:"patterns"`
		}
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatalf("run json: %v\n%s", err, stdout)
		}
		for _, ap := range out.Patterns {
			if ap.ID == "Q1" {
				return ap.Modeled.Projected, out.ModelCard
			}
		}
		t.Fatalf("run has no Q1:\n%s", stdout)
		return 0, ""
	}
	base, _ = ran()
	cal, source := ran("--calibration", profile)
	t.Logf("run, range COUNT over 10^6 entries: %g RU built-in, %g RU calibrated (%s)", base, cal, source)
	if !(cal > base*2) || source != label {
		t.Errorf("run with the profile charges Q1 %g RU (without %g), labelled %q, want %q", cal, base, source, label)
	}
}

// TestCalibrate_PrintsWhatItRan: a calibration written over a scale calibration's profile keeps its
// rules (Profile.Keep) but prints its own fitted figures and summary, not the scale calibration's;
// a scale calibration written over a calibration's profile prints its rules and growth.
func TestCalibrate_PrintsWhatItRan(t *testing.T) {
	fitted := &cost.Profile{Account: "acct.example", Date: "2026-11-28",
		Coefficients: []cost.FittedParam{{Key: "queryMin", Unit: "RU", Published: 2.3, Fitted: 2.9, Pinned: true}},
		Measurements: []cost.Measurement{{Name: "query minimum"}}}
	scale := &cost.Profile{Account: "acct.example", Date: "2026-11-27",
		Scale: &cost.ScaleProbe{Documents: []int{1500, 6000}, CapacityMode: "provisioned", Date: "2026-11-27"},
		Rules: []cost.RuleDecision{{Rule: cost.RuleTopUnservedFilter, Alternative: "scans", Metric: "retrievedDocumentCount", Measured: 1500}}}

	p := *fitted
	if kept := p.Keep(scale); kept == "" {
		t.Fatal("a calibration kept nothing of the scale profile at --out")
	}
	var stdout, stderr bytes.Buffer
	printCalibration(&stdout, &stderr, &p, false, "cal.json")
	if !strings.Contains(stdout.String(), "calibrate: 2026-11-28: 1 of 1 figures fitted from 1 measurements on acct.example") ||
		!strings.Contains(stdout.String(), "queryMin") || strings.Contains(stdout.String(), "--scale") || strings.Contains(stdout.String(), "rule ") {
		t.Errorf("a calibration over a scale profile prints:\n%s", stdout.String())
	}

	s := *scale
	if kept := s.Keep(fitted); kept == "" {
		t.Fatal("a scale calibration kept nothing of the profile at --out")
	}
	stdout.Reset()
	printCalibration(&stdout, &stderr, &s, true, "cal.json")
	if !strings.Contains(stdout.String(), "rule "+cost.RuleTopUnservedFilter) || !strings.Contains(stdout.String(), "calibrate --scale: 2026-11-27: ") {
		t.Errorf("a scale calibration over a calibration's profile prints:\n%s", stdout.String())
	}
}

// TestCalibrate_PrintsGrowthInColumns: the growth lines put the figure's key in a column of its own,
// wide enough for the longest key (queryIndexEntry), whether pinned or not, and say the charges are
// the ones the target reported (against `validate serve` those are modeled too).
func TestCalibrate_PrintsGrowthInColumns(t *testing.T) {
	pt := func(docs int, ru, modeled, entries, values float64) cost.GrowthPoint {
		return cost.GrowthPoint{Documents: docs, RU: ru, Modeled: modeled,
			Facts: map[string]float64{"indexEntriesRead": entries + values, "indexScanValues": values}}
	}
	p := &cost.Profile{Account: "acct.example", Date: "2026-11-28", RateCard: cost.Current.Version,
		Scale: &cost.ScaleProbe{Documents: []int{1500, 6000}, CapacityMode: "provisioned", Date: "2026-11-28"},
		Growth: []cost.Growth{
			// The range: 4,500 entries more, pinned; the CONTAINS: 150 values more, too few to pin.
			{Shape: "range", Points: []cost.GrowthPoint{pt(1500, 3.04, 2.9, 1500, 0), pt(6000, 3.77, 3.19, 6000, 0)}},
			{Shape: "contains", Points: []cost.GrowthPoint{pt(50, 2.81, 2.8, 0, 50), pt(200, 2.82, 2.8, 0, 200)}},
		}}
	var stdout, stderr bytes.Buffer
	printCalibration(&stdout, &stderr, p, true, "scale.json")
	var pinned, unpinned string
	for _, l := range strings.Split(stdout.String(), "\n") {
		switch {
		case strings.HasPrefix(strings.TrimSpace(l), "not pinned"):
			unpinned = l
		case strings.HasPrefix(strings.TrimSpace(l), "pinned"):
			pinned = l
		}
	}
	if pinned == "" || unpinned == "" {
		t.Fatalf("want a pinned and a not pinned line:\n%s", stdout.String())
	}
	k1, k2 := strings.Index(pinned, "queryIndexEntry"), strings.Index(unpinned, "queryScanValue")
	if k1 != k2 || pinned[k1+len("queryIndexEntry")] != ' ' {
		t.Errorf("the keys are not one column (at %d and %d), or the key runs into the text:\n%s\n%s", k1, k2, pinned, unpinned)
	}
	if rest1, rest2 := strings.TrimLeft(pinned[k1+len("queryIndexEntry"):], " "), strings.TrimLeft(unpinned[k2+len("queryScanValue"):], " "); len(pinned)-len(rest1) != len(unpinned)-len(rest2) {
		t.Errorf("the text after the keys is not one column:\n%s\n%s", pinned, unpinned)
	}
	if strings.Contains(stdout.String(), "RU measured") || !strings.Contains(pinned, "3.04 → 3.77 RU reported by the target, 2.9 → 3.19 RU modeled") {
		t.Errorf("the growth does not say the charges are the target's:\n%s", stdout.String())
	}
}

// TestCalibrate_ScaleOverARefusedProfile: a profile at --out that this build refuses (its growth
// priced with another rate card) is replaced, and calibrate says so and why, rather than dropping
// what it held without a word.
func TestCalibrate_ScaleOverARefusedProfile(t *testing.T) {
	url := startServeEndpoint(t)
	pt := func(docs int, ru, modeled, entries float64) cost.GrowthPoint {
		return cost.GrowthPoint{Documents: docs, RU: ru, Modeled: modeled, Facts: map[string]float64{"indexEntriesRead": entries}}
	}
	old := cost.Profile{SchemaVersion: cost.ProfileSchemaVersion, Account: strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/"),
		Date: "2026-01-02", SDKVersion: target.SDKVersion, RateCard: "2025.01-1",
		Scale:  &cost.ScaleProbe{Documents: []int{1500, 6000}, Date: "2026-01-02"},
		Growth: []cost.Growth{{Shape: "range", Points: []cost.GrowthPoint{pt(1500, 3.04, 2.9, 1500), pt(6000, 3.77, 3.19, 6000)}}}}
	b, _ := json.Marshal(old)
	out := filepath.Join(t.TempDir(), "scale.json")
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "calibrate", "--scale", "--scale-docs", "50", "--target", "endpoint", "--endpoint", url, "--out", out, "--run-id", "r1")
	if code != ExitOK || !strings.Contains(stderr, "is replaced, nothing of it kept") || !strings.Contains(stderr, `rateCard: "2025.01-1"`) {
		t.Errorf("calibrate --scale over a refused profile: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, _, err := cost.LoadCalibration(out, target.SDKVersion); err != nil {
		t.Errorf("the profile written: %v", err)
	}
}
