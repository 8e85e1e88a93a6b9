package importer

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// hostile are inputs that made CommonMark parsing quadratic (issue 30: "[a](" repeated, 256 KB took
// 25 s; nested ">" quotes, 2 MB ran 10 minutes), at the largest size Import reads.
func hostile() map[string][]byte {
	n := MaxInput
	rep := func(s string) []byte { return bytes.Repeat([]byte(s), n/len(s)) }
	var list strings.Builder
	for i := 0; list.Len() < n-600; i++ {
		list.WriteString(strings.Repeat("  ", i%300) + "- x\n")
	}
	return map[string][]byte{
		"unclosed links on one line":    rep("[a]("),
		"unclosed links in a paragraph": rep(strings.Repeat("[a](", 20) + "\n"),
		"quotes nested on one line":     rep(">"),
		"quotes nested per line":        rep(strings.Repeat(">", 1000) + " x\n"),
		"lists nested 300 deep":         []byte(list.String()),
		"quote and list nesting":        rep(strings.Repeat("> - ", 300) + "x\n"),
		"emphasis runs":                 rep("*a _b "),
		"a paragraph per line":          rep("x\n\n"),
		"brackets":                      rep("["),
		"code span openers":             rep("`a ``b "),
		// Many patterns: the draft keeps the first maxDraftPatterns and stays a readable design file.
		"a SQL block per section": append([]byte("## Items\n\nPartition key: `/id`\n\n"),
			rep("## q\n\n```sql\nSELECT * FROM c WHERE c.id = @id AND c.n = 1\n```\n\nAbout 5 rps, 2 RU.\n\n")[:n-64]...),
		"an operation per sentence": append([]byte("## Items\n\nPartition key: `/id`\n\n"),
			rep("A point read of items costs 1 RU at 5 rps.\n\n")[:n-64]...),
	}
}

// TestImportHostileMarkdownIsLinear: each hostile input is read in a number of parser steps linear in
// its size (the parse watch counts them; the budget would stop it at 64 a byte) and still drafts.
// Time per input is in BenchmarkImportHostile.
func TestImportHostileMarkdownIsLinear(t *testing.T) {
	for name, src := range hostile() {
		t.Run(name, func(t *testing.T) {
			md, _ := boundLines(clean(src))
			for _, line := range bytes.Split(md, []byte("\n")) {
				if len(line) > MaxLine {
					t.Fatalf("a line of %d bytes left after bounding", len(line))
				}
			}
			_, steps, err := parseBounded(context.Background(), md, nil)
			if err != nil {
				t.Fatal(err)
			}
			if steps > 3*len(src) {
				t.Errorf("%d parser steps for %d bytes", steps, len(src))
			}
			res, err := Import(src, Options{File: "hostile.md"})
			if err != nil || res.Problems != nil {
				t.Fatalf("%v %v", err, res.Problems)
			}
		})
	}
}

func BenchmarkImportHostile(b *testing.B) {
	for name, src := range hostile() {
		b.Run(strings.ReplaceAll(name, " ", "_"), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if _, err := Import(src, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestImportStopsWhenCancelled: a context cancelled while the markdown is parsed stops the import at
// the watch's next look (deterministic: the test cancels from the watch's own hook), and one
// cancelled before it starts stops it at once.
func TestImportStopsWhenCancelled(t *testing.T) {
	src := hostile()["unclosed links in a paragraph"]
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	looks := 0
	_, steps, err := parseBounded(ctx, src, func(int) {
		if looks++; looks == 2 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || steps != 2*checkEvery {
		t.Fatalf("cancelled at the second look: err %v after %d steps, want context.Canceled after %d", err, steps, 2*checkEvery)
	}
	if _, err := ImportContext(ctx, src, Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("ImportContext with a cancelled context: %v", err)
	}
}

// TestWatchBudget: past its budget the watch stops the parse with ErrTooComplex.
func TestWatchBudget(t *testing.T) {
	w := &watch{ctx: context.Background(), max: 10}
	defer func() {
		r := recover()
		s, ok := r.(stopParse)
		if !ok || !errors.Is(s.err, ErrTooComplex) {
			t.Fatalf("recovered %v", r)
		}
	}()
	for range 11 {
		w.step()
	}
	t.Fatal("no stop past the budget")
}

// TestBoundLines: long lines wrap at a space or comma, deep quote prefixes are cut, and everything
// else is left byte for byte.
func TestBoundLines(t *testing.T) {
	ok := []byte("# T\n\n> > quoted\n- a\n  - b\n\n```json\n{\"a\": [1, 2]}\n```\n")
	if got, n := boundLines(ok); n != 0 || !bytes.Equal(got, ok) {
		t.Fatalf("an ordinary document changed (%d lines): %q", n, got)
	}
	long := strings.Repeat("word ", MaxLine/5+100)
	got, n := boundLines([]byte(long + "\n" + strings.Repeat("> ", MaxNesting+5) + "deep\n"))
	if n != 2 {
		t.Errorf("%d lines changed, want 2", n)
	}
	lines := strings.Split(string(got), "\n")
	if len(lines[0]) > MaxLine || strings.Join(lines[:2], "") != long {
		t.Errorf("long line not wrapped at a space: %d and %d bytes", len(lines[0]), len(lines[1]))
	}
	if q := strings.Count(lines[2], ">"); q != MaxNesting || !strings.HasSuffix(lines[2], "deep") {
		t.Errorf("quote prefix cut to %d: %q", q, lines[2])
	}
}

// An empty markdown is refused: a placeholder draft would hide that there was nothing to import.
func TestImportRefusesEmptyMarkdown(t *testing.T) {
	for _, src := range []string{"", "  \n\t\n"} {
		if _, err := Import([]byte(src), Options{File: "empty.md"}); !errors.Is(err, ErrEmpty) {
			t.Errorf("%q: err %v, want ErrEmpty", src, err)
		}
	}
}
