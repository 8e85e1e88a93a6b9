package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/record"
)

// TestRun_ProgressWhileProbing: probing shows progress as seeding does — a bar on a terminal, and
// lines with the run's counts otherwise.
func TestRun_ProgressWhileProbing(t *testing.T) {
	client := startEngine(t)
	for _, tty := range []bool{false, true} {
		d := smallDesign()
		d.Database = fmt.Sprintf("progress-%v", tty)
		var buf bytes.Buffer
		if _, err := Run(context.Background(), d, client, record.TargetInfo{Kind: "embedded", ChargeSource: "model"},
			Options{Samples: 2, Progress: &buf, TTY: tty}); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		n := len(d.AccessPatterns)
		want := fmt.Sprintf("(%d/%d patterns, %d/%d executions)", n, n, 2*n, 2*n)
		if tty {
			want = fmt.Sprintf("100%% %d/%d executions", 2*n, 2*n)
			if !strings.Contains(out, "\rprobing [") {
				t.Errorf("tty: no probing bar:\n%q", out)
			}
		}
		if !strings.Contains(out, want) {
			t.Errorf("tty %v: progress lacks %q:\n%s", tty, want, out)
		}
	}
}
