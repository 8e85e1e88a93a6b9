package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cosmosdv/validate/internal/record"
)

// A throttled run shows its 429s per seeded type and per pattern in every format; an unthrottled
// one shows no throttling at all (the golden files hold that).
func TestRender_Throttling(t *testing.T) {
	run := embeddedRun()
	run.Seeding = []record.SeedStat{{Container: "UserOrders", Type: "order", Documents: 100, Throttled: 7, RetryWaitMs: 2750}}
	run.Patterns[1].Throttled, run.Patterns[1].RetryWaitMs = 3, 900
	r := Build(Input{Design: shopDesign(), Measured: run, Modeled: run, Version: "v0.1.0-test",
		Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)})
	id := run.Patterns[1].ID
	for _, format := range []string{"text", "md"} {
		var buf bytes.Buffer
		if err := Render(&buf, r, format); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, want := range []string{"Throttling", "seeding order in UserOrders: 7 responses 429, retry waits asked 2750 ms",
			"pattern " + id + ": 3 responses 429, retry waits asked 900 ms"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: missing %q in:\n%s", format, want, out)
			}
		}
	}
	var buf bytes.Buffer
	if err := Render(&buf, r, "json"); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Seeding  []map[string]any `json:"seeding"`
		Patterns []map[string]any `json:"patterns"`
	}
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Seeding[0]["throttled"] != 7.0 || back.Seeding[0]["retryWaitMs"] != 2750.0 {
		t.Errorf("json seeding: %v", back.Seeding[0])
	}
	if back.Patterns[1]["throttled"] != 3.0 || back.Patterns[1]["retryWaitMs"] != 900.0 {
		t.Errorf("json pattern %s: throttled %v, retryWaitMs %v", id, back.Patterns[1]["throttled"], back.Patterns[1]["retryWaitMs"])
	}
	if _, ok := back.Patterns[0]["throttled"]; ok {
		t.Errorf("json pattern %v: throttled present though zero", back.Patterns[0]["id"])
	}

	buf.Reset()
	if err := Render(&buf, embeddedReport(), "text"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "Throttling") {
		t.Errorf("an unthrottled run mentions throttling:\n%s", buf.String())
	}
}
