package engine

import (
	"strings"

	"github.com/cosmosdv/validate/internal/cost"
)

// routes is the gateway's whole REST surface, one row per method and path pattern, in the syntax
// of Go's http.ServeMux patterns: "{name}" matches one path segment, "{name...}" the rest of the
// path (possibly nothing), and a row without a method takes every method. Paths are matched on the
// request's segments without leading and trailing slashes. Rows are tried in order, so of two rows
// with the same method and path, the one with a condition (when) comes first. A path that some row
// matches with another method is answered 405, one that no row matches 404.
//
// A row with an item handler works on a container: its {db} and {coll} are resolved before the
// handler runs, and before a 405 is answered, so a missing container is a 404 whatever the method.
var routes = []route{
	{pattern: "GET /", handle: (*Server).account},

	// offers answers every method and depth itself (offer lookups come before method checks).
	{pattern: "/offers/{rest...}", handle: (*Server).offers},

	{pattern: "POST /dbs", when: isQuery, handle: (*Server).queryDatabases},
	{pattern: "POST /dbs", handle: (*Server).createDatabase},
	{pattern: "GET /dbs", handle: func(s *Server, q *request) (int, error) {
		setHeader(q.out, EngineHeader, "validate")
		setHeader(q.out, ChargesHeader, cost.ChargesLabel(s.opts.RateCard))
		return s.listDatabases(q)
	}},
	{pattern: "GET /dbs/{db}", handle: func(s *Server, q *request) (int, error) { return s.readDatabase(q, q.pathValue("db")) }},
	{pattern: "DELETE /dbs/{db}", handle: func(s *Server, q *request) (int, error) { return s.deleteDatabase(q, q.pathValue("db")) }},

	{pattern: "POST /dbs/{db}/colls", when: isQuery, handle: func(s *Server, q *request) (int, error) { return s.queryContainers(q, q.pathValue("db")) }},
	{pattern: "POST /dbs/{db}/colls", handle: func(s *Server, q *request) (int, error) { return s.createContainer(q, q.pathValue("db")) }},
	{pattern: "GET /dbs/{db}/colls", handle: func(s *Server, q *request) (int, error) { return s.listContainers(q, q.pathValue("db")) }},
	{pattern: "GET /dbs/{db}/colls/{coll}", handle: func(s *Server, q *request) (int, error) {
		return s.readContainer(q, q.pathValue("db"), q.pathValue("coll"))
	}},
	{pattern: "PUT /dbs/{db}/colls/{coll}", handle: func(s *Server, q *request) (int, error) {
		return s.replaceContainer(q, q.pathValue("db"), q.pathValue("coll"))
	}},
	{pattern: "DELETE /dbs/{db}/colls/{coll}", handle: func(s *Server, q *request) (int, error) {
		return s.deleteContainer(q, q.pathValue("db"), q.pathValue("coll"))
	}},
	{pattern: "GET /dbs/{db}/colls/{coll}/pkranges", handle: func(s *Server, q *request) (int, error) {
		return s.pkranges(q, q.pathValue("db"), q.pathValue("coll"))
	}},

	{pattern: "POST /dbs/{db}/colls/{coll}/docs", when: isQuery, item: (*Server).queryItems},
	{pattern: "POST /dbs/{db}/colls/{coll}/docs", when: isBatch, item: (*Server).batch},
	{pattern: "POST /dbs/{db}/colls/{coll}/docs", item: func(s *Server, q *request, c *container) (int, error) { return s.writeItem(q, c, "") }},
	{pattern: "GET /dbs/{db}/colls/{coll}/docs", item: (*Server).readFeed},
	{pattern: "GET /dbs/{db}/colls/{coll}/docs/{id}", item: func(s *Server, q *request, c *container) (int, error) {
		return s.readItem(q, c, q.pathValue("id"))
	}},
	{pattern: "PUT /dbs/{db}/colls/{coll}/docs/{id}", item: func(s *Server, q *request, c *container) (int, error) {
		return s.writeItem(q, c, q.pathValue("id"))
	}},
	{pattern: "DELETE /dbs/{db}/colls/{coll}/docs/{id}", item: func(s *Server, q *request, c *container) (int, error) {
		return s.deleteItem(q, c, q.pathValue("id"))
	}},
	{pattern: "PATCH /dbs/{db}/colls/{coll}/docs/{id}", item: func(s *Server, q *request, c *container) (int, error) {
		return s.patchItem(q, c, q.pathValue("id"))
	}},
}

func isBatch(q *request) bool {
	return strings.EqualFold(q.header("X-Ms-Cosmos-Is-Batch-Request"), "true")
}

// route is one row of the routing table.
type route struct {
	pattern string
	when    func(*request) bool
	handle  func(*Server, *request) (int, error)
	item    func(*Server, *request, *container) (int, error)

	// Parsed from pattern by compileRoutes.
	method string
	segs   []string // the path's segments
	names  []string // per segment, the wildcard's name; "" for a literal
	rest   bool     // the last segment is "{name...}"
}

// router is the compiled table: the rows ending in {name...}, and the others by their number of
// segments.
type router struct {
	rest   []*route
	bySegs map[int][]*route
}

var table = compileRoutes(routes)

func compileRoutes(rs []route) *router {
	t := &router{bySegs: map[int][]*route{}}
	for i := range rs {
		r := &rs[i]
		method, path, ok := strings.Cut(r.pattern, " ")
		if !ok {
			method, path = "", r.pattern
		}
		if (r.handle == nil) == (r.item == nil) {
			panic("engine: route " + r.pattern + ": give exactly one of handle and item")
		}
		r.method = method
		if path = strings.Trim(path, "/"); path != "" {
			r.segs = strings.Split(path, "/")
		}
		r.names = make([]string, len(r.segs))
		for j, seg := range r.segs {
			if name, ok := strings.CutPrefix(seg, "{"); ok {
				name = strings.TrimSuffix(name, "}")
				if name, ok = strings.CutSuffix(name, "..."); ok {
					if j != len(r.segs)-1 {
						panic("engine: route " + r.pattern + ": {name...} must be the last segment")
					}
					r.rest = true
				}
				r.names[j] = name
			}
		}
		if r.item != nil && (r.wildcard("db") < 0 || r.wildcard("coll") < 0) {
			panic("engine: route " + r.pattern + ": an item route needs {db} and {coll}")
		}
		if r.rest {
			t.rest = append(t.rest, r)
		} else {
			t.bySegs[len(r.segs)] = append(t.bySegs[len(r.segs)], r)
		}
	}
	return t
}

// wildcard is the index of the segment {name} (or {name...}), or -1.
func (r *route) wildcard(name string) int {
	for i, n := range r.names {
		if n == name {
			return i
		}
	}
	return -1
}

// matches reports whether the row's path matches segs.
func (r *route) matches(segs []string) bool {
	n := len(r.segs)
	if r.rest {
		n--
		if len(segs) < n {
			return false
		}
	} else if len(segs) != n {
		return false
	}
	for i := range n {
		if r.names[i] == "" && r.segs[i] != segs[i] {
			return false
		}
	}
	return true
}

// pathValue returns the path segment the matched row names {name}; "" when it names none.
func (q *request) pathValue(name string) string {
	if q.route == nil {
		return ""
	}
	if i := q.route.wildcard(name); i >= 0 && i < len(q.segs) {
		return q.segs[i]
	}
	return ""
}

// route dispatches a request by the table: the first row whose path, method and condition match
// handles it.
func (s *Server) route(q *request) (int, error) {
	var pathMatched *route
	for _, rows := range [2][]*route{table.rest, table.bySegs[len(q.segs)]} {
		for _, r := range rows {
			if !r.matches(q.segs) {
				continue
			}
			if pathMatched == nil {
				pathMatched = r
			}
			if (r.method != "" && r.method != q.r.Method) || (r.when != nil && !r.when(q)) {
				continue
			}
			q.route = r
			if r.item == nil {
				return r.handle(s, q)
			}
			c, err := s.lookupContainer(q.pathValue("db"), q.pathValue("coll"))
			if err != nil {
				return 0, err
			}
			return r.item(s, q, c)
		}
	}
	if pathMatched == nil {
		return 0, errf(404, "The resource path %q is not known.", "/"+strings.Join(q.segs, "/"))
	}
	if pathMatched.item != nil {
		// The container is resolved before the method is judged: a missing one is a 404.
		q.route = pathMatched
		if _, err := s.lookupContainer(q.pathValue("db"), q.pathValue("coll")); err != nil {
			return 0, err
		}
	}
	return 0, errf(405, "The method %s is not allowed on this resource.", q.r.Method)
}
