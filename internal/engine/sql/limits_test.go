package sql

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func orChain(n int) string {
	var b strings.Builder
	b.WriteString("SELECT * FROM c WHERE ")
	for i := range n {
		if i > 0 {
			b.WriteString(" OR ")
		}
		fmt.Fprintf(&b, "c.n = %d", i)
	}
	return b.String()
}

// The service's term limits: a query past them is refused at parse time.
func TestLimits_Terms(t *testing.T) {
	in := make([]string, MaxInItems+1)
	for i := range in {
		in[i] = "1"
	}
	for name, text := range map[string]string{
		"ORs":  orChain(MaxLogicalOr + 2),
		"ANDs": strings.Replace(orChain(MaxLogicalAnd+2), " OR ", " AND ", -1),
		"IN":   "SELECT * FROM c WHERE c.n IN (" + strings.Join(in, ",") + ")",
	} {
		_, err := Parse(text)
		var qe *Error
		if !errors.As(err, &qe) || !strings.Contains(err.Error(), "maximum the service allows") {
			t.Errorf("%s: err = %v, want the service's limit", name, err)
		}
	}
	if _, err := Parse(orChain(MaxLogicalOr + 1)); err != nil {
		t.Errorf("%d ORs: %v", MaxLogicalOr, err)
	}
}

// Planning counts against the work budget: an OR chain at the limit plans in a few thousand steps
// (it took cubic time when the filter text was rendered once per path), and a budget smaller than
// that stops it before evaluation.
func TestLimits_PlanningCounts(t *testing.T) {
	q, err := Parse(orChain(MaxLogicalOr))
	if err != nil {
		t.Fatal(err)
	}
	pl := buildPlan(q, nil)
	if pl.work <= 0 || pl.work > 20*MaxLogicalOr+len(q.text) {
		t.Errorf("planning work = %d, want positive and linear in the query (under %d)", pl.work, 20*MaxLogicalOr+len(q.text))
	}
	_, err = Execute(q, docs(t, `[{"n":1}]`), Options{MaxWork: pl.work / 2})
	var we *WorkLimitError
	if !errors.As(err, &we) {
		t.Errorf("a budget below the planning cost: err = %v, want WorkLimitError", err)
	}
	if _, err := Execute(q, docs(t, `[{"n":1}]`), Options{MaxWork: 10 * pl.work}); err != nil {
		t.Errorf("a budget above it: %v", err)
	}
}

// A LIKE pattern given as a parameter compiles once per execution, not once per document, and
// compiling counts against the work budget; a run of 160,000 '[' compiles in linear time.
func TestLimits_Like(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := range 100 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"s":"a%d"}`, i)
	}
	b.WriteString("]")
	src := docs(t, b.String())
	q, err := Parse("SELECT VALUE COUNT(1) FROM c WHERE c.s LIKE @p")
	if err != nil {
		t.Fatal(err)
	}
	before := likeCompiles.Load()
	res, err := Execute(q, src, Options{Params: map[string]any{"@p": "a%"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := likeCompiles.Load() - before; got != 1 {
		t.Errorf("compilations over 100 documents = %d, want 1", got)
	}
	if canon(t, res.Items) != "[100]" {
		t.Errorf("count = %s", canon(t, res.Items))
	}
	brackets := strings.Repeat("[", 160_000)
	_, err = Execute(q, src, Options{Params: map[string]any{"@p": brackets}, MaxWork: 100_000})
	var we *WorkLimitError
	if !errors.As(err, &we) {
		t.Errorf("a 160,000-byte pattern under a 100,000-step budget: err = %v, want WorkLimitError", err)
	}
	if m := compileLike(brackets, ""); m == nil || !m.match(brackets) || m.match("x") {
		t.Errorf("a run of '[' matches itself literally")
	}
	if m := compileLike("[a-c]-[^-]%", ""); m == nil || !m.match("b-x") || m.match("d-x") || m.match("b--") {
		t.Errorf("sets with ranges and '-' are kept")
	}
}

// RegexMatch compilation and matching count against the budget too.
func TestLimits_Regex(t *testing.T) {
	src := docs(t, `[{"s":"`+strings.Repeat("a", 10_000)+`"}]`)
	q, err := Parse("SELECT VALUE RegexMatch(c.s, @p) FROM c")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Execute(q, src, Options{Params: map[string]any{"@p": strings.Repeat("a?", 20_000)}, MaxWork: 100_000})
	var we *WorkLimitError
	if !errors.As(err, &we) {
		t.Errorf("err = %v, want WorkLimitError", err)
	}
}

func BenchmarkCompileLikeBrackets(b *testing.B) {
	for _, n := range []int{20_000, 160_000} {
		pat := strings.Repeat("[", n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				compileLike(pat, "")
			}
		})
	}
}
