package engine

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/engine/index"
	"github.com/cosmosdv/validate/internal/engine/sql"
)

func (s *Server) decodeObject(q *request) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(q.body, &m); err != nil || m == nil {
		return nil, errf(400, "The request body is not a valid JSON object.")
	}
	return m, nil
}

// validItemID checks an item's id: a string of 1 to 255 characters. The service accepts '/', '\',
// '?' and '#' in an item's id, though the documentation restricts them; reading such an item
// back depends on the gateway (gateway.go), as the azcosmos emulator suite records
// (TestItemIdEncodingRoutingGW: each is created with 201).
func validItemID(v any) (string, error) {
	id, ok := v.(string)
	if !ok || id == "" {
		return "", errf(400, "The input content is invalid because the required properties - 'id; ' - are missing.")
	}
	if len(id) > 255 {
		return "", errf(400, "The id %q is invalid: at most 255 characters.", id)
	}
	return id, nil
}

// validID checks a database's or container's id.
func validID(v any) (string, error) {
	id, ok := v.(string)
	if !ok || id == "" {
		return "", errf(400, "The input content is invalid because the required properties - 'id; ' - are missing.")
	}
	if len(id) > 255 || strings.ContainsAny(id, "/\\?#") {
		return "", errf(400, "The id %q is invalid: at most 255 characters, none of '/', '\\', '?', '#'.", id)
	}
	return id, nil
}

// parseOffer reads the throughput headers of a create request.
func parseOfferHeaders(q *request) (manual, autoscaleMax int, err error) {
	if v := q.header("X-Ms-Offer-Throughput"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 400 {
			return 0, 0, errf(400, "The offer throughput %q is invalid: it must be a number of at least 400.", v)
		}
		return n, 0, checkThroughput(n, 0)
	}
	if v := q.header("X-Ms-Cosmos-Offer-Autopilot-Settings"); v != "" {
		var a struct {
			MaxThroughput int `json:"maxThroughput"`
		}
		if err := json.Unmarshal([]byte(v), &a); err != nil || a.MaxThroughput < 1000 {
			return 0, 0, errf(400, "The autoscale settings are invalid: maxThroughput must be at least 1000.")
		}
		return 0, a.MaxThroughput, checkThroughput(0, a.MaxThroughput)
	}
	return 0, 0, nil
}

func (s *Server) newOffer(manual, auto int, rid, link string) *offer {
	if manual == 0 && auto == 0 {
		return nil
	}
	n := s.nextID()
	return &offer{id: encRID([]byte{byte(n >> 16), byte(n >> 8), byte(n)}) + strconv.FormatUint(n, 36), etag: s.newETag(), ts: s.now().Unix(),
		resourceRID: rid, resourceLink: link, manual: manual, autoscaleMax: auto}
}

func (d *database) json() map[string]any {
	return map[string]any{"id": d.id, "_rid": d.rid, "_self": "dbs/" + d.rid + "/", "_etag": d.etag,
		"_colls": "colls/", "_users": "users/", "_ts": d.ts}
}

func (s *Server) createDatabase(q *request) (int, error) {
	m, err := s.decodeObject(q)
	if err != nil {
		return 0, err
	}
	id, err := validID(m["id"])
	if err != nil {
		return 0, err
	}
	manual, auto, err := parseOfferHeaders(q)
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.dbs[id]; ok {
		return 0, errf(409, "Entity with the specified id already exists in the system.")
	}
	n := uint32(s.nextID())
	d := &database{id: id, ridNum: n, rid: ridDB(n), etag: s.newETag(), ts: s.now().Unix(), colls: map[string]*container{}}
	d.offer = s.newOffer(manual, auto, d.rid, "dbs/"+d.rid+"/")
	s.dbs[id] = d
	s.dirty.Store(true)
	body, _ := json.Marshal(d.json())
	return s.reply(q, 201, body)
}

func (s *Server) lookupDB(id string) (*database, error) {
	d := s.dbs[id]
	if d == nil {
		return nil, errf(404, "Database %q does not exist.", id)
	}
	return d, nil
}

func (s *Server) readDatabase(q *request, id string) (int, error) {
	s.mu.RLock()
	d, err := s.lookupDB(id)
	var body []byte
	if err == nil {
		body, _ = json.Marshal(d.json())
	}
	s.mu.RUnlock()
	if err != nil {
		return 0, err
	}
	return s.reply(q, 200, body)
}

func (s *Server) deleteDatabase(q *request, id string) (int, error) {
	s.mu.Lock()
	_, err := s.lookupDB(id)
	if err == nil {
		delete(s.dbs, id)
		s.dirty.Store(true)
	}
	s.mu.Unlock()
	if err != nil {
		return 0, err
	}
	return s.reply(q, 204, nil)
}

func (s *Server) listDatabases(q *request) (int, error) {
	s.mu.RLock()
	var docs []any
	for _, id := range slices.Sorted(maps.Keys(s.dbs)) {
		docs = append(docs, s.dbs[id].json())
	}
	s.mu.RUnlock()
	return s.feed(q, "Databases", "", docs)
}

func (s *Server) queryDatabases(q *request) (int, error) {
	s.mu.RLock()
	var docs []map[string]any
	for _, id := range slices.Sorted(maps.Keys(s.dbs)) {
		docs = append(docs, s.dbs[id].json())
	}
	s.mu.RUnlock()
	return s.queryResources(q, "Databases", "", docs)
}

// feed writes a list of resources in the service's envelope.
func (s *Server) feed(q *request, key, rid string, docs []any) (int, error) {
	if docs == nil {
		docs = []any{}
	}
	body, _ := json.Marshal(map[string]any{"_rid": rid, key: docs, "_count": len(docs)})
	setHeader(q.out, "x-ms-item-count", strconv.Itoa(len(docs)))
	return s.reply(q, 200, body)
}

// queryResources runs a query over metadata resources (databases, containers, offers).
func (s *Server) queryResources(q *request, key, rid string, docs []map[string]any) (int, error) {
	text, params, err := decodeQueryBody(q.body)
	if err != nil {
		return 0, err
	}
	var out []any
	pq, perr := sql.Parse(text)
	if perr == nil {
		src := &memSource{}
		for _, d := range docs {
			b, _ := json.Marshal(d)
			src.docs = append(src.docs, &sql.Document{Body: d, Size: len(b)})
		}
		res, err := sql.Execute(pq, src, sql.Options{Params: params})
		if err != nil {
			return 0, queryError(err)
		}
		out = res.Items
	} else if selectAll.MatchString(text) {
		for _, d := range docs {
			out = append(out, d)
		}
	} else if f, v, ok := simpleEquality(text, params); ok {
		// The query package is not available: serve the one filter shape the SDK itself sends for
		// metadata (SELECT * FROM c WHERE c.<prop> = '<value>' or @param), evaluated for real.
		for _, d := range docs {
			if d[f] == v {
				out = append(out, d)
			}
		}
	} else {
		return 0, errf(400, "Syntax error: %s", perr.Error())
	}
	return s.feed(q, key, rid, out)
}

var selectAll = regexp.MustCompile(`(?i)^\s*select\s+\*\s+from\s+\w+\s*$`)

var simpleEq = regexp.MustCompile(`(?i)^\s*select\s+\*\s+from\s+(\w+)\s+where\s+(\w+)\.(\w+)\s*=\s*(?:'([^']*)'|(@\w+))\s*$`)

func simpleEquality(text string, params map[string]any) (field string, value any, ok bool) {
	m := simpleEq.FindStringSubmatch(text)
	if m == nil || m[1] != m[2] {
		return "", nil, false
	}
	if m[5] != "" {
		v, ok := params[m[5]]
		return m[3], v, ok
	}
	return m[3], m[4], true
}

// memSource is a Source over an in-memory list.
type memSource struct{ docs []*sql.Document }

func (m *memSource) Scan(fn func(d *sql.Document) bool) {
	for _, d := range m.docs {
		if !fn(d) {
			return
		}
	}
}
func (m *memSource) Len() int { return len(m.docs) }

var _ sql.Source = (*memSource)(nil)

// defaultPolicy is the indexing policy of a container created without one
// (index-policy.md: everything indexed, consistent mode).
func defaultPolicy() map[string]any {
	return map[string]any{"indexingMode": "consistent", "automatic": true,
		"includedPaths": []any{map[string]any{"path": "/*"}},
		"excludedPaths": []any{map[string]any{"path": "/\"_etag\"/?"}}}
}

func compilePolicy(raw any) (*index.Compiled, map[string]any, error) {
	m, _ := raw.(map[string]any)
	if m == nil {
		m = defaultPolicy()
	}
	if mode, _ := m["indexingMode"].(string); mode == "" {
		m["indexingMode"] = "consistent"
	}
	if _, ok := m["includedPaths"]; !ok && !strings.EqualFold(m["indexingMode"].(string), "none") {
		m["includedPaths"] = []any{map[string]any{"path": "/*"}}
	}
	if _, ok := m["excludedPaths"]; !ok {
		m["excludedPaths"] = []any{}
	}
	b, _ := json.Marshal(m)
	var p index.Policy
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, nil, errf(400, "The indexing policy is invalid: %v", err)
	}
	c, err := index.Compile(p)
	if err != nil {
		return nil, nil, errf(400, "%s", err.Error())
	}
	return c, m, nil
}

func parseUnique(raw any) ([][][]string, error) {
	m, _ := raw.(map[string]any)
	if m == nil {
		return nil, nil
	}
	keys, _ := m["uniqueKeys"].([]any)
	var out [][][]string
	for _, k := range keys {
		km, _ := k.(map[string]any)
		paths, _ := km["paths"].([]any)
		if len(paths) == 0 {
			return nil, errf(400, "A unique key must have at least one path.")
		}
		var set [][]string
		for _, p := range paths {
			ps, _ := p.(string)
			parts, err := splitPath(ps)
			if err != nil {
				return nil, errf(400, "The unique key path %q is invalid: %v", ps, err)
			}
			set = append(set, parts)
		}
		out = append(out, set)
	}
	return out, nil
}

func parseTTL(raw any) (*int, error) {
	if raw == nil {
		return nil, nil
	}
	f, ok := raw.(float64)
	if !ok || f != math.Trunc(f) || f == 0 || f < -1 || f > math.MaxInt32 {
		return nil, errf(400, "The value of defaultTtl must be -1 or a positive integer.")
	}
	n := int(f)
	return &n, nil
}

func (c *container) json() map[string]any {
	m := maps.Clone(c.props)
	m["id"] = c.id
	m["_rid"] = c.rid
	m["_self"] = "dbs/" + c.db.rid + "/colls/" + c.rid + "/"
	m["_etag"] = c.etag
	m["_ts"] = c.ts
	m["_docs"], m["_sprocs"], m["_triggers"], m["_udfs"], m["_conflicts"] = "docs/", "sprocs/", "triggers/", "udfs/", "conflicts/"
	pk := map[string]any{"paths": c.pk.Paths, "kind": c.pk.Kind, "version": c.pk.Version}
	m["partitionKey"] = pk
	return m
}

func (s *Server) partitionsFor(db, coll string, o *offer) int {
	ru := o.throughput()
	if s.opts.Partitions != nil {
		return min(max(1, s.opts.Partitions(db, coll, ru)), maxPartitions)
	}
	// The rate card's rule (cost.RateCard.PartitionsFor): at creation with manual throughput the
	// service allocates ceil(RU/s / 6,000) physical partitions, with autoscale ceil(max RU/s / 10,000).
	mode := cost.Manual
	if o != nil && o.autoscaleMax > 0 {
		mode = cost.Autoscale
	}
	return min(s.card().PartitionsFor(mode, 0, ru), maxPartitions)
}

func (s *Server) createContainer(q *request, dbID string) (int, error) {
	m, err := s.decodeObject(q)
	if err != nil {
		return 0, err
	}
	id, err := validID(m["id"])
	if err != nil {
		return 0, err
	}
	pk, err := parsePKDef(m["partitionKey"])
	if err != nil {
		return 0, errf(400, "%s", err.Error())
	}
	pol, polJSON, err := compilePolicy(m["indexingPolicy"])
	if err != nil {
		return 0, err
	}
	m["indexingPolicy"] = polJSON
	uniq, err := parseUnique(m["uniqueKeyPolicy"])
	if err != nil {
		return 0, err
	}
	ttl, err := parseTTL(m["defaultTtl"])
	if err != nil {
		return 0, err
	}
	search, err := parseSearch(m)
	if err != nil {
		return 0, err
	}
	manual, auto, err := parseOfferHeaders(q)
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d, err := s.lookupDB(dbID)
	if err != nil {
		return 0, err
	}
	if _, ok := d.colls[id]; ok {
		return 0, errf(409, "Entity with the specified id already exists in the system.")
	}
	n := uint32(s.nextID())
	c := &container{db: d, id: id, ridNum: n, rid: ridColl(d.ridNum, n), etag: s.newETag(), ts: s.now().Unix(),
		props: m, pk: pk, policy: pol, unique: uniq, defaultTTL: ttl, search: search}
	c.offer = s.newOffer(manual, auto, c.rid, "dbs/"+d.rid+"/colls/"+c.rid+"/")
	o := c.offer
	if o == nil {
		o = d.offer
	}
	newPartitions(c, s.partitionsFor(dbID, id, o))
	d.colls[id] = c
	s.dirty.Store(true)
	body, _ := json.Marshal(c.json())
	return s.reply(q, 201, body)
}

// lookupContainer finds a container by database and container id.
func (s *Server) lookupContainer(dbID, id string) (*container, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	d, err := s.lookupDB(dbID)
	if err != nil {
		return nil, err
	}
	c := d.colls[id]
	if c == nil {
		return nil, errf(404, "Container %q does not exist in database %q.", id, dbID)
	}
	return c, nil
}

func (s *Server) readContainer(q *request, dbID, id string) (int, error) {
	c, err := s.lookupContainer(dbID, id)
	if err != nil {
		return 0, err
	}
	s.mu.RLock()
	body, _ := json.Marshal(c.json())
	s.mu.RUnlock()
	return s.reply(q, 200, body)
}

// replaceContainer changes mutable properties: indexing policy, TTL, unique keys stay as created.
func (s *Server) replaceContainer(q *request, dbID, id string) (int, error) {
	m, err := s.decodeObject(q)
	if err != nil {
		return 0, err
	}
	if bid, _ := m["id"].(string); bid != id {
		return 0, errf(400, "The id in the body (%q) does not match the container %q.", bid, id)
	}
	c, err := s.lookupContainer(dbID, id)
	if err != nil {
		return 0, err
	}
	if raw, ok := m["partitionKey"]; ok {
		pk, err := parsePKDef(raw)
		if err != nil || !slices.Equal(pk.Paths, c.pk.Paths) || pk.Kind != c.pk.Kind {
			return 0, errf(400, "The partition key of a container cannot be changed.")
		}
	}
	pol, polJSON, err := compilePolicy(m["indexingPolicy"])
	if err != nil {
		return 0, err
	}
	m["indexingPolicy"] = polJSON
	ttl, err := parseTTL(m["defaultTtl"])
	if err != nil {
		return 0, err
	}
	if _, ok := m["vectorEmbeddingPolicy"]; !ok {
		m["vectorEmbeddingPolicy"] = c.props["vectorEmbeddingPolicy"] // fixed at creation
	}
	search, err := parseSearch(m)
	if err != nil {
		return 0, err
	}
	if im := q.header("If-Match"); im != "" && im != c.etag {
		return 0, errf(412, "The operation specified an etag that is different from the version on the server.")
	}
	var body []byte
	s.setContainerMeta(c, func() {
		m["uniqueKeyPolicy"] = c.props["uniqueKeyPolicy"]
		c.props, c.policy, c.defaultTTL, c.search = m, pol, ttl, search
		c.etag, c.ts = s.newETag(), s.now().Unix()
		body, _ = json.Marshal(c.json())
	})
	s.dirty.Store(true)
	return s.reply(q, 200, body)
}

// setContainerMeta changes a container's settings with set, which runs under every partition's
// lock (so no write sees a half-changed policy) and s.mu, all released by defer; when the policy
// or the time to live changed, each item's index terms and expiry are computed again.
func (s *Server) setContainerMeta(c *container, set func()) {
	for _, p := range c.parts {
		p.mu.Lock()
		defer p.mu.Unlock()
	}
	pol, ttl := c.policy, c.defaultTTL
	func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		set()
	}()
	if c.policy == pol && c.defaultTTL == ttl {
		return
	}
	for _, p := range c.parts {
		p.eqMu.Lock()
		p.eq = nil // rebuilt on demand under the new policy
		p.eqMu.Unlock()
		for _, d := range p.all.items {
			if d != nil {
				b := d.body()
				d.terms = c.policy.Terms(b)
				d.expires = c.expiry(b, d.ts)
			}
		}
	}
}

func (s *Server) deleteContainer(q *request, dbID, id string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, err := s.lookupDB(dbID)
	if err != nil {
		return 0, err
	}
	if d.colls[id] == nil {
		return 0, errf(404, "Container %q does not exist in database %q.", id, dbID)
	}
	delete(d.colls, id)
	s.dirty.Store(true)
	return s.reply(q, 204, nil)
}

func (s *Server) containerDocs(dbID string) (*database, []map[string]any, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	d, err := s.lookupDB(dbID)
	if err != nil {
		return nil, nil, err
	}
	var docs []map[string]any
	for _, id := range slices.Sorted(maps.Keys(d.colls)) {
		docs = append(docs, d.colls[id].json())
	}
	return d, docs, nil
}

func (s *Server) listContainers(q *request, dbID string) (int, error) {
	d, docs, err := s.containerDocs(dbID)
	if err != nil {
		return 0, err
	}
	out := make([]any, len(docs))
	for i := range docs {
		out[i] = docs[i]
	}
	return s.feed(q, "DocumentCollections", d.rid, out)
}

func (s *Server) queryContainers(q *request, dbID string) (int, error) {
	d, docs, err := s.containerDocs(dbID)
	if err != nil {
		return 0, err
	}
	return s.queryResources(q, "DocumentCollections", d.rid, docs)
}

// pkranges lists the container's physical partitions as partition key ranges. The ranges never
// change, so the container's etag serves as the change-feed etag.
func (s *Server) pkranges(q *request, dbID, id string) (int, error) {
	c, err := s.lookupContainer(dbID, id)
	if err != nil {
		return 0, err
	}
	etag := "\"pkr-" + c.rid + "\""
	setHeader(q.out, "Etag", etag)
	if q.header("If-None-Match") == etag {
		return s.reply(q, 304, nil)
	}
	var out []any
	for i, p := range c.parts {
		out = append(out, map[string]any{"id": p.id, "_rid": c.rid + strconv.Itoa(i), "_etag": etag,
			"minInclusive": p.min, "maxExclusive": p.max, "ridPrefix": i,
			"_self":              "dbs/" + c.db.rid + "/colls/" + c.rid + "/pkranges/" + p.id + "/",
			"throughputFraction": 1 / float64(len(c.parts)), "status": "online", "parents": []string{},
			"_ts": c.ts, "lsn": s.lsn.Load()})
	}
	return s.feed(q, "PartitionKeyRanges", c.rid, out)
}

func (o *offer) json() map[string]any {
	content := map[string]any{}
	if o.autoscaleMax > 0 {
		content["offerAutopilotSettings"] = map[string]any{"maxThroughput": o.autoscaleMax}
		content["offerThroughput"] = max(o.autoscaleMax/10, 100)
	} else {
		content["offerThroughput"] = o.manual
	}
	return map[string]any{"id": o.id, "_rid": o.id, "_self": "offers/" + o.id + "/", "_etag": o.etag, "_ts": o.ts,
		"resource": o.resourceLink, "offerResourceId": o.resourceRID, "offerType": "Invalid", "offerVersion": "V2",
		"content": content}
}

func (s *Server) allOffers() []*offer {
	var out []*offer
	for _, dbID := range slices.Sorted(maps.Keys(s.dbs)) {
		d := s.dbs[dbID]
		if d.offer != nil {
			out = append(out, d.offer)
		}
		for _, cid := range slices.Sorted(maps.Keys(d.colls)) {
			if o := d.colls[cid].offer; o != nil {
				out = append(out, o)
			}
		}
	}
	return out
}

// offers serves /offers (list, query) and /offers/{rid} (read, replace).
func (s *Server) offers(q *request) (int, error) {
	switch {
	case len(q.segs) == 1:
		s.mu.RLock()
		var docs []map[string]any
		for _, o := range s.allOffers() {
			docs = append(docs, o.json())
		}
		s.mu.RUnlock()
		if q.r.Method == "POST" && isQuery(q) {
			return s.queryResources(q, "Offers", "", docs)
		}
		if q.r.Method == "GET" {
			out := make([]any, len(docs))
			for i := range docs {
				out[i] = docs[i]
			}
			return s.feed(q, "Offers", "", out)
		}
	case len(q.segs) == 2:
		s.mu.Lock()
		defer s.mu.Unlock()
		var o *offer
		for _, x := range s.allOffers() {
			if strings.EqualFold(x.id, q.segs[1]) {
				o = x
			}
		}
		if o == nil {
			return 0, errf(404, "Offer %q does not exist.", q.segs[1])
		}
		switch q.r.Method {
		case "GET":
			body, _ := json.Marshal(o.json())
			return s.reply(q, 200, body)
		case "PUT":
			var in struct {
				Content struct {
					Throughput *int `json:"offerThroughput"`
					Autopilot  *struct {
						MaxThroughput int `json:"maxThroughput"`
					} `json:"offerAutopilotSettings"`
				} `json:"content"`
			}
			if err := json.Unmarshal(q.body, &in); err != nil {
				return 0, errf(400, "The offer body is invalid: %v", err)
			}
			switch {
			case in.Content.Autopilot != nil:
				if in.Content.Autopilot.MaxThroughput < 1000 {
					return 0, errf(400, "The autoscale maxThroughput must be at least 1000.")
				}
				if err := checkThroughput(0, in.Content.Autopilot.MaxThroughput); err != nil {
					return 0, err
				}
				o.autoscaleMax, o.manual = in.Content.Autopilot.MaxThroughput, 0
			case in.Content.Throughput != nil:
				if *in.Content.Throughput < 400 {
					return 0, errf(400, "The offer throughput must be at least 400.")
				}
				if err := checkThroughput(*in.Content.Throughput, 0); err != nil {
					return 0, err
				}
				o.manual, o.autoscaleMax = *in.Content.Throughput, 0
			default:
				return 0, errf(400, "The offer has no throughput.")
			}
			o.etag, o.ts = s.newETag(), s.now().Unix()
			s.dirty.Store(true)
			body, _ := json.Marshal(o.json())
			return s.reply(q, 200, body)
		}
	}
	return 0, errf(405, "The method %s is not allowed on this resource.", q.r.Method)
}

func decodeQueryBody(b []byte) (string, map[string]any, error) {
	var in struct {
		Query      string `json:"query"`
		Parameters []struct {
			Name  string `json:"name"`
			Value any    `json:"value"`
		} `json:"parameters"`
	}
	if err := json.Unmarshal(b, &in); err != nil || in.Query == "" {
		return "", nil, errf(400, "The query body is invalid: it needs a \"query\" string.")
	}
	params := make(map[string]any, len(in.Parameters))
	for _, p := range in.Parameters {
		if !strings.HasPrefix(p.Name, "@") {
			return "", nil, errf(400, "Query parameter %q must start with '@'.", p.Name)
		}
		params[p.Name] = p.Value
	}
	return in.Query, params, nil
}

var _ = fmt.Sprintf
