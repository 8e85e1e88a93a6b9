package sql

// PropertyPath is a document property path a query names, and where the name stands in the query.
type PropertyPath struct {
	// Path is the property names from the document root; index.ArrayElem ("[]") stands for an array
	// element (c.tags[0], or an alias of JOIN t IN c.tags).
	Path []string
	// Start is the byte offset of the path's last property name in the query text; Line and Col are
	// its 1-based position.
	Start, Line, Col int
}

// PropertyPaths lists every document property path the query names — in SELECT, FROM, JOIN, WHERE,
// GROUP BY, ORDER BY and subqueries — longest form only (c.a.b names /a/b, not also /a), in query
// order. A path through an alias that is not a document path (a subquery's result) is left out.
func (q *Query) PropertyPaths() []PropertyPath {
	if q == nil {
		return nil
	}
	w := pathWalker{q: q}
	w.query(q)
	return w.out
}

type pathWalker struct {
	q   *Query
	out []PropertyPath
}

func (w *pathWalker) query(q *Query) {
	for _, it := range q.items {
		w.expr(it.e)
	}
	if q.from != nil {
		w.expr(q.from.src)
	}
	for _, j := range q.joins {
		if j.sub != nil {
			w.query(j.sub)
		}
		if j.src != nil {
			w.expr(j.src)
		}
	}
	if q.where != nil {
		w.expr(q.where)
	}
	for _, g := range q.groupBy {
		w.expr(g)
	}
	for _, o := range q.orderBy {
		w.expr(o.e)
	}
}

func (w *pathWalker) expr(e expr) {
	switch x := e.(type) {
	case nil:
		return
	case *subquery:
		w.query(x.q)
		return
	case *member:
		if p, ok := pathOf(x, w.q.slotPaths); ok && len(p) > 0 {
			line, col := 0, 0
			if pe := errAt(w.q.text, x.pos, x.pos, "", ""); pe != nil {
				line, col = pe.Line, pe.Col
			}
			w.out = append(w.out, PropertyPath{Path: p, Start: x.pos, Line: line, Col: col})
			return
		}
	case *indexExpr:
		if p, ok := pathOf(x, w.q.slotPaths); ok && len(p) > 0 {
			// c.tags[0]: the array is the property named; its element adds nothing to check.
			w.expr(x.x)
			return
		}
	}
	for _, ch := range children(e) {
		w.expr(ch)
	}
}

// OrderByAt is the byte offset of the first ORDER BY item in the query text, -1 without ORDER BY.
func (q *Query) OrderByAt() int {
	if q == nil || len(q.orderBy) == 0 {
		return -1
	}
	return q.orderByAt
}

// Alias is the name the FROM clause gives the container's documents ("c" in FROM c, "o" in
// FROM Orders o), "" without FROM.
func (q *Query) Alias() string {
	if q == nil || q.from == nil {
		return ""
	}
	if r, ok := q.from.src.(*root); ok && !q.from.in {
		if q.from.alias != "" {
			return q.from.alias
		}
		return r.name
	}
	return ""
}

// docFields is what an execution of q reads of each stored document: the top-level properties its
// paths start with, or whole when it uses a document as a value (c as a function argument or in a
// constructor, c[@p], DISTINCT over SELECT * …). SELECT * and SELECT VALUE c at the top level read
// nothing of the document: they return it, and the caller sends its stored JSON (Result.Stored).
func docFields(q *Query) (fields map[string]bool, whole bool) {
	w := fieldWalker{paths: q.slotPaths, fields: map[string]bool{}}
	w.query(q, true)
	return w.fields, w.whole
}

// walkFields is docFields for an ordered walk (runStreamed), which takes the ORDER BY values from
// the index and evaluates only the WHERE clause and the projection on a document.
func walkFields(q *Query) (fields map[string]bool, whole bool) {
	w := fieldWalker{paths: q.slotPaths, fields: map[string]bool{}, noOrder: q}
	w.query(q, true)
	return w.fields, w.whole
}

type fieldWalker struct {
	paths  map[int][]string
	fields map[string]bool
	whole  bool
	// noOrder is the query whose ORDER BY is not read from documents (walkFields).
	noOrder *Query
}

func (w *fieldWalker) query(q *Query, top bool) {
	returnsDoc := top && !q.distinct && len(q.joins) == 0 // the item is the stored document, if anything
	if q.from != nil && w.from(q) && q.star && !returnsDoc {
		w.whole = true
	}
	for i, it := range q.items {
		if i == 0 && q.value && returnsDoc {
			if p, ok := pathOf(it.e, w.paths); ok && len(p) == 0 {
				continue // SELECT VALUE c: the stored document itself
			}
		}
		w.expr(it.e)
	}
	w.joins(q)
	if q.where != nil {
		w.expr(q.where)
	}
	for _, g := range q.groupBy {
		w.expr(g)
	}
	if q != w.noOrder {
		for _, o := range q.orderBy {
			w.expr(o.e)
		}
	}
	for _, e := range []expr{q.top, q.offset, q.limit} {
		if e != nil {
			w.expr(e)
		}
	}
}

// from walks q's FROM source and reports whether it is the document itself, which iterating
// reads nothing of.
func (w *fieldWalker) from(q *Query) (overDoc bool) {
	if p, ok := pathOf(q.from.src, w.paths); ok && len(p) == 0 {
		return true
	}
	w.expr(q.from.src)
	return false
}

func (w *fieldWalker) joins(q *Query) {
	for _, j := range q.joins {
		if j.sub != nil {
			w.query(j.sub, false)
		}
		if j.src != nil {
			w.expr(j.src)
		}
	}
}

func (w *fieldWalker) expr(e expr) {
	if w.whole || e == nil {
		return
	}
	switch x := e.(type) {
	case *subquery:
		w.query(x.q, false)
		return
	case *ident, *root, *member, *indexExpr:
		if p, ok := pathOf(x, w.paths); ok {
			if len(p) == 0 {
				w.whole = true // the document as a value
			} else {
				w.fields[p[0]] = true
			}
			if ix, isIndex := x.(*indexExpr); isIndex {
				w.expr(ix.idx)
			}
			return
		}
	}
	for _, ch := range children(e) {
		w.expr(ch)
	}
}
