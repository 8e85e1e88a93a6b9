package sql

import (
	"encoding/json"
	"strings"
	"testing"
)

// Every rewritten query parses and runs on one partition.
func TestCrossPartitionRewritesRun(t *testing.T) {
	for _, s := range []string{
		"SELECT * FROM c WHERE c.a > 1 ORDER BY c.ts DESC",
		"SELECT TOP 3 c.id, c[\"my-x\"] AS x FROM c ORDER BY c.ts",
		"SELECT VALUE COUNT(1) FROM c WHERE c.pk = 'x'",
		"SELECT VALUE AVG(c.n) FROM c",
		"SELECT VALUE MIN(c.n) FROM c",
		"SELECT c.cat, COUNT(1) AS n, MAX(c.n) AS mx FROM c GROUP BY c.cat",
		"SELECT COUNT(1) AS n FROM c",
		"SELECT DISTINCT VALUE c.cat FROM c OFFSET 2 LIMIT 3",
		"SELECT DISTINCT VALUE c.cat FROM c ORDER BY c.cat",
	} {
		q, err := Parse(s)
		if err != nil {
			t.Fatal(s, err)
		}
		pl, err := q.CrossPartitionPlan(nil, false)
		if err != nil {
			t.Fatal(s, err)
		}
		if _, err := json.Marshal(pl); err != nil {
			t.Fatal(err)
		}
		if pl.RewrittenQuery != "" {
			rq := pl.RewrittenQuery
			rq = replaceAll(rq)
			q2, err := Parse(rq)
			if err != nil {
				t.Fatal(rq, err)
			}
			src := &scratchSrc{}
			for i := 0; i < 5; i++ {
				src.docs = append(src.docs, &Document{Body: map[string]any{"id": string(rune('a' + i)), "_rid": "r", "ts": float64(i), "n": float64(i * 2), "cat": []string{"x", "y"}[i%2], "my-x": 1.0}, Size: 10})
			}
			res, err := Execute(q2, src, Options{})
			if err != nil {
				t.Fatal(rq, err)
			}
			if len(res.Items) == 0 && q.Shape().OrderBy == 0 {
				t.Errorf("%s: no results", rq)
			}
		}
	}
}

type scratchSrc struct{ docs []*Document }

func (s *scratchSrc) Scan(fn func(d *Document) bool) {
	for _, d := range s.docs {
		if !fn(d) {
			return
		}
	}
}
func (s *scratchSrc) Len() int   { return len(s.docs) }
func replaceAll(s string) string { return strings.ReplaceAll(s, OrderByFilterPlaceholder, "true") }
