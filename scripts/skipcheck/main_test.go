package main

import (
	"bytes"
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
