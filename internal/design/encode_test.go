package design

import (
	"path/filepath"
	"reflect"
	"testing"
)

// TestMarshal_roundTrip: every example written by Marshal parses back to the same design.
func TestMarshal_roundTrip(t *testing.T) {
	files, err := filepath.Glob("../../designs/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			d, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			data, err := Marshal(d, "a variant\nof "+d.Name)
			if err != nil {
				t.Fatal(err)
			}
			back, err := Parse(data, "variant.yaml")
			if err != nil {
				t.Fatalf("%v\n%s", err, data)
			}
			d.File, back.File = "", ""
			d.Positions, back.Positions = nil, nil
			d.src, back.src = nil, nil
			if !reflect.DeepEqual(d, back) {
				t.Errorf("written and read back, the design differs:\n%s", data)
			}
		})
	}
}
