package engine

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/engine/sql"
	"github.com/cosmosdv/validate/internal/queryplan"
)

// Cross-partition queries as SDKs with a query engine run them (.NET, Java, Python, JavaScript):
//
//  1. The SDK asks the gateway for the query plan: POST .../docs with the query body, Content-Type
//     application/query+json, x-ms-cosmos-is-query-plan-request: True and the features it
//     supports in x-ms-cosmos-supported-query-features (both header names are declared in azcosmos
//     v1.5.0 cosmos_http_constants.go; the .NET, Java and Python 4.x SDKs send this request
//     before a cross-partition query). The answer is the partitioned query execution info:
//     queryInfo (see sql.CrossPlan) and queryRanges, the effective-partition-key ranges the filter
//     pins.
//  2. Older SDKs (python3-azure-cosmos 3.1.1, as Debian ships it) send the query itself first; the
//     gateway answers 400 with substatus 1004 and the same info as a JSON string in the error
//     body's "additionalErrorInfo" (azure/cosmos/execution_context/execution_dispatcher.py
//     _get_partitioned_execution_info).
//  3. The SDK reads the partition key ranges (GET .../pkranges, meta.go) and sends the rewritten
//     query to each range overlapping queryRanges with x-ms-documentdb-partitionkeyrangeid; each
//     such execution is single-range and pays that physical partition's floor (query.go charges
//     PartitionsChecked on a range's first page).

// queryPlanVersion is the partitionedQueryExecutionInfoVersion the service reports.
const queryPlanVersion = 2

// queryRange is one effective-partition-key range of a plan, and executionInfo the whole plan, in
// the service's wire format (internal/queryplan).
type (
	queryRange    = queryplan.Range
	executionInfo = queryplan.Plan
)

func isQueryPlanRequest(q *request) bool {
	return strings.EqualFold(q.header("X-Ms-Cosmos-Is-Query-Plan-Request"), "true")
}

// queryPlan answers the query-plan request. The service does not charge for it.
func (s *Server) queryPlan(q *request, c *container) (int, error) {
	text, params, err := decodeQueryBody(q.body)
	if err != nil {
		return 0, err
	}
	pq, err := s.parsed.parse(text)
	if err != nil {
		return 0, errf(400, "Syntax error: %s", err.Error())
	}
	info, err := c.executionInfo(pq, params, q.header("X-Ms-Documentdb-Partitionkey"), false)
	if err != nil {
		return 0, err
	}
	if h := q.header("X-Ms-Cosmos-Supported-Query-Features"); h != "" {
		if err := unsupportedFeatures(&info.QueryInfo, h); err != nil {
			return 0, err
		}
	}
	b, _ := json.Marshal(info)
	return s.reply(q, 200, b)
}

// executionInfo builds the plan of pq for c: what each range runs and the ranges to run it on.
func (c *container) executionInfo(pq *sql.Query, params map[string]any, pkHeader string, legacy bool) (*executionInfo, error) {
	plan, err := pq.CrossPartitionPlan(params, legacy)
	if err != nil {
		return nil, queryError(err)
	}
	ranges, err := c.queryRanges(pq, params, pkHeader)
	if err != nil {
		return nil, err
	}
	return &executionInfo{Version: queryPlanVersion, QueryInfo: *plan, QueryRanges: ranges}, nil
}

// queryRanges are the EPK ranges that can hold the query's documents: a full key (in the header or
// pinned by WHERE equalities, IN lists expanded) is a point, a hierarchical prefix the range of its
// descendants [epk, epk+"FF"), anything else the whole key space. It mirrors routeByWhere, which
// picks the physical partitions from the same facts.
func (c *container) queryRanges(pq *sql.Query, params map[string]any, pkHeader string) ([]queryRange, error) {
	full := []queryRange{{Min: "", Max: "FF", IsMinInclusive: true}}
	point := func(vals []any) queryRange {
		epk := effectivePartitionKey(c.pk.Kind, c.pk.Version, vals)
		if len(vals) == len(c.pk.Paths) {
			return queryRange{Min: epk, Max: epk, IsMinInclusive: true, IsMaxInclusive: true}
		}
		return queryRange{Min: epk, Max: epk + "FF", IsMinInclusive: true}
	}
	vals, present, err := parsePKHeader(pkHeader)
	if err != nil {
		return nil, errf(400, "%s", err.Error())
	}
	if present && len(vals) > 0 {
		if len(vals) > len(c.pk.Paths) || (len(vals) < len(c.pk.Paths) && c.pk.Kind != kindMultiHash) {
			return nil, errf(400, "Partition key provided either doesn't correspond to definition in the collection or doesn't match partition key field values specified in the document.")
		}
		return []queryRange{point(vals)}, nil
	}
	eq := pq.KeyEqualities(c.pk.parts, params)
	n := 0
	for n < len(eq) && eq[n] != nil {
		if len(eq[n]) == 0 {
			// Contradictory predicates: nothing matches; the first range answers the empty result.
			return []queryRange{{Min: c.parts[0].min, Max: c.parts[0].max, IsMinInclusive: true}}, nil
		}
		n++
	}
	if n == 0 || (n < len(eq) && c.pk.Kind != kindMultiHash) {
		return full, nil
	}
	combos := 1
	for _, vs := range eq[:n] {
		combos *= len(vs)
		if combos > maxRoutedKeys {
			return full, nil
		}
	}
	var out []queryRange
	key := make([]any, n)
	var walk func(level int)
	walk = func(level int) {
		if level == n {
			out = append(out, point(slices.Clone(key)))
			return
		}
		for _, v := range eq[level] {
			key[level] = v
			walk(level + 1)
		}
	}
	walk(0)
	slices.SortFunc(out, func(a, b queryRange) int { return strings.Compare(a.Min, b.Min) })
	return slices.CompactFunc(out, func(a, b queryRange) bool { return a == b }), nil
}

// rangeByID finds the partition a request addresses with x-ms-documentdb-partitionkeyrangeid. Old
// SDKs send "collectionRid,rangeId"; the part after the comma is the range.
func (c *container) rangeByID(id string) (*partition, error) {
	if i := strings.LastIndexByte(id, ','); i >= 0 {
		id = id[i+1:]
	}
	for _, p := range c.parts {
		if p.id == id {
			return p, nil
		}
	}
	// The service's answer for a range that split or never existed (410 Gone, PartitionKeyRangeGone).
	return nil, &apiError{status: 410, sub: subPKRangeGone, msg: "The partition key range " + id + " is gone or does not exist."}
}

// subPKRangeGone is the substatus of a request for a partition key range that no longer exists.
const subPKRangeGone = 1002

// crossPartitionDisabled is the service's refusal of a cross-partition query whose request does not
// enable them (x-ms-documentdb-query-enablecrosspartition; azcosmos QueryOptions.EnableCrossPartitionQuery).
func crossPartitionDisabled() error {
	return errf(400, "Cross partition query is required but disabled. Please set x-ms-documentdb-query-enablecrosspartition to true, specify x-ms-documentdb-partitionkey, or revise your query to avoid this exception.")
}

// unservableCrossPartition is the gateway's 400 for a cross-partition query it cannot serve, with
// the query plan in additionalErrorInfo for SDKs that learn it this way.
func (c *container) unservableCrossPartition(pq *sql.Query, params map[string]any, pkHeader string) error {
	e := &apiError{status: 400, sub: subCrossPartitionQuery,
		msg: "The provided cross partition query can not be directly served by the gateway. This is a first chance (internal) exception that all newer clients will know how to handle gracefully. This exception is traced, but unless you see it bubble up as an exception (which only happens on older SDK clients), then you can safely ignore this message."}
	if info, err := c.executionInfo(pq, params, pkHeader, true); err == nil {
		b, _ := json.Marshal(info)
		e.info = string(b)
	} else {
		return err
	}
	return e
}

// unsupportedFeatures is the service's refusal of a plan that needs query features the client did
// not declare in x-ms-cosmos-supported-query-features (.NET QueryFeatures names; the gateway checks
// them so that an old SDK fails clearly instead of merging wrongly).
func unsupportedFeatures(qi *sql.CrossPlan, header string) error {
	have := map[string]bool{}
	for f := range strings.SplitSeq(header, ",") {
		have[strings.ToLower(strings.TrimSpace(f))] = true
	}
	var need []string
	want := func(on bool, name string) {
		if on && !have[strings.ToLower(name)] {
			need = append(need, name)
		}
	}
	want(len(qi.Aggregates) > 0, "Aggregate")
	want(len(qi.Aggregates) > 1, "MultipleAggregates")
	want(len(qi.Aggregates) > 0 && !qi.HasSelectValue, "NonValueAggregate")
	want(qi.DistinctType != "None", "Distinct")
	want(len(qi.GroupByExpressions) > 0, "GroupBy")
	want(qi.Offset != nil || qi.Limit != nil, "OffsetAndLimit")
	want(len(qi.OrderBy) > 0, "OrderBy")
	want(len(qi.OrderBy) > 1, "MultipleOrderBy")
	want(qi.Top != nil, "Top")
	if len(need) == 0 {
		return nil
	}
	return errf(400, "Query contains 1 or more unsupported features. Upgrade your SDK to a version that does support the requested features:\n    Query contained %s, which the calling client does not support.", strings.Join(need, ", "))
}
