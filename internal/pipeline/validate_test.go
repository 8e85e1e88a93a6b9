package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/target"
)

// tinyYAML is testdata/designs/tiny.yaml (shared with cmd/validate's tests) with EXCLUDED for its
// indexing policy's excluded paths, so that a test can take the filtered path out of the index.
var tinyYAML = strings.Replace(mustRead("../../testdata/designs/tiny.yaml"), `excluded: ["/body/?"]`, "excluded: EXCLUDED", 1)

func mustRead(file string) string {
	b, err := os.ReadFile(file)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// tinyDesign writes tinyYAML with the given excluded paths to dir and loads it.
func tinyDesign(t *testing.T, dir, excluded string) *design.Design {
	t.Helper()
	f := filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(f, []byte(strings.ReplaceAll(tinyYAML, "EXCLUDED", excluded)), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := design.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// config is the configuration of a small embedded run writing to bytes buffers.
func config(stdout, stderr *bytes.Buffer) Config {
	return Config{Target: target.Config{Kind: record.KindEmbedded}, Samples: 3, Stdout: stdout, Stderr: stderr}
}

func TestValidate_EmbeddedWritesReports(t *testing.T) {
	dir := t.TempDir()
	d := tinyDesign(t, dir, `["/body/?"]`)
	var stdout, stderr bytes.Buffer
	c := config(&stdout, &stderr)
	c.Out, c.Formats = filepath.Join(dir, "reports"), []string{"json", "md"}
	out, err := Validate(context.Background(), []*design.Design{d}, c)
	if err != nil {
		t.Fatalf("Validate: %v\n%s", err, stderr.String())
	}
	if len(out.Reports) != 1 || out.Findings != 0 {
		t.Fatalf("outcome: %d reports, %d findings\n%s", len(out.Reports), out.Findings, stdout.String())
	}
	if src := out.Reports[0].Target.ChargeSource; src != record.ChargeModel {
		t.Errorf("charge source = %q, want model", src)
	}
	if !strings.HasPrefix(stderr.String(), "target: embedded") {
		t.Errorf("the first status line should name the target:\n%s", stderr.String())
	}
	// Files only: stdout gets the verdict line, the files are written.
	if !strings.HasPrefix(stdout.String(), "tiny: PASS: 2 patterns") {
		t.Errorf("stdout = %q, want the verdict line", stdout.String())
	}
	for _, ext := range []string{"json", "md"} {
		if fi, err := os.Stat(filepath.Join(c.Out, "tiny."+ext)); err != nil || fi.Size() == 0 {
			t.Errorf("report tiny.%s: %v", ext, err)
		}
	}
}

// TestValidate_BaselineRoundTrip writes a baseline, compares the same run with it, then takes the
// filtered path out of the index and expects the regression named.
func TestValidate_BaselineRoundTrip(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	c := config(&stdout, &stderr)
	c.Baseline = filepath.Join(dir, "baselines") + string(os.PathSeparator)
	c.UpdateBaseline = true
	d := tinyDesign(t, dir, `["/body/?"]`)
	if _, err := Validate(context.Background(), []*design.Design{d}, c); err != nil {
		t.Fatalf("update: %v\n%s", err, stderr.String())
	}
	file := filepath.Join(dir, "baselines", "tiny.baseline.json")
	if _, err := os.Stat(file); err != nil || !strings.Contains(stderr.String(), "baseline written to "+file) {
		t.Fatalf("baseline not written to %s: %v\n%s", file, err, stderr.String())
	}

	c.UpdateBaseline = false
	out, err := Validate(context.Background(), []*design.Design{d}, c)
	if err != nil || out.Findings != 0 {
		t.Fatalf("same run: findings %v, err %v\n%s", out, err, stdout.String())
	}

	stdout.Reset()
	d = tinyDesign(t, dir, `["/body/?", "/status/?"]`)
	out, err = Validate(context.Background(), []*design.Design{d}, c)
	if err != nil {
		t.Fatal(err)
	}
	if out.Findings == 0 || !strings.Contains(stdout.String(), "Q1") || !strings.Contains(strings.ToLower(stdout.String()), "regress") {
		t.Errorf("want the regression of Q1 counted and named; findings %d\n%s", out.Findings, stdout.String())
	}
}

func TestValidate_UsageErrors(t *testing.T) {
	dir := t.TempDir()
	d := tinyDesign(t, dir, `[]`)
	var stdout, stderr bytes.Buffer

	// A baseline that does not exist: exit 2 material, after the run.
	c := config(&stdout, &stderr)
	c.Baseline = filepath.Join(dir, "missing.json")
	if _, err := Validate(context.Background(), []*design.Design{d}, c); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "--update-baseline") {
		t.Errorf("missing baseline: err = %v, want ErrUsage pointing at --update-baseline", err)
	}

	// Several designs and one baseline file: refused before any target starts.
	stderr.Reset()
	other := *d
	other.Name = "tiny2"
	c.Baseline = filepath.Join(dir, "tiny.yaml") // an existing file
	if _, err := Validate(context.Background(), []*design.Design{d, &other}, c); !errors.Is(err, ErrUsage) {
		t.Errorf("several designs, one file: err = %v, want ErrUsage", err)
	}
	if stderr.Len() != 0 {
		t.Errorf("a target started before the usage error:\n%s", stderr.String())
	}

	// An incomplete target configuration is the user's to fix as well.
	c = config(&stdout, &stderr)
	c.Target = target.Config{Kind: record.KindEndpoint}
	if _, err := Validate(context.Background(), []*design.Design{d}, c); !errors.Is(err, ErrUsage) {
		t.Errorf("endpoint without URL: err = %v, want ErrUsage", err)
	}
}

// TestValidate_EndpointRunsTheModelAlongside runs on an endpoint (a validate serve, recognised by its
// header): the measured run goes to the endpoint in a run-scoped database, the modeled run to an
// embedded engine of its own, and the charges stay labelled model.
func TestValidate_EndpointRunsTheModelAlongside(t *testing.T) {
	srv, err := engine.Start(context.Background(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Close bounds its own grace (engine.closeGrace) and then closes every connection; a
		// deadline of the caller's would leave connections open once a busy machine reached it.
		_ = srv.Close(context.Background())
	})
	d := tinyDesign(t, t.TempDir(), `["/body/?"]`)
	var stdout, stderr bytes.Buffer
	c := config(&stdout, &stderr)
	c.Target = target.Config{Kind: record.KindEndpoint, Endpoint: srv.URL()}
	c.RunID = "t1"
	out, err := Validate(context.Background(), []*design.Design{d}, c)
	if err != nil {
		t.Fatalf("Validate: %v\n%s", err, stderr.String())
	}
	r := out.Reports[0]
	if r.Target.Kind != record.KindEndpoint || r.Target.ChargeSource != record.ChargeModel {
		t.Errorf("target = %+v, want an endpoint labelled model", r.Target)
	}
	// Even a disposable endpoint serves every job pointed at it: the run's own database (--run-id).
	if want := `provisioning database "cdv-tiny-t1" on endpoint`; !strings.Contains(stderr.String(), want) {
		t.Errorf("status should say %q:\n%s", want, stderr.String())
	}
	for _, p := range r.Patterns {
		if p.Modeled == nil {
			t.Errorf("%s: no modeled figure", p.ID)
		}
	}
}

// TestValidate_ConcurrentEndpointRuns: two jobs against one endpoint at the same time each get a
// database of their own (their --run-id) and both pass; without --run-id a run takes its process's
// run id, and --reuse-database without one keeps the design's own database, as asked.
func TestValidate_ConcurrentEndpointRuns(t *testing.T) {
	srv, err := engine.Start(context.Background(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) }) // Close bounds its own grace
	d := tinyDesign(t, t.TempDir(), `["/body/?"]`)
	type result struct {
		err    error
		stderr string
	}
	results := make(chan result, 2)
	start := make(chan struct{})
	for _, id := range []string{"job1", "job2"} {
		go func() {
			var stdout, stderr bytes.Buffer
			c := config(&stdout, &stderr)
			c.Target = target.Config{Kind: record.KindEndpoint, Endpoint: srv.URL()}
			c.RunID = id
			<-start
			_, err := Validate(context.Background(), []*design.Design{d}, c)
			results <- result{err, stderr.String()}
		}()
	}
	close(start)
	var logs string
	for range 2 {
		r := <-results
		if r.err != nil {
			t.Errorf("a concurrent run failed: %v\n%s", r.err, r.stderr)
		}
		logs += r.stderr
	}
	for _, want := range []string{`provisioning database "cdv-tiny-job1" on endpoint`, `provisioning database "cdv-tiny-job2" on endpoint`} {
		if !strings.Contains(logs, want) {
			t.Errorf("want %q:\n%s", want, logs)
		}
	}

	tgt := &target.Target{Info: record.TargetInfo{Kind: record.KindEndpoint}}
	if got, want := (&Config{}).databaseName(d, tgt), target.RunScopedName(d.Database, ""); got != want || got == d.Database {
		t.Errorf("endpoint without --run-id: database %q, want %q", got, want)
	}
	if got := (&Config{ReuseDatabase: true}).databaseName(d, tgt); got != d.Database {
		t.Errorf("endpoint with --reuse-database: database %q, want the design's %q", got, d.Database)
	}
	if got := (&Config{}).databaseName(d, &target.Target{Info: record.TargetInfo{Kind: record.KindEmbedded}}); got != d.Database {
		t.Errorf("embedded: database %q, want the design's %q", got, d.Database)
	}
}

func TestRelabel(t *testing.T) {
	run := func(kind record.Kind, src record.ChargeSource, charges ...float64) *record.Run {
		p := record.Pattern{ID: "P"}
		for _, c := range charges {
			p.Executions = append(p.Executions, record.Execution{RU: c})
		}
		// A failed execution's charge does not count.
		p.Executions = append(p.Executions, record.Execution{RU: 7, Error: "boom"})
		return &record.Run{Target: record.TargetInfo{Kind: kind, ChargeSource: src}, Patterns: []record.Pattern{p}}
	}
	for _, tc := range []struct {
		name    string
		run     *record.Run
		changed bool
		want    record.ChargeSource
	}{
		{"endpoint, identical charges", run(record.KindEndpoint, record.ChargeEmulatorIndicative, 1, 1, 1), true, record.ChargeEmulatorPlaceholder},
		{"endpoint, varied charges", run(record.KindEndpoint, record.ChargeEmulatorIndicative, 1, 2), false, record.ChargeEmulatorIndicative},
		{"endpoint that models its charges", run(record.KindEndpoint, record.ChargeModel, 1, 1), false, record.ChargeModel},
		{"account", run(record.KindAccount, record.ChargeService, 1, 1), false, record.ChargeService},
		{"endpoint, nothing succeeded", run(record.KindEndpoint, record.ChargeEmulatorIndicative), false, record.ChargeEmulatorIndicative},
	} {
		if got := Relabel(tc.run); got != tc.changed || tc.run.Target.ChargeSource != tc.want {
			t.Errorf("%s: changed %v, source %q; want %v, %q", tc.name, got, tc.run.Target.ChargeSource, tc.changed, tc.want)
		}
	}
}

func TestPartitionPlan(t *testing.T) {
	dir := t.TempDir()
	small := tinyDesign(t, dir, `[]`)
	if err := os.WriteFile(filepath.Join(dir, "big.yaml"), []byte(strings.NewReplacer("EXCLUDED", "[]", "name: tiny", "name: big",
		"manual: 400", "manual: 30000").Replace(tinyYAML)), 0o644); err != nil {
		t.Fatal(err)
	}
	big, err := design.Load(filepath.Join(dir, "big.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var p PartitionPlan
	p.Set(small, "db1")
	p.Set(big, "db2")
	if got := p.Lookup("db1", "Items", 400); got != 1 {
		t.Errorf("400 RU/s: %d partitions, want 1", got)
	}
	if got := p.Lookup("db2", "Items", 30000); got != 5 {
		t.Errorf("30,000 RU/s: %d partitions, want 5 (6,000 RU/s per partition at creation)", got)
	}
	// A container the plan does not know: the rate card's figure for its throughput.
	if got := p.Lookup("other", "C", 12001); got != 3 {
		t.Errorf("unknown container: %d partitions, want 3", got)
	}
	o := PartitionPlan{Override: 4}
	o.Set(small, "db")
	if a, c := o.Lookup("db", "Items", 400), o.Lookup("x", "y", 400); a != 4 || c != 4 {
		t.Errorf("override: %d and %d, want 4", a, c)
	}
}

func TestBaselineFile(t *testing.T) {
	dir := t.TempDir()
	d := &design.Design{Name: "shop"}
	sep := string(os.PathSeparator)
	for base, want := range map[string]string{
		dir:                               filepath.Join(dir, "shop.baseline.json"),
		filepath.Join(dir, "new") + sep:   filepath.Join(dir, "new", "shop.baseline.json"),
		filepath.Join(dir, "one.json"):    filepath.Join(dir, "one.json"),
		filepath.Join(dir, "missing-dir"): filepath.Join(dir, "missing-dir"),
	} {
		if got := BaselineFile(base, d); got != want {
			t.Errorf("BaselineFile(%q) = %q, want %q", base, got, want)
		}
	}
}

// TestValidate_Examples runs every example design end to end on the embedded engine, as `make
// validate` does: examples cannot rot. Every pattern must pass and every report format be written.
func TestValidate_Examples(t *testing.T) {
	files, _ := filepath.Glob("../../designs/*.yaml")
	if len(files) == 0 {
		t.Fatal("no example designs")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			d, err := design.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			c := Config{Target: target.Config{Kind: record.KindEmbedded}, Stdout: &stdout, Stderr: &stderr,
				Out: t.TempDir(), Formats: []string{"text", "md", "json", "junit", "html"}}
			out, err := Validate(context.Background(), []*design.Design{d}, c)
			if err != nil || out.Findings != 0 {
				t.Fatalf("Validate: %v, findings %v\n%s\n%s", err, out, stdout.String(), stderr.String())
			}
			for _, ext := range []string{"txt", "md", "json", "xml", "html"} {
				if fi, err := os.Stat(filepath.Join(c.Out, d.Name+"."+ext)); err != nil || fi.Size() == 0 {
					t.Errorf("report %s.%s missing: %v", d.Name, ext, err)
				}
			}
		})
	}
}

// TestValidate_JSONLinesStayMachineReadable: with json on standard output, the baseline comparison
// and a text report asked for as well go to Stderr, and every line of Stdout is one JSON report.
func TestValidate_JSONLinesStayMachineReadable(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	c := config(&stdout, &stderr)
	c.Baseline = filepath.Join(dir, "tiny.baseline.json")
	c.UpdateBaseline = true
	d := tinyDesign(t, dir, `["/body/?"]`)
	if _, err := Validate(context.Background(), []*design.Design{d}, c); err != nil {
		t.Fatalf("update: %v\n%s", err, stderr.String())
	}

	stdout.Reset()
	stderr.Reset()
	c.UpdateBaseline = false
	c.Formats = []string{"json", "text"}
	if _, err := Validate(context.Background(), []*design.Design{d}, c); err != nil {
		t.Fatalf("compare: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(lines) != 1 {
		t.Fatalf("stdout has %d lines, want one JSON report:\n%s", len(lines), stdout.String())
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rep); err != nil || rep["schemaVersion"] == nil {
		t.Errorf("stdout is not one JSON report (%v):\n%s", err, stdout.String())
	}
	for _, want := range []string{"Baseline tiny", "R1"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q (the comparison and the text report):\n%s", want, stderr.String())
		}
	}
}
