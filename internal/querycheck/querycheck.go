// Package querycheck reads a design's query once, with the engine's own parser and index planner
// (internal/engine/sql), and says what the service would reject for a reason of the design: a
// syntax error, an unknown function, an ORDER BY no index serves. lint reports these before
// anything runs, and probe explains a run's 400 with the same words, so the two never disagree.
package querycheck

import (
	"errors"
	"fmt"
	"slices"
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

// OrderRewrite is how a query uses a composite index: as written (Query "") or with its ORDER BY
// rewritten.
type OrderRewrite struct {
	// Query is the query's text with the index's leading paths added in front of its ORDER BY; ""
	// when the index serves the query as written.
	Query string
	// OrderBy is the rewritten ORDER BY's items ("c.productId ASC, c.createdAt DESC"); "" with Query.
	OrderBy string
}

// CompositeServes reports whether Azure Cosmos DB would use a composite index on items for the
// query r (read from text), and with which ORDER BY. The service uses a composite index for an
// ORDER BY only when the index has exactly the ORDER BY's paths, in its orders or all reversed; a
// query that filters on properties and orders by others is served when the filtered properties
// come first in the ORDER BY too (articles/cosmos-db/index-policy.md, "Queries with a filter and
// ORDER BY", MicrosoftDocs/azure-databases-docs). An index that leads with paths the query filters
// by equality is therefore served by the query with those paths added in front of its ORDER BY,
// which leaves the order of the results as it was, since the filter pins their values. A query
// without ORDER BY uses the index as written (a filter-only composite index).
func CompositeServes(r Result, text string, items []index.OrderItem) (OrderRewrite, bool) {
	if r.Query == nil {
		return OrderRewrite{}, false
	}
	order := r.Analysis.OrderBy
	if len(order) == 0 || ServesOrder(items, order) {
		return OrderRewrite{}, true
	}
	// The index leads with other paths: the service uses it only if those are equality filters of
	// the query and stand in front of its ORDER BY as well.
	lead := len(items) - len(order)
	if lead <= 0 || !ServesOrder(items[lead:], order) {
		return OrderRewrite{}, false
	}
	for _, it := range items[:lead] {
		if !equalityFiltered(r.Analysis, it.Path) {
			return OrderRewrite{}, false
		}
	}
	at := r.Query.OrderByAt()
	if at < 0 || at > len(text) {
		return OrderRewrite{}, false
	}
	// Keep the directions consistent with the ORDER BY's (all the same as the index, or all reversed).
	rev := items[lead].Desc != order[0].Desc
	alias := r.Query.Alias()
	word := func(path []string, desc bool) string {
		dir := "ASC"
		if desc {
			dir = "DESC"
		}
		return alias + "." + strings.Join(path, ".") + " " + dir
	}
	var front, all []string
	for _, it := range items[:lead] {
		front = append(front, word(it.Path, it.Desc != rev))
	}
	all = append(all, front...)
	for _, it := range order {
		all = append(all, word(it.Path, it.Desc))
	}
	return OrderRewrite{Query: text[:at] + strings.Join(front, ", ") + ", " + text[at:], OrderBy: strings.Join(all, ", ")}, true
}

// ServesOrder reports whether a composite index on items serves ORDER BY order as written: the
// same paths, with every order the same or every order reversed.
func ServesOrder(items, order []index.OrderItem) bool {
	if len(items) != len(order) {
		return false
	}
	same, reversed := true, true
	for i := range items {
		if !slices.Equal(items[i].Path, order[i].Path) {
			return false
		}
		if items[i].Desc == order[i].Desc {
			reversed = false
		} else {
			same = false
		}
	}
	return same || reversed
}

func equalityFiltered(a sql.Analysis, path []string) bool {
	for _, f := range a.Filters {
		if f.Kind == sql.FilterEqual && slices.Equal(f.Path, path) {
			return true
		}
	}
	return false
}
