package querycheck

import (
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine/index"
	"github.com/cosmosdv/validate/internal/engine/sql"
)

// CompositeItems is a composite index of the design as the planner's order items.
func CompositeItems(comp []design.CompositePath) []index.OrderItem {
	items := make([]index.OrderItem, len(comp))
	for i, cp := range comp {
		items[i] = index.OrderItem{Path: strings.Split(strings.TrimPrefix(cp.Path, "/"), "/"), Desc: strings.EqualFold(cp.Order, "desc")}
	}
	return items
}

// CompositeNeeded lists the query patterns of container ci that use the composite index comp — the
// one rule lint (index-unused) and advise (drop-composite) share: a query whose ORDER BY the index
// serves as written (the same paths in the same or all reversed orders, or after paths the query
// pins by equality, index-policy.md "Queries with a filter and ORDER BY"), and a query without
// ORDER BY that filters on every path of the index (a filter-only composite index). ok is false
// when some query of the container cannot be read (then nothing can be said about what it uses).
func CompositeNeeded(d *design.Design, ci int, comp []design.CompositePath) (ids []string, ok bool) {
	c := &d.Containers[ci]
	items := CompositeItems(comp)
	for i := range d.AccessPatterns {
		ap := &d.AccessPatterns[i]
		if ap.Container != c.Name || ap.Op != design.OpQuery {
			continue
		}
		r := Check(d, ci, ap.Query)
		if r.Query == nil {
			return nil, false
		}
		if order := r.Analysis.OrderBy; len(order) > 0 {
			if rw, serves := CompositeServes(r, ap.Query, items); serves && rw.Query == "" {
				ids = append(ids, ap.ID)
			}
			continue
		}
		all := true
		for _, it := range items {
			if !slices.ContainsFunc(r.Analysis.Filters, func(f sql.Filter) bool { return slices.Equal(f.Path, it.Path) }) {
				all = false
				break
			}
		}
		if all && len(items) > 1 {
			ids = append(ids, ap.ID)
		}
	}
	return ids, true
}
