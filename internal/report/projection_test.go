package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestProjection_NoFigureNoProjectedRU: a pattern without a production figure (here a point
// operation) writes no projectedRU, so that no script reads a charge of 0 RU; a projected query
// writes its figure. A report written before, with projectedRU 0, reads and compares the same.
func TestProjection_NoFigureNoProjectedRU(t *testing.T) {
	_, cur := nightlyReports(t)
	data, err := json.Marshal(cur)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Patterns []struct {
			ID         string                     `json:"id"`
			Projection map[string]json.RawMessage `json:"projection"`
		} `json:"patterns"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range doc.Patterns {
		_, has := p.Projection["projectedRU"]
		switch p.ID {
		case "AP1": // point operation
			seen[p.ID] = true
			if has || string(p.Projection["point"]) != "true" {
				t.Errorf("AP1 (point op): projection %s; want point and no projectedRU", data)
			}
		case "AP3": // projected query
			seen[p.ID] = true
			if !has {
				t.Errorf("AP3 (projected query) lost its projectedRU")
			}
		}
	}
	if !seen["AP1"] || !seen["AP3"] {
		t.Fatalf("the fixture no longer has AP1 and AP3 with projections: %v", seen)
	}

	// An older report wrote "projectedRU": 0 for the point operation.
	old := strings.Replace(string(data), `"point":true,"seededRU":0}`, `"point":true,"seededRU":0,"projectedRU":0}`, 1)
	if old == string(data) {
		t.Fatal("could not write the older form of the report")
	}
	oldRep, err := ReadBaseline(bytes.NewReader([]byte(old)))
	if err != nil {
		t.Fatalf("an older report does not read: %v", err)
	}
	c, err := Compare(oldRep, cur, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range c.Patterns {
		if p.Change != Unchanged {
			t.Errorf("%s: %s against the same report written the older way (%v)", p.ID, p.Change, p.Reasons)
		}
	}
}
