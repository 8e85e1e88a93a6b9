package sql

import (
	"slices"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/engine/index"
)

// Aggregates the index answers alone. The service computes COUNT, SUM, AVG, MIN and MAX from the
// index when the index serves the query's filters and the aggregated property is indexed: "the
// following aggregate system functions will now benefit from an index ... To utilize these query
// engine improvements, you should add an index for properties in aggregate system functions"
// (devblogs.microsoft.com/cosmosdb/april-query-improvements, 2020: SELECT COUNT(1) FROM c WHERE
// c.departureAirport = "LAX" went from 12,823.04 to 24.58 RU). troubleshoot-query-performance.md
// ("Understand which aggregate queries use the index") says which do not: "the query engine will
// apply equality and range filters first ... and resort to loading remaining documents to compute
// the aggregate, if needed" — a filter the index does not serve (a system function that does not
// use the index, a UDF) — and GROUP BY, where "the query engine must load every document that
// matches" the filter.
//
// The article counts CONTAINS among the filters that make an aggregate load documents ("the
// equality filter is applied first and uses the index before documents need to be loaded for the
// more expensive CONTAINS filter"; "SELECT MAX(c._ts) FROM c WHERE CONTAINS(...)" does "not fully
// use the index"), so only equality, IN and range filters (STARTSWITH is a range of the index,
// ARRAY_CONTAINS an equality on the elements) count as answered by the index here.
//
// So an aggregate query loads no documents when it has no GROUP BY, no JOIN and no FROM ... IN; at
// least one WHERE filter, every one an equality, IN or range the index serves; every aggregate's argument a constant
// (COUNT(1)) or an indexed document path; and no document reference in the SELECT list outside the
// aggregates. Without a WHERE clause nothing published says the service counts from the index, so
// such a query keeps loading every document (not established either way).

// aggRead is an aggregated path whose index entries an index-only aggregate reads.
type aggRead struct {
	path []string
	text string // the first aggregate call over it, as written
}

// indexOnlyAggregate reports whether the index answers q alone under pol, and the paths of the
// aggregates' arguments (whose index entries it reads), each once.
//
// Rule aggregate-without-filter (cost.Rules) decides the aggregate with no WHERE: loaded (its
// default, "loads") or answered from the index ("index"), reading one entry per document per
// aggregated path, and for COUNT(1) alone one entry per document of the /id index.
func indexOnlyAggregate(q *Query, pl *plan, pol *index.Compiled, rules *cost.Selection) (reads []aggRead, ok bool) {
	if len(q.aggs) == 0 || len(q.groupBy) > 0 || len(q.joins) > 0 || q.from == nil || q.from.in {
		return nil, false
	}
	noFilter := q.where == nil && rules.Is(cost.RuleAggregateNoFilter, cost.AltIndex)
	if !noFilter && (!pl.narrowing || len(pl.residual) > 0 || len(pl.served) == 0) {
		return nil, false
	}
	for _, r := range pl.classify(q) {
		if r.kind != readEqual && r.kind != readIn && r.kind != readRange {
			return nil, false // an index scan (CONTAINS, IS_DEFINED, ...), an OR or a NOT
		}
	}
	for _, c := range q.aggs {
		for _, a := range c.args {
			if isConst(a) {
				continue
			}
			p, ok := pathOf(a, q.slotPaths)
			if !ok || len(p) == 0 || hasElem(p) || !pol.Indexed(p) {
				return nil, false
			}
			if !slices.ContainsFunc(reads, func(r aggRead) bool { return slices.Equal(r.path, p) }) {
				reads = append(reads, aggRead{path: p, text: c.String()})
			}
		}
	}
	for _, it := range q.items {
		if refersOutsideAggregates(it.e) {
			return nil, false
		}
	}
	if noFilter && len(reads) == 0 {
		reads = []aggRead{{path: []string{"id"}, text: q.aggs[0].String()}}
	}
	return reads, true
}

// refersOutsideAggregates reports whether e reads the document other than through an aggregate
// call (a subquery counts as reading it).
func refersOutsideAggregates(e expr) bool {
	switch x := e.(type) {
	case *call:
		if x.agg > 0 {
			return false
		}
	case *ident, *root:
		return true
	case *subquery:
		return true
	}
	for _, ch := range children(e) {
		if refersOutsideAggregates(ch) {
			return true
		}
	}
	return false
}
