package fanout

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// Options are the inputs of one run besides the query.
type Options struct {
	// Params are the query's parameters.
	Params []azcosmos.QueryParameter
	// PageSize is the page size asked of each range (x-ms-max-item-count); 0 leaves the service's
	// default.
	PageSize int
}

// RangeStat is what one partition key range cost.
type RangeStat struct {
	ID     string  `json:"id"`
	Charge float64 `json:"charge"`
	Pages  int     `json:"pages"`
	Items  int     `json:"items"`
	// headers are the pages' response headers, in order.
	headers []http.Header
}

// Result is a query's merged results and what they cost.
type Result struct {
	// Items are the results, each one JSON value, in the query's order.
	Items []json.RawMessage
	// Charge is the sum over every page of every range, plus the plan request's.
	Charge float64
	// PlanCharge is the query-plan request's charge (0 on the service).
	PlanCharge float64
	// Ranges are the ranges the plan's query ranges overlap, in EPK order, with their charges.
	Ranges []RangeStat
	// Plan is the plan the gateway returned.
	Plan *Plan
}

// PageHeaders are the response headers of every page fetched, range by range.
func (r *Result) PageHeaders() []http.Header {
	var out []http.Header
	for _, s := range r.Ranges {
		out = append(out, s.headers...)
	}
	return out
}

// Pages is the number of pages fetched over all ranges.
func (r *Result) Pages() int {
	n := 0
	for _, s := range r.Ranges {
		n += s.Pages
	}
	return n
}

// stream is one range's results, fetched a page at a time.
type stream struct {
	b      Backend
	r      Range
	query  string
	o      Options
	stat   *RangeStat
	buf    []json.RawMessage
	cont   string
	done   bool
	head   any // decoded first item, for ORDER BY
	headOK bool
}

// fill fetches pages until the buffer holds an item or the range is exhausted; charges accrue.
func (s *stream) fill(ctx context.Context) error {
	for len(s.buf) == 0 && !s.done {
		pg, err := s.b.QueryRange(ctx, s.r.ID, s.query, s.o.Params, s.cont, s.o.PageSize)
		if err != nil {
			return fmt.Errorf("partition key range %s: %w", s.r.ID, err)
		}
		s.stat.Charge += pg.Charge
		s.stat.Pages++
		s.stat.Items += len(pg.Items)
		if pg.Header != nil {
			s.stat.headers = append(s.stat.headers, pg.Header)
		}
		s.buf = pg.Items
		s.cont = pg.Continuation
		s.done = pg.Continuation == ""
	}
	return nil
}

// next returns the range's next item, ok false at its end.
func (s *stream) next(ctx context.Context) (json.RawMessage, bool, error) {
	if err := s.fill(ctx); err != nil {
		return nil, false, err
	}
	if len(s.buf) == 0 {
		return nil, false, nil
	}
	it := s.buf[0]
	s.buf = s.buf[1:]
	s.headOK = false
	return it, true, nil
}

// peek decodes the range's next item without taking it.
func (s *stream) peek(ctx context.Context) (any, bool, error) {
	if s.headOK {
		return s.head, true, nil
	}
	if err := s.fill(ctx); err != nil {
		return nil, false, err
	}
	if len(s.buf) == 0 {
		return nil, false, nil
	}
	s.head, s.headOK = decode(s.buf[0]), true
	return s.head, true, nil
}

// Run runs query across partitions through b: plan, ranges, one stream per range, merge.
func Run(ctx context.Context, b Backend, query string, o Options) (*Result, error) {
	raw, planCharge, err := b.QueryPlan(ctx, query, o.Params)
	if err != nil {
		return nil, err
	}
	plan, err := ParsePlan(raw)
	if err != nil {
		return nil, err
	}
	all, err := b.Ranges(ctx)
	if err != nil {
		return nil, err
	}
	res := &Result{Plan: plan, PlanCharge: planCharge}
	tg := targets(all, plan.QueryRanges)
	res.Ranges = make([]RangeStat, len(tg))
	streams := make([]*stream, len(tg))
	text := rangeQuery(plan, query)
	for i, r := range tg {
		res.Ranges[i].ID = r.ID
		streams[i] = &stream{b: b, r: r, query: text, o: o, stat: &res.Ranges[i]}
	}
	qi := &plan.QueryInfo
	out := newSink(qi)
	switch {
	case len(qi.GroupByExpressions) > 0 || len(qi.GroupByAliases) > 0:
		err = runGroupBy(ctx, streams, qi, out)
	case len(qi.Aggregates) > 0:
		err = runAggregate(ctx, streams, qi, out)
	case len(qi.OrderBy) > 0:
		err = runOrderBy(ctx, streams, qi, out)
	default:
		err = runStreaming(ctx, streams, out)
	}
	if err != nil {
		return nil, err
	}
	res.Items = out.items
	res.Charge = planCharge
	for _, s := range res.Ranges {
		res.Charge += s.Charge
	}
	return res, nil
}

// sink applies DISTINCT, OFFSET, LIMIT and TOP to the merged results, in that order.
type sink struct {
	distinct bool
	seen     map[string]bool
	skip     int
	left     int // -1 = unbounded
	items    []json.RawMessage
}

func newSink(qi *QueryInfo) *sink {
	s := &sink{distinct: qi.DistinctType != "" && qi.DistinctType != "None", left: -1}
	if s.distinct {
		s.seen = map[string]bool{}
	}
	if qi.Offset != nil {
		s.skip = *qi.Offset
	}
	if qi.Limit != nil {
		s.left = *qi.Limit
	}
	if qi.Top != nil && (s.left < 0 || *qi.Top < s.left) {
		s.left = *qi.Top
	}
	return s
}

// full reports that no more results are wanted.
func (s *sink) full() bool { return s.left == 0 }

func (s *sink) add(it json.RawMessage) {
	if s.full() {
		return
	}
	if s.distinct {
		k := canonical(decode(it))
		if s.seen[k] {
			return
		}
		s.seen[k] = true
	}
	if s.skip > 0 {
		s.skip--
		return
	}
	s.items = append(s.items, it)
	if s.left > 0 {
		s.left--
	}
}

// runStreaming concatenates the ranges in EPK order, fetching no more than the sink takes.
func runStreaming(ctx context.Context, streams []*stream, out *sink) error {
	for _, s := range streams {
		for !out.full() {
			it, ok, err := s.next(ctx)
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			out.add(it)
		}
	}
	return nil
}

// runOrderBy merges the ranges' ordered results: the next result is the smallest head by the ORDER
// BY items and their directions; ties go to the range first in EPK order, as the SDKs break them.
func runOrderBy(ctx context.Context, streams []*stream, qi *QueryInfo, out *sink) error {
	keys := func(v any) []any {
		arr, _ := field(v, "orderByItems").([]any)
		ks := make([]any, len(arr))
		for i, e := range arr {
			ks[i] = field(e, "item")
		}
		return ks
	}
	less := func(a, b []any) bool {
		for i := range min(len(a), len(b), len(qi.OrderBy)) {
			c := compare(a[i], b[i])
			if qi.OrderBy[i] == "Descending" {
				c = -c
			}
			if c != 0 {
				return c < 0
			}
		}
		return false
	}
	for !out.full() {
		best := -1
		var bestKeys []any
		for i, s := range streams {
			h, ok, err := s.peek(ctx)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			k := keys(h)
			if best < 0 || less(k, bestKeys) {
				best, bestKeys = i, k
			}
		}
		if best < 0 {
			return nil
		}
		it, _, err := streams[best].next(ctx)
		if err != nil {
			return err
		}
		var row struct {
			Payload json.RawMessage `json:"payload"`
		}
		if err := json.Unmarshal(it, &row); err != nil {
			return fmt.Errorf("ORDER BY result: %w", err)
		}
		if len(row.Payload) == 0 {
			continue // the payload is undefined: the service leaves the row out
		}
		out.add(row.Payload)
	}
	return nil
}

// drain reads every item of every range.
func drain(ctx context.Context, streams []*stream, fn func(v any)) error {
	for _, s := range streams {
		for {
			it, ok, err := s.next(ctx)
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			fn(decode(it))
		}
	}
	return nil
}

// runAggregate merges SELECT VALUE AGG(...) partials: each range returns [{"item": partial}].
func runAggregate(ctx context.Context, streams []*stream, qi *QueryInfo, out *sink) error {
	agg := &aggregator{kind: qi.Aggregates[0]}
	err := drain(ctx, streams, func(v any) {
		arr, _ := v.([]any)
		if len(arr) > 0 {
			agg.add(arr[0])
		}
	})
	if err != nil {
		return err
	}
	if b, ok := encode(agg.result()); ok {
		out.add(b)
	}
	return nil
}

// group is one GROUP BY group being merged.
type group struct {
	values map[string]any
	aggs   map[string]*aggregator
	value  any // the payload itself, for SELECT VALUE of a group key
}

// runGroupBy merges groups by their groupByItems: aggregate aliases merge their partials, the
// others take the group's value. Groups come out in the order they were first seen.
func runGroupBy(ctx context.Context, streams []*stream, qi *QueryInfo, out *sink) error {
	groups := map[string]*group{}
	var order []string
	err := drain(ctx, streams, func(v any) {
		k := canonical(field(v, "groupByItems"))
		payload := field(v, "payload")
		g := groups[k]
		if g == nil {
			g = &group{values: map[string]any{}, aggs: map[string]*aggregator{}, value: payload}
			for _, a := range qi.GroupByAliases {
				if t := qi.GroupByAliasToAggregateType[a]; t != nil {
					g.aggs[a] = &aggregator{kind: *t}
				} else {
					g.values[a] = field(payload, a)
				}
			}
			groups[k] = g
			order = append(order, k)
		}
		for a, agg := range g.aggs {
			if qi.HasSelectValue {
				agg.add(payload)
			} else {
				agg.add(field(payload, a))
			}
		}
	})
	if err != nil {
		return err
	}
	for _, k := range order {
		g := groups[k]
		if qi.HasSelectValue {
			v := g.value
			for _, agg := range g.aggs {
				v = agg.result()
			}
			if b, ok := encode(v); ok {
				out.add(b)
			}
			continue
		}
		var sb strings.Builder
		sb.WriteByte('{')
		n := 0
		for _, a := range qi.GroupByAliases {
			v := g.values[a]
			if agg := g.aggs[a]; agg != nil {
				v = agg.result()
			}
			b, ok := encode(v)
			if !ok {
				continue
			}
			if n > 0 {
				sb.WriteByte(',')
			}
			kb, _ := json.Marshal(a)
			sb.Write(kb)
			sb.WriteByte(':')
			sb.Write(b)
			n++
		}
		sb.WriteByte('}')
		out.add(json.RawMessage(sb.String()))
	}
	return nil
}
