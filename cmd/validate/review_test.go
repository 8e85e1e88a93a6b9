package main

import (
	"strings"
	"testing"
)

// TestLintAndPlan_NegligibleShare: the admin report that runs every second is 16% of Orders' load:
// a finding for lint and plan at the default 1%, a note (exit 0) for both at 50%; a share outside
// (0, 100) is a usage error.
func TestLintAndPlan_NegligibleShare(t *testing.T) {
	file := repo("testdata", "review", "report-every-second.yaml")
	for _, cmd := range []string{"lint", "plan"} {
		if code, out, _ := runCLI(t, cmd, file); code != ExitFindings || !strings.Contains(out, "lost-partition-key") {
			t.Errorf("%s at the default share: exit %d, want %d with lost-partition-key:\n%s", cmd, code, ExitFindings, out)
		}
		if code, out, errb := runCLI(t, cmd, "--negligible-share", "50", file); code != ExitOK {
			t.Errorf("%s --negligible-share 50: exit %d, want 0:\n%s%s", cmd, code, out, errb)
		}
		if code, _, errb := runCLI(t, cmd, "--negligible-share", "0", file); code != ExitUsage || !strings.Contains(errb, "--negligible-share") {
			t.Errorf("%s --negligible-share 0: exit %d, want %d naming the flag: %s", cmd, code, ExitUsage, errb)
		}
	}
}
