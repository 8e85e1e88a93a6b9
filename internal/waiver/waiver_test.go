package waiver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "waivers.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoad_Strict: every waiver names its code, reason, owner and expiry; unknown fields and dates
// that are not YYYY-MM-DD are refused at file:line:col.
func TestLoad_Strict(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"no reason", "waivers:\n  - code: hpk-order\n    owner: me\n    expires: 2030-01-01\n", ":2:5: waivers[0].reason: missing"},
		{"no owner", "waivers:\n  - code: hpk-order\n    reason: r\n    expires: 2030-01-01\n", ":2:5: waivers[0].owner: missing"},
		{"no expiry", "waivers:\n  - code: hpk-order\n    reason: r\n    owner: me\n", ":2:5: waivers[0].expires: missing"},
		{"no code", "waivers:\n  - reason: r\n    owner: me\n    expires: 2030-01-01\n", ":2:5: waivers[0].code: missing"},
		{"bad date", "waivers:\n  - code: c\n    reason: r\n    owner: me\n    expires: 31/12/2030\n", `waivers[0].expires: "31/12/2030" is not a date YYYY-MM-DD`},
		{"unknown field", "waivers:\n  - code: c\n    reason: r\n    owner: me\n    expires: 2030-01-01\n    until: 2031-01-01\n", `unknown field "until"`},
		{"unknown top-level key", "waiver:\n  - code: c\n", "field waiver not found"},
	}
	for _, tc := range tests {
		_, err := Load(write(t, tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestMatch: a waiver matches its code and, when given, the design, the access pattern and a field
// path the finding's path lies under; it holds through its expiry day (UTC) and not after.
func TestMatch(t *testing.T) {
	s, err := Load(write(t, `waivers:
  - code: hpk-order
    design: payments
    path: containers[1]
    reason: deliberate
    owner: "@payments"
    expires: 2030-06-30
  - code: query-scan
    pattern: AP3
    reason: a nightly report
    owner: "@payments"
    expires: 2030-06-30
`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		sub  Subject
		want int // index of the waiver, -1 none
	}{
		{Subject{Design: "payments", Code: "hpk-order", Path: "containers[1]"}, 0},
		{Subject{Design: "payments", Code: "hpk-order", Path: "containers[1].partitionKey"}, 0},
		{Subject{Design: "payments", Code: "hpk-order", Path: "containers[10]"}, -1},
		{Subject{Design: "orders", Code: "hpk-order", Path: "containers[1]"}, -1},
		{Subject{Design: "payments", Code: "hot-partition", Path: "containers[1]"}, -1},
		{Subject{Design: "any", Code: "query-scan", Path: "accessPatterns[2].query", Pattern: "AP3"}, 1},
		{Subject{Design: "any", Code: "query-scan", Path: "accessPatterns[3].query", Pattern: "AP4"}, -1},
	}
	for _, tc := range tests {
		got := s.Match(tc.sub)
		switch {
		case tc.want < 0 && got != nil:
			t.Errorf("%+v matched %s", tc.sub, got.Where())
		case tc.want >= 0 && got != s.Waivers[tc.want]:
			t.Errorf("%+v matched %v, want waiver %d", tc.sub, got, tc.want)
		}
	}
	w := s.Waivers[0]
	if w.Expired(time.Date(2030, 6, 30, 23, 59, 0, 0, time.UTC)) || !w.Expired(time.Date(2030, 7, 1, 0, 0, 0, 0, time.UTC)) {
		t.Error("a waiver holds through its expiry day and not after")
	}
	if w.Where() != s.File+":2:5" {
		t.Errorf("Where = %s", w.Where())
	}
	if len(s.Unused()) != 0 {
		t.Errorf("both waivers matched, Unused = %v", s.Unused())
	}
}
