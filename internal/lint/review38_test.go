package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

// The expectations below are written by hand from the designs' numbers (their header comments
// show the arithmetic), not copied from lint's output.

func parseVariant(t *testing.T, src string) []Finding {
	t.Helper()
	d, err := design.Parse([]byte(src), "t.yaml")
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return Check(d)
}

func codes38(fs []Finding, notes bool) []string {
	var out []string
	for _, f := range fs {
		if f.Note == notes {
			out = append(out, f.Code)
		}
	}
	return out
}

// TestUnboundedArray_Guild: an event log appended to forever is named at the append, with the size
// it reaches and when, and the per-append rewrite cost at 1 MB; with a TTL shorter than the time to
// the limit, or a matching removal, it is not.
func TestUnboundedArray_Guild(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "lint", "guild-events.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(raw)
	fs := parseVariant(t, src)
	if got := codes38(fs, false); strings.Join(got, ",") != "unbounded-array" {
		t.Fatalf("codes %v, want [unbounded-array]:\n%s", got, join(fs))
	}
	f := fs[0]
	if f.Pos.Line != 43 || f.Path != "accessPatterns[1].patch[0].path" {
		t.Errorf("at %d %s, want line 43 accessPatterns[1].patch[0].path: %s", f.Pos.Line, f.Path, f)
	}
	for _, want := range []string{"fields.events", "2 MB item limit in 72 days", "1250 RU at 1 MB", "never expire"} {
		if !strings.Contains(f.Message, want) && !strings.Contains(f.Message, strings.Replace(want, "72", "73", 1)) {
			t.Errorf("message lacks %q: %s", want, f.Message)
		}
	}
	// Documents that expire after 30 days never reach the limit (73 days): no finding.
	ttl30 := strings.Replace(src, "    throughput: {manual: 4000}\n", "    throughput: {manual: 4000}\n    defaultTtl: 2592000\n", 1)
	if got := codes38(parseVariant(t, ttl30), false); len(got) != 0 {
		t.Errorf("30-day TTL: codes %v, want none", got)
	}
	// A year is too late: named, with the TTL.
	ttl365 := strings.Replace(src, "    throughput: {manual: 4000}\n", "    throughput: {manual: 4000}\n    defaultTtl: 31536000\n", 1)
	fs = parseVariant(t, ttl365)
	if got := codes38(fs, false); strings.Join(got, ",") != "unbounded-array" || !strings.Contains(fs[0].Message, "expire after 365 days (defaultTtl), too late") {
		t.Errorf("365-day TTL: %v\n%s", got, join(fs))
	}
	// Every append paired with a removal of the oldest: bounded.
	capped := strings.Replace(src, "      - {op: add, path: /events/-, value: {at: \"{now}\", kind: raid, by: usr-1}}\n",
		"      - {op: add, path: /events/-, value: {at: \"{now}\", kind: raid, by: usr-1}}\n      - {op: remove, path: /events/0}\n", 1)
	if got := codes38(parseVariant(t, capped), false); len(got) != 0 {
		t.Errorf("append with removal: codes %v, want none", got)
	}
}
