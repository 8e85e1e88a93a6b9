package plan

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
)

// The static query estimate reads the query text with a few patterns, not a parser: it finds TOP,
// the properties filtered and ordered on, functions that cannot use the index, JOINs and the
// projection. It is rough by design and says so; the embedded engine measures the real facts.
var (
	reTop       = regexp.MustCompile(`(?i)\bTOP\s+(\d+)`)
	reWhere     = regexp.MustCompile(`(?is)\bWHERE\b(.*?)(\bORDER\s+BY\b|\bGROUP\s+BY\b|\bOFFSET\b|$)`)
	reOrderBy   = regexp.MustCompile(`(?is)\bORDER\s+BY\b(.*?)(\bOFFSET\b|$)`)
	reProp      = regexp.MustCompile(`\b[a-zA-Z_]\w*((?:\.[a-zA-Z_]\w*)+)`)
	reEqLiteral = regexp.MustCompile(`\b[a-zA-Z_]\w*\.([a-zA-Z_][\w.]*)\s*=\s*('[^']*'|"[^"]*"|@\w+|-?[\d.]+|true|false)`)
	reScanFunc  = regexp.MustCompile(`(?i)\b(UPPER|LOWER|GetCurrentDateTime|GetCurrentTimestamp|GetCurrentTicks|ABS|CEILING|FLOOR|ROUND|POWER|SQRT|LOG|TRIM|LTRIM|RTRIM|REPLACE|REVERSE|CONCAT)\s*\(`)
	reJoin      = regexp.MustCompile(`(?i)\bJOIN\s+(?:\(.*?\)|\w+\s+IN\s+\w+\.([\w.]+))`)
	reSelect    = regexp.MustCompile(`(?is)^\s*SELECT\s+(?:TOP\s+\d+\s+)?(?:DISTINCT\s+)?(.*?)\s+FROM\b`)
	reAggregate = regexp.MustCompile(`(?i)\b(COUNT|SUM|AVG|MIN|MAX)\s*\(`)
)

// queryEstimate is a static guess at a query's execution facts.
type queryEstimate struct {
	Facts cost.QueryFacts
	Notes []string
}

// estimateQuery guesses the facts of pattern ap in container c with the given physical partitions.
// Document counts are the seeded ones (what a run measures against); factor scales them (1 = seeded).
func (s *sizer) estimateQuery(ap *design.AccessPattern, ests map[string]docEstimate, partitions int, factor float64) queryEstimate {
	q := ap.Query
	var qe queryEstimate
	f := &qe.Facts
	f.Consistency = cost.Consistency(consistencyOf(s.d, ap))

	// Scope: a full key targets one logical partition; a prefix or none may reach every partition.
	single := len(ap.PartitionKey) > 0 && len(ap.PartitionKey) == len(s.c.PartitionKey)
	f.PartitionsChecked = 1
	if len(ap.PartitionKey) == 0 {
		f.PartitionsChecked = partitions
		qe.Notes = append(qe.Notes, fmt.Sprintf("cross-partition: %d physical partitions checked", partitions))
	} else if !single {
		qe.Notes = append(qe.Notes, "key prefix: assumed to reach one physical partition")
	}

	where := ""
	if m := reWhere.FindStringSubmatch(q); m != nil {
		where = m[1]
	}
	// Result type: a string literal naming a document type, else the sampled type, else the first.
	rt := s.resultType(ap, where)
	est := ests[rt.Type]

	// Documents in scope (production scale).
	inScope := s.count(rt, 0) * factor
	allInScope := 0.0
	for i := range s.c.Documents {
		allInScope += s.count(&s.c.Documents[i], 0) * factor
	}
	if n := len(ap.PartitionKey); n > 0 {
		// A full key or a prefix scopes the query to the documents under that key value.
		per := math.Max(s.prefixDist(rt, n).Card*factor, 1)
		inScope /= per
		allInScope /= per
	}

	// Selectivity of equality filters on indexed paths other than the type discriminator and the key.
	matched := inScope
	scan := false
	lookups := 0
	for _, m := range reEqLiteral.FindAllStringSubmatch(where, -1) {
		path := m[1]
		if isKeyPath(s.c, path) {
			lookups++
			continue
		}
		li, ok := est.leaves[path]
		if !ok {
			continue
		}
		if lit := strings.Trim(m[2], `'"`); s.docType(lit) != nil {
			lookups++
			continue // the type discriminator: already scoped by the result type
		}
		if !li.indexed {
			scan = true
			qe.Notes = append(qe.Notes, fmt.Sprintf("filter on /%s: path not indexed, scan", strings.ReplaceAll(path, ".", "/")))
			continue
		}
		lookups++
		if fl := fieldAt(rt, "/"+strings.ReplaceAll(path, ".", "/")); fl != nil {
			d := s.fieldDist(rt, fl, math.Max(s.count(rt, 0), 1), 0)
			matched /= math.Max(d.Card, 1)
		}
	}
	if fs := reScanFunc.FindAllString(where, -1); len(fs) > 0 {
		scan = true
		f.FunctionCalls = int(math.Round(allInScope)) * len(fs)
		qe.Notes = append(qe.Notes, fmt.Sprintf("%s in WHERE cannot use the index: scan", strings.TrimSuffix(fs[0], "(")))
	}
	for _, m := range reProp.FindAllStringSubmatch(where, -1) {
		path := strings.TrimPrefix(m[1], ".")
		if isKeyPath(s.c, path) {
			continue // the key scopes the query; the index is not needed for it
		}
		if li, ok := est.leaves[path]; ok && !li.indexed && !scan {
			scan = true
			qe.Notes = append(qe.Notes, fmt.Sprintf("filter on /%s: path not indexed, scan", strings.ReplaceAll(path, ".", "/")))
		}
	}
	// Parameters drawn from a seeded document of the result type match at least that document.
	if ap.Sample == rt.Type && len(ap.Params) > 0 {
		matched = math.Max(matched, 1)
	}
	if ap.Expect != nil && ap.Expect.MinResults != nil {
		matched = math.Max(matched, float64(*ap.Expect.MinResults))
	}
	f.IndexLookups = max(lookups, 1)
	out := matched
	if m := reTop.FindStringSubmatch(q); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			out = math.Min(out, float64(n))
		}
	}
	if ap.Expect != nil && ap.Expect.MaxResults != nil {
		out = math.Min(out, float64(*ap.Expect.MaxResults))
	}
	loaded := out
	if scan {
		loaded = allInScope
		f.FullScan = true
	}

	// ORDER BY: served by a composite index over (equality filters…, order items) or by a single range
	// index when it has one item and no other filter; otherwise the matches are sorted in memory.
	if m := reOrderBy.FindStringSubmatch(q); m != nil {
		var items []string
		for _, p := range reProp.FindAllStringSubmatch(m[1], -1) {
			items = append(items, strings.TrimPrefix(p[1], "."))
		}
		if len(items) > 0 && !s.orderServed(items, where) {
			f.SortedInMemory = int(math.Round(matched))
			loaded = math.Max(loaded, matched)
			qe.Notes = append(qe.Notes, "ORDER BY not served by a composite index: sorted in memory")
		}
	}

	// JOINs over arrays multiply rows per loaded document.
	if js := reJoin.FindAllStringSubmatch(q, -1); len(js) > 0 {
		rows := 1.0
		for _, j := range js {
			if j[1] == "" {
				rows *= 2 // a subquery JOIN keeps few elements; assumed
				continue
			}
			if li, ok := est.leaves[j[1]+".[]"]; ok && li.count > 0 {
				rows *= li.count
			} else if n := arrayLen(rt, j[1]); n > 0 {
				rows *= n
			}
		}
		f.JoinRows = int(math.Round(loaded * math.Max(rows-1, 0)))
		qe.Notes = append(qe.Notes, fmt.Sprintf("%d JOIN(s): about %.0f rows per document", len(js), rows))
	}

	f.DocsLoaded = int(math.Round(loaded))
	f.BytesLoaded = int64(loaded * est.Bytes)
	f.DocsOutput = int(math.Round(out))
	f.BytesOutput = int64(out * s.projectionBytes(q, est))
	return qe
}

func (s *sizer) resultType(ap *design.AccessPattern, where string) *design.DocType {
	for _, m := range regexp.MustCompile(`'([^']*)'|"([^"]*)"`).FindAllStringSubmatch(where, -1) {
		lit := m[1] + m[2]
		if dt := s.docType(lit); dt != nil {
			return dt
		}
	}
	if dt := s.docType(ap.Sample); dt != nil {
		return dt
	}
	if dt := s.docType(ap.Document); dt != nil {
		return dt
	}
	return &s.c.Documents[0]
}

func isKeyPath(c *design.Container, path string) bool {
	for _, p := range c.PartitionKey {
		if strings.ReplaceAll(strings.Trim(p, "/"), "/", ".") == path {
			return true
		}
	}
	return false
}

func arrayLen(dt *design.DocType, path string) float64 {
	f := fieldAt(dt, "/"+strings.ReplaceAll(path, ".", "/"))
	if f == nil || f.Array == nil {
		return 0
	}
	return float64(f.Array.Min+f.Array.Max) / 2
}

// orderServed reports whether ORDER BY items are served by the index without an in-memory sort.
func (s *sizer) orderServed(items []string, where string) bool {
	var eq []string
	for _, m := range reEqLiteral.FindAllStringSubmatch(where, -1) {
		eq = append(eq, m[1])
	}
	toPaths := func(xs []string) []string {
		out := make([]string, len(xs))
		for i, x := range xs {
			out[i] = strings.ReplaceAll(x, ".", "/")
		}
		return out
	}
	if s.pol.hasComposite(toPaths(items)) {
		return true
	}
	// Equality-filtered properties may lead the composite index.
	if len(eq) > 0 && s.pol.hasComposite(toPaths(append(append([]string{}, eq...), items...))) {
		return true
	}
	// One item with no other filter: the range index serves the order.
	return len(items) == 1 && strings.TrimSpace(where) == "" && s.pol.indexed(strings.Split(items[0], "."))
}

// projectionBytes is the expected size of one result: the whole document, a few properties, or an
// aggregate value.
func (s *sizer) projectionBytes(q string, est docEstimate) float64 {
	m := reSelect.FindStringSubmatch(q)
	if m == nil {
		return est.Bytes
	}
	sel := strings.TrimSpace(m[1])
	if reAggregate.MatchString(sel) {
		return 20
	}
	if sel == "*" || regexp.MustCompile(`^(?i:VALUE\s+)?[a-zA-Z_]\w*$`).MatchString(sel) {
		return est.Bytes
	}
	var b float64 = 2
	for _, p := range reProp.FindAllStringSubmatch(sel, -1) {
		path := strings.TrimPrefix(p[1], ".")
		if li, ok := est.leaves[path]; ok {
			b += li.bytes + float64(len(path)) + 4
		} else {
			b += 20
		}
	}
	return b
}
