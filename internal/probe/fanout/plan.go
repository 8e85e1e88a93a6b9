// Package fanout is a client-side cross-partition query pipeline for the Go SDK, which has none:
// it runs a query the way the .NET, Java, Python and JavaScript SDKs do. It asks the gateway for
// the query plan, runs the (rewritten) query on every partition key range the plan's query ranges
// overlap, and merges: ORDER BY by a k-way merge, TOP, OFFSET/LIMIT, COUNT/SUM/MIN/MAX/AVG with the
// service's undefined semantics, DISTINCT and GROUP BY. Every page of every range is fetched through
// the azcosmos client's own HTTP pipeline (container.go); charges are summed over all of them and
// kept per range.
//
// The formats are the service's (see internal/engine/sql/xpart.go and internal/engine/queryplan.go
// for where they were read): the plan's queryInfo and queryRanges, the ORDER BY rewrite's
// orderByItems/payload, the aggregate partials [{"item": ..., "item2": ...}] and the GROUP BY
// rewrite's groupByItems/payload.
package fanout

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmosdv/validate/internal/queryplan"
)

// Plan is the gateway's partitioned query execution info, QueryInfo what the client must do with
// the ranges' results, EPKRange one effective-partition-key range of a plan: the wire format the
// engine writes too (internal/queryplan).
type (
	Plan      = queryplan.Plan
	QueryInfo = queryplan.QueryInfo
	EPKRange  = queryplan.Range
)

// Range is one partition key range (physical partition) of a container: its id and EPK bounds
// [Min, Max), "" and "FF" at the ends.
type Range struct {
	ID       string
	Min, Max string
}

// Page is one page of one range's results.
type Page struct {
	Items        []json.RawMessage
	Charge       float64
	Continuation string
	// Header is the response's headers (nil from backends without them): the probe reads the
	// facts a target reports for the page there.
	Header http.Header
}

// Backend is what the pipeline needs from a target. Container (container.go) implements it on an
// azcosmos.ContainerClient; tests implement it in-process.
type Backend interface {
	// QueryPlan returns the gateway's query plan (the raw JSON of the partitioned query execution
	// info) and the request's charge.
	QueryPlan(ctx context.Context, query string, params []azcosmos.QueryParameter) ([]byte, float64, error)
	// Ranges lists the container's partition key ranges in EPK order.
	Ranges(ctx context.Context) ([]Range, error)
	// QueryRange returns one page of query on the range with id, from continuation ("" first).
	QueryRange(ctx context.Context, id, query string, params []azcosmos.QueryParameter, continuation string, pageSize int) (Page, error)
}

// SupportedFeatures is what this pipeline declares in x-ms-cosmos-supported-query-features, in the
// service's vocabulary (.NET QueryFeatures: Aggregate, CompositeAggregate, Distinct, GroupBy,
// MultipleAggregates, MultipleOrderBy, NonValueAggregate, OffsetAndLimit, OrderBy, Top).
const SupportedFeatures = "Aggregate, CompositeAggregate, Distinct, GroupBy, MultipleAggregates, MultipleOrderBy, NonValueAggregate, OffsetAndLimit, OrderBy, Top"

// ParsePlan decodes a plan and checks it asks for nothing this pipeline cannot do.
func ParsePlan(b []byte) (*Plan, error) {
	var p Plan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("query plan: %w", err)
	}
	qi := &p.QueryInfo
	if len(qi.OrderBy) != len(qi.OrderByExpressions) && len(qi.OrderByExpressions) > 0 {
		return nil, fmt.Errorf("query plan: %d ORDER BY directions for %d expressions", len(qi.OrderBy), len(qi.OrderByExpressions))
	}
	for _, a := range qi.Aggregates {
		switch a {
		case "Count", "Sum", "Min", "Max", "Average":
		default:
			return nil, fmt.Errorf("query plan: aggregate %q is not supported by this pipeline", a)
		}
	}
	if qi.HasNonStreamingOrderBy {
		return nil, fmt.Errorf("query plan: a non-streaming ORDER BY (vector or full-text ranking) is not supported by this pipeline")
	}
	if len(p.QueryRanges) == 0 {
		p.QueryRanges = []EPKRange{{Min: "", Max: "FF", IsMinInclusive: true}}
	}
	return &p, nil
}

// rangeQuery is the text each range runs (queryplan.QueryInfo.RangeQuery).
func rangeQuery(p *Plan, original string) string { return p.QueryInfo.RangeQuery(original) }

// overlaps reports whether the partition key range r can hold keys of q.
func overlaps(r Range, q EPKRange) bool {
	// r is [Min, Max) with "FF" the end of the key space.
	belowMax := r.Max == "FF" || q.Min < r.Max
	if !belowMax {
		return false
	}
	if q.Max == "FF" {
		return true
	}
	if q.IsMaxInclusive {
		return q.Max >= r.Min
	}
	return q.Max > r.Min
}

// targets returns the ranges, in EPK order, that overlap any of the plan's query ranges.
func targets(all []Range, qr []EPKRange) []Range {
	var out []Range
	for _, r := range all {
		for _, q := range qr {
			if overlaps(r, q) {
				out = append(out, r)
				break
			}
		}
	}
	return out
}
