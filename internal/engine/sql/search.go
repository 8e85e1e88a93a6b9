package sql

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// Full-text and vector search (nosql/query/full-text-search and vector-search, the function pages
// FullTextContains, FullTextContainsAll, FullTextContainsAny, FullTextScore, VectorDistance, RRF):
//
//   - FullTextContains(path, term), FullTextContainsAll(path, term, ...), FullTextContainsAny(path,
//     term, ...) test the tokenized text of a path in the container's full-text policy;
//   - FullTextScore(path, term, ...) is a BM25 score, usable only in ORDER BY RANK;
//   - VectorDistance(a, b[, bruteForce[, {distanceFunction, dataType}]]) is the similarity of two
//     vectors with the distance function of the options, else of the container's vector embedding
//     policy for the path, else cosine: cosine and dot product are similarities (higher is closer),
//     euclidean a distance (lower is closer);
//   - ORDER BY RANK FullTextScore(...) or ORDER BY RANK RRF(score, score, ...) orders by relevance,
//     RRF fusing the ranks of its scores (reciprocal rank fusion, k = 60).
//
// Tokenizing is lower-case words of letters and digits, with no stemming or stop words (the
// service applies a language analyzer: results can differ for inflected words). BM25 statistics are
// those of the documents the query ranks (the WHERE-filtered rows of the partition read).

// Search describes a container's full-text and vector settings for queries.
type Search struct {
	// FullText holds the paths of the full-text policy ("/description").
	FullText map[string]bool
	// FullTextIndexed holds the paths with a full-text index.
	FullTextIndexed map[string]bool
	// Vectors maps the paths of the vector embedding policy to their distance function
	// ("cosine", "dotproduct", "euclidean").
	Vectors map[string]string
}

// rrfK is the constant of reciprocal rank fusion (RRF docs: score = Σ 1/(k + rank), k = 60).
const rrfK = 60

// BM25 parameters (the usual defaults; the service does not publish its own).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Tokens are the words the full-text functions match in s (and every word of a term must be among
// a text's): its lower-case runs of letters and digits.
func Tokens(s string) []string { return tokens(s) }

// tokens splits text into lower-case words.
func tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// ftContains reports whether every word of term occurs in the text's words.
func ftContains(words map[string]int, term string) bool {
	ts := tokens(term)
	if len(ts) == 0 {
		return false
	}
	for _, t := range ts {
		if words[t] == 0 {
			return false
		}
	}
	return true
}

func wordCounts(s string) (map[string]int, int) {
	ws := tokens(s)
	m := make(map[string]int, len(ws))
	for _, w := range ws {
		m[w]++
	}
	return m, len(ws)
}

// ftsRaw is what FullTextScore yields per row: the term frequencies and the text's length, turned
// into BM25 scores once every ranked row is known (rankRows).
type ftsRaw struct {
	tf     []int
	length int
}

// searchTerms flattens the terms of a full-text function: strings or arrays of strings.
func searchTerms(a []any) []string {
	var out []string
	for _, v := range a {
		switch t := v.(type) {
		case string:
			out = append(out, t)
		case []any:
			for _, e := range t {
				if s, ok := e.(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

func init() {
	reg("FullTextContains", 2, 2, func(_ *execCtx, a []any) any {
		s, ok := str(a[0])
		t, ok2 := str(a[1])
		if !ok || !ok2 {
			return Undefined
		}
		w, _ := wordCounts(s)
		return ftContains(w, t)
	})
	reg("FullTextContainsAll", 2, -1, func(_ *execCtx, a []any) any {
		s, ok := str(a[0])
		if !ok {
			return Undefined
		}
		w, _ := wordCounts(s)
		terms := searchTerms(a[1:])
		for _, t := range terms {
			if !ftContains(w, t) {
				return false
			}
		}
		return len(terms) > 0
	})
	reg("FullTextContainsAny", 2, -1, func(_ *execCtx, a []any) any {
		s, ok := str(a[0])
		if !ok {
			return Undefined
		}
		w, _ := wordCounts(s)
		for _, t := range searchTerms(a[1:]) {
			if ftContains(w, t) {
				return true
			}
		}
		return false
	})
	reg("FullTextScore", 2, -1, func(_ *execCtx, a []any) any {
		s, _ := str(a[0])
		w, n := wordCounts(s)
		terms := searchTerms(a[1:])
		r := ftsRaw{tf: make([]int, len(terms)), length: n}
		for i, t := range terms {
			ts := tokens(t)
			if len(ts) == 0 {
				continue
			}
			// A phrase counts as often as its rarest word.
			c := math.MaxInt
			for _, x := range ts {
				c = min(c, w[x])
			}
			r.tf[i] = c
		}
		return r
	})
	reg("RRF", 1, -1, func(_ *execCtx, a []any) any { return rrfRaw(append([]any(nil), a...)) })
	reg("VectorDistance", 2, 4, func(x *execCtx, a []any) any {
		u, ok := vector(a[0])
		v, ok2 := vector(a[1])
		if !ok || !ok2 || len(u) != len(v) || len(u) == 0 {
			return Undefined
		}
		fn := x.distanceFn(a)
		switch fn {
		case "dotproduct":
			var d float64
			for i := range u {
				d += u[i] * v[i]
			}
			return finite(d)
		case "euclidean":
			var d float64
			for i := range u {
				d += (u[i] - v[i]) * (u[i] - v[i])
			}
			return finite(math.Sqrt(d))
		}
		var dot, nu, nv float64
		for i := range u {
			dot += u[i] * v[i]
			nu += u[i] * u[i]
			nv += v[i] * v[i]
		}
		if nu == 0 || nv == 0 {
			return Undefined
		}
		return finite(dot / math.Sqrt(nu*nv))
	})
}

// rrfRaw is what RRF yields per row: its component scores, fused once every row is known.
type rrfRaw []any

func vector(v any) ([]float64, bool) {
	arr, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]float64, len(arr))
	for i, e := range arr {
		f, ok := e.(float64)
		if !ok {
			return nil, false
		}
		out[i] = f
	}
	return out, true
}

// distanceFn is the distance function of the VectorDistance call being evaluated: its options,
// else the policy's for its first argument's path (resolved before execution), else cosine.
func (x *execCtx) distanceFn(a []any) string {
	if len(a) == 4 {
		if m, ok := a[3].(map[string]any); ok {
			if s, ok := m["distanceFunction"].(string); ok {
				return strings.ToLower(s)
			}
		}
	}
	if fn, ok := x.vecFns[x.cur]; ok {
		return fn
	}
	return "cosine"
}

// isRankable reports an ORDER BY item that orders by a search score rather than a path:
// ORDER BY RANK, or ORDER BY VectorDistance(...).
func isRankable(o orderItem) bool {
	if o.rank {
		return true
	}
	c, ok := o.e.(*call)
	return ok && c.name == "VECTORDISTANCE"
}

// checkSearch validates the query's search functions against the container's settings, as the
// service refuses them, and resolves each VectorDistance call's distance function from the policy.
func checkSearch(q *Query, s *Search, x *execCtx) error {
	var err error
	var visit func(e expr, inRank bool)
	visit = func(e expr, inRank bool) {
		if e == nil || err != nil {
			return
		}
		if c, ok := e.(*call); ok {
			switch c.name {
			case "FULLTEXTCONTAINS", "FULLTEXTCONTAINSALL", "FULLTEXTCONTAINSANY", "FULLTEXTSCORE":
				p, ok := pathOf(c.args[0], q.slotPaths)
				path := "/" + strings.Join(p, "/")
				switch {
				case !ok:
					err = errPlain("SC2240", "The first argument of %s must be a document path.", c.name)
				case s == nil || !s.FullText[path]:
					err = errPlain("SC2240", "%s: the path %s is not in the container's full-text policy; add it to fullTextPolicy.fullTextPaths.", c.name, path)
				case c.name == "FULLTEXTSCORE" && !s.FullTextIndexed[path]:
					err = errPlain("SC2240", "FullTextScore: the path %s has no full-text index; add it to indexingPolicy.fullTextIndexes.", path)
				case c.name == "FULLTEXTSCORE" && !inRank:
					err = errPlain("SC2240", "FullTextScore can only be used in an ORDER BY RANK clause.")
				}
			case "RRF":
				if !inRank {
					err = errPlain("SC2240", "RRF can only be used in an ORDER BY RANK clause.")
				}
			case "VECTORDISTANCE":
				if p, ok := pathOf(c.args[0], q.slotPaths); ok && s != nil {
					if fn, ok := s.Vectors["/"+strings.Join(p, "/")]; ok {
						x.vecFns[c] = fn
					}
				}
			}
		}
		for _, ch := range children(e) {
			visit(ch, inRank)
		}
	}
	visit(q.where, false)
	for _, it := range q.items {
		visit(it.e, false)
	}
	for _, o := range q.orderBy {
		if o.rank {
			c, ok := o.e.(*call)
			if !ok || (c.name != "FULLTEXTSCORE" && c.name != "RRF") {
				return errPlain("SC2240", "ORDER BY RANK takes FullTextScore(...) or RRF(...).")
			}
			if len(q.orderBy) > 1 {
				return errPlain("SC2240", "ORDER BY RANK must be the only ORDER BY item.")
			}
		}
		visit(o.e, o.rank)
	}
	return err
}

// rankRows turns the raw search scores of the rows' first sort key into final scores: BM25 for
// FullTextScore, the fused reciprocal rank for RRF. Higher is more relevant.
func rankRows(x *execCtx, rows []sortRow, e expr) {
	c, _ := e.(*call)
	switch raw := firstKey(rows).(type) {
	case ftsRaw:
		scores := bm25(rows, func(r sortRow) (ftsRaw, bool) { f, ok := r.keys[0].(ftsRaw); return f, ok })
		for i := range rows {
			rows[i].keys[0] = scores[i]
		}
	case rrfRaw:
		n := len(raw)
		fused := make([]float64, len(rows))
		for k := range n {
			var scores []float64
			higherBetter := true
			if c != nil && k < len(c.args) {
				if vc, ok := c.args[k].(*call); ok && vc.name == "VECTORDISTANCE" && x.callDistance(vc) == "euclidean" {
					higherBetter = false
				}
			}
			if _, ok := raw[k].(ftsRaw); ok {
				scores = bm25(rows, func(r sortRow) (ftsRaw, bool) {
					rr, _ := r.keys[0].(rrfRaw)
					if k >= len(rr) {
						return ftsRaw{}, false
					}
					f, ok := rr[k].(ftsRaw)
					return f, ok
				})
				for i, sc := range scores {
					if sc == 0 {
						scores[i] = math.Inf(-1) // no term at all: no text relevance to fuse
					}
				}
			} else {
				scores = make([]float64, len(rows))
				for i, r := range rows {
					rr, _ := r.keys[0].(rrfRaw)
					scores[i] = math.Inf(-1)
					if k < len(rr) {
						if f, ok := rr[k].(float64); ok {
							scores[i] = f
							if !higherBetter {
								scores[i] = -f
							}
						}
					}
				}
			}
			order := make([]int, len(rows))
			for i := range order {
				order[i] = i
			}
			sort.SliceStable(order, func(a, b int) bool { return scores[order[a]] > scores[order[b]] })
			for rank, i := range order {
				if !math.IsInf(scores[i], -1) {
					fused[i] += 1 / float64(rrfK+rank+1)
				}
			}
		}
		for i := range rows {
			rows[i].keys[0] = fused[i]
		}
	}
}

// callDistance is the distance function of a VectorDistance call as written: a literal
// distanceFunction in its options, else the policy's for its path, else cosine.
func (x *execCtx) callDistance(c *call) string {
	if len(c.args) == 4 {
		if o, ok := c.args[3].(*objectLit); ok {
			for i, k := range o.keys {
				if l, ok := o.vals[i].(*literal); ok && k == "distanceFunction" {
					if s, ok := l.val.(string); ok {
						return strings.ToLower(s)
					}
				}
			}
		}
	}
	if fn, ok := x.vecFns[c]; ok {
		return fn
	}
	return "cosine"
}

func firstKey(rows []sortRow) any {
	for _, r := range rows {
		if len(r.keys) > 0 {
			return r.keys[0]
		}
	}
	return nil
}

// bm25 scores every row from its term frequencies with statistics over the rows.
func bm25(rows []sortRow, get func(sortRow) (ftsRaw, bool)) []float64 {
	n := 0
	total := 0
	var df []int
	for _, r := range rows {
		f, ok := get(r)
		if !ok {
			continue
		}
		n++
		total += f.length
		for len(df) < len(f.tf) {
			df = append(df, 0)
		}
		for i, tf := range f.tf {
			if tf > 0 {
				df[i]++
			}
		}
	}
	out := make([]float64, len(rows))
	if n == 0 {
		return out
	}
	avg := float64(total) / float64(n)
	for j, r := range rows {
		f, ok := get(r)
		if !ok {
			out[j] = math.Inf(-1)
			continue
		}
		var s float64
		for i, tf := range f.tf {
			if tf == 0 {
				continue
			}
			idf := math.Log(1 + (float64(n)-float64(df[i])+0.5)/(float64(df[i])+0.5))
			t := float64(tf)
			s += idf * t * (bm25K1 + 1) / (t + bm25K1*(1-bm25B+bm25B*float64(f.length)/math.Max(avg, 1)))
		}
		out[j] = s
	}
	return out
}
