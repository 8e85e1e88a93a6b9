package sql

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// benchDocs builds n documents of about 1 KB each.
func benchDocs(b *testing.B, n int) sliceSource {
	b.Helper()
	pad := strings.Repeat("x", 880)
	out := make(sliceSource, n)
	for i := range out {
		body := map[string]any{
			"id": fmt.Sprintf("doc-%06d", i), "userId": fmt.Sprintf("u%04d", i%5000), "n": float64(i % 1000),
			"status": []string{"open", "closed", "held"}[i%3], "tags": []any{"a", "b"}, "pad": pad,
		}
		raw, err := json.Marshal(body)
		if err != nil {
			b.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			b.Fatal(err)
		}
		out[i] = &Document{Body: m, Size: len(raw)}
	}
	return out
}

func benchRun(b *testing.B, text string, src Source, want int) {
	b.Helper()
	q, err := Parse(text)
	if err != nil {
		b.Fatal(err)
	}
	opts := Options{Params: map[string]any{"@u": "u0042"}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Execute(q, src, opts)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Items) != want {
			b.Fatalf("got %d items, want %d", len(res.Items), want)
		}
	}
}

// BenchmarkFilterScan100k is a filter the index cannot serve over 100,000 1 KB documents
// (target: under 250 ms per execution).
func BenchmarkFilterScan100k(b *testing.B) {
	src := benchDocs(b, 100_000)
	benchRun(b, `SELECT VALUE c.id FROM c WHERE UPPER(c.status) = "HELD" AND c.n < 10`, src, 333)
}

// BenchmarkIndexedLookup100k is an equality on an indexed path answered through IndexedSource among
// 100,000 documents (target: under 1 ms per execution).
func BenchmarkIndexedLookup100k(b *testing.B) {
	src := benchDocs(b, 100_000)
	is := newIndexed(src, "userId", "id")
	benchRun(b, `SELECT * FROM c WHERE c.userId = @u AND c.n >= 0`, is, 20)
}

// BenchmarkDeepExpression evaluates an expression nested close to MaxDepth on each of 1,000
// documents: bounded work, no recursion blow-up.
func BenchmarkDeepExpression(b *testing.B) {
	src := benchDocs(b, 1000)
	expr := strings.Repeat("(", 40) + "c.n" + strings.Repeat(" + 1)", 40)
	benchRun(b, `SELECT VALUE `+expr+` FROM c`, src, 1000)
}

// BenchmarkCrossJoinBounded is a JOIN cross product that runs into the work limit: it must fail
// fast rather than run for minutes.
func BenchmarkCrossJoinBounded(b *testing.B) {
	src := benchDocs(b, 10)
	arr := make([]any, 100)
	for i := range arr {
		arr[i] = float64(i)
	}
	for _, d := range src {
		d.Body["arr"] = arr
	}
	q, err := Parse(`SELECT VALUE 1 FROM c JOIN a IN c.arr JOIN b IN c.arr JOIN d IN c.arr JOIN e IN c.arr`)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Execute(q, src, Options{MaxWork: 10_000_000}); err == nil {
			b.Fatal("want a work-limit error")
		}
	}
}
