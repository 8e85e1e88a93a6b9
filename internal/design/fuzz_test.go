package design

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary bytes to Parse: it must return a design or ErrInvalid errors that point
// into the file, and never panic (Parse's recover turns a panic into an "internal error", which
// fails here). Seeds: testdata/fuzz/FuzzParse plus the example designs.
// Run: go test ./internal/design -run '^$' -fuzz FuzzParse -fuzztime 60s
func FuzzParse(f *testing.F) {
	for _, p := range exampleFiles(f) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(minimal))
	f.Add([]byte(aliasBomb()))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(data, "fuzz.yaml")
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error does not match ErrInvalid: %v", err)
			}
			msg := err.Error()
			if strings.Contains(msg, "internal error") {
				t.Fatalf("Parse panicked: %v", msg)
			}
			for _, line := range strings.Split(msg, "\n") {
				if !strings.HasPrefix(line, "fuzz.yaml") && !strings.HasPrefix(line, "... and ") {
					t.Fatalf("error line without the file name: %q", line)
				}
			}
			return
		}
		_ = d.Fingerprint()
		if len(Diff(d, d)) != 0 {
			t.Fatalf("Diff of a design with itself is not empty: %v", Diff(d, d))
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("parsed design fails Validate: %v", err)
		}
	})
}
