package engine

import "strings"

// Resource-id links. Besides name-based addresses (dbs/{db}/colls/{coll}/docs/{id}), the service
// accepts addresses by resource id, as items' _self links spell them and as older SDKs and tools
// send them: dbs/AwAAAA==/colls/AwAAAKxIFxY=/docs/AwAAAKxIFxYBAAAAAAAAAA==/ (REST "Resource URI
// syntax"). A request to such an address is signed over the resource id of the resource it names
// (for a feed, its parent) rather than the path (access-control-on-cosmosdb-resources); the SDKs
// lower-case it, and authorize accepts it in either case as it does names. Empty path segments, as a joined "//" leaves them,
// are skipped like the service does.

// pathSegments splits a request path into its non-empty segments.
func pathSegments(path string) []string {
	var segs []string
	for seg := range strings.SplitSeq(path, "/") {
		if seg != "" {
			segs = append(segs, seg)
		}
	}
	return segs
}

// resolveRIDLink rewrites a resource-id address into the name-based one the router serves, and
// returns the resource id its signature covers. A name-based address (any database named by its
// id) comes back unchanged with signed "".
func (s *Server) resolveRIDLink(segs []string) (names []string, signed string) {
	if len(segs) < 2 || segs[0] != "dbs" {
		return segs, ""
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if _, named := s.dbs[segs[1]]; named {
		return segs, ""
	}
	var db *database
	for _, d := range s.dbs {
		if d.rid == segs[1] {
			db = d
			break
		}
	}
	if db == nil {
		return segs, ""
	}
	names = append([]string(nil), segs...)
	names[1] = db.id
	if len(segs) >= 4 && segs[2] == "colls" {
		var c *container
		for _, x := range db.colls {
			if x.rid == segs[3] {
				c = x
				break
			}
		}
		if c == nil {
			return segs, "" // not a container of this database by rid: answered as a name (404)
		}
		names[3] = c.id
		if len(segs) >= 6 && segs[4] == "docs" {
			if d := c.docByRID(segs[5]); d != nil {
				names[5] = d.id
			}
		}
	}
	// The resource the address names is the last even segment; a feed is signed with its parent.
	last := len(segs) - 1
	if len(segs)%2 == 1 {
		last--
	}
	return names, segs[last]
}

// docByRID finds an item by its resource id. Addressing items by rid is rare (the SDKs in use
// address them by name), so it scans rather than keeping an index.
func (c *container) docByRID(rid string) *doc {
	for _, p := range c.parts {
		p.mu.RLock()
		for _, d := range p.all.items {
			if d != nil && d.rid == rid {
				p.mu.RUnlock()
				return d
			}
		}
		p.mu.RUnlock()
	}
	return nil
}
