package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/report"
	"github.com/cosmosdv/validate/internal/seed"
	"github.com/cosmosdv/validate/internal/target"
)

// cancelAfter is a progress writer that cancels the run when the probe reports its first pattern.
type cancelAfter struct {
	mu     sync.Mutex
	cancel context.CancelFunc
	buf    bytes.Buffer
}

func (w *cancelAfter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), "probe: ") && strings.Contains(w.buf.String(), " executions (1/") {
		w.cancel()
	}
	return len(p), nil
}

// TestValidate_InterruptedWritesIncompleteReports: a run cancelled after its first access pattern
// (Ctrl-C, a job's timeout) still writes its reports, holding the pattern that completed with its
// verdict, marked incomplete with the patterns not run; the run ends with the interruption.
func TestValidate_InterruptedWritesIncompleteReports(t *testing.T) {
	dir := t.TempDir()
	d := tinyDesign(t, dir, `["/body/?"]`)
	if len(d.AccessPatterns) < 2 {
		t.Fatalf("tiny.yaml has %d patterns; the test needs two or more", len(d.AccessPatterns))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr bytes.Buffer
	c := config(&stdout, &stderr)
	c.Out, c.Formats = filepath.Join(dir, "reports"), []string{"json", "md", "junit"}
	progress := &cancelAfter{cancel: cancel}
	c.Progress = progress
	out, err := Validate(ctx, []*design.Design{d}, c)
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("err = %v, want the interruption\n%s", err, stderr.String())
	}
	raw, rerr := os.ReadFile(filepath.Join(c.Out, "tiny.json"))
	if rerr != nil {
		t.Fatalf("no JSON report of what completed: %v\n%s", rerr, stderr.String())
	}
	var rep report.Report
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Patterns) != 1 || rep.Patterns[0].ID != d.AccessPatterns[0].ID || rep.Patterns[0].Verdict == "" ||
		!strings.HasPrefix(rep.Incomplete, "interrupted after 1 of ") || !strings.Contains(rep.Incomplete, "not run: "+d.AccessPatterns[1].ID) {
		t.Errorf("report: %d patterns, incomplete %q", len(rep.Patterns), rep.Incomplete)
	}
	md, _ := os.ReadFile(filepath.Join(c.Out, "tiny.md"))
	xml, _ := os.ReadFile(filepath.Join(c.Out, "tiny.xml"))
	if !strings.Contains(string(md), "**Incomplete**: interrupted after 1 of") || !strings.Contains(string(xml), `name="incomplete"`) {
		t.Errorf("md or junit do not say incomplete:\n%s\n%s", md, xml)
	}
	if len(out.Reports) != 1 {
		t.Errorf("the outcome holds %d reports, want the incomplete one", len(out.Reports))
	}
}

// TestValidate_MissingBaselineDirectory: a baselines folder that does not exist yet is named with
// what to do (write the first baselines with --update-baseline), before any target starts.
func TestValidate_MissingBaselineDirectory(t *testing.T) {
	dir := t.TempDir()
	d := tinyDesign(t, dir, `["/body/?"]`)
	other := *d
	other.Name = "tiny2"
	var stdout, stderr bytes.Buffer
	c := config(&stdout, &stderr)
	c.Baseline = filepath.Join(dir, "baselines", "embedded") + string(os.PathSeparator)
	_, err := Validate(context.Background(), []*design.Design{d, &other}, c)
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "no such directory yet: write the first baselines with --update-baseline") {
		t.Errorf("err = %v", err)
	}
	if stderr.Len() != 0 {
		t.Errorf("a target started before the usage error:\n%s", stderr.String())
	}
}

// TestValidate_MissingBaselineFailsInTheReports: a design without its baseline ends the run with
// exit 2 (ErrUsage), and the reports it wrote say so — a red heading and baselineProblem — instead
// of a green one.
func TestValidate_MissingBaselineFailsInTheReports(t *testing.T) {
	dir := t.TempDir()
	d := tinyDesign(t, dir, `["/body/?"]`)
	var stdout, stderr bytes.Buffer
	c := config(&stdout, &stderr)
	c.Baseline = dir + string(os.PathSeparator)
	c.Out, c.Formats = filepath.Join(dir, "reports"), []string{"json", "md"}
	if _, err := Validate(context.Background(), []*design.Design{d}, c); !errors.Is(err, ErrUsage) {
		t.Fatalf("err = %v, want ErrUsage", err)
	}
	md, _ := os.ReadFile(filepath.Join(c.Out, "tiny.md"))
	raw, _ := os.ReadFile(filepath.Join(c.Out, "tiny.json"))
	var rep report.Report
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(md), "## ❌ ") || !strings.Contains(string(md), "Not compared with a baseline: baseline ") ||
		!strings.Contains(rep.BaselineProblem, "create it with --update-baseline") {
		t.Errorf("reports of a run without its baseline:\n%.300s\nbaselineProblem %q", md, rep.BaselineProblem)
	}
}

// TestRunCostCountsWhatIsSeeded: the pre-run cost line on an account counts the documents the run
// seeds — the seed plan's own count — not a second estimate of them (which counted more).
func TestRunCostCountsWhatIsSeeded(t *testing.T) {
	d, err := design.Load("../../designs/ecommerce.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := seed.Compile(d, 1)
	if err != nil {
		t.Fatal(err)
	}
	counts := sp.Counts()
	var stdout, stderr bytes.Buffer
	c := config(&stdout, &stderr)
	c.Samples = 1
	out, err := Validate(context.Background(), []*design.Design{d}, c)
	if err != nil {
		t.Fatalf("Validate: %v\n%s", err, stderr.String())
	}
	seeded := 0
	for _, s := range out.Reports[0].Seeding {
		seeded += s.Documents
	}
	line := target.RunCostSummary(d, 1, counts)
	if want := fmt.Sprintf("~%d documents seeded", seeded); !strings.Contains(line, want) {
		t.Errorf("cost line %q, want %q (what the run seeded)", line, want)
	}
}
