package plan

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine/index"
	"github.com/cosmosdv/validate/internal/engine/sql"
	"github.com/cosmosdv/validate/internal/querycheck"
)

// The static query estimate parses the query with the engine's parser and asks the engine's planner
// (sql.Analyze) which filters the index serves, whether ORDER BY streams from an index or is sorted
// in memory, TOP, JOINs and the projection. Only the document counts are the plan's own: they come
// from the generators' cardinalities, not from data, so the figures stay rough and say so.

// queryEstimate is a static guess at a query's execution facts.
type queryEstimate struct {
	Facts cost.QueryFacts
	// Pages is the number of result pages (defaultPageSize items each): every page is a request.
	Pages    int
	Notes    []string
	Warnings []Warning
	// Scope is the documents in the query's scope: the container's, or one key value's.
	Scope float64
	// Unestimated names what the estimator cannot estimate, "" when it estimates the whole query.
	Unestimated string
}

// estimateQuery guesses the facts of pattern ap in container c with the given physical partitions.
// Document counts are the sizer's: the seeded ones (what a run measures against), or HalfScale's for
// the projection's second size.
func (s *sizer) estimateQuery(ap *design.AccessPattern, ests map[string]docEstimate, partitions int) queryEstimate {
	defer s.pinLevels(ap)()
	var qe queryEstimate
	f := &qe.Facts
	f.Consistency = cost.Consistency(consistencyOf(s.d, ap))

	// Scope: a full key targets one logical partition; a prefix or none may reach every partition.
	single := len(ap.PartitionKey) > 0 && len(ap.PartitionKey) == len(s.c.PartitionKey)
	f.PartitionsChecked = 1
	if len(ap.PartitionKey) == 0 {
		f.PartitionsChecked = partitions
		qe.Notes = append(qe.Notes, "cross-partition: "+design.Count(partitions, "physical partition")+" checked")
	} else if !single {
		qe.Notes = append(qe.Notes, "key prefix: assumed to reach one physical partition")
	}

	a, err := s.analyze(ap.Query)
	filters := boundFilters(ap, a.Filters)
	if err != nil {
		qe.Warnings = append(qe.Warnings, Warning{Code: "query-syntax", Subject: ap.ID, Message: err.Error()})
		qe.Notes = append(qe.Notes, "the query does not parse: figures assume a scan")
		qe.Unestimated = "a query that does not parse"
	}
	if w, ok := orderByWarning(ap.ID, a.OrderByErr); ok {
		qe.Warnings = append(qe.Warnings, w)
		qe.Notes = append(qe.Notes, "ORDER BY fails with 400 under this policy: figures assume an in-memory sort")
	}

	// Result type: the document type a filter's string literal names, else the sampled type, else the
	// first.
	rt := s.resultType(ap, &a)
	est := ests[rt.Type]

	// Documents in scope, divided among the key values the partition key
	// (or prefix) of the pattern selects.
	per := 1.0
	if n := len(ap.PartitionKey); n > 0 {
		kd := s.prefixDist(rt, n)
		per = math.Max(kd.Card, 1)
		if ap.Sample != "" {
			// Key values come from sampled documents: the median draw holds the drawn share.
			per = math.Max(1/kd.drawnShare(), 1)
		}
	}
	// A hierarchical-key prefix sent in the request options (prefixIn, or as partitionKey and WHERE
	// say: querycheck.PrefixForm) routes to the prefix's range, but the range is no index term: the
	// index of the whole physical partition answers the WHERE clause and every document it returns
	// is loaded and re-checked against the range (the engine's requestPrefix; azure-cosmos-dotnet-v3
	// #4248, efcore #38598). The index then reads 1/perIdx of the documents, the partition's share,
	// unless WHERE pins the prefix too (form both), and an aggregate loads its documents (#3936).
	// Assumed: it depends on the SDK version.
	form, _ := querycheck.PrefixForm(s.d, s.c, ap)
	recheck := form == design.PrefixOptions || form == design.PrefixBoth
	perIdx := per
	if recheck {
		if a.IndexOnlyAggregate {
			qe.Notes = append(qe.Notes, "key prefix in the request: each document is loaded to re-check its key range, so the index does not answer the aggregate alone (assumed; azure-cosmos-dotnet-v3 #4248, #3936)")
		}
		a.IndexOnlyAggregate = false
		if form == design.PrefixOptions {
			perIdx = math.Min(per, float64(max(partitions, 1)))
			qe.Notes = append(qe.Notes, "key prefix in the request options only: the index of the whole physical partition answers WHERE and each document it returns is loaded and re-checked against the prefix's range (assumed; azure-cosmos-dotnet-v3 #4248, efcore #38598; depends on the SDK version)")
		}
	}
	allInScope, matched, served, matchedBytes := 0.0, 0.0, 0.0, 0.0
	for i := range s.c.Documents {
		dt := &s.c.Documents[i]
		n := s.count(dt, 0) / per
		nIdx := s.count(dt, 0) / perIdx
		allInScope += nIdx
		m := s.matching(dt, n, filters, false)
		matched += m
		matchedBytes += m * ests[dt.Type].Bytes
		served += s.matching(dt, nIdx, filters, true)
	}
	qe.Notes = append(qe.Notes, s.selectivityNotes(rt, filters)...)
	// The documents a query returns are of every type its filters keep (a partition holds a
	// customer and its orders): their average size, not the result type's alone.
	if matched > 0 {
		est.Bytes = matchedBytes / matched
	}
	rawMatched := matched
	// Parameters drawn from a seeded document of the result type match at least that document,
	// unless a filter names a constant the generators never produce.
	if ap.Sample == rt.Type && len(ap.Params) > 0 && !s.neverMatches(rt, filters) {
		matched = math.Max(matched, 1)
	}
	if ap.Expect != nil && ap.Expect.MinResults != nil {
		matched = math.Max(matched, float64(*ap.Expect.MinResults))
	}

	// Loaded: the documents the served filters select, or everything in scope when none is served
	// (a scan, or no WHERE at all).
	loadedAll := allInScope
	if a.Narrowing {
		loadedAll = math.Max(served, matched)
	}
	f.FullScan = a.FullScan
	var unindexed []string
	for _, p := range a.Unindexed {
		if dotted := strings.Join(p, "."); !isKeyPath(s.c, dotted) {
			qe.Notes = append(qe.Notes, fmt.Sprintf("filter on /%s: path not indexed", strings.Join(p, "/")))
			unindexed = append(unindexed, "/"+strings.Join(p, "/"))
		}
	}
	if a.FullScan && len(unindexed) > 0 && err == nil {
		qe.Warnings = append(qe.Warnings, Warning{Code: "query-scan", Subject: ap.ID,
			Message: fmt.Sprintf("the query filters on %s, which the indexing policy does not index, and on nothing it does: every execution loads every document in scope; index %s/? or filter on an indexed path too",
				strings.Join(unindexed, ", "), unindexed[0])})
	}
	if len(a.Functions) > 0 {
		qe.Notes = append(qe.Notes, fmt.Sprintf("%s in WHERE is not served by the index (its path is not indexed, or the index cannot answer that function): evaluated on loaded documents", a.Functions[0]))
	}
	if a.FullScan {
		qe.Notes = append(qe.Notes, "no filter is served by the index: scan")
	}
	f.IndexLookups = a.IndexLookups

	// Output and early stop: TOP cuts the output and, without grouping or an in-memory sort, the
	// loading too (Execute stops once TOP items are produced; from an ordered index it loads at most
	// TOP documents). The designer's MaxResults caps the output only.
	// JOINs over arrays multiply rows per loaded document: each element is a row of the output
	// (no filter on the element is estimated).
	joins := rowSources(&a)
	rows := 1.0
	if len(joins) > 0 {
		rows = joinRows(rt, est, joins, nil)
		if a.FromIn != nil {
			qe.Notes = append(qe.Notes, fmt.Sprintf("FROM … IN /%s: about %.0f rows per document", strings.Join(a.FromIn, "/"), rows))
		} else {
			qe.Notes = append(qe.Notes, fmt.Sprintf("%d JOIN(s): about %.0f rows per document", len(a.Joins), rows))
		}
	}
	// Documents that the index finds by an element (a posting of /lines/[]/qty holds a document
	// for any of its elements) more likely have long arrays: the documents loaded hold, on average,
	// the arrays' lengths given that one of their rows passes the served element filters
	// (lengthGiven), which the rows iterated and the bytes loaded follow.
	loadBytesExtra := 0.0
	if a.Narrowing && len(joins) > 0 {
		cond := 1.0
		for _, j := range joins {
			arr := fieldAt(rt, "/"+strings.Join(j.Path, "/"))
			if j.Path == nil || arr == nil || arr.Array == nil || arr.Of == nil {
				continue
			}
			q, some := 1.0, false
			for _, fl := range filters {
				if fl.Served && rowSource(fl, joins) == j.Alias {
					if share, _, known := s.elemShare(rt, arr, fl.Path[len(j.Path)+1:], fl); known {
						q, some = q*share, true
					}
				}
			}
			avg := float64(arr.Array.Min+arr.Array.Max) / 2
			if !some || avg <= 0 {
				continue
			}
			l := lengthGiven(arr.Array, q)
			cond *= l / avg
			eb, _ := s.fieldBytes(rt, arr.Of, 1)
			loadBytesExtra += (l - avg) * (eb + 1) * (1 - clamp01(arr.Optional))
		}
		rows *= cond
	}
	// rowsOut is the rows a matching document yields: its arrays' elements that the filters on
	// them keep (each element passing on its own, by its generator: elemShare), over the share of
	// documents holding one, which matching counted; per document type, whose arrays they are.
	rowsOut := rows
	if len(joins) > 0 && rawMatched > 0 {
		outRows := 0.0
		for i := range s.c.Documents {
			dt := &s.c.Documents[i]
			perRow := func(j sql.Join, fl sql.Filter) float64 {
				arr := fieldAt(dt, "/"+strings.Join(j.Path, "/"))
				if arr == nil || arr.Array == nil || arr.Of == nil {
					return 1
				}
				q, _, known := s.elemShare(dt, arr, fl.Path[len(j.Path)+1:], fl)
				if !known {
					return 1
				}
				return q
			}
			n := s.count(dt, 0) / per
			outRows += s.matching(dt, n, docFilters(filters, joins), false) * joinRows(dt, ests[dt.Type], joins, func(j sql.Join) float64 {
				keep := 1.0
				for _, fl := range filters {
					if rowSource(fl, joins) == j.Alias && j.Path != nil {
						keep *= perRow(j, fl)
					}
				}
				return keep
			})
		}
		rowsOut = outRows / rawMatched
	}

	// Across partitions every physical partition checked runs the query on its own: it returns up
	// to TOP items, its own partial aggregate and its own groups, which the client merges
	// (how-to-query-container.md: one query per physical partition).
	np := 1.0
	if len(ap.PartitionKey) == 0 {
		np = float64(max(f.PartitionsChecked, 1))
	}
	limit := matched * rowsOut
	if a.Top >= 0 {
		limit = math.Min(limit, float64(a.Top)*np)
	}
	out := limit
	if ap.Expect != nil && ap.Expect.MaxResults != nil && np == 1 {
		out = math.Min(out, float64(*ap.Expect.MaxResults))
	}
	loaded := loadedAll
	if paths, ok := distinctPaths(&a); ok && !a.Shape.GroupBy && len(a.Aggregates) == 0 {
		// DISTINCT returns one row per distinct value of its paths among the matching documents
		// (production's distinct counts at production), in each partition checked.
		out = math.Min(math.Max(math.Min(s.groups(rt, paths)*np, matched), 1), out)
		qe.Notes = append(qe.Notes, fmt.Sprintf("DISTINCT: about %.0f values", out))
	}
	switch {
	case len(a.Aggregates) > 0 || a.Shape.GroupBy:
		if !a.Shape.GroupBy {
			out = np // an aggregate without GROUP BY returns one value (a partition's partial one)
		} else {
			// One row per group: the distinct values of the grouping paths among the matching
			// documents, at the scale asked for (production's distinct counts at production), in
			// each partition.
			groups := s.groups(rt, a.GroupPaths) * np
			out = math.Min(math.Max(math.Min(groups, matched), 1), limit)
			qe.Notes = append(qe.Notes, fmt.Sprintf("GROUP BY: about %.0f groups", out))
		}
	case a.SearchSort:
		f.SortedInMemory = whole(matched)
		qe.Notes = append(qe.Notes, "ranked by a search score: sorted in memory")
	case len(a.OrderBy) > 0 && !a.OrderStreams:
		f.SortedInMemory = whole(matched)
		if a.OrderByErr == nil {
			qe.Notes = append(qe.Notes, "ORDER BY not served by a composite index: sorted in memory")
		}
	case len(a.OrderBy) > 0:
		if a.Top >= 0 && len(a.Joins) == 0 && !a.Shape.Distinct {
			// The walk loads documents in order until TOP of them match: all of the first TOP when
			// the index serves every filter, more when a filter is evaluated on each one.
			need := float64(a.Top) * np
			if matched > 0 && matched < loadedAll {
				need = need * loadedAll / matched
			}
			if hasResidual(a.Filters) && s.rules.Is(cost.RuleTopUnservedFilter, cost.AltScans) {
				// Rule order-top-unserved-filter=scans: the walk loads and evaluates every document
				// the served filters keep before it returns the first TOP.
				need = loadedAll
			}
			loaded = math.Min(loadedAll, need)
		}
	case matched > 0 && rowsOut > 0:
		loaded = loadedAll * math.Min(limit/rowsOut/matched, 1)
	}
	if n := len(a.Functions); n > 0 {
		f.FunctionCalls = whole(loaded) * n
	}
	// Functions in ORDER BY and SELECT: on every row an in-memory sort ranks (its keys and its
	// projection are computed as it comes), on every result otherwise.
	if f.SortedInMemory > 0 {
		f.FunctionCalls += f.SortedInMemory * (len(a.SortCalls) + len(a.ItemCalls))
	} else if len(a.ItemCalls) > 0 && len(a.Aggregates) == 0 {
		f.FunctionCalls += whole(out) * len(a.ItemCalls)
	}
	if len(joins) > 0 {
		f.JoinRows = whole(loaded * math.Max(rows-1, 0))
	}

	// Index entries read (engine/sql/indexreads.go, index-overview.md "Index usage"): an equality
	// or IN is a seek, constant per filter (its seeks are IndexLookups; no entry per matching
	// document), unless the index answers an aggregate, which reads the postings it counts; a range
	// reads the entries in its range, by its field's generator (filterShare), or half the path's
	// entries when the generator does not tell (rangeFallback); a composite index serving a range
	// with the equalities leading it reads the slice matching them all; CONTAINS-like functions
	// (a full index scan) read one entry per distinct value of the path in scope, or, with a seek
	// beside them, at most the documents the seeks keep (the seek first): IndexScanValues, counted
	// in IndexEntriesRead as well. TOP without ORDER BY does not stop the index work.
	// An ORDER BY that streams from the index reads its equality filters' entries in its own walk
	// (the engine's countIndexReads drops them and counts the walk).
	streams := len(a.OrderBy) > 0 && a.OrderStreams
	// A single-partition query reads the postings of its logical partition, a hierarchical-key
	// prefix those of the prefix's documents (the engine's source for a prefix is its effective
	// partition key range: engine.prefixKey), a query without a key those of each partition.
	ePer, eAll := perIdx, allInScope
	inSlice := make([]bool, len(a.Filters))
	if !streams {
		for _, members := range a.CompositeSlices {
			var sl []sql.Filter
			for _, i := range members {
				inSlice[i] = true
				sl = append(sl, a.Filters[i])
			}
			n := 0.0
			for i := range s.c.Documents {
				dt := &s.c.Documents[i]
				n += s.matching(dt, s.count(dt, 0)/ePer, sl, true)
			}
			f.IndexEntriesRead += whole(n)
		}
	}
	var seekFilters []sql.Filter
	for _, fl := range a.Filters {
		if fl.Served && (fl.Kind == sql.FilterEqual || fl.Kind == sql.FilterIn || arrayContains(fl)) {
			seekFilters = append(seekFilters, fl)
		}
	}
	for i, fl := range a.Filters {
		if !fl.Served || inSlice[i] {
			continue
		}
		if streams {
			// The walk reads the index in ORDER BY order from the equalities' prefix and the
			// range's bound: one entry per document walked (below), no posting per filter.
			continue
		}
		switch {
		case fl.Kind == sql.FilterRange:
			f.IndexEntriesRead += whole(s.rangeEntries(fl, ePer, eAll))
		case (fl.Kind == sql.FilterEqual || fl.Kind == sql.FilterIn || arrayContains(fl)) &&
			!(a.IndexOnlyAggregate && s.rules.Is(cost.RuleAggregateSeekPostings, cost.AltPostings)):
			// A seek: IndexLookups carries it (an aggregate the index answers reads its posting
			// under rule aggregate-seek-postings=postings).
		case fl.Kind == sql.FilterEqual && s.pinnedKey(strings.Join(fl.Path, ".")):
			f.IndexEntriesRead += whole(allInScope)
		case fl.Kind == sql.FilterEqual || fl.Kind == sql.FilterIn || arrayContains(fl):
			one := 0.0
			for i := range s.c.Documents {
				dt := &s.c.Documents[i]
				one += s.matching(dt, s.count(dt, 0)/ePer, []sql.Filter{fl}, true)
			}
			f.IndexEntriesRead += whole(math.Max(one, 1))
		case fl.Kind == sql.FilterFunction && fl.Function != "STARTSWITH":
			n := whole(s.scanEntries(fl, seekFilters, ePer))
			f.IndexEntriesRead += n
			f.IndexScanValues += n // priced per value, apart from a range's entries
		default:
			f.IndexEntriesRead += whole(math.Max(loadedAll, 1))
		}
	}
	if streams {
		f.IndexEntriesRead += whole(loaded)
	}
	if a.IndexOnlyAggregate {
		// The index answers the aggregate (engine/sql/aggindex.go): the aggregated paths' entries of
		// the matching documents are read instead of the documents.
		f.IndexEntriesRead += whole(loadedAll) * len(a.AggregatePaths)
		loaded = 0
		qe.Notes = append(qe.Notes, "aggregate answered from the index: no document loaded")
	}
	if (len(a.Filters) > 0 && (a.FullScan || hasResidual(a.Filters))) || recheck {
		f.DocsEvaluated = whole(loaded) // a prefix in the request is re-checked on each (recheck)
	}
	qe.Pages = max(1, int(math.Ceil(out/defaultPageSize)))
	qe.Scope = allInScope

	f.DocsLoaded = whole(loaded)
	f.BytesLoaded = whole64(loaded * (est.Bytes + loadBytesExtra))
	f.DocsOutput = whole(out)
	rowBytes := projectionBytes(&a, est)
	if ra, ok := s.rangeRows(ap); ok {
		rowBytes = projectionBytes(&ra, est)
		qe.Notes = append(qe.Notes, "the SDK's query engine runs the query plan's rewritten query on each partition key range: its rows carry the rewrite's wrapper (ORDER BY items and payload, or partial aggregates and groups)")
	}
	f.BytesOutput = whole64(out * rowBytes)
	return qe
}

// rangeRows is the analysis of the query each partition key range runs when the run executes the
// pattern through a client-side query pipeline: the query plan's rewritten query, from the engine's
// own rewrite (sql.Query.CrossPartitionPlan) as the pipeline sends it (queryplan.QueryInfo.RangeQuery).
// ok is false when the run sends the query as written: to one logical partition (a full key in
// the request, or pinned in WHERE: sql.Query.SingleKey, the gateway's test), a query the gateway
// serves across partitions itself (sql.Query.NeedsPipeline), an application on an SDK without a
// query engine, whose run keeps the gateway's refusal (design.Design.QueryEngine), or a plan
// without a rewrite.
func (s *sizer) rangeRows(ap *design.AccessPattern) (sql.Analysis, bool) {
	if !s.d.QueryEngine() || len(ap.PartitionKey) == len(s.c.PartitionKey) {
		return sql.Analysis{}, false
	}
	q, err := sql.Parse(ap.Query)
	if err != nil || !q.NeedsPipeline() {
		return sql.Analysis{}, false
	}
	paths := make([][]string, len(s.c.PartitionKey))
	for i, p := range s.c.PartitionKey {
		paths[i] = strings.Split(strings.Trim(p, "/"), "/")
	}
	if _, single := q.SingleKey(paths, ap.Params); single {
		return sql.Analysis{}, false
	}
	pl, err := q.CrossPartitionPlan(ap.Params, false)
	if err != nil || pl.RewrittenQuery == "" {
		return sql.Analysis{}, false
	}
	rq, err := sql.Parse(pl.RangeQuery(ap.Query))
	if err != nil {
		return sql.Analysis{}, false
	}
	return sql.AnalyzeWith(rq, s.pol, s.rules, s.keyPaths()), true
}

// scanEntries is what a full index scan (CONTAINS, ENDSWITH, IS_DEFINED, …) on fl's path reads in a
// scope of 1/per of each type's documents: one entry per distinct value of the path among them
// (index-overview.md: it "scans through the distinct set of possible values"), or, with seeks
// beside it, at most the documents the seeks keep (the seek first, the scan on their pages).
func (s *sizer) scanEntries(fl sql.Filter, seeks []sql.Filter, per float64) float64 {
	distinct, kept := 0.0, 0.0
	for i := range s.c.Documents {
		dt := &s.c.Documents[i]
		n := s.count(dt, 0) / per
		if f := fieldAt(dt, "/"+strings.Join(fl.Path, "/")); f != nil {
			distinct += math.Min(math.Max(s.fieldDist(dt, f, math.Max(s.count(dt, 0), 1), 0).Card, 1), n)
		}
		if len(seeks) > 0 {
			kept += s.matching(dt, n, seeks, true)
		}
	}
	if len(seeks) > 0 {
		return math.Min(distinct, kept)
	}
	return distinct
}

// distinctPaths are the document paths a DISTINCT query's projection is made of; ok is false when
// the query is not DISTINCT or projects anything else (the whole document, an expression).
func distinctPaths(a *sql.Analysis) ([][]string, bool) {
	if !a.Shape.Distinct || a.Projection.Kind == sql.ProjectStar || len(a.Projection.Items) == 0 {
		return nil, false
	}
	var paths [][]string
	for _, it := range a.Projection.Items {
		if !it.IsPath || len(it.Path) == 0 {
			return nil, false
		}
		paths = append(paths, it.Path)
	}
	return paths, true
}

// groups is how many distinct combinations the GROUP BY paths take among documents of type dt: the
// product of each path's distinct values (a path the generators do not set counts as one value).
func (s *sizer) groups(dt *design.DocType, paths [][]string) float64 {
	n := math.Max(s.count(dt, 0), 1)
	g := 1.0
	for _, p := range paths {
		if f := fieldAt(dt, "/"+strings.Join(p, "/")); f != nil {
			g *= math.Max(s.fieldDist(dt, f, n, 0).Card, 1)
		}
	}
	return math.Min(g, n)
}

// defaultPageSize is the service's default maximum item count per page, which the probe keeps.
const defaultPageSize = 100

// hasResidual reports whether a filter is not served by the index: it runs on loaded documents.
func hasResidual(filters []sql.Filter) bool {
	for _, fl := range filters {
		if !fl.Served {
			return true
		}
	}
	return false
}

// analyze parses text and analyses it against the container's policy. A query that does not parse
// gets the analysis of a scan that returns whole documents, and the parser's error.
func (s *sizer) analyze(text string) (sql.Analysis, error) {
	q, err := sql.Parse(text)
	if err != nil {
		return sql.Analysis{FullScan: true, Top: -1, Projection: sql.Projection{Kind: sql.ProjectStar}},
			fmt.Errorf("query does not parse: %w", err)
	}
	return sql.AnalyzeWith(q, s.pol, s.rules, s.keyPaths()), nil
}

// keyPaths is the container's partition-key paths as property names from the root.
func (s *sizer) keyPaths() [][]string {
	paths := make([][]string, len(s.c.PartitionKey))
	for i, p := range s.c.PartitionKey {
		paths[i] = strings.Split(strings.Trim(p, "/"), "/")
	}
	return paths
}

// orderByWarning turns the 400 the service answers for an ORDER BY into a plan warning.
func orderByWarning(id string, err error) (Warning, bool) {
	var missing *sql.MissingCompositeIndexError
	var excluded *sql.ExcludedOrderByError
	switch {
	case err == nil:
		return Warning{}, false
	case errors.As(err, &missing):
		var specs []string
		for _, cp := range missing.Suggested() {
			specs = append(specs, cp.Path+" "+strings.TrimSuffix(cp.Order, "ending")) // the design's asc/desc
		}
		return Warning{Code: "query-order-by", Subject: id,
			Message: fmt.Sprintf("%s Add the composite index [%s].", err, strings.Join(specs, ", "))}, true
	case errors.As(err, &excluded):
		return Warning{Code: "query-order-by", Subject: id,
			Message: fmt.Sprintf("%s Include /%s in the indexing policy.", err, strings.Join(excluded.Item.Path, "/"))}, true
	}
	return Warning{Code: "query-order-by", Subject: id, Message: err.Error()}, true
}

// matching estimates how many of the n documents of type dt in scope pass the query's equality,
// IN, range and ARRAY_CONTAINS filters (only those the index serves when servedOnly; constants
// bound by boundFilters). A filter comparing a string naming a document type keeps that type only;
// a property this type lacks but another has matches none of it; the partition key is already
// accounted for by the scope. A range or IN the generator cannot size keeps every document (range,
// rangeFallback) or as many values as it lists among the field's (IN); a text search keeps the
// share its text generator gives (textShare), every document when the generator does not tell;
// other filters are not estimated (they keep every document).
func (s *sizer) matching(dt *design.DocType, n float64, filters []sql.Filter, servedOnly bool) float64 {
	n *= s.elemMatching(dt, filters, servedOnly)
	for _, fl := range filters {
		if servedOnly && !fl.Served {
			continue
		}
		switch {
		case arrayContains(fl):
			n *= s.arrayContainsShare(dt, fl)
		case isElemFilter(fl): // elemMatching
		case fl.Kind == sql.FilterFunction && textSearch(fl.Function):
			share, _, _ := s.textShare(dt, fl) // 1, every document, when the generator does not tell
			n *= share
		case s.pinnedKey(strings.Join(fl.Path, ".")):
		case fl.Kind == sql.FilterRange:
			share, _, _ := s.filterShare(dt, fl)
			n *= share
		case fl.Kind == sql.FilterIn:
			if share, _, known := s.filterShare(dt, fl); known {
				n *= share
			} else if field := fieldAt(dt, "/"+strings.Join(fl.Path, "/")); field != nil && fl.Op == "IN" {
				card := math.Max(s.fieldDist(dt, field, math.Max(s.count(dt, 0), 1), 0).Card, 1)
				n *= math.Min(1, float64(max(len(fl.Values), 1))/card)
			}
		case fl.Kind != sql.FilterEqual:
		default:
			if lit, ok := fl.Literal.(string); ok && s.docType(lit) != nil {
				if lit != dt.Type {
					return 0
				}
				continue
			}
			path := "/" + strings.Join(fl.Path, "/")
			field := fieldAt(dt, path)
			if share, _, known := s.filterShare(dt, fl); known && field != nil && (field.Const != nil || len(field.OneOf) > 0) {
				n *= share // a constant the generator names: its weight
				continue
			}
			if field != nil {
				if never, _ := neverProduced(field, fl); never {
					return 0 // a constant the generator never produces
				}
			}
			switch {
			case field != nil:
				kd := s.fieldDist(dt, field, math.Max(s.count(dt, 0), 1), 0)
				if drawnFrom(fl) {
					n *= kd.drawnShare() // the value a sampled document holds
				} else {
					n /= math.Max(kd.Card, 1)
				}
			case path == "/id":
				n /= math.Max(s.count(dt, 0), 1)
			case s.anyTypeHas(path):
				return 0
			case !(len(fl.Path) == 1 && slices.Contains(index.SystemProperties, fl.Path[0])):
				// A path no type generates (a typo lint names, or a field only writes set): no
				// seeded document holds it, so its posting is empty.
				return 0
			}
		}
	}
	return n
}

// rowSources are the arrays whose elements are a query's rows: its JOINs, or the array FROM x IN
// iterates (as a JOIN named by its alias "").
func rowSources(a *sql.Analysis) []sql.Join {
	if a.FromIn != nil {
		return append([]sql.Join{{Path: a.FromIn}}, a.Joins...)
	}
	return a.Joins
}

// rowSource is the alias of the row source (rowSources) whose elements fl tests, the one whose
// array's element path is the longest prefix of fl's path; "-" for none.
func rowSource(fl sql.Filter, joins []sql.Join) string {
	best, bestLen := "-", -1
	if !isElemFilter(fl) {
		return best
	}
	for _, j := range joins {
		if j.Path == nil || len(fl.Path) <= len(j.Path) || fl.Path[len(j.Path)] != "[]" || !slices.Equal(fl.Path[:len(j.Path)], j.Path) {
			continue
		}
		if len(j.Path) > bestLen {
			best, bestLen = j.Alias, len(j.Path)
		}
	}
	return best
}

// lengthGiven is the average length of arrays of arr's lengths (uniform between min and max, as the
// seeder draws them) among those holding an element that passes with probability q on its own:
// the mean of L weighted by 1 − (1 − q)^L.
func lengthGiven(arr *design.ArraySpec, q float64) float64 {
	lo, hi := max(arr.Min, 0), max(arr.Max, arr.Min, 0)
	num, den := 0.0, 0.0
	for l := lo; l <= hi; l++ {
		w := 1 - math.Pow(1-clamp01(q), float64(l))
		num += float64(l) * w
		den += w
	}
	if den <= 0 {
		return float64(lo+hi) / 2
	}
	return num / den
}

// docFilters are the filters that do not test a row source's elements: those keep documents.
func docFilters(filters []sql.Filter, joins []sql.Join) []sql.Filter {
	var out []sql.Filter
	for _, fl := range filters {
		if rowSource(fl, joins) == "-" {
			out = append(out, fl)
		}
	}
	return out
}

// joinRows is the rows a document of type dt (its estimate est) yields over the row sources: the
// product of their arrays' average lengths, each times keep(j) (nil keeps every element); two
// rows for a subquery JOIN (assumed: it keeps few elements); with keep, none for an array dt lacks
// (without, such an array is left out, as the result type's rows have always been counted).
func joinRows(dt *design.DocType, est docEstimate, joins []sql.Join, keep func(sql.Join) float64) float64 {
	rows := 1.0
	for _, j := range joins {
		if j.Path == nil {
			rows *= 2 // a subquery JOIN keeps few elements; assumed
			continue
		}
		path := strings.Join(j.Path, ".")
		switch li, ok := est.leaves[path+".[]"]; {
		case ok && li.count > 0:
			rows *= li.count
		case arrayLen(dt, path) > 0 || keep != nil:
			rows *= arrayLen(dt, path)
		}
		if keep != nil {
			rows *= keep(j)
		}
	}
	return rows
}

// neverMatches reports whether a filter of the query names only constants that the generator of
// its field in rt never produces (an equality, IN or range that keeps none of rt's documents).
func (s *sizer) neverMatches(rt *design.DocType, filters []sql.Filter) bool {
	for _, fl := range filters {
		if fl.Kind != sql.FilterEqual && fl.Kind != sql.FilterIn && fl.Kind != sql.FilterRange {
			continue
		}
		if _, ok := fl.Literal.(string); ok && s.docType(fl.Literal.(string)) != nil {
			continue
		}
		if len(fl.Values) == 0 || slices.ContainsFunc(fl.Values, func(v any) bool { _, p := v.(sql.Param); return p }) {
			continue
		}
		f := fieldAt(rt, "/"+strings.Join(fl.Path, "/"))
		if f == nil {
			continue
		}
		if share, _, known := s.filterShare(rt, fl); known && share == 0 {
			return true
		}
		if never, _ := neverProduced(f, fl); never {
			return true
		}
	}
	return false
}

// elemMatching is the share of dt's documents that the filters on arrays' elements (a JOIN alias,
// FROM x IN: isElemFilter) keep, only the served ones when servedOnly: the documents with an element
// that passes every filter on that array at once (the engine loads a document when one of its rows
// passes every served filter), each element passing each filter on its own (elemShare; a filter
// the generator does not size keeps every element). None when dt lacks the array another type has.
func (s *sizer) elemMatching(dt *design.DocType, filters []sql.Filter, servedOnly bool) float64 {
	type group struct {
		arr []string
		q   float64
	}
	var groups []*group
	for _, fl := range filters {
		if !isElemFilter(fl) || (servedOnly && !fl.Served) {
			continue
		}
		i := slices.Index(fl.Path, "[]")
		var g *group
		for _, h := range groups {
			if slices.Equal(h.arr, fl.Path[:i]) {
				g = h
			}
		}
		if g == nil {
			g = &group{arr: fl.Path[:i], q: 1}
			groups = append(groups, g)
		}
		arr := fieldAt(dt, "/"+strings.Join(g.arr, "/"))
		switch {
		case arr == nil && s.anyTypeHas("/"+strings.Join(fl.Path, "/")):
			return 0
		case arr == nil || arr.Array == nil || arr.Of == nil:
			continue
		}
		if q, _, known := s.elemShare(dt, arr, fl.Path[i+1:], fl); known {
			g.q *= q
		}
	}
	share := 1.0
	for _, g := range groups {
		if arr := fieldAt(dt, "/"+strings.Join(g.arr, "/")); arr != nil && arr.Array != nil && arr.Of != nil {
			share *= (1 - clamp01(arr.Optional)) * anyElement(arr.Array, g.q)
		}
	}
	return share
}

// isElemFilter reports whether fl is an equality, IN or range on a path through an array's elements
// ("lines/[]/qty"), as a JOIN alias or FROM x IN names them.
func isElemFilter(fl sql.Filter) bool {
	return (fl.Kind == sql.FilterEqual || fl.Kind == sql.FilterIn || fl.Kind == sql.FilterRange) && slices.Contains(fl.Path, "[]")
}

// drawnFrom reports whether an equality's value is a parameter filled from a sampled document
// (a {template}): it is then the value of a document drawn at random, which a skewed or
// collision-prone distribution makes larger than the average value.
func drawnFrom(fl sql.Filter) bool {
	if len(fl.Values) != 1 {
		return false
	}
	_, ok := fl.Values[0].(sql.Param)
	return ok
}

// containsShare is the share of dt's documents whose array at path holds the element fl looks for:
// none when dt has no such array (its posting holds no entry of dt); for a constant the generator
// names with a weight, 1 − (1 − w)^len (each element drawn on its own); otherwise its average length
// over the number of distinct element values, at most 1; 1 when the array is not generated as such.
// arrayContains reports whether fl is ARRAY_CONTAINS, ARRAY_CONTAINS_ANY or ARRAY_CONTAINS_ALL: an
// equality on the array's elements, which the index serves by seeks (the engine's indexreads.go
// reads them so), never a full index scan.
func arrayContains(fl sql.Filter) bool {
	return fl.Kind == sql.FilterFunction && strings.HasPrefix(fl.Function, "ARRAY_CONTAINS") &&
		len(fl.Path) > 0 && fl.Path[len(fl.Path)-1] == "[]"
}

// arrayContainsShare is the share of documents an ARRAY_CONTAINS filter keeps: for one element,
// containsShare; ARRAY_CONTAINS_ANY keeps a document holding any of its elements, _ALL one holding
// every one (each element's share taken as independent of the others'). Partial matching of objects
// (ARRAY_CONTAINS's third argument) is not modeled: its element's share is taken.
func (s *sizer) arrayContainsShare(dt *design.DocType, fl sql.Filter) float64 {
	path := fl.Path[:len(fl.Path)-1]
	if fl.Function == "ARRAY_CONTAINS" || len(fl.Values) == 0 {
		return s.containsShare(dt, path, fl)
	}
	none, all := 1.0, 1.0
	for _, v := range fl.Values {
		one := fl
		one.Values = []any{v}
		share := s.containsShare(dt, path, one)
		none *= 1 - share
		all *= share
	}
	if fl.Function == "ARRAY_CONTAINS_ALL" {
		return all
	}
	return 1 - none
}

func (s *sizer) containsShare(dt *design.DocType, path []string, fl sql.Filter) float64 {
	f := fieldAt(dt, "/"+strings.Join(path, "/"))
	if f == nil {
		return 0
	}
	if f.Array == nil || f.Of == nil {
		return 1
	}
	avg := float64(f.Array.Min+f.Array.Max) / 2
	if len(f.Of.OneOf) > 0 && len(fl.Values) > 0 {
		if w, ok := oneOfWeight(f.Of, literalOf(fl.Values[len(fl.Values)-1])); ok {
			return 1 - math.Pow(1-w, avg)
		}
	}
	card := s.fieldDist(dt, f.Of, math.Max(s.count(dt, 0)*avg, 1), 0).Card
	return math.Min(1, avg/math.Max(card, 1))
}

// oneOfWeight is the share of a oneOf generator's draws that give v; ok is false when v is not a
// constant of it.
func oneOfWeight(f *design.Field, v any) (float64, bool) {
	total, hit, found := 0.0, 0.0, false
	for i, o := range f.OneOf {
		w := 1.0
		if i < len(f.Weights) {
			w = math.Max(f.Weights[i], 0)
		}
		total += w
		if literalOf(o) == v {
			hit += w
			found = true
		}
	}
	if !found || total <= 0 {
		return 0, found
	}
	return hit / total, true
}

func (s *sizer) anyTypeHas(path string) bool {
	for i := range s.c.Documents {
		if fieldAt(&s.c.Documents[i], path) != nil {
			return true
		}
	}
	return false
}

// resultType is the document type a query returns: the one a type-like filter names, else the one
// any equality filter's string names, else the sampled, else the pattern's document, else the first.
func (s *sizer) resultType(ap *design.AccessPattern, a *sql.Analysis) *design.DocType {
	if dt := s.docType(a.TypeLiteral); dt != nil {
		return dt
	}
	for _, fl := range a.Filters {
		if lit, ok := fl.Literal.(string); ok && fl.Kind == sql.FilterEqual {
			if dt := s.docType(lit); dt != nil {
				return dt
			}
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

// pinLevels records, for the query ap being estimated, the key levels its partition key gives, so
// that an equality on a level it does not give narrows the documents like any filter (a query of a
// hierarchical key's second level alone, or of the key without partitionKey, is not routed to that
// value's documents). It returns the function that restores the sizer.
func (s *sizer) pinLevels(ap *design.AccessPattern) func() {
	query, pinned := s.query, s.pinned
	s.query, s.pinned = true, len(ap.PartitionKey)
	return func() { s.query, s.pinned = query, pinned }
}

// pinnedKey reports whether path is a level of the container's key that the query being estimated
// gives (every level when none is being estimated): the routing, not the index, narrows it.
func (s *sizer) pinnedKey(path string) bool {
	for i, p := range s.c.PartitionKey {
		if strings.ReplaceAll(strings.Trim(p, "/"), "/", ".") == path {
			return !s.query || i < s.pinned
		}
	}
	return false
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

// projectionBytes is the expected size of one result: the whole document, a few properties, an
// aggregate value, or the object and array literals a cross-partition rewrite wraps them in.
func projectionBytes(a *sql.Analysis, est docEstimate) float64 {
	switch a.Projection.Kind {
	case sql.ProjectStar:
		return est.Bytes
	case sql.ProjectValue:
		if len(a.Projection.Items) == 1 {
			return valueBytes(a.Projection.Items[0], est)
		}
		return est.Bytes
	}
	return objectBytes(a.Projection.Items, est)
}

// aggregateBytes is the JSON size assumed for an aggregate's value (a count, a sum, an average):
// assumed, a number of a dozen digits and its separators.
const aggregateBytes = 20

// ridBytes is the JSON size of a document's _rid: 16 bytes in base64, 24 characters and quotes
// (the engine's ridDoc, internal/engine/store.go, writes the service's format).
const ridBytes = 26

// valueBytes is the expected JSON size of one projected expression.
func valueBytes(it sql.Projected, est docEstimate) float64 {
	switch {
	case it.Object:
		return objectBytes(it.Members, est)
	case it.Array:
		b := 2.0 // brackets
		for i, m := range it.Members {
			b += valueBytes(m, est)
			if i > 0 {
				b++ // a comma
			}
		}
		return b
	case it.IsPath && len(it.Path) == 0:
		return est.Bytes // the document itself
	case it.IsPath:
		if li, ok := est.leaves[strings.Join(it.Path, ".")]; ok {
			return li.bytes
		}
		if len(it.Path) == 1 && it.Path[0] == "_rid" {
			return ridBytes
		}
	case it.Aggregate:
		return aggregateBytes
	}
	return 16 // an object, an array or a computed value: assumed small
}

// objectBytes is the expected JSON size of an object of the given properties.
func objectBytes(props []sql.Projected, est docEstimate) float64 {
	var b float64 = 2 // braces
	for i, it := range props {
		b += valueBytes(it, est) + float64(len(it.Name)) + 3 // "name":
		if i > 0 {
			b++ // a comma
		}
	}
	return b
}
