package plan

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

// TestBuild_ExampleDesigns plans every design in designs/ and renders it in both formats.
func TestBuild_ExampleDesigns(t *testing.T) {
	files, err := filepath.Glob("../../designs/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no example designs in ../../designs: the test would pass on nothing")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			d, err := design.Load(f)
			if err != nil {
				t.Fatalf("design does not load: %v", err)
			}
			p, err := Build(d, Options{})
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			for _, pt := range p.Patterns {
				if math.IsNaN(pt.ModelRU) || math.IsInf(pt.ModelRU, 0) || pt.ModelRU <= 0 {
					t.Errorf("%s: model RU %v", pt.ID, pt.ModelRU)
				}
			}
			var txt, js bytes.Buffer
			if err := Render(&txt, p, FormatText); err != nil {
				t.Fatal(err)
			}
			if err := Render(&js, p, FormatJSON); err != nil {
				t.Fatal(err)
			}
			var back map[string]any
			if err := json.Unmarshal(js.Bytes(), &back); err != nil {
				t.Fatalf("JSON does not parse: %v", err)
			}
		})
	}
}
