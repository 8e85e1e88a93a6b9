package sql

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/cosmosdv/validate/internal/queryplan"
)

// This file builds the query information the gateway returns for a cross-partition query: what an
// SDK with a query engine (.NET, Java, Python, JavaScript, and this project's Go pipeline in
// internal/probe/fanout) needs to run the query on every partition key range and merge.
//
// Formats. Read here (not copied), in the sources Debian ships as python3-azure-cosmos 3.1.1
// (azure/cosmos/execution_context/): query_execution_info.py (the plan's queryInfo/queryRanges
// paths, and the {documentdb-formattableorderbyquery-filter} placeholder replaced with "true"),
// document_producer.py (ORDER BY rows as {"_rid", "orderByItems": [{"item": ...}], "payload"},
// compared item by item across ranges), endpoint_component.py and aggregators.py (aggregate rows as
// an array of {"item": partial}, an empty {} for a range with nothing, AVG partials as {"sum",
// "count"}), execution_dispatcher.py (the plan in the 400/1004 body's additionalErrorInfo).
// Named from the newer SDKs' structure but not re-read for this change, so treat as the format
// this engine and internal/probe/fanout agree on: the v2 plan fields (distinctType, offset, limit,
// groupByExpressions, groupByAliases, groupByAliasToAggregateType, hasSelectValue,
// hasNonStreamingOrderBy; .NET Query/Core/QueryPlan/QueryInfo.cs), the MIN/MAX "item2" partial
// {"min"|"max", "count"} (.NET Aggregators/AggregateItem.cs), and the GROUP BY rows
// {"groupByItems": [{"item": key}], "payload": {alias: value or {"item": partial}}} (.NET
// GroupByQueryPipelineStage).

// OrderByFilterPlaceholder is the token in a rewritten ORDER BY query that SDKs replace with a
// resume filter (internal/queryplan).
const OrderByFilterPlaceholder = queryplan.OrderByFilterPlaceholder

// CrossPlan is the queryInfo of the service's partitioned query execution info (internal/queryplan).
type CrossPlan = queryplan.QueryInfo

// Aggregate names as the plan spells them.
var aggNames = map[string]string{"COUNT": "Count", "SUM": "Sum", "MIN": "Min", "MAX": "Max", "AVG": "Average"}

// NeedsPipeline reports whether the query has a clause an SDK must finish on the client when it
// runs over more than one partition key range.
func (q *Query) NeedsPipeline() bool {
	sh := q.Shape()
	return sh.Top || sh.OffsetLimit || sh.Distinct || sh.GroupBy || sh.Aggregate || sh.OrderBy > 0
}

// CrossPartitionPlan returns the query's cross-partition execution info: what each partition key
// range runs (RewrittenQuery, "" when the query runs as written) and what the client merges. Shapes
// the service cannot run across partitions are errors in the service's words. legacy leaves out
// the "item2" of MIN and MAX partials, which SDKs that read only "item" (python3-azure-cosmos 3.1.1,
// aggregators.py) cannot take from an empty range: there a MIN over nothing is {} and skipped.
func (q *Query) CrossPartitionPlan(params map[string]any, legacy bool) (*CrossPlan, error) {
	pl := &CrossPlan{DistinctType: "None", OrderBy: []string{}, OrderByExpressions: []string{},
		GroupByExpressions: []string{}, GroupByAliases: []string{}, Aggregates: []string{},
		GroupByAliasToAggregateType: map[string]*string{}, HasSelectValue: q.value}
	var err error
	if pl.Top, err = countOf(q.top, params); err != nil {
		return nil, err
	}
	if pl.Offset, err = countOf(q.offset, params); err != nil {
		return nil, err
	}
	if pl.Limit, err = countOf(q.limit, params); err != nil {
		return nil, err
	}
	tail := ""
	if q.spans.from != "" {
		tail = " " + q.spans.from
	}
	where := func(extra string) string {
		switch {
		case extra != "" && q.spans.where != "":
			return " WHERE (" + extra + ") AND (" + q.spans.where + ")"
		case extra != "":
			return " WHERE (" + extra + ")"
		case q.spans.where != "":
			return " WHERE " + q.spans.where
		}
		return ""
	}
	grouped := len(q.groupBy) > 0 || (len(q.aggs) > 0 && !q.value)
	switch {
	case grouped:
		if len(q.orderBy) > 0 {
			return nil, errPlain("SC2030", "ORDER BY is not supported together with GROUP BY or aggregates in the select list across partitions.")
		}
		if q.distinct {
			return nil, errPlain("SC2032", "DISTINCT is not supported together with GROUP BY across partitions.")
		}
		pl.GroupByExpressions = append(pl.GroupByExpressions, q.spans.groupBy...)
		keys := make([]string, len(q.spans.groupBy))
		for i, g := range q.spans.groupBy {
			keys[i] = `{"item": ` + g + `}`
		}
		var payload string
		if q.value {
			it := q.items[0]
			p, agg, err := aggPayload(it, legacy)
			if err != nil {
				return nil, err
			}
			payload = p
			pl.GroupByAliases = append(pl.GroupByAliases, "$1")
			pl.GroupByAliasToAggregateType["$1"] = agg
			if agg != nil {
				pl.Aggregates = append(pl.Aggregates, *agg)
			}
		} else {
			fields := make([]string, len(q.items))
			for i, it := range q.items {
				p, agg, err := aggPayload(it, legacy)
				if err != nil {
					return nil, err
				}
				fields[i] = strconv.Quote(it.alias) + ": " + p
				pl.GroupByAliases = append(pl.GroupByAliases, it.alias)
				pl.GroupByAliasToAggregateType[it.alias] = agg
				if agg != nil {
					pl.Aggregates = append(pl.Aggregates, *agg)
				}
			}
			payload = "{" + strings.Join(fields, ", ") + "}"
		}
		pl.RewrittenQuery = "SELECT [" + strings.Join(keys, ", ") + "] AS groupByItems, " + payload + " AS payload" + tail + where("")
		if len(q.spans.groupBy) > 0 {
			pl.RewrittenQuery += " GROUP BY " + strings.Join(q.spans.groupBy, ", ")
		}
	case len(q.aggs) > 0: // SELECT VALUE AGG(...) without GROUP BY
		if len(q.orderBy) > 0 {
			return nil, errPlain("SC2030", "ORDER BY is not supported together with aggregates across partitions.")
		}
		p, agg, err := aggPayload(q.items[0], legacy)
		if err != nil || agg == nil {
			return nil, errPlain("SC2033", "Cross partition query only supports 'VALUE <AggregateFunc>' for aggregates.")
		}
		pl.Aggregates = append(pl.Aggregates, *agg)
		distinct := ""
		if q.distinct {
			distinct = "DISTINCT "
		}
		pl.RewrittenQuery = "SELECT " + distinct + "VALUE [" + p + "]" + tail + where("")
	case len(q.orderBy) > 0:
		if q.from == nil {
			return nil, errPlain("SC2204", "Unsupported ORDER BY clause. ORDER BY item expression could not be mapped to a document path.")
		}
		items := make([]string, len(q.orderBy))
		for i, o := range q.orderBy {
			dir := "Ascending"
			if o.desc {
				dir = "Descending"
			}
			pl.OrderBy = append(pl.OrderBy, dir)
			pl.OrderByExpressions = append(pl.OrderByExpressions, o.text)
			items[i] = `{"item": ` + o.text + `}`
		}
		var payload string
		switch {
		case q.star:
			payload = q.from.alias
		case q.value:
			payload = q.items[0].text
		default:
			fields := make([]string, len(q.items))
			for i, it := range q.items {
				fields[i] = strconv.Quote(it.alias) + ": " + it.text
			}
			payload = "{" + strings.Join(fields, ", ") + "}"
		}
		head := "SELECT "
		if q.distinct {
			pl.DistinctType = "Ordered"
			head += "DISTINCT "
		}
		if n := perRangeTop(pl); n >= 0 {
			head += "TOP " + strconv.Itoa(n) + " "
		}
		if !q.distinct {
			head += q.from.alias + "._rid, "
		}
		order := make([]string, len(q.orderBy))
		for i, o := range q.orderBy {
			order[i] = o.text + map[bool]string{false: " ASC", true: " DESC"}[o.desc]
		}
		filter := OrderByFilterPlaceholder
		if q.value {
			// A row whose VALUE is undefined is no result; it must not take a place of the range's TOP.
			filter += ") AND (IS_DEFINED(" + payload + ")"
		}
		pl.RewrittenQuery = head + "[" + strings.Join(items, ", ") + "] AS orderByItems, " + payload + " AS payload" +
			tail + where(filter) + " ORDER BY " + strings.Join(order, ", ")
	default:
		if q.distinct {
			pl.DistinctType = "Unordered"
		}
		if q.offset != nil {
			head := "SELECT "
			if q.distinct {
				head += "DISTINCT "
			}
			head += "TOP " + strconv.Itoa(perRangeTop(pl)) + " "
			pl.RewrittenQuery = head + q.spans.list + tail + where("")
		}
	}
	return pl, nil
}

// perRangeTop is how many results one range needs to return: TOP, or OFFSET+LIMIT; -1 for all.
func perRangeTop(pl *CrossPlan) int {
	switch {
	case pl.Offset != nil && pl.Limit != nil:
		n := *pl.Offset + *pl.Limit
		if pl.Top != nil {
			n = min(n, *pl.Top)
		}
		return n
	case pl.Top != nil:
		return *pl.Top
	}
	return -1
}

// aggPayload renders one projection for a grouped rewrite: an aggregate at the root of the item as
// its partial ({"item": ...}), anything else as written. Aggregates inside a larger expression have
// no partial a client can merge.
func aggPayload(it selectItem, legacy bool) (string, *string, error) {
	c, ok := it.e.(*call)
	if !ok || c.agg == 0 {
		if hasAgg(it.e) {
			return "", nil, errPlain("SC2033", "Cross partition query only supports aggregates at the root of a projection ('%s').", it.text)
		}
		return it.text, nil, nil
	}
	name := aggNames[c.name]
	open := strings.IndexByte(it.text, '(')
	arg := "1"
	if open >= 0 && strings.HasSuffix(it.text, ")") {
		arg = strings.TrimSpace(it.text[open+1 : len(it.text)-1])
	}
	var p string
	switch c.name {
	case "AVG":
		p = `{"item": {"sum": SUM(` + arg + `), "count": COUNT(` + arg + `)}}`
	case "MIN", "MAX":
		if legacy {
			p = `{"item": ` + it.text + `}`
			break
		}
		p = `{"item": ` + it.text + `, "item2": {"` + strings.ToLower(c.name) + `": ` + it.text + `, "count": COUNT(` + arg + `)}}`
	default:
		p = `{"item": ` + it.text + `}`
	}
	return p, &name, nil
}

// hasAgg reports whether e contains an aggregate call of its own level.
func hasAgg(e expr) bool {
	if c, ok := e.(*call); ok && c.agg > 0 {
		return true
	}
	if _, ok := e.(*subquery); ok {
		return false
	}
	for _, ch := range children(e) {
		if hasAgg(ch) {
			return true
		}
	}
	return false
}

// countOf evaluates a TOP, OFFSET or LIMIT operand: a literal or a parameter holding a non-negative
// integer.
func countOf(e expr, params map[string]any) (*int, error) {
	var v any
	switch x := e.(type) {
	case nil:
		return nil, nil
	case *literal:
		v = x.val
	case *param:
		v = normalize(params[x.name])
	}
	switch n := v.(type) {
	case float64:
		if n >= 0 && isInteger(n) { // below 2^53: the conversion is exact on every platform
			i := int(n)
			return &i, nil
		}
	case json.Number:
		if i, err := strconv.Atoi(n.String()); err == nil && i >= 0 {
			return &i, nil
		}
	}
	return nil, errPlain("SC2061", "The count value provided for a TOP, OFFSET or LIMIT clause is invalid.")
}
