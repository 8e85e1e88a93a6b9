// Package queryplan is the wire format of the service's partitioned query execution info (the
// query plan the gateway answers for x-ms-cosmos-is-query-plan-request, and puts in the body of a
// 400/1004 for older SDKs): written by the engine (internal/engine, internal/engine/sql) and read by
// the client-side cross-partition pipeline (internal/probe/fanout). Field names are the service's,
// as the .NET, Java and Python SDKs read them.
package queryplan

import "strings"

// OrderByFilterPlaceholder is the token in a rewritten ORDER BY query that SDKs replace with a
// resume filter (or "true" on a first page).
const OrderByFilterPlaceholder = "{documentdb-formattableorderbyquery-filter}"

// Plan is the partitioned query execution info.
type Plan struct {
	Version     int       `json:"partitionedQueryExecutionInfoVersion"`
	QueryInfo   QueryInfo `json:"queryInfo"`
	QueryRanges []Range   `json:"queryRanges"`
}

// QueryInfo is what each partition key range runs (RewrittenQuery, "" when the query runs as
// written) and what the client merges.
type QueryInfo struct {
	DistinctType                string             `json:"distinctType"`
	Top                         *int               `json:"top"`
	Offset                      *int               `json:"offset"`
	Limit                       *int               `json:"limit"`
	OrderBy                     []string           `json:"orderBy"`
	OrderByExpressions          []string           `json:"orderByExpressions"`
	GroupByExpressions          []string           `json:"groupByExpressions"`
	GroupByAliases              []string           `json:"groupByAliases"`
	Aggregates                  []string           `json:"aggregates"`
	GroupByAliasToAggregateType map[string]*string `json:"groupByAliasToAggregateType"`
	RewrittenQuery              string             `json:"rewrittenQuery"`
	HasSelectValue              bool               `json:"hasSelectValue"`
	HasNonStreamingOrderBy      bool               `json:"hasNonStreamingOrderBy"`
}

// RangeQuery is the text each partition key range runs on its first page: the rewritten query with
// the ORDER BY resume filter replaced by "true", as every SDK does, or original when the plan has
// no rewrite. The client pipeline (internal/probe/fanout) sends it; the estimator (internal/plan)
// sizes the rows it returns.
func (qi *QueryInfo) RangeQuery(original string) string {
	if qi.RewrittenQuery == "" {
		return original
	}
	return strings.ReplaceAll(qi.RewrittenQuery, OrderByFilterPlaceholder, "true")
}

// Range is one effective-partition-key range of a plan.
type Range struct {
	Min            string `json:"min"`
	Max            string `json:"max"`
	IsMinInclusive bool   `json:"isMinInclusive"`
	IsMaxInclusive bool   `json:"isMaxInclusive"`
}
