package report

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func trafficReport() *Report {
	r := embeddedReport()
	r.Traffic = []Traffic{{Container: "Orders", Shape: "evening with season end: day 28 18:00, 2 h, ×8", Designed: "manual 4000",
		ProvisionedRU: 4000, ThrottledHours: 91, DesignedUSD: 233.74, Recommended: "autoscale 51000", RecommendedUSD: 468.23, FlatUSD: 92.56,
		Hours: []TrafficHour{
			{Label: "18:00", AvgRU: 2321, PeakRU: 3482, HottestRU: 3482, ShareRU: 4000},
			{Label: "19:00", AvgRU: 4220, PeakRU: 6330, HottestRU: 6330, ShareRU: 4000, ThrottledRPS: 1104, Throttled: true},
			{Label: "day 28 19:00", AvgRU: 33760, PeakRU: 50640, HottestRU: 50640, ShareRU: 4000, ThrottledRPS: 22104, Throttled: true, Event: "season end"},
		}}}
	return r
}

// TestTraffic_Rendered (#40 point 5): the HTML draws RU/s by hour against the provisioned line with the
// throttled hours marked, text and Markdown name the throttled hours compactly, and the JSON carries
// the forecast as schema/report.schema.json documents it.
func TestTraffic_Rendered(t *testing.T) {
	r := trafficReport()
	var html, text, md, js bytes.Buffer
	for f, b := range map[string]*bytes.Buffer{"html": &html, "text": &text, "md": &md, "json": &js} {
		if err := Render(b, r, f); err != nil {
			t.Fatal(err)
		}
	}
	h := html.String()
	if strings.Count(h, `class="bar throttled"`) != 2 || strings.Count(h, ">429</text>") != 2 || !strings.Contains(h, `class="provisioned"`) ||
		!strings.Contains(h, "Traffic by the hour") {
		t.Errorf("HTML chart lacks the throttled bars, the 429 marks or the provisioned line")
	}
	for name, s := range map[string]string{"text": text.String(), "md": md.String()} {
		for _, want := range []string{"throttles in 91 of 730 hours", "19:00 (6330 of 4000 RU/s on the busiest partition, 1104 requests/s 429)", "day 28 19:00", "autoscale 51000 serves every hour"} {
			if !strings.Contains(s, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
		if strings.Contains(s, "18:00 (") {
			t.Errorf("%s names an hour that does not throttle", name)
		}
	}
	raw, err := os.ReadFile("../../schema/report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	var doc any
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc.(map[string]any)["traffic"]; !ok {
		t.Fatal("JSON lacks traffic")
	}
	for _, e := range validate(schema, schema, doc, "$") {
		t.Errorf("schema: %s", e)
	}
}
