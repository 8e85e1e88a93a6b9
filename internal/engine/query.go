package engine

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/engine/sql"
)

// defaultPageSize is the service's default maximum item count per page.
const defaultPageSize = 100

// queryCache keeps the remaining results of partition executions between pages, so a paged query
// is executed once per partition. A missing entry is re-executed, and the next page goes on from
// the token's offset. The cache is bounded in entries, in bytes and in age (it kept 256 whole
// executions with no expiry: 40 queries took it from 83 MB to 3.1 GB, issue 30).
type queryCache struct {
	mu    sync.Mutex
	m     map[string]*execution
	order []string
	bytes int64
}

// Bounds of the paged-query cache (assumed: the engine's own). An execution larger than the whole
// budget is not cached: each of its pages executes the query again.
const (
	maxCachedQueries    = 256
	maxQueryCacheBytes  = 64 << 20
	maxQueryCacheAge    = 5 * time.Minute
	cachedExecutionBase = 512 // an entry's own structures, beyond its items
)

// execution is a query's complete result over one partition, with its facts; or, for an ORDER BY
// streamed in index order, one page of it with the facts of that page's walk, and next to resume
// the walk after it.
type execution struct {
	items    [][]byte
	facts    cost.QueryFacts
	metrics  *sql.IndexMetrics
	took     time.Duration
	streamed bool
	next     *sql.Cursor
	// built is the bytes of result items the execution encoded (not stored documents, which the
	// partition holds anyway); at is when it was cached.
	built int64
	at    time.Time
	// bind is the binding of the query it is the result of (tokenBinding): a cache entry serves
	// only a request with the same binding.
	bind string
}

func (qc *queryCache) init() { qc.m = map[string]*execution{} }

// cost is what an entry counts against maxQueryCacheBytes.
func (e *execution) cost() int64 {
	return cachedExecutionBase + e.built + int64(len(e.items))*24
}

// put caches e under k at time now, evicting expired and then the oldest entries to stay within
// the bounds, and reports whether it was cached.
func (qc *queryCache) put(k string, e *execution, now time.Time) bool {
	if e.cost() > maxQueryCacheBytes {
		return false
	}
	qc.mu.Lock()
	defer qc.mu.Unlock()
	e.at = now
	if old, ok := qc.m[k]; ok {
		qc.bytes -= old.cost()
	} else {
		qc.order = append(qc.order, k)
	}
	qc.m[k] = e
	qc.bytes += e.cost()
	for len(qc.order) > 0 {
		first := qc.m[qc.order[0]]
		if first != nil && len(qc.order) <= maxCachedQueries && qc.bytes <= maxQueryCacheBytes && now.Sub(first.at) <= maxQueryCacheAge {
			break
		}
		if first != nil {
			qc.bytes -= first.cost()
			delete(qc.m, qc.order[0])
		}
		qc.order = qc.order[1:]
	}
	return true
}

// size reports the entries and bytes the cache holds.
func (qc *queryCache) size() (int, int64) {
	qc.mu.Lock()
	defer qc.mu.Unlock()
	return len(qc.m), qc.bytes
}

// get returns the execution cached under k for a request with binding bind, or nil.
func (qc *queryCache) get(k, bind string, now time.Time) *execution {
	qc.mu.Lock()
	defer qc.mu.Unlock()
	if e := qc.m[k]; e != nil && e.bind == bind && now.Sub(e.at) <= maxQueryCacheAge {
		return e
	}
	return nil
}

// newCacheKey is the key of a cached execution: 128 random bits, not a sequence a client could
// guess (it was the next activity id).
func newCacheKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// tokenBinding is what a continuation token is bound to: a keyed hash (HMAC-SHA256 under a key
// derived from the account key, truncated to 128 bits) of the kind of feed, the container's
// resource id, and for a query its text, its parameters and the partition key and range it was
// addressed to. A token is accepted only with the request it was issued for (issue 30: a token of
// query A on container c, sent with another query on another container, returned A's items).
func (s *Server) tokenBinding(kind string, c *container, q *request, text string, params map[string]any) string {
	mac := hmac.New(sha256.New, s.tokenKey)
	for _, part := range []string{kind, c.rid, text, q.header("X-Ms-Documentdb-Partitionkey"), q.header("X-Ms-Documentdb-Partitionkeyrangeid")} {
		io.WriteString(mac, part)
		mac.Write([]byte{0})
	}
	if len(params) > 0 {
		b, _ := json.Marshal(params) // map keys sorted: one encoding per set of values
		mac.Write(b)
	}
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:16])
}

// parseCache keeps parsed queries by text: a parsed Query is immutable and safe for concurrent
// use, and the probe runs the same few query texts many times, once per page.
type parseCache struct {
	mu sync.RWMutex
	m  map[string]*sql.Query
}

// maxParsed bounds the cache; past it the cache starts over (texts are few in practice).
const maxParsed = 1024

func (pc *parseCache) parse(text string) (*sql.Query, error) {
	pc.mu.RLock()
	q := pc.m[text]
	pc.mu.RUnlock()
	if q != nil {
		return q, nil
	}
	q, err := sql.Parse(text)
	if err != nil {
		return nil, err
	}
	pc.mu.Lock()
	if pc.m == nil || len(pc.m) >= maxParsed {
		pc.m = map[string]*sql.Query{}
	}
	pc.m[text] = q
	pc.mu.Unlock()
	return q, nil
}

// continuation is the position of a paged query or read feed.
type continuation struct {
	Range  int    `json:"r"`
	Offset int    `json:"o"`
	Key    string `json:"k,omitempty"`
	// Seq is, in a read feed, the sequence number of the last item sent: the offset is where it
	// was, and a compaction of the partition's list in between moves it (docList.resume).
	Seq uint64 `json:"s,omitempty"`
	// Bind is the token's binding to its feed (tokenBinding).
	Bind string `json:"h,omitempty"`
}

// msgTokenMismatch is the 400's message for a continuation token sent with another feed.
const msgTokenMismatch = "The continuation token was not issued for this query and container: send it only with the query text, parameters, partition key and container it came from."

// parseContinuation reads a continuation token and checks it was issued for the request's feed,
// whose binding is bind (computed only when there is a token).
func parseContinuation(h string, bind func() string) (continuation, error) {
	var ct continuation
	if h == "" {
		return ct, nil
	}
	if err := json.Unmarshal([]byte(h), &ct); err != nil || ct.Range < 0 || ct.Offset < 0 {
		return ct, errf(400, "The continuation token is invalid.")
	}
	if subtle.ConstantTimeCompare([]byte(ct.Bind), []byte(bind())) != 1 {
		return ct, errf(400, "%s", msgTokenMismatch)
	}
	return ct, nil
}

// pageSize is the page size a feed request asks for (x-ms-max-item-count): absent, the default;
// -1, as many as fit (dynamicPageSize); a positive integer, that many. Anything else is a 400, as
// the service answers it (it silently became 100: issue 30).
func pageSize(q *request) (int, error) {
	h := q.header("X-Ms-Max-Item-Count")
	if h == "" {
		return defaultPageSize, nil
	}
	n, err := strconv.Atoi(h)
	switch {
	case err == nil && n == -1:
		return dynamicPageSize, nil
	case err != nil || n <= 0:
		return 0, errf(400, "The x-ms-max-item-count header %q is invalid: it must be a positive integer, or -1 for as many items as fit in a page.", h)
	}
	return n, nil
}

// maxRoutedKeys bounds the keys an IN list may expand to before routing gives up and fans out.
const maxRoutedKeys = 256

// queryTargets decides which partitions a query reads. The key comes from the request header when
// present: a full key reads its logical partition, a hierarchical prefix the ranges that can hold
// it, whose index answers WHERE and whose documents are re-checked against the prefix's range
// (requestPrefix). Otherwise the key comes from WHERE, as the gateway routes it (azcosmos v1.5.0
// NewQueryItemsPager: "If the query itself contains WHERE clauses that filter down to a single
// partition, the query will be executed on that partition"): full keys read the ranges owning their
// EPKs, a MultiHash prefix the ranges overlapping [prefixEPK, prefixEPK+"FF"), and anything else
// fans out to every range.
//
// cross reports a cross-partition query in the gateway's sense: one that does not name a single
// logical partition, by a full key in the header or one full key pinned by WHERE ("filters on only
// some of the partition keys a container defines" counts as cross-partition, same source). It
// does not depend on how many physical partitions hold the data.
func (s *Server) queryTargets(q *request, c *container, pq *sql.Query, params map[string]any) (parts []*partition, lpk string, cross bool, err error) {
	if id := q.header("X-Ms-Documentdb-Partitionkeyrangeid"); id != "" {
		// One partition key range, as SDK query pipelines address it (queryplan.go).
		p, err := c.rangeByID(id)
		if err != nil {
			return nil, "", false, err
		}
		// A hierarchical-key prefix the application gives in the request options goes with each
		// range's query: the range re-checks it on every document (requestPrefix).
		if vals, present, err := parsePKHeader(q.header("X-Ms-Documentdb-Partitionkey")); err == nil && present &&
			c.pk.Kind == kindMultiHash && len(vals) > 0 && len(vals) < len(c.pk.Paths) {
			return []*partition{p}, c.requestPrefix(pq, params, vals), false, nil
		}
		return []*partition{p}, "", false, nil
	}
	vals, present, err := parsePKHeader(q.header("X-Ms-Documentdb-Partitionkey"))
	if err != nil {
		return nil, "", false, errf(400, "%s", err.Error())
	}
	switch {
	case !present:
		_, single := pq.SingleKey(c.pk.parts, params)
		return c.routeByWhere(pq, params), c.wherePrefix(pq, params, single), !single, nil
	case len(vals) == len(c.pk.Paths):
		lpk = canonicalPK(vals)
		return []*partition{c.partitionFor(effectivePartitionKey(c.pk.Kind, c.pk.Version, vals))}, lpk, false, nil
	case c.pk.Kind == kindMultiHash && len(vals) < len(c.pk.Paths):
		lo := effectivePartitionKey(c.pk.Kind, c.pk.Version, vals)
		return c.partitionsOverlapping(lo, lo+"FF"), c.requestPrefix(pq, params, vals), true, nil
	}
	return nil, "", false, errf(400, "Partition key provided either doesn't correspond to definition in the collection or doesn't match partition key field values specified in the document.")
}

// requestPrefix is the scope of a query whose request carries the hierarchical-key prefix vals
// (a recheckKey): the request routes to the ranges the prefix's effective-partition-key range
// overlaps, but that range is not an index term — the index is per physical partition — so the
// service filters by it at runtime, on every document the index returns for the WHERE clause
// (azure-cosmos-dotnet-v3 #4248, a maintainer's explanation: "the index is for the entire
// physical partition and therefore the epk filter needs to be re-evaluated at runtime"; efcore
// #38598: the prefix lifted out of WHERE "forgo[es] the index and scan[s] the physical
// partition"). With the same prefix pinned in WHERE as well, the index narrows to its documents as
// for a prefix in WHERE alone (wherePrefix), and the runtime check still loads each one, so an
// aggregate is not answered from the index (#3936); with fewer levels (or none) in WHERE, the index
// reads whatever WHERE pins, up to the whole physical partition. Assumed: the size of the effect
// depends on the SDK version and the service's query engine, which no document pins down.
func (c *container) requestPrefix(pq *sql.Query, params map[string]any, vals []any) string {
	n := 0
	for _, vs := range pq.KeyEqualities(c.pk.parts, params) {
		if n >= len(vals) || len(vs) != 1 || !sameKeyValue(vs[0], vals[n]) {
			break
		}
		n++
	}
	scope := ""
	if n > 0 {
		scope = prefixKey(vals[:n])
	}
	return recheckMark + scope + recheckMark + prefixKey(vals)
}

// recheckMark separates a recheckKey's parts: the scope the index reads (a prefixKey, or "" for
// the whole physical partition) and the prefixKey the service re-checks on each document.
const recheckMark = "\x1f"

// isRecheckKey reports whether lpk is a requestPrefix scope.
func isRecheckKey(lpk string) bool { return strings.HasPrefix(lpk, recheckMark) }

// splitRecheck splits a requestPrefix scope into the scope the index reads and the prefix re-checked.
func splitRecheck(lpk string) (scope, recheck string) {
	scope, recheck, _ = strings.Cut(strings.TrimPrefix(lpk, recheckMark), recheckMark)
	return scope, recheck
}

// sameKeyValue reports whether a WHERE equality's value is the request's key value at that level,
// as their canonical keys compare.
func sameKeyValue(a, b any) bool { return canonicalPK([]any{a}) == canonicalPK([]any{b}) }

// wherePrefix is the prefixKey of the hierarchical-key levels WHERE pins to one value each from the
// first, when they are a prefix (not the full key, which single reports): "" otherwise.
func (c *container) wherePrefix(pq *sql.Query, params map[string]any, single bool) string {
	if single || c.pk.Kind != kindMultiHash {
		return ""
	}
	var vals []any
	for _, vs := range pq.KeyEqualities(c.pk.parts, params) {
		if len(vs) != 1 {
			break
		}
		vals = append(vals, vs[0])
	}
	if len(vals) == 0 || len(vals) >= len(c.pk.Paths) {
		return ""
	}
	return prefixKey(vals)
}

// routeByWhere returns the partitions, in range order, that can hold documents matching the
// partition-key equalities of WHERE. With one range there is nothing to decide.
func (c *container) routeByWhere(pq *sql.Query, params map[string]any) []*partition {
	if len(c.parts) == 1 {
		return c.parts
	}
	eq := pq.KeyEqualities(c.pk.parts, params)
	// The leading levels WHERE pins; a hash of a later level alone locates nothing.
	n := 0
	for n < len(eq) && eq[n] != nil {
		if len(eq[n]) == 0 {
			// Contradictory predicates: no document matches; one range answers the empty result.
			return c.parts[:1]
		}
		n++
	}
	if n == 0 || (n < len(eq) && c.pk.Kind != kindMultiHash) {
		return c.parts
	}
	combos := 1
	for _, vs := range eq[:n] {
		combos *= len(vs)
		if combos > maxRoutedKeys {
			return c.parts
		}
	}
	hit := make(map[*partition]bool, len(c.parts))
	key := make([]any, n)
	var walk func(level int)
	walk = func(level int) {
		if level == n {
			epk := effectivePartitionKey(c.pk.Kind, c.pk.Version, key)
			if n == len(eq) {
				hit[c.partitionFor(epk)] = true
				return
			}
			for _, p := range c.partitionsOverlapping(epk, epk+"FF") {
				hit[p] = true
			}
			return
		}
		for _, v := range eq[level] {
			key[level] = v
			walk(level + 1)
		}
	}
	walk(0)
	out := make([]*partition, 0, len(hit))
	for _, p := range c.parts {
		if hit[p] {
			out = append(out, p)
		}
	}
	return out
}

func (s *Server) queryItems(q *request, c *container) (int, error) {
	if isQueryPlanRequest(q) {
		return s.queryPlan(q, c)
	}
	text, params, err := decodeQueryBody(q.body)
	if err != nil {
		return 0, err
	}
	pq, err := s.parsed.parse(text)
	if err != nil {
		return 0, errf(400, "Syntax error: %s", err.Error())
	}
	parts, lpk, cross, err := s.queryTargets(q, c, pq, params)
	if err != nil {
		return 0, err
	}
	if cross && !strings.EqualFold(q.header("X-Ms-Documentdb-Query-Enablecrosspartition"), "true") {
		return 0, crossPartitionDisabled()
	}
	// The gateway cannot serve across partitions the clauses a client must finish (ORDER BY, TOP,
	// OFFSET/LIMIT, aggregates, DISTINCT, GROUP BY): SDKs with a query engine run the plan instead.
	if cross && pq.NeedsPipeline() {
		return 0, c.unservableCrossPartition(pq, params, q.header("X-Ms-Documentdb-Partitionkey"))
	}
	bind := ""
	binding := func() string {
		if bind == "" {
			bind = s.tokenBinding("query", c, q, text, params)
		}
		return bind
	}
	ct, err := parseContinuation(q.header("X-Ms-Continuation"), binding)
	if err != nil {
		return 0, err
	}
	if ct.Range >= len(parts) {
		return 0, errf(400, "The continuation token is invalid.")
	}
	p := parts[ct.Range]
	if err := s.admit(c, p); err != nil {
		return 0, err
	}
	metricsWanted := strings.EqualFold(q.header("X-Ms-Cosmos-Populateindexmetrics"), "true")
	key := ct.Key
	size, err := pageSize(q)
	if err != nil {
		return 0, err
	}
	var ex *execution
	if key != "" {
		ex = s.queries.get(key, binding(), s.now())
	}
	switch {
	case ex != nil && ex.next != nil:
		// An ORDER BY streamed in index order: this page resumes the walk where the last stopped.
		ex, err = s.execute(c, p, lpk, pq, params, metricsWanted, &sql.Page{Size: size, MaxBytes: maxPageBytes, After: ex.next, Emitted: ct.Offset})
		if err == nil {
			return s.streamedPage(q, c, p, ct, ex, metricsWanted, len(parts), binding())
		}
		if !errors.Is(err, sql.ErrNotStreamed) {
			return 0, err
		}
		// The query no longer streams (the index policy changed between pages): run it whole and
		// go on from the items already sent, as for an execution no longer cached.
		ex, err = s.execute(c, p, lpk, pq, params, metricsWanted, nil)
		if err != nil {
			return 0, err
		}
		key = ""
	case ex == nil && ct.Offset == 0:
		ex, err = s.execute(c, p, lpk, pq, params, metricsWanted, &sql.Page{Size: size, MaxBytes: maxPageBytes})
		if err != nil {
			return 0, err
		}
		if ex.streamed {
			return s.streamedPage(q, c, p, ct, ex, metricsWanted, len(parts), binding())
		}
		key = ""
	case ex == nil:
		// A continuation whose execution is no longer cached: run the query whole again.
		ex, err = s.execute(c, p, lpk, pq, params, metricsWanted, nil)
		if err != nil {
			return 0, err
		}
		key = ""
	}
	lo := min(ct.Offset, len(ex.items))
	hi := pageEnd(ex.items, lo, size)
	pages := max((len(ex.items)+size-1)/size, 1)
	page := lo / size
	// Apportion the partition's work over its pages; the first page pays the index check.
	f := ex.facts
	if lo >= len(ex.items) && lo > 0 {
		page = pages // the empty page after a full last one (below): none of the work is its
	}
	f.DocsLoaded = share(ex.facts.DocsLoaded, page, pages)
	f.BytesLoaded = int64(share(int(ex.facts.BytesLoaded), page, pages))
	f.IndexLookups = share(ex.facts.IndexLookups, page, pages)
	if f.IndexLookups == 0 && ex.facts.IndexLookups > 0 && page < pages {
		// Every page is a request of its own that resumes the index lookup and pays its check
		// (cost.QueryPages): a seek reads no entries to share out, so the lookup is counted here.
		f.IndexLookups = 1
	}
	f.JoinRows = share(ex.facts.JoinRows, page, pages)
	f.FunctionCalls = share(ex.facts.FunctionCalls, page, pages)
	// A full index scan's values are shared apart from the other entries, so that no page carries
	// more of them than of the entries they are part of.
	f.IndexScanValues = share(ex.facts.IndexScanValues, page, pages)
	f.IndexEntriesRead = share(ex.facts.IndexEntriesRead-ex.facts.IndexScanValues, page, pages) + f.IndexScanValues
	f.DocsEvaluated = share(ex.facts.DocsEvaluated, page, pages)
	f.IndexReads = nil
	if page == 0 {
		f.IndexReads = partitionReads(ex.facts.IndexReads, p.id)
	}
	f.DocsOutput = hi - lo
	f.BytesOutput = 0
	for _, it := range ex.items[lo:hi] {
		f.BytesOutput += int64(len(it))
	}
	f.PartitionsChecked = 0
	if page == 0 {
		f.PartitionsChecked = 1
	}
	f.Consistency = q.consistency()
	q.charge = s.card().Query(f)
	s.observe(q, nil, []cost.QueryFacts{f}, q.charge)
	s.consume(c, p, q.charge)

	more := hi < len(ex.items)
	if cross && !more && hi-lo == size && hi > lo {
		// A cross-partition page filled by its item count does not look past its last item: it
		// carries a continuation, and the next page, finding nothing, is empty. The emulator's
		// SDK suite holds the service to this (azcosmos v1.5.0 TestCrossPartitionQuery: 20 items
		// over two logical partitions, pages of 5, come in 5 pages).
		more = true
	}
	var next string
	if more || ct.Range+1 < len(parts) {
		if more && key == "" {
			key = newCacheKey()
			ex.bind = binding()
			if !s.queries.put(key, ex, s.now()) {
				key = "" // too large to keep: the next page executes the query again
			}
		}
		next = nextPage(ct, more, hi, key, len(parts), binding())
	}
	pageHeaders(q, p, next, hi-lo)
	setHeader(q.out, "x-ms-session-token", p.id+":-1#"+strconv.FormatInt(s.lsn.Load(), 10))
	setHeader(q.out, "x-ms-documentdb-query-metrics", queryMetrics(f, ex.took))
	setHeader(q.out, cost.FactsHeader, cost.FactsText(f))
	if metricsWanted && ex.metrics != nil {
		setHeader(q.out, "x-ms-cosmos-index-utilization", indexUtilization(ex.metrics))
	}
	return s.reply(q, 200, envelope(c.rid, ex.items[lo:hi]))
}

// streamedPage answers one page of an ORDER BY streamed in index order (sql.OrderedSource). Its
// facts are its own walk's: the documents it loaded and their index entries; the first page also
// pays for checking the partition and the index lookup, as the first page of any query does. A
// walk that stopped before the end is cached under a new key for the next page to resume.
func (s *Server) streamedPage(q *request, c *container, p *partition, ct continuation, ex *execution, metricsWanted bool, ranges int, bind string) (int, error) {
	f := ex.facts
	first := ct.Offset == 0
	if !first {
		f.IndexLookups = 0
		f.IndexReads = nil
	} else {
		f.IndexReads = partitionReads(ex.facts.IndexReads, p.id)
		f.PartitionsChecked = 1
	}
	f.DocsOutput = len(ex.items)
	f.BytesOutput = 0
	for _, it := range ex.items {
		f.BytesOutput += int64(len(it))
	}
	f.Consistency = q.consistency()
	q.charge = s.card().Query(f)
	s.observe(q, nil, []cost.QueryFacts{f}, q.charge)
	s.consume(c, p, q.charge)
	key := ""
	if ex.next != nil {
		key = newCacheKey()
		s.queries.put(key, &execution{streamed: true, next: ex.next, bind: bind}, s.now())
	}
	hi := ct.Offset + len(ex.items)
	pageHeaders(q, p, nextPage(ct, ex.next != nil, hi, key, ranges, bind), len(ex.items))
	setHeader(q.out, "x-ms-session-token", p.id+":-1#"+strconv.FormatInt(s.lsn.Load(), 10))
	setHeader(q.out, "x-ms-documentdb-query-metrics", queryMetrics(f, ex.took))
	setHeader(q.out, cost.FactsHeader, cost.FactsText(f))
	if metricsWanted && ex.metrics != nil {
		setHeader(q.out, "x-ms-cosmos-index-utilization", indexUtilization(ex.metrics))
	}
	return s.reply(q, 200, envelope(c.rid, ex.items))
}

// partitionReads labels an execution's index reads with the physical partition that made them.
func partitionReads(reads []cost.IndexRead, id string) []cost.IndexRead {
	out := make([]cost.IndexRead, len(reads))
	for i, r := range reads {
		r.Partition = id
		out[i] = r
	}
	return out
}

// share is the part of total that page (of pages) carries.
func share(total, page, pages int) int {
	if page >= pages {
		return 0
	}
	return total*(page+1)/pages - total*page/pages
}

// execute runs the query over one partition (or one logical partition) under its read lock.
// With page, an ORDER BY that streams from the partition's index returns that page only
// (execution.streamed).
func (s *Server) execute(c *container, p *partition, lpk string, pq *sql.Query, params map[string]any, metrics bool, page *sql.Page) (*execution, error) {
	start := time.Now()
	p.mu.RLock()
	defer p.mu.RUnlock() // deferred: a panic while executing must not leave the partition locked
	var recheck func(d *sql.Document) bool
	if isRecheckKey(lpk) {
		var key string
		lpk, key = splitRecheck(lpk)
		recheck = func(d *sql.Document) bool { return keyMatches(d.Ref.(*doc).lpk, key) }
	}
	src := &partSource{c: c, p: p, list: &p.all, now: s.now().Unix(), lpk: lpk}
	if lpk != "" && !isPrefixKey(lpk) {
		src.list = nil
		if lp := p.logical[lpk]; lp != nil {
			src.list = &lp.docs
		}
	}
	res, err := sql.Execute(pq, src, sql.Options{Params: params, Policy: c.policy, PopulateIndexMetrics: metrics, Search: c.search, Page: page, Rules: s.opts.Rules, PartitionKey: c.pk.parts, Recheck: recheck})
	if err != nil {
		if errors.Is(err, sql.ErrNotStreamed) {
			return nil, err // the caller runs the query whole
		}
		return nil, queryError(err)
	}
	ex := &execution{items: make([][]byte, len(res.Items)), facts: res.Facts, metrics: res.IndexMetrics,
		streamed: res.Streamed && page != nil, next: res.Next}
	for i, it := range res.Items {
		if res.Stored != nil && res.Stored[i] != nil {
			ex.items[i] = res.Stored[i].Ref.(*doc).raw // a stored item returned whole: its own bytes
			continue
		}
		b, err := json.Marshal(it)
		if err != nil {
			return nil, errf(400, "The query result cannot be encoded: %v", err)
		}
		ex.items[i] = b
		ex.built += int64(cap(b))
	}
	ex.took = time.Since(start)
	return ex, nil
}

// queryError maps the query package's errors to the service's 400s.
func queryError(err error) error {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	if fe := faultError(err); fe != nil {
		return fe
	}
	return errf(400, "%s", err.Error())
}

// faultError is the 400 of a query or condition the evaluator failed on (sql.EvalFault): the input
// brought it out, and ServeHTTP logs it with the request's activity id. nil for any other error.
func faultError(err error) *apiError {
	var f *sql.EvalFault
	if errors.As(err, &f) {
		return &apiError{status: 400, msg: f.Error(), fault: f}
	}
	return nil
}

// envelope renders a page of documents in the service's feed envelope.
func envelope(rid string, items [][]byte) []byte {
	n := 64
	for _, it := range items {
		n += len(it) + 1
	}
	var b bytes.Buffer
	b.Grow(n)
	b.WriteString(`{"_rid":"`)
	b.WriteString(rid)
	b.WriteString(`","Documents":[`)
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(it)
	}
	b.WriteString(`],"_count":`)
	b.WriteString(strconv.Itoa(len(items)))
	b.WriteByte('}')
	return b.Bytes()
}

// queryMetrics renders x-ms-documentdb-query-metrics in the service's key=value;... format.
func queryMetrics(f cost.QueryFacts, took time.Duration) string {
	ms := float64(took.Microseconds()) / 1000
	util := 0.0
	if f.DocsLoaded > 0 {
		util = float64(f.DocsOutput) / float64(f.DocsLoaded)
	}
	return fmt.Sprintf("totalExecutionTimeInMs=%.2f;queryCompileTimeInMs=0.00;queryLogicalPlanBuildTimeInMs=0.00;"+
		"queryPhysicalPlanBuildTimeInMs=0.00;queryOptimizationTimeInMs=0.00;VMExecutionTimeInMs=%.2f;"+
		"indexLookupTimeInMs=0.00;documentLoadTimeInMs=0.00;systemFunctionExecuteTimeInMs=0.00;"+
		"userFunctionExecuteTimeInMs=0.00;retrievedDocumentCount=%d;retrievedDocumentSize=%d;"+
		"outputDocumentCount=%d;outputDocumentSize=%d;writeOutputTimeInMs=0.00;indexUtilizationRatio=%.2f",
		ms, ms, f.DocsLoaded, f.BytesLoaded, f.DocsOutput, f.BytesOutput, util)
}

// indexUtilization renders x-ms-cosmos-index-utilization: base64 of the index metrics JSON.
func indexUtilization(m *sql.IndexMetrics) string {
	type single struct {
		FilterExpression string `json:"FilterExpression"`
		IndexSpec        string `json:"IndexSpec"`
		FilterPreciseSet bool   `json:"FilterPreciseSet"`
		IndexPreciseSet  bool   `json:"IndexPreciseSet"`
		IndexImpactScore string `json:"IndexImpactScore"`
	}
	type composite struct {
		IndexSpecs       []string `json:"IndexSpecs"`
		IndexPreciseSet  bool     `json:"IndexPreciseSet"`
		IndexImpactScore string   `json:"IndexImpactScore"`
	}
	singles := func(in []sql.SingleIndex) []single {
		out := make([]single, 0, len(in))
		for _, x := range in {
			out = append(out, single{x.FilterExpression, x.IndexSpec, true, true, x.IndexImpactScore})
		}
		return out
	}
	composites := func(in []sql.CompositeIndex) []composite {
		out := make([]composite, 0, len(in))
		for _, x := range in {
			out = append(out, composite{x.IndexSpecs, true, x.IndexImpactScore})
		}
		return out
	}
	b, _ := json.Marshal(map[string]any{
		"UtilizedSingleIndexes":     singles(m.UtilizedSingleIndexes),
		"PotentialSingleIndexes":    singles(m.PotentialSingleIndexes),
		"UtilizedCompositeIndexes":  composites(m.UtilizedCompositeIndexes),
		"PotentialCompositeIndexes": composites(m.PotentialCompositeIndexes),
	})
	return base64.StdEncoding.EncodeToString(b)
}

// readFeed lists a container's items (GET docs), one or more pages per physical partition.
func (s *Server) readFeed(q *request, c *container) (int, error) {
	if isChangeFeed(q) {
		return s.changeFeed(q, c)
	}
	bind := s.tokenBinding("feed", c, q, "", nil)
	ct, err := parseContinuation(q.header("X-Ms-Continuation"), func() string { return bind })
	if err != nil {
		return 0, err
	}
	parts := c.parts
	if id := q.header("X-Ms-Documentdb-Partitionkeyrangeid"); id != "" {
		parts = nil
		for _, p := range c.parts {
			if p.id == id {
				parts = []*partition{p}
			}
		}
		if parts == nil {
			return 0, errf(404, "Partition key range %q does not exist.", id)
		}
	}
	if ct.Range >= len(parts) {
		return 0, errf(400, "The continuation token is invalid.")
	}
	p := parts[ct.Range]
	if err := s.admit(c, p); err != nil {
		return 0, err
	}
	size, err := pageSize(q)
	if err != nil {
		return 0, err
	}
	now := s.now().Unix()
	var items [][]byte
	var loaded int64
	p.mu.RLock()
	pos := p.all.resume(ct)
	var last uint64
	var more bool
	func() {
		defer p.mu.RUnlock()
		for ; pos < len(p.all.items) && len(items) < size; pos++ {
			d := p.all.items[pos]
			if d == nil || d.expired(now) {
				continue
			}
			if len(items) > 0 && loaded+int64(d.size) > maxPageBytes {
				break
			}
			items = append(items, d.raw)
			loaded += int64(d.size)
			last = d.seq
		}
		more = pos < len(p.all.items)
	}()
	f := cost.QueryFacts{DocsLoaded: len(items), BytesLoaded: loaded, DocsOutput: len(items), BytesOutput: loaded, Consistency: q.consistency()}
	if ct.Offset == 0 {
		f.PartitionsChecked = 1
	}
	q.charge = s.card().Query(f)
	s.observe(q, nil, []cost.QueryFacts{f}, q.charge)
	s.consume(c, p, q.charge)
	next := nextPage(ct, more, pos, "", len(parts), bind)
	if more && last != 0 {
		next = nextFeedPage(ct, pos, last, bind)
	}
	pageHeaders(q, p, next, len(items))
	return s.reply(q, 200, envelope(c.rid, items))
}

// nextPage renders the continuation after a page of a feed (a query or a read feed): the same
// range from offset when it has more, else the next of the ranges, else none ("").
func nextPage(ct continuation, more bool, offset int, key string, ranges int, bind string) string {
	var next continuation
	switch {
	case more:
		next = continuation{Range: ct.Range, Offset: offset, Key: key, Bind: bind}
	case ct.Range+1 < ranges:
		next = continuation{Range: ct.Range + 1, Bind: bind}
	default:
		return ""
	}
	b, _ := json.Marshal(next)
	return string(b)
}

// pageHeaders sets the headers of a feed page: its continuation, the range that answered and the
// number of items.
func pageHeaders(q *request, p *partition, next string, count int) {
	if next != "" {
		setHeader(q.out, "x-ms-continuation", next)
	}
	setHeader(q.out, "x-ms-documentdb-partitionkeyrangeid", p.id)
	setHeader(q.out, "x-ms-item-count", strconv.Itoa(count))
}
