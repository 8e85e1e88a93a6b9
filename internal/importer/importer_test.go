package importer

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite the golden drafts in testdata/golden")

// corpus lists the markdown files of testdata/corpus with their requirements file, if any.
func corpus(t testing.TB) map[string][2]string {
	files, err := filepath.Glob("testdata/corpus/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("corpus: %v", err)
	}
	out := map[string][2]string{}
	for _, f := range files {
		if strings.HasSuffix(f, ".requirements.md") {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(f), ".md")
		req := strings.TrimSuffix(f, ".md") + ".requirements.md"
		if _, err := os.Stat(req); err != nil {
			req = ""
		}
		out[name] = [2]string{f, req}
	}
	return out
}

func importFile(t testing.TB, md, req string) *Result {
	src, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{File: filepath.Base(md)}
	if req != "" {
		if o.Requirements, err = os.ReadFile(req); err != nil {
			t.Fatal(err)
		}
		o.RequirementsFile = filepath.Base(req)
	}
	res, err := Import(src, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCorpusGolden drafts every corpus file; the drafts must parse and match testdata/golden (run
// with -update to rewrite them after a deliberate change).
func TestCorpusGolden(t *testing.T) {
	for name, files := range corpus(t) {
		t.Run(name, func(t *testing.T) {
			res := importFile(t, files[0], files[1])
			if res.Problems != nil {
				t.Fatalf("the draft does not parse:\n%v\n%s", res.Problems, res.YAML)
			}
			if res.TODOs == 0 || !bytes.Contains(res.YAML, []byte("# TODO(import): ")) {
				t.Errorf("a draft without TODO(import) comments: every draft has inferences to check")
			}
			testenv.Golden(t, filepath.Join("testdata", "golden", name+".yaml"), res.YAML, *update)
		})
	}
}

// BenchmarkImportLargest drafts the largest corpus file (with its requirements, if any).
func BenchmarkImportLargest(b *testing.B) {
	var md, req string
	var size int64
	for _, files := range corpus(b) {
		if st, err := os.Stat(files[0]); err == nil && st.Size() > size {
			md, req, size = files[0], files[1], st.Size()
		}
	}
	b.Logf("%s (%d bytes)", md, size)
	for b.Loop() {
		importFile(b, md, req)
	}
}

// TestProductionCounts: the requirements' scale becomes each type's production count, and a child
// the scale does not name gets its parent's production count times the relationship's average, each
// with a TODO(import) naming where the figure came from.
func TestProductionCounts(t *testing.T) {
	res := importFile(t, "testdata/corpus/saas.md", "testdata/corpus/saas.requirements.md")
	if res.Design == nil {
		t.Fatalf("draft does not parse: %v", res.Problems)
	}
	got := map[string]float64{}
	for _, c := range res.Design.Containers {
		for _, dt := range c.Documents {
			got[dt.Type] = dt.Production
		}
	}
	want := map[string]float64{"user": 200_000, "session": 5_000_000, "event": 30_000_000}
	for typ, n := range want {
		if got[typ] != n {
			t.Errorf("%s: production %v, want %v (all: %v)", typ, got[typ], n, got)
		}
	}
	y := string(res.YAML)
	for _, note := range []string{
		`production count from the requirements' scale: "400 tenants, 200K users, 5M`,
		`production count = 5M sessions × 6 per session, from the requirements`,
		`(saas.requirements.md line 9)`,
	} {
		if !strings.Contains(y, note) {
			t.Errorf("draft lacks %q", note)
		}
	}
}
