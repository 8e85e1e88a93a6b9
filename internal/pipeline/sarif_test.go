package pipeline

import (
	"fmt"
	"testing"

	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/report"
	"github.com/cosmosdv/validate/internal/sarif"
)

// TestRunFindings: a run's findings become SARIF results at the design file's line and column of the
// pattern or container they are about: a failing pattern (error), a warning one (warning), a
// regression (error), a pattern that moved with the model (note), a stage finding at its container
// and a review finding at lint's own position; a passing pattern is no result.
func TestRunFindings(t *testing.T) {
	d := tinyDesign(t, t.TempDir(), `["/body/?"]`)
	if len(d.AccessPatterns) < 2 || len(d.Containers) == 0 {
		t.Fatalf("tiny.yaml changed: %d patterns, %d containers", len(d.AccessPatterns), len(d.Containers))
	}
	ap0, ap1 := d.AccessPatterns[0], d.AccessPatterns[1]
	pos0 := d.Positions["accessPatterns[0].estimate"]
	pos1 := d.Positions["accessPatterns[1].estimate"]
	if pos0.Line == 0 || pos1.Line == 0 {
		t.Fatalf("no positions for the estimates: %v %v", pos0, pos1)
	}
	rep := &report.Report{
		Patterns: []report.PatternResult{
			{ID: ap0.ID, Name: ap0.Name, Verdict: report.Fail, Reasons: []string{"modeled 9 RU, estimate 3"}},
			{ID: ap1.ID, Name: ap1.Name, Verdict: report.Warn, Reasons: []string{"found nothing"}},
		},
		Baseline: &report.Comparison{Patterns: []report.PatternChange{
			{ID: ap0.ID, Name: ap0.Name, Change: report.Regression, Reasons: []string{"rose"}},
			{ID: ap1.ID, Name: ap1.Name, Change: report.ModelChanged, Reasons: []string{"the model moved"}},
		}},
		StageFindings: []record.Finding{
			{Stage: "provision", Level: "warn", Subject: "container " + d.Containers[0].Name, Message: "throughput short"},
			{Stage: "review", Level: "warn", Subject: "design", Message: fmt.Sprintf("lint: %s:7:3: containers[0]: a mistake [ttl-ignored]", d.File)},
			{Stage: "seed", Level: "info", Subject: "x", Message: "fine"},
		},
	}
	got := RunFindings(d, rep)
	want := []struct {
		rule, level string
		line, col   int
	}{
		{"pattern-fail", sarif.LevelError, pos0.Line, pos0.Col},
		{"pattern-warn", sarif.LevelWarning, pos1.Line, pos1.Col},
		{"regression", sarif.LevelError, pos0.Line, pos0.Col},
		{"model-changed", sarif.LevelNote, pos1.Line, pos1.Col},
		{"stage-provision", sarif.LevelWarning, d.Positions["containers[0].name"].Line, d.Positions["containers[0].name"].Col},
		{"stage-review", sarif.LevelWarning, 7, 3},
	}
	if len(got) != len(want) {
		t.Fatalf("%d results, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Rule != w.rule || g.Level != w.level || g.Line != w.line || g.Col != w.col || g.File != d.File {
			t.Errorf("result %d: %s %s %s:%d:%d, want %s %s %s:%d:%d", i, g.Rule, g.Level, g.File, g.Line, g.Col, w.rule, w.level, d.File, w.line, w.col)
		}
	}
}
