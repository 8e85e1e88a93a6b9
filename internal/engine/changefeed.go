package engine

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cosmosdv/validate/internal/cost"
)

// The change feed in latest-version mode (change-feed.md, nosql/change-feed-pull-model.md, and
// the REST "List Documents" incremental feed): a GET on a container's docs with
// "A-IM: Incremental Feed" lists the items created or replaced after a position, each once in its
// latest version, in the order of their last modification; deletes and items expired by TTL do
// not appear. The position travels in If-None-Match as the etag of the previous page ("*" = now,
// absent = the beginning, or If-Modified-Since = a point in time); a page answers with the etag to
// continue from, and 304 Not Modified when nothing changed. The range read is the physical
// partition named by x-ms-documentdb-partitionkeyrangeid (what azcosmos v1.5.0 sends for every
// feed range it drains, building composite continuations across ranges itself), optionally
// narrowed to one logical partition by x-ms-documentdb-partitionkey; without a range id the whole
// container.
//
// Every write takes its own number from the engine's sequence (the LSN the session tokens carry),
// so an etag is one number valid across ranges, and a page boundary never splits a write.

// isChangeFeed reports a change-feed read (the SDK's cosmosHeaderChangeFeed).
func isChangeFeed(q *request) bool {
	return strings.EqualFold(q.header("A-Im"), "Incremental Feed")
}

// changeLog is a partition's items in the order of their last write. An entry is stale once its
// item is replaced, deleted or expired (its logical partition no longer holds that version).
type changeLog struct {
	docs  []*doc // in LSN order
	stale int
}

// record appends a new version (the caller holds p.mu for writing and assigned nd.lsn).
func (l *changeLog) record(nd *doc) { l.docs = append(l.docs, nd) }

// retire counts versions that left the partition and compacts the log when half of it is stale.
// The caller holds p.mu for writing.
func (l *changeLog) retire(p *partition, n int) {
	l.stale += n
	if n == 0 || len(l.docs) < 64 || l.stale < len(l.docs)/2 {
		return
	}
	kept := 0
	for _, d := range l.docs {
		if p.current(d) {
			l.docs[kept] = d
			kept++
		}
	}
	clear(l.docs[kept:])
	l.docs, l.stale = l.docs[:kept], 0
}

// current reports whether d is the version its logical partition holds.
func (p *partition) current(d *doc) bool {
	lp := p.logical[d.lpk]
	return lp != nil && lp.byID[d.id] == d
}

// lockedChangesAfter is changesAfter under the partition's read lock.
func (p *partition) lockedChangesAfter(from, upto int64, n int, keep func(*doc) bool) []*doc {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.changesAfter(from, upto, n, keep)
}

// changesAfter returns up to n current versions with from < lsn <= upto, in LSN order, that
// pass keep. The caller holds p.mu for reading.
func (p *partition) changesAfter(from, upto int64, n int, keep func(*doc) bool) []*doc {
	log := p.changes.docs
	i := sort.Search(len(log), func(i int) bool { return log[i].lsn > from })
	var out []*doc
	for ; i < len(log) && len(out) < n; i++ {
		d := log[i]
		if d.lsn > upto {
			break
		}
		if p.current(d) && keep(d) {
			out = append(out, d)
		}
	}
	return out
}

// parseFeedETag reads an If-None-Match position: a quoted or bare LSN, or "*" for now.
func parseFeedETag(v string, now int64) (int64, error) {
	if v == "*" {
		return now, nil
	}
	n, err := strconv.ParseInt(strings.Trim(v, `"`), 10, 64)
	if err != nil || n < 0 {
		return 0, errf(400, "The change feed continuation (If-None-Match %q) is not valid for this container.", v)
	}
	return n, nil
}

func feedETag(lsn int64) string { return `"` + strconv.FormatInt(lsn, 10) + `"` }

// changeFeed serves one page of the latest-version change feed.
func (s *Server) changeFeed(q *request, c *container) (int, error) {
	parts := c.parts
	if id := q.header("X-Ms-Documentdb-Partitionkeyrangeid"); id != "" {
		parts = nil
		for _, p := range c.parts {
			if p.id == id {
				parts = []*partition{p}
			}
		}
		if parts == nil {
			// The range is gone (a split): the SDK refreshes its ranges on 410/1002.
			return 0, &apiError{status: 410, sub: 1002, msg: "The partition key range " + strconv.Quote(id) + " is gone."}
		}
	}
	answering := parts[0] // the range named in the response
	lpk := ""
	if h := q.header("X-Ms-Documentdb-Partitionkey"); h != "" {
		vals, _, err := parsePKHeader(h)
		if err != nil {
			return 0, errf(400, "%s", err.Error())
		}
		if len(vals) != len(c.pk.Paths) {
			return 0, errf(400, "Partition key provided either doesn't correspond to definition in the collection or doesn't match partition key field values specified in the document.")
		}
		lpk = canonicalPK(vals)
		owner := c.partitionFor(effectivePartitionKey(c.pk.Kind, c.pk.Version, vals))
		kept := parts[:0:0]
		for _, p := range parts {
			if p == owner {
				kept = append(kept, p)
			}
		}
		parts = kept
	}
	// Everything committed up to upto is visible once each partition's lock is taken: a write
	// numbers its items while it holds its partition's lock.
	upto := s.lsn.Load()
	from := int64(0)
	var since int64 = -1
	if v := q.header("If-None-Match"); v != "" {
		var err error
		if from, err = parseFeedETag(v, upto); err != nil {
			return 0, err
		}
	} else if v := q.header("If-Modified-Since"); v != "" {
		t, err := http.ParseTime(v)
		if err != nil {
			// azcosmos v1.5.0 formats it with time.RFC1123 in UTC: "Mon, 02 Jan 2006 15:04:05 UTC".
			t, err = time.Parse(time.RFC1123, v)
		}
		if err != nil {
			return 0, errf(400, "The If-Modified-Since header %q is not an HTTP date.", v)
		}
		since = t.Unix()
	}
	size, err := pageSize(q)
	if err != nil {
		return 0, err
	}
	now := s.now().Unix()
	keep := func(d *doc) bool {
		return !d.expired(now) && d.ts >= since && (lpk == "" || d.lpk == lpk)
	}
	var page []*doc
	for _, p := range parts {
		if err := s.admit(c, p); err != nil {
			return 0, err
		}
		page = append(page, p.lockedChangesAfter(from, upto, size, keep)...)
	}
	if len(parts) > 1 {
		sort.Slice(page, func(i, j int) bool { return page[i].lsn < page[j].lsn })
	}
	next := max(upto, from)
	full := len(page) >= size
	if len(page) > size {
		page = page[:size]
	}
	var items [][]byte
	var bytes int64
	for _, d := range page {
		if len(items) > 0 && bytes+int64(d.size) > maxPageBytes {
			full = true
			break
		}
		items = append(items, d.raw)
		bytes += int64(d.size)
	}
	if full && len(items) > 0 {
		next = page[len(items)-1].lsn // more may follow: continue after the last item sent
	}
	q.charge = s.changeFeedCharge(len(items), bytes, q.consistency())
	s.consume(c, answering, q.charge)
	etag := feedETag(next)
	setHeader(q.out, "Etag", etag)
	setHeader(q.out, "x-ms-continuation", etag)
	setHeader(q.out, "x-ms-documentdb-partitionkeyrangeid", answering.id)
	setHeader(q.out, "x-ms-item-count", strconv.Itoa(len(items)))
	setHeader(q.out, "x-ms-last-state-change-utc", time.Unix(now, 0).UTC().Format(http.TimeFormat))
	if len(items) == 0 {
		return s.reply(q, http.StatusNotModified, nil)
	}
	return s.reply(q, 200, envelope(c.rid, items))
}

// changeFeedCharge prices a change-feed page. The docs publish no per-page figure for the change
// feed (change-feed.md says only that reading it consumes request units), so a page is priced as a
// read-feed page returning the same items (assumed; docs/cost-model.md): the query minimum plus
// the documents loaded and returned. A 304 pays the minimum.
func (s *Server) changeFeedCharge(n int, bytes int64, cons cost.Consistency) float64 {
	return s.card().Query(cost.QueryFacts{DocsLoaded: n, BytesLoaded: bytes, DocsOutput: n, BytesOutput: bytes,
		PartitionsChecked: 1, Consistency: cons})
}
