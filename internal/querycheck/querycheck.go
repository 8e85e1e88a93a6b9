// Package querycheck reads a design's query once, with the engine's own parser and index planner
// (internal/engine/sql), and says what the service would reject for a reason of the design: a
// syntax error, an unknown function, an ORDER BY no index serves. lint reports these before
// anything runs, and probe explains a run's 400 with the same words, so the two never disagree.
package querycheck

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine/index"
	"github.com/cosmosdv/validate/internal/engine/sql"
	"github.com/cosmosdv/validate/internal/indexpolicy"
)

// Problem is a reason the service would refuse a query (400) that the design can fix.
type Problem struct {
	// Code is stable for tooling: query-syntax, query-order-by.
	Code string
	// Message says what is wrong and what to change, in the design's terms.
	Message string
	// Offset is the byte offset in the query text the problem is about; -1 when it has none.
	Offset int
}

// Result is a query read against its container's indexing policy.
type Result struct {
	// Query is nil when the text does not parse.
	Query    *sql.Query
	Analysis sql.Analysis
	Problems []Problem
}

// Check parses text (a query of d's container ci) and analyses it with the engine's planner under the
// container's indexing policy.
func Check(d *design.Design, ci int, text string) Result {
	c := &d.Containers[ci]
	q, err := sql.Parse(text)
	if err != nil {
		p := Problem{Code: "query-syntax", Message: err.Error(), Offset: -1}
		var se *sql.Error
		if errors.As(err, &se) {
			p.Message = se.Msg
			if se.Line > 0 {
				p.Offset = se.Start
			}
		}
		return Result{Problems: []Problem{p}}
	}
	pol, err := indexpolicy.Compile(c.Indexing)
	if err != nil {
		return Result{Query: q, Analysis: sql.Analyze(q, nil)}
	}
	r := Result{Query: q, Analysis: sql.Analyze(q, pol)}
	var missing *sql.MissingCompositeIndexError
	var excluded *sql.ExcludedOrderByError
	switch err := r.Analysis.OrderByErr; {
	case err == nil:
	case errors.As(err, &missing):
		r.Problems = append(r.Problems, Problem{Code: "query-order-by", Offset: -1,
			Message: fmt.Sprintf("%s A composite index with the ORDER BY's paths and orders (or all reversed) serves it: %s",
				err, CompositeFix(d, ci, missing.Items))})
	case errors.As(err, &excluded):
		r.Problems = append(r.Problems, Problem{Code: "query-order-by", Offset: -1,
			Message: fmt.Sprintf("%s Index /%s: remove it from %s.indexing.excluded, or add %q to included.",
				err, strings.Join(excluded.Item.Path, "/"), fmt.Sprintf("containers[%d]", ci), index.FormatPath(excluded.Item.Path))})
	default:
		r.Problems = append(r.Problems, Problem{Code: "query-order-by", Offset: -1, Message: err.Error()})
	}
	return r
}

// CompositeFix says where to paste a composite index on items into the design, as YAML in the
// design's syntax that fits what the container already has:
// "add to containers[0]: indexing: {composite: [[{path: /a, order: asc}, {path: /b, order: desc}]]}".
func CompositeFix(d *design.Design, ci int, items []index.OrderItem) string {
	c, containerPath := &d.Containers[ci], fmt.Sprintf("containers[%d]", ci)
	entry := CompositeEntry(items)
	_, written := d.Positions[containerPath+".indexing"]
	switch {
	case c.Indexing == nil || !written && len(d.Positions) > 0:
		return fmt.Sprintf("add to %s: indexing: {composite: [%s]}", containerPath, entry)
	case len(c.Indexing.Composite) == 0:
		return fmt.Sprintf("add to %s.indexing: composite: [%s]", containerPath, entry)
	}
	return fmt.Sprintf("add to %s.indexing.composite: - %s", containerPath, entry)
}

// CompositeEntry is one composite index in the design's flow syntax:
// [{path: /ownerId, order: asc}, {path: /createdAt, order: desc}].
func CompositeEntry(items []index.OrderItem) string {
	parts := make([]string, len(items))
	for i, it := range items {
		order := "asc"
		if it.Desc {
			order = "desc"
		}
		parts[i] = fmt.Sprintf("{path: /%s, order: %s}", strings.Join(it.Path, "/"), order)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// Clauses lists the clauses of a query that the gateway cannot serve across partitions for an SDK
// without a query engine (the Go SDK), as the service's documentation names them.
func Clauses(s sql.Shape) []string {
	var out []string
	for _, c := range []struct {
		on   bool
		name string
	}{{s.OrderBy > 0, "ORDER BY"}, {s.Top, "TOP"}, {s.OffsetLimit, "OFFSET/LIMIT"}, {s.Aggregate, "aggregates"}, {s.Distinct, "DISTINCT"}, {s.GroupBy, "GROUP BY"}} {
		if c.on {
			out = append(out, c.name)
		}
	}
	return out
}

// FiltersOn reports whether a top-level AND-ed WHERE predicate of the analysed query tests the
// property at keyPath ("/tenantId").
func FiltersOn(a sql.Analysis, keyPath string) bool {
	want := strings.Split(strings.TrimPrefix(keyPath, "/"), "/")
	for _, f := range a.Filters {
		if f.Kind != sql.FilterOther && strings.Join(f.Path, "/") == strings.Join(want, "/") {
			return true
		}
	}
	return false
}
