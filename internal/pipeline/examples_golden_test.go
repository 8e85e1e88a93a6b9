package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/target"
)

// TestExamples_VerdictsAsInBaselines runs every example design on the embedded engine as
// `make nightly` does (seed and samples of its committed baseline) and requires each pattern's
// verdict to be the one baselines/embedded/ records. The estimates in designs/*.yaml are the
// designer's, with their reasoning beside them; they are not regenerated from the model. So a
// model change that moves a verdict fails here, and the verdict's move is reviewed as a diff of the
// baseline, regenerated in a commit of its own:
//
//	validate run --target embedded --baseline baselines/embedded/ --update-baseline designs/NAME.yaml
func TestExamples_VerdictsAsInBaselines(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("runs every example design at its baseline's samples: not under -short or the race detector (make test runs it without)")
	}
	files, err := filepath.Glob("../../designs/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example designs in ../../designs (%v): the test would pass on nothing", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			d, err := design.Load(file)
			if err != nil {
				t.Fatalf("design does not load: %v", err)
			}
			path := filepath.Join("..", "..", "baselines", "embedded", d.Name+".baseline.json")
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("every example has a baseline (%v); write it in a commit of its own: validate run --target embedded "+
					"--baseline baselines/embedded/ --update-baseline %s", err, file)
			}
			var base struct {
				Seed     int64 `json:"seed"`
				Samples  int   `json:"samples"`
				Patterns []struct {
					ID       string  `json:"id"`
					Estimate float64 `json:"estimate"`
					Verdict  string  `json:"verdict"`
				} `json:"patterns"`
			}
			if err := json.Unmarshal(raw, &base); err != nil || len(base.Patterns) == 0 {
				t.Fatalf("%s: %v (%d patterns)", path, err, len(base.Patterns))
			}
			var stdout, stderr bytes.Buffer
			c := Config{Target: target.Config{Kind: record.KindEmbedded}, Seed: base.Seed, Samples: base.Samples,
				Stdout: &stdout, Stderr: &stderr}
			out, err := Validate(context.Background(), []*design.Design{d}, c)
			if err != nil || len(out.Reports) != 1 {
				t.Fatalf("run: %v\n%s", err, stderr.String())
			}
			got := map[string]string{}
			for _, p := range out.Reports[0].Patterns {
				got[p.ID] = string(p.Verdict)
			}
			var moved []string
			for _, bp := range base.Patterns {
				v, ok := got[bp.ID]
				switch {
				case !ok:
					moved = append(moved, fmt.Sprintf("%s: in the baseline, not in the run", bp.ID))
				case v != bp.Verdict:
					moved = append(moved, fmt.Sprintf("%s (estimate %g RU): %s in the baseline, %s now", bp.ID, bp.Estimate, bp.Verdict, v))
				}
				delete(got, bp.ID)
			}
			for id := range got {
				moved = append(moved, fmt.Sprintf("%s: in the run, not in the baseline", id))
			}
			if len(moved) > 0 {
				t.Errorf("verdicts moved against %s:\n  %s\nIf the model change is right, regenerate the baseline in a commit of its own "+
					"(validate run --target embedded --baseline baselines/embedded/ --update-baseline %s) and say why each verdict moved; "+
					"the design's estimates are the designer's and are not edited to follow the model.",
					path, strings.Join(moved, "\n  "), file)
			}
		})
	}
}

// TestExamples_EstimatesCarryReasoning: every estimate in designs/*.yaml says where it comes from,
// in a comment on its line or in the comment lines right above it. An estimate is the designer's
// expectation, worked out from published figures; a bare number is one nobody can review, and one
// that is easy to copy from the model's output when the model changes.
func TestExamples_EstimatesCarryReasoning(t *testing.T) {
	files, err := filepath.Glob("../../designs/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example designs in ../../designs (%v): the test would pass on nothing", err)
	}
	n := 0
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		for i, l := range lines {
			if !strings.HasPrefix(strings.TrimSpace(l), "estimate:") {
				continue
			}
			n++
			if strings.Contains(l, "#") || i > 0 && strings.HasPrefix(strings.TrimSpace(lines[i-1]), "#") {
				continue
			}
			t.Errorf("%s:%d: %s has no reasoning: say in a comment how the figure follows from the published charges",
				filepath.Base(file), i+1, strings.TrimSpace(l))
		}
	}
	if n == 0 {
		t.Fatal("no estimates found in the example designs")
	}
}
