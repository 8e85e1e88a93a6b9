package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/testenv"
)

// TestMakefile_ValidateTargets: `make validate` runs on the default target, the emulator or a dev
// account, as the README's "other ways to run" say. make -n prints the command without running it;
// what the command then does is tested with the CLI itself.
func TestMakefile_ValidateTargets(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		testenv.Need(t, "make not installed")
	}
	tests := []struct {
		vars      []string
		want, not string
	}{
		{nil, "./bin/validate run   --out", "--target"},
		{[]string{"TARGET=emulator"}, "./bin/validate run --target emulator  --out", "--endpoint"},
		{[]string{"TARGET=account", "ENDPOINT=https://myacct.documents.azure.com:443/"},
			"./bin/validate run --target account --endpoint https://myacct.documents.azure.com:443/ --out", ""},
	}
	for _, tc := range tests {
		args := append([]string{"-n", "--no-print-directory", "-C", repo(), "validate"}, tc.vars...)
		out, err := exec.Command("make", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("make %v: %v\n%s", args, err, out)
		}
		last := strings.TrimSpace(string(out))
		last = last[strings.LastIndex(last, "\n")+1:]
		if !strings.HasPrefix(last, tc.want) || tc.not != "" && strings.Contains(last, tc.not) {
			t.Errorf("make %v runs %q, want it to start with %q", tc.vars, last, tc.want)
		}
	}
}
