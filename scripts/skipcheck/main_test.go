package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const stream = `{"Action":"run","Package":"github.com/cosmosdv/validate/internal/engine","Test":"TestA"}
{"Action":"output","Package":"github.com/cosmosdv/validate/internal/engine","Test":"TestA","Output":"    a_test.go:1: boom\n"}
{"Action":"fail","Package":"github.com/cosmosdv/validate/internal/engine","Test":"TestA"}
{"Action":"skip","Package":"github.com/cosmosdv/validate/internal/engine","Test":"TestB"}
{"Action":"skip","Package":"github.com/cosmosdv/validate/internal/engine","Test":"TestC/sub"}
{"Action":"pass","Package":"github.com/cosmosdv/validate/internal/engine","Test":"TestD"}
{"Action":"output","Package":"github.com/cosmosdv/validate/internal/engine","Output":"FAIL\n"}
{"Action":"fail","Package":"github.com/cosmosdv/validate/internal/engine"}
`

func TestScanAndVerdict(t *testing.T) {
	var out bytes.Buffer
	res, err := scan(strings.NewReader(stream), &out, "github.com/cosmosdv/validate/")
	if err != nil {
		t.Fatal(err)
	}
	if !res.failed || res.tests != 4 || len(res.skipped) != 2 {
		t.Fatalf("result %+v", res)
	}
	if !strings.Contains(out.String(), "boom") || !strings.Contains(out.String(), "FAIL") {
		t.Errorf("a failing test's output and the package line are echoed: %q", out.String())
	}
	tests := []struct {
		name    string
		allowed []string
		pass    bool
	}{
		{"every skip allowed", []string{"internal/engine TestB", "internal/engine TestC/*"}, true},
		{"a new skip", []string{"internal/engine TestB", "internal/engine TestX"}, false},
		{"more skips than recorded", []string{"internal/engine TestB"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := res
			r.failed = false
			var w bytes.Buffer
			if got := verdict(&w, r, tt.allowed) == 0; got != tt.pass {
				t.Errorf("pass = %v, want %v:\n%s", got, tt.pass, w.String())
			}
		})
	}
	var w bytes.Buffer
	if verdict(&w, res, []string{"internal/engine TestB", "internal/engine TestC/*"}) == 0 {
		t.Error("a failed test passes the check")
	}
}

func TestScan_BuildFailure(t *testing.T) {
	in := `{"ImportPath":"x","Action":"build-output","Output":"x.go:1: syntax error\n"}
{"ImportPath":"x","Action":"build-fail"}
`
	var out bytes.Buffer
	res, err := scan(strings.NewReader(in), &out, "")
	if err != nil || !res.failed || !strings.Contains(out.String(), "syntax error") {
		t.Errorf("build failure: %+v %v %q", res, err, out.String())
	}
}

func writeList(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "list")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadList_PerPassWithReasons(t *testing.T) {
	p := writeList(t, "# comment\nplain internal/engine TestB -- needs an account\nrace  internal/pipeline TestSlow -- slow under race\n\n")
	plain, err := readList(p, "plain", true)
	if err != nil || len(plain) != 1 || plain[0] != "internal/engine TestB" {
		t.Fatalf("plain pass: %v %v", plain, err)
	}
	race, err := readList(p, "race", true)
	if err != nil || len(race) != 1 || race[0] != "internal/pipeline TestSlow" {
		t.Fatalf("race pass: %v %v", race, err)
	}
	for name, text := range map[string]string{
		"no reason":      "plain internal/engine TestB\n",
		"empty reason":   "plain internal/engine TestB --  \n",
		"no pass":        "internal/engine TestB -- why\n",
		"unknown pass":   "fast internal/engine TestB -- why\n",
		"extra field":    "plain internal/engine TestB TestC -- why\n",
		"missing fields": "plain TestB -- why\n",
	} {
		if _, err := readList(writeList(t, text), "plain", true); err == nil {
			t.Errorf("%s: %q was accepted", name, text)
		}
	}
	if _, err := readList(writeList(t, "plain internal/pipeline TestX -- why\n"), "plain", false); err == nil {
		t.Error("a required test with a reason was accepted")
	}
}

// TestForcedSkipOfRequiredTestFails is the audit's case: the baseline tests are allowed to skip in
// the race pass only; forced to skip in the plain pass, both the allowed list (not listed for the
// pass) and the required list (did not pass) fail the run.
func TestForcedSkipOfRequiredTestFails(t *testing.T) {
	allowedText := "race internal/pipeline TestExamples_VerdictsAsInBaselines -- slow under race\n"
	requiredText := "plain internal/pipeline TestExamples_VerdictsAsInBaselines\n"
	skipped := `{"Action":"skip","Package":"github.com/cosmosdv/validate/internal/pipeline","Test":"TestExamples_VerdictsAsInBaselines"}
{"Action":"pass","Package":"github.com/cosmosdv/validate/internal/pipeline","Test":"TestOther"}
`
	passed := `{"Action":"pass","Package":"github.com/cosmosdv/validate/internal/pipeline","Test":"TestExamples_VerdictsAsInBaselines"}
`
	run := func(stream, pass string) (int, []string) {
		allowed, err := readList(writeList(t, allowedText), pass, true)
		if err != nil {
			t.Fatal(err)
		}
		required, err := readList(writeList(t, requiredText), pass, false)
		if err != nil {
			t.Fatal(err)
		}
		res, err := scan(strings.NewReader(stream), io.Discard, "github.com/cosmosdv/validate/")
		if err != nil {
			t.Fatal(err)
		}
		return verdict(io.Discard, res, allowed), notPassed(res, required)
	}
	if code, missing := run(skipped, "plain"); code == 0 || len(missing) != 1 {
		t.Errorf("plain pass, forced skip: verdict %d, missing %v: want a failure on both counts", code, missing)
	}
	if code, missing := run(skipped, "race"); code != 0 || len(missing) != 0 {
		t.Errorf("race pass, the listed skip: verdict %d, missing %v: want it accepted", code, missing)
	}
	if code, missing := run(passed, "plain"); code != 0 || len(missing) != 0 {
		t.Errorf("plain pass, the test passed: verdict %d, missing %v", code, missing)
	}
}

// TestRepositoryLists reads the repository's own lists: they parse, and every required test is one
// that no allowed line lets skip in the same pass.
func TestRepositoryLists(t *testing.T) {
	for _, pass := range []string{"plain", "race"} {
		allowed, err := readList("../../.ci/allowed-skips", pass, true)
		if err != nil {
			t.Fatal(err)
		}
		required, err := readList("../../.ci/required-tests", pass, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range required {
			for _, a := range allowed {
				if a == r || strings.HasSuffix(a, "/*") && strings.HasPrefix(r+"/", strings.TrimSuffix(a, "*")) {
					t.Errorf("%s pass: %q is required and allowed to skip", pass, r)
				}
			}
		}
	}
	if req, _ := readList("../../.ci/required-tests", "plain", false); len(req) < 3 {
		t.Errorf("the plain pass requires %d tests: the baseline tests must be among them", len(req))
	}
}
