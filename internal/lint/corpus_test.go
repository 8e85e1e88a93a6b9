package lint

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

// corpusDir holds the design-review corpus: a clean ticketing design and the mistakes made in it,
// one change each.
var corpusDir = filepath.Join("..", "..", "testdata", "review")

// TestCorpus: the clean design lints with no finding (not even a note), and each mistake — the
// clean design with one contiguous change, its header saying what and "# want:" the codes — is
// caught by exactly the rules it names; a false alarm ("# want: none") gets no finding, and the
// notes its "# note:" line names (a fan-out weighed as negligible says what it costs).
func TestCorpus(t *testing.T) {
	clean := body(t, readFile(t, filepath.Join(corpusDir, "clean.yaml")))
	if fs := lintFile(t, filepath.Join(corpusDir, "clean.yaml")); len(fs) > 0 {
		t.Fatalf("clean.yaml has findings:\n%s", join(fs))
	}
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*.yaml"))
	mistakes := 0
	for _, file := range files {
		name := filepath.Base(file)
		if name == "clean.yaml" {
			continue
		}
		mistakes++
		t.Run(strings.TrimSuffix(name, ".yaml"), func(t *testing.T) {
			src := readFile(t, file)
			// "# want: none" is a false alarm to keep away: no finding; "# note:" names the notes
			// it must give instead (a fan-out weighed negligible).
			var want, wantNotes []string
			sawWant := false
			for line := range strings.SplitSeq(src, "\n") {
				if w, ok := strings.CutPrefix(line, "# want:"); ok {
					sawWant = true
					for c := range strings.SplitSeq(w, ",") {
						if c = strings.TrimSpace(c); c != "none" {
							want = append(want, c)
						}
					}
				}
				if w, ok := strings.CutPrefix(line, "# note:"); ok {
					for c := range strings.SplitSeq(w, ",") {
						wantNotes = append(wantNotes, strings.TrimSpace(c))
					}
				}
			}
			if !sawWant {
				t.Fatalf("%s has no # want: line", name)
			}
			if hunks := changedHunks(clean, body(t, src)); hunks != 1 {
				t.Errorf("%s differs from clean.yaml in %d places, want one change", name, hunks)
			}
			fs := lintFile(t, file)
			var got, notes []string
			for _, f := range fs {
				if !f.Note && !slices.Contains(got, f.Code) {
					got = append(got, f.Code)
				}
				if f.Note && !slices.Contains(notes, f.Code) {
					notes = append(notes, f.Code)
				}
				if f.Pos.Line == 0 {
					t.Errorf("%s: finding without a position: %s", name, f)
				}
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("%s: codes %v, want %v:\n%s", name, got, want, join(fs))
			}
			for _, n := range wantNotes {
				if !slices.Contains(notes, n) {
					t.Errorf("%s: no note %s (notes %v):\n%s", name, n, notes, join(fs))
				}
			}
		})
	}
	if mistakes < 20 {
		t.Errorf("the corpus holds %d mistakes, want at least 20", mistakes)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func lintFile(t *testing.T, path string) []Finding {
	t.Helper()
	d, err := design.Load(path)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return Check(d)
}

// body is a corpus file without its leading comment lines.
func body(t *testing.T, src string) []string {
	t.Helper()
	lines := strings.Split(src, "\n")
	for len(lines) > 0 && strings.HasPrefix(lines[0], "#") {
		lines = lines[1:]
	}
	return lines
}

// changedHunks counts the separate places where b differs from a: after the common head and tail,
// what is left must be one block (0 when equal).
func changedHunks(a, b []string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	if i == len(a) && i == len(b) {
		return 0
	}
	j := 0
	for j < len(a)-i && j < len(b)-i && a[len(a)-1-j] == b[len(b)-1-j] {
		j++
	}
	// The middle blocks a[i:len(a)-j] and b[i:len(b)-j] differ; a change that touches lines far
	// apart leaves equal lines between them: count a block with more than 3 equal lines inside as
	// several changes.
	ma, mb := a[i:len(a)-j], b[i:len(b)-j]
	for k := range ma {
		if k+3 < len(ma) && slices.Equal(ma[k:k+4], slicesAt(mb, ma[k:k+4])) {
			return 2
		}
	}
	return 1
}

// slicesAt returns the first run of len(want) lines of s equal to want, or nil.
func slicesAt(s, want []string) []string {
	for k := 0; k+len(want) <= len(s); k++ {
		if slices.Equal(s[k:k+len(want)], want) {
			return s[k : k+len(want)]
		}
	}
	return nil
}

func join(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("  " + f.String() + "\n")
	}
	return b.String()
}

// TestCheck_ExamplesAreClean: the shipped designs gain no finding (notes included) from any rule,
// the design review's among them: a rule that flags a good example is a false finding.
func TestCheck_ExamplesAreClean(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "designs", "*.yaml"))
	if len(files) == 0 {
		t.Fatal("no designs/*.yaml")
	}
	for _, file := range files {
		if fs := lintFile(t, file); len(fs) > 0 {
			t.Errorf("%s has findings:\n%s", file, join(fs))
		}
	}
}
