package engine

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/engine/index"
	"github.com/cosmosdv/validate/internal/engine/jsondoc"
)

// target resolves the physical and logical partition of a point operation from the key header,
// falling back to the body's key when the header is absent.
func (s *Server) target(q *request, c *container, body map[string]any) (vals []any, lpk string, p *partition, err error) {
	vals, present, err := parsePKHeader(q.header("X-Ms-Documentdb-Partitionkey"))
	if err != nil {
		return nil, "", nil, errf(400, "%s", err.Error())
	}
	if !present {
		if body == nil {
			return nil, "", nil, errf(400, "PartitionKey value must be supplied for this operation.")
		}
		vals = c.pkFromBody(body)
	}
	if len(vals) != len(c.pk.Paths) {
		return nil, "", nil, errf(400, "Partition key provided either doesn't correspond to definition in the collection or doesn't match partition key field values specified in the document.")
	}
	lpk = canonicalPK(vals)
	if body != nil && canonicalPK(c.pkFromBody(body)) != lpk {
		return nil, "", nil, &apiError{status: 400, sub: subPKMismatch, msg: "PartitionKey extracted from document doesn't match the one specified in the header."}
	}
	p = c.partitionFor(effectivePartitionKey(c.pk.Kind, c.pk.Version, vals))
	return vals, lpk, p, nil
}

// expiry computes when an item expires (unix seconds, 0 = never) from its ttl and the container's
// defaultTtl (time-to-live.md: TTL applies only when the container's defaultTtl is set; an item's
// ttl overrides it, -1 meaning never).
func (c *container) expiry(body map[string]any, ts int64) int64 {
	if c.defaultTTL == nil {
		return 0
	}
	ttl := *c.defaultTTL
	if v, ok := body["ttl"].(float64); ok && validItemTTL(v) {
		ttl = int(v)
	}
	if ttl <= 0 {
		return 0
	}
	return ts + int64(ttl)
}

// maxTTL is the largest time to live, of a container or an item: 2,147,483,647 seconds
// (time-to-live.md). An item's ttl "must be a nonzero positive integer less than or equal to
// 2147483647, or -1" (same page); 9223372036854774784 overflowed the expiry and the item vanished
// at once (issue 30).
const maxTTL = math.MaxInt32

func validItemTTL(v float64) bool { return v == -1 || (v >= 1 && v <= maxTTL && v == math.Trunc(v)) }

// checkItemTTL refuses an item whose ttl property the service would refuse.
func checkItemTTL(body map[string]any) error {
	v, ok := body["ttl"]
	if !ok {
		return nil
	}
	if f, isNum := v.(float64); isNum && validItemTTL(f) {
		return nil
	}
	return errf(400, "The item's ttl (%s) is invalid: it must be -1 (never expire) or a whole number of seconds from 1 to %d; omit it for the container's default.", jsonText(v), maxTTL)
}

// jsonText renders a decoded value for a message, shortened.
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

func (d *doc) expired(now int64) bool { return d.expires != 0 && now >= d.expires }

// buildDoc assigns system properties and renders the stored JSON. raw, when given, is the client's
// JSON of body, and body must have been decoded from it by jsondoc; when it carries no system
// properties they are appended to it — in raw's own array when readBody left the room, else in a
// copy — instead of re-encoding body.
//
// The stored body, and the item's id and key values, always point into the stored JSON: each item
// holds its text once and holds nothing else alive (the 100,000-item memory budget in
// docs/performance.md depends on it). When the stored JSON is not raw's array, the body is decoded
// again from it. That is safe because the stored JSON is never written after buildDoc returns: it
// is only sent, saved and copied.
func (s *Server) buildDoc(c *container, body map[string]any, raw []byte, id, lpk string, vals []any, rid string) (*doc, error) {
	if err := checkItemTTL(body); err != nil {
		return nil, err
	}
	ts := s.now().Unix()
	if rid == "" {
		c.docSeqMu.Lock()
		c.docSeq++
		rid = ridDoc(c.db.ridNum, c.ridNum, c.docSeq)
		c.docSeqMu.Unlock()
	}
	etag := s.newETag()
	self := "dbs/" + c.db.rid + "/colls/" + c.rid + "/docs/" + rid + "/"
	hadSystem := false
	for _, k := range index.SystemProperties {
		if _, ok := body[k]; ok {
			hadSystem = true
		}
	}
	var out []byte
	trimmed := bytes.TrimRight(raw, " \t\r\n")
	if raw != nil && !hadSystem && len(trimmed) > 2 && trimmed[len(trimmed)-1] == '}' {
		base := trimmed[:len(trimmed)-1]
		if cap(base)-len(base) < systemRoom {
			base = append(make([]byte, 0, len(base)+systemRoom), base...)
		}
		// Appending from the closing brace on leaves every string body points to untouched.
		out = appendSystem(base, rid, self, etag, ts)
		if unsafe.SliceData(out) != unsafe.SliceData(raw) {
			body = nil // out is not the array body was decoded from
		}
	} else {
		body["_rid"], body["_self"], body["_etag"], body["_attachments"], body["_ts"] = rid, self, etag, "attachments/", float64(ts)
		var err error
		if out, err = json.Marshal(body); err != nil {
			return nil, errf(400, "The document cannot be encoded: %v", err)
		}
		body = nil
	}
	if len(out) > maxItemBytes {
		return nil, errf(413, "Request size is too large: an item may be at most 2 MB.")
	}
	if cap(out)-len(out) > maxSpare {
		// More spare capacity than an item should keep for its lifetime (trailing whitespace, a body
		// whose length was not announced, an encoder's buffer): store an exact-size copy.
		out = append(make([]byte, 0, len(out)), out...)
		body = nil
	}
	if body != nil {
		// The rid and self link stand verbatim in out: point to them there too.
		text := unsafe.String(unsafe.SliceData(out), len(out))
		i := len(trimmed) - 1 + len(`,"_rid":"`)
		rid = text[i : i+len(rid)]
		i += len(rid) + len(`","_self":"`)
		self = text[i : i+len(self)]
		body["_rid"], body["_self"], body["_etag"], body["_attachments"], body["_ts"] = rid, self, etag, "attachments/", float64(ts)
	} else {
		var err error
		if body, err = jsondoc.DecodeObject(out); err != nil {
			return nil, errf(400, "The document cannot be encoded: %v", err)
		}
		// The id and key values given point into the request; take them from the stored JSON.
		if v, ok := body["id"].(string); ok && v == id {
			id = v
		}
		if v := c.pkFromBody(body); canonicalPK(v) == lpk {
			vals = v
		}
		rid, _ = body["_rid"].(string)
	}
	d := &doc{raw: out, size: len(out), fresh: body, id: id, lpk: lpk, pkVals: vals, rid: rid, etag: etag, ts: ts}
	d.expires = c.expiry(body, ts)
	d.terms = c.policy.Terms(body)
	return d, nil
}

// maxSpare is the most unused capacity a stored item's JSON may keep beyond its length.
const maxSpare = 64

// appendSystem appends the system properties and the closing brace to the text of a JSON object
// that stops just before its closing brace.
func appendSystem(out []byte, rid, self, etag string, ts int64) []byte {
	out = append(out, `,"_rid":"`...)
	out = append(out, rid...)
	out = append(out, `","_self":"`...)
	out = append(out, self...)
	out = append(out, `","_etag":`...)
	out = strconv.AppendQuote(out, etag) // an etag is printable ASCII: Go quoting is JSON quoting
	out = append(out, `,"_attachments":"attachments/","_ts":`...)
	out = strconv.AppendInt(out, ts, 10)
	return append(out, '}')
}

// systemRoom is how many bytes appendSystem adds to a stored item: the room readBody leaves after
// a request body so that the item is stored in the request's own buffer. Every part of it has a
// fixed length (rids, etags, a ten-digit timestamp).
var systemRoom = len(appendSystem(nil, ridDoc(0, 0, 0), "dbs/"+ridDB(0)+"/colls/"+ridColl(0, 0)+"/docs/"+ridDoc(0, 0, 0)+"/",
	formatETag("00000000", 0), 1<<31))

// overlay stages the effects of one or more operations on a logical partition so that a batch
// commits atomically or not at all.
type overlay struct {
	c     *container
	p     *partition
	lp    *logical // may be nil when the logical partition is new
	lpk   string
	vals  []any
	now   int64
	order []string
	docs  map[string]*doc // nil value = deleted
	// Durability (persistlog.go): logged is set once the commit's record is appended to the persist
	// log; prev holds, per entry of order, the version the commit replaced (nil: none), so that a
	// record that cannot be written is undone; resolved and durErr are the record's fate, under the
	// log's lock; nolog marks a commit that is not logged (an undo).
	logged   bool
	prev     []*doc
	resolved bool
	durErr   error
	nolog    bool
}

func (o *overlay) get(id string) *doc {
	if d, ok := o.docs[id]; ok {
		return d
	}
	if o.lp == nil {
		return nil
	}
	d := o.lp.byID[id]
	if d == nil || d.expired(o.now) {
		return nil
	}
	return d
}

func (o *overlay) put(id string, d *doc) {
	if _, ok := o.docs[id]; !ok {
		o.order = append(o.order, id)
	}
	o.docs[id] = d
}

func uniqueTuple(body map[string]any, paths [][]string) string {
	vals := make([]any, len(paths))
	for i, p := range paths {
		v, ok := lookupPath(body, p)
		if !ok {
			v = undefinedValue{}
		}
		vals[i] = v
	}
	return canonicalPK(vals)
}

// checkUnique enforces unique keys within the logical partition (unique-keys.md: uniqueness is
// per logical partition).
func (o *overlay) checkUnique(nd *doc) error {
	for i, uk := range o.c.unique {
		t := uniqueTuple(nd.body(), uk)
		if o.lp != nil && i < len(o.lp.uniq) {
			if e := o.lp.uniq[i][t]; e != nil && e.id != nd.id && !e.expired(o.now) {
				staged, ok := o.docs[e.id]
				if !ok || (staged != nil && uniqueTuple(staged.body(), uk) == t) {
					return errf(409, "Unique index constraint violation.")
				}
			}
		}
		for id, sd := range o.docs {
			if sd != nil && id != nd.id && uniqueTuple(sd.body(), uk) == t {
				return errf(409, "Unique index constraint violation.")
			}
		}
	}
	return nil
}

// commit applies the staged documents to the partition. The caller holds p.mu for writing.
func (s *Server) commit(o *overlay) {
	p, c := o.p, o.c
	lp := o.lp
	if lp == nil {
		lp = &logical{byID: map[string]*doc{}}
		p.logical[o.lpk] = lp
	}
	for len(lp.uniq) < len(c.unique) {
		lp.uniq = append(lp.uniq, map[string]*doc{})
	}
	retired := 0
	logging := s.wal != nil && !o.nolog
	if logging {
		o.prev = make([]*doc, len(o.order))
	}
	for i, id := range o.order {
		nd := o.docs[id]
		old := lp.byID[id]
		if logging {
			o.prev[i] = old
		}
		if old != nil {
			retired++
			var ob map[string]any // decoded once, and only when an index or a unique key needs it
			if p.indexed(old) || len(c.unique) > 0 {
				ob = old.body()
			}
			p.unindex(old, ob)
			for i, uk := range c.unique {
				if t := uniqueTuple(ob, uk); lp.uniq[i][t] == old {
					delete(lp.uniq[i], t)
				}
			}
		}
		switch {
		case nd == nil && old != nil:
			p.all.remove(old, false)
			lp.docs.remove(old, true)
			delete(lp.byID, id)
		case nd != nil && old != nil:
			nd.seq = old.seq
			p.all.swap(old, nd, false)
			lp.docs.swap(old, nd, true)
		case nd != nil:
			nd.seq = s.nextID()
			p.all.add(nd, false)
			lp.docs.add(nd, true)
		}
		if nd != nil {
			nd.lsn = s.lsn.Add(1)
			p.changes.record(nd)
			lp.byID[nd.id] = nd // nd.id points into the stored JSON; id may point into a request
			nb := nd.body()
			p.index(nd, nb)
			for i, uk := range c.unique {
				lp.uniq[i][uniqueTuple(nb, uk)] = nd
			}
			nd.fresh = nil // committed: from now on read from the stored JSON
		}
	}
	if lp.docs.live == 0 {
		delete(p.logical, o.lpk)
	}
	p.changes.retire(p, retired)
	s.lsn.Add(1)
	s.dirty.Store(true)
	if logging {
		s.wal.appendCommit(o)
	}
}

// itemResult is the outcome of one staged operation.
type itemResult struct {
	status int
	doc    *doc
	charge float64
	op     cost.PointOp // what charge prices (Options.Observe)
}

// priced is the result of an operation with status and document d, charged for op.
func (s *Server) priced(status int, d *doc, op cost.PointOp) itemResult {
	return itemResult{status: status, doc: d, charge: s.card().Point(op), op: op}
}

// pointOp is what the engine did in a point operation, as the cost model reads it.
func pointOp(c *container, kind cost.OpKind, nd, old *doc, patchOps int, cons cost.Consistency) cost.PointOp {
	op := cost.PointOp{Kind: kind, Consistency: cons, Regions: 1, PatchOps: patchOps}
	if nd != nil {
		op.SizeBytes, op.IndexedTerms = nd.size, nd.terms
	}
	if old != nil {
		op.OldSizeBytes = old.size
		if nd == nil {
			op.SizeBytes, op.IndexedTerms = old.size, old.terms
		} else {
			op.ChangedTerms = changedTerms(c, old.body(), nd.body())
		}
	}
	return op
}

// stage runs one operation against the overlay.
func (s *Server) stage(o *overlay, kind, id, ifMatch string, body map[string]any, raw []byte, patch *patchSpec, cons cost.Consistency) (itemResult, error) {
	c := o.c
	old := o.get(id)
	if ifMatch != "" && ifMatch != "*" && kind != "Create" && kind != "Read" && (old == nil || old.etag != ifMatch) && !(kind == "Upsert" && old == nil) {
		if old == nil && kind != "Upsert" {
			return itemResult{}, errf(404, "Entity with the specified id does not exist in the system.")
		}
		return itemResult{}, errf(412, "Operation cannot be performed because one of the specified precondition is not met.")
	}
	switch kind {
	case "Read":
		if old == nil {
			return s.priced(0, nil, pointOp(c, cost.Read, nil, nil, 0, cons)), errf(404, "Entity with the specified id does not exist in the system.")
		}
		return s.priced(200, old, pointOp(c, cost.Read, old, nil, 0, cons)), nil
	case "Delete":
		if old == nil {
			return itemResult{}, errf(404, "Entity with the specified id does not exist in the system.")
		}
		o.put(id, nil)
		return s.priced(204, nil, pointOp(c, cost.Delete, nil, old, 0, cons)), nil
	case "Patch":
		if old == nil {
			return itemResult{}, errf(404, "Entity with the specified id does not exist in the system.")
		}
		nb, err := s.applyPatch(c, old, patch)
		if err != nil {
			return itemResult{}, err
		}
		// The patched item keeps its id and key whatever the operations did (patchable refuses
		// the paths; this holds every way of reaching them).
		if nid, _ := nb["id"].(string); nid != id || canonicalPK(c.pkFromBody(nb)) != o.lpk {
			return itemResult{}, errf(400, "The patch would change the item's id or partition key, which cannot be patched.")
		}
		nd, err := s.buildDoc(c, nb, nil, id, o.lpk, o.vals, old.rid)
		if err != nil {
			return itemResult{}, err
		}
		if err := o.checkUnique(nd); err != nil {
			return itemResult{}, err
		}
		o.put(id, nd)
		return s.priced(200, nd, pointOp(c, cost.Patch, nd, old, len(patch.Operations), cons)), nil
	}
	// Create, Replace, Upsert.
	if kind == "Create" && old != nil {
		return itemResult{}, errf(409, "Entity with the specified id already exists in the system.")
	}
	if kind == "Replace" && old == nil {
		return itemResult{}, errf(404, "Entity with the specified id does not exist in the system.")
	}
	rid := ""
	if old != nil {
		rid = old.rid
	}
	nd, err := s.buildDoc(c, body, raw, id, o.lpk, o.vals, rid)
	if err != nil {
		return itemResult{}, err
	}
	if err := o.checkUnique(nd); err != nil {
		return itemResult{}, err
	}
	o.put(id, nd)
	if old == nil {
		return s.priced(201, nd, pointOp(c, cost.Create, nd, nil, 0, cons)), nil
	}
	return s.priced(200, nd, pointOp(c, cost.Replace, nd, old, 0, cons)), nil
}

func (s *Server) newOverlay(c *container, p *partition, lpk string, vals []any) *overlay {
	return &overlay{c: c, p: p, lp: p.logical[lpk], lpk: lpk, vals: vals, now: s.now().Unix(), docs: map[string]*doc{}}
}

// itemHeaders sets the per-item response headers.
func (s *Server) itemHeaders(q *request, p *partition, d *doc) {
	if d != nil {
		setHeader(q.out, "Etag", d.etag)
	}
	setHeader(q.out, "x-ms-documentdb-partitionkeyrangeid", p.id)
	setHeader(q.out, "x-ms-session-token", p.id+":-1#"+strconv.FormatInt(s.lsn.Load(), 10))
}

func minimal(q *request) bool {
	return strings.Contains(strings.ToLower(q.header("Prefer")), "return=minimal")
}

// writeItem serves create and upsert (POST docs) and replace (PUT docs/{id}).
func (s *Server) writeItem(q *request, c *container, urlID string) (int, error) {
	body, err := jsondoc.DecodeItem(q.body)
	if err != nil {
		return 0, errf(400, "The request body is not a valid JSON object: %v.", err)
	}
	id, err := validItemID(body["id"])
	if err != nil {
		return 0, err
	}
	kind := "Create"
	switch {
	case urlID != "":
		kind = "Replace"
		if id != urlID {
			return 0, errf(400, "The id in the body (%q) does not match the id in the address (%q).", id, urlID)
		}
	case strings.EqualFold(q.header("X-Ms-Documentdb-Is-Upsert"), "true"):
		kind = "Upsert"
	}
	p, res, err := s.writeOne(q, c, kind, id, body, q.body, nil)
	if err != nil {
		return 0, err
	}
	s.itemHeaders(q, p, res.doc)
	if minimal(q) {
		return s.reply(q, res.status, nil)
	}
	return s.reply(q, res.status, res.doc.raw)
}

func (s *Server) readItem(q *request, c *container, id string) (int, error) {
	_, lpk, p, err := s.target(q, c, nil)
	if err != nil {
		return 0, err
	}
	if err := s.admit(c, p); err != nil {
		return 0, err
	}
	now := s.now().Unix()
	p.mu.RLock()
	var d *doc
	if lp := p.logical[lpk]; lp != nil {
		d = lp.byID[id]
	}
	p.mu.RUnlock()
	if d != nil && d.expired(now) {
		d = nil
	}
	if d == nil {
		op := pointOp(c, cost.Read, nil, nil, 0, q.consistency())
		q.charge = s.card().Point(op)
		s.observe(q, []cost.PointOp{op}, nil, q.charge)
		s.consume(c, p, q.charge)
		return 0, errf(404, "Entity with the specified id does not exist in the system.")
	}
	op := pointOp(c, cost.Read, d, nil, 0, q.consistency())
	q.charge = s.card().Point(op)
	s.observe(q, []cost.PointOp{op}, nil, q.charge)
	s.consume(c, p, q.charge)
	s.itemHeaders(q, p, d)
	if inm := q.header("If-None-Match"); inm != "" && (inm == d.etag || inm == "*") {
		return s.reply(q, http.StatusNotModified, nil)
	}
	return s.reply(q, 200, d.raw)
}

// writeOne runs one write (Create, Replace, Upsert, Delete or Patch) in its logical partition: it
// admits it against the partition's budget, stages and commits it atomically, and charges it.
func (s *Server) writeOne(q *request, c *container, kind, id string, body map[string]any, raw []byte, patch *patchSpec) (*partition, itemResult, error) {
	vals, lpk, p, err := s.target(q, c, body)
	if err != nil {
		return nil, itemResult{}, err
	}
	if err := s.admit(c, p); err != nil {
		return nil, itemResult{}, err
	}
	var o *overlay
	res, err := func() (itemResult, error) {
		s.commitGate.RLock()
		defer s.commitGate.RUnlock()
		p.mu.Lock()
		defer p.mu.Unlock() // deferred: a panic in a patch condition must not leave the partition locked
		o = s.newOverlay(c, p, lpk, vals)
		res, err := s.stage(o, kind, id, q.header("If-Match"), body, raw, patch, q.consistency())
		if err == nil {
			s.commit(o)
		}
		return res, err
	}()
	if err == nil {
		err = s.durable(o) // acknowledged only once it is on disk
	}
	s.consume(c, p, res.charge)
	q.charge = res.charge
	if err == nil {
		s.observe(q, []cost.PointOp{res.op}, nil, q.charge)
	}
	return p, res, err
}

func (s *Server) deleteItem(q *request, c *container, id string) (int, error) {
	p, _, err := s.writeOne(q, c, "Delete", id, nil, nil, nil)
	if err != nil {
		return 0, err
	}
	s.itemHeaders(q, p, nil)
	return s.reply(q, 204, nil)
}

// throttleBucket is a one-second RU budget window of a physical partition.
type throttleBucket struct {
	window int64
	used   float64
}

// budget returns the RU/s of one physical partition of c: its own throughput, or the database's
// shared throughput, divided evenly over the partitions (partitioning-overview.md: throughput is
// split evenly across physical partitions).
func (s *Server) budget(c *container) float64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if c.offer != nil {
		return float64(c.offer.throughput()) / float64(len(c.parts))
	}
	if c.db.offer != nil {
		n := 0
		for _, x := range c.db.colls {
			if x.offer == nil {
				n += len(x.parts)
			}
		}
		return float64(c.db.offer.throughput()) / float64(max(n, 1))
	}
	return 0
}

// admit answers 429 when the partition has spent its budget for the current second.
func (s *Server) admit(c *container, p *partition) error {
	if !s.opts.Throttle {
		return nil
	}
	b := s.budget(c)
	if b <= 0 {
		return nil
	}
	now := s.now()
	p.eqMu.Lock()
	defer p.eqMu.Unlock()
	sec := now.Unix()
	if p.budget.window != sec {
		p.budget.window, p.budget.used = sec, 0
	}
	if p.budget.used >= b {
		wait := time.Unix(sec+1, 0).Sub(now)
		return &apiError{status: 429, sub: subRUBudgetExceeded, retryAfter: wait,
			msg: "Request rate is large. More Request Units may be needed, so no changes were made. Please retry this request later."}
	}
	return nil
}

// consume records a charge against the partition's current window.
func (s *Server) consume(c *container, p *partition, charge float64) {
	if !s.opts.Throttle || charge == 0 {
		return
	}
	now := s.now().Unix()
	p.eqMu.Lock()
	if p.budget.window != now {
		p.budget.window, p.budget.used = now, 0
	}
	p.budget.used += charge
	p.eqMu.Unlock()
}
