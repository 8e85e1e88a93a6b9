package importer

import (
	"math/rand"
	"os"
	"testing"
)

// TestMutatedMarkdownAlwaysDrafts feeds the importer corpus files with random damage (a seeded, fixed
// set): every draft must parse. FuzzImport explores further under go test -fuzz.
func TestMutatedMarkdownAlwaysDrafts(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	var seeds [][]byte
	// In file order, so that the seeded damage is the same on every run (a map's order is not).
	files := corpus(t)
	for _, name := range sortedKeys(files) {
		b, _ := os.ReadFile(files[name][0])
		seeds = append(seeds, b)
	}
	for i := 0; i < 300; i++ {
		s := append([]byte(nil), seeds[r.Intn(len(seeds))]...)
		for k := 0; k < 1+r.Intn(8); k++ {
			p := r.Intn(len(s))
			switch r.Intn(4) {
			case 0:
				s[p] = byte(r.Intn(256))
			case 1:
				q := min(len(s), p+r.Intn(200))
				s = append(s[:p], s[q:]...)
			case 2:
				q := min(len(s), p+r.Intn(200))
				chunk := append([]byte(nil), s[p:q]...)
				for j := 0; j < r.Intn(50); j++ {
					s = append(s[:p], append(chunk, s[p:]...)...)
				}
			case 3:
				s = append(s[:p], append([]byte("`|{[\"“：，\n#*-"), s[p:]...)...)
			}
			if len(s) == 0 {
				s = []byte("x")
			}
		}
		res, err := Import(s, Options{File: "x.md"})
		if err != nil || res.Problems != nil {
			t.Fatalf("mutation %d: %v %v\n--- markdown:\n%s", i, err, res.Problems, s)
		}
	}
}
