package pipeline

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

// TestRun_TrafficShapeVersusFlatTwin (#40): `validate run` of the evening-peak, season-end design keeps
// its executions as they are and shows plan's hour-by-hour forecast: the throttled hours as a
// capacity finding, the picture in the HTML; its flat twin (no traffic) shows neither.
func TestRun_TrafficShapeVersusFlatTwin(t *testing.T) {
	dir := t.TempDir()
	d, err := design.Load(filepath.Join("..", "..", "testdata", "designs", "traffic-evening.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	twin, err := design.Load(filepath.Join("..", "..", "testdata", "designs", "traffic-evening.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	twin.Traffic, twin.Name = nil, "traffic-flat"
	var stdout, stderr bytes.Buffer
	c := config(&stdout, &stderr)
	c.Out, c.Formats = filepath.Join(dir, "reports"), []string{"html", "text"}
	out, err := Validate(context.Background(), []*design.Design{d, twin}, c)
	if err != nil {
		t.Fatalf("Validate: %v\n%s", err, stderr.String())
	}
	shaped, flat := out.Reports[0], out.Reports[1]
	if len(shaped.Traffic) != 1 || shaped.Traffic[0].ThrottledHours != 91 || len(flat.Traffic) != 0 {
		t.Fatalf("traffic forecasts: shaped %+v, flat %+v", shaped.Traffic, flat.Traffic)
	}
	if shaped.Traffic[0].RecommendedUSD == shaped.Traffic[0].FlatUSD {
		t.Error("the shape does not move the month's bill")
	}
	has := func(fs []string, s string) bool {
		for _, f := range fs {
			if strings.Contains(f, s) {
				return true
			}
		}
		return false
	}
	var sf, ff []string
	for _, f := range shaped.StageFindings {
		sf = append(sf, f.Message)
	}
	for _, f := range flat.StageFindings {
		ff = append(ff, f.Message)
	}
	if !has(sf, "throttles in 91 of 730 hours") || has(ff, "of 730 hours") {
		t.Errorf("capacity findings: shaped %q, flat %q", sf, ff)
	}
	html, err := os.ReadFile(filepath.Join(c.Out, "traffic-evening.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), `class="traffic"`) || !strings.Contains(string(html), ">429</text>") {
		t.Error("the HTML report does not draw the hours")
	}
	if flatHTML, _ := os.ReadFile(filepath.Join(c.Out, "traffic-flat.html")); strings.Contains(string(flatHTML), `class="traffic"`) {
		t.Error("the flat twin's HTML draws hours")
	}
}
