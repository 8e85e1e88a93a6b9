package main

import (
	"os"
	"testing"
)

// TestSitesResolve: every site of sites.txt and the rate card is found in the source as it is, so a
// moved or renamed threshold fails here, in make test, not hours into make mutate.
func TestSitesResolve(t *testing.T) {
	t.Chdir("../..")
	sites, err := findSites()
	if err != nil {
		t.Fatal(err)
	}
	if len(sites) < 40 {
		t.Fatalf("%d sites, want every rate-card coefficient and every listed threshold", len(sites))
	}
	for _, s := range sites {
		src, err := os.ReadFile(s.file)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []float64{1.5, 0.6} {
			if _, what, ok := mutate(src, s, f); !ok && what != "zero" {
				t.Errorf("%s ×%g: not mutable (%s)", s.name, f, what)
			}
		}
	}
}
