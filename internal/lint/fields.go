package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine/index"
	"github.com/cosmosdv/validate/internal/engine/sql"
)

// systemProperties are the properties the service writes on every item; a query may name them.
var systemProperties = []string{"id", "ttl", "_ts", "_etag", "_rid", "_self", "_attachments", "_lsn"}

// fieldPaths checks every property path a query (its search functions included), a patch, a unique
// key, an index or a search policy (fullText paths, vectors) names against the fields the
// container's document types generate (and the paths they list under appFields). A path none of
// them has is a typo or a field the application writes itself: both change what a pattern finds
// and what it costs, and run would only show zero results.
func (l *linter) fieldPaths() {
	for ci := range l.d.Containers {
		c := &l.d.Containers[ci]
		cp := fmt.Sprintf("containers[%d]", ci)
		for ui, uk := range c.UniqueKeys {
			for j, p := range uk {
				l.checkPath(c, nil, fmt.Sprintf("%s.uniqueKeys[%d][%d]", cp, ui, j), splitPath(p), design.Pos{})
			}
		}
		// The search policies (main's full-text and vector search): the paths the search functions
		// read; the full-text and vector indexes must name paths of these, which validation checks.
		if c.FullText != nil {
			for i, p := range c.FullText.Paths {
				l.checkPath(c, nil, fmt.Sprintf("%s.fullText.paths[%d]", cp, i), splitPath(p), design.Pos{})
			}
		}
		for i, v := range c.Vectors {
			l.checkPath(c, nil, fmt.Sprintf("%s.vectors[%d].path", cp, i), splitPath(v.Path), design.Pos{})
		}
		if ix := c.Indexing; ix != nil {
			for _, list := range []struct {
				name  string
				paths []string
			}{{"included", ix.Included}, {"excluded", ix.Excluded}} {
				for i, p := range list.paths {
					p = strings.TrimSuffix(strings.TrimSuffix(p, "/?"), "/*")
					if p == "" || strings.Contains(p, "*") {
						continue
					}
					l.checkPath(c, nil, fmt.Sprintf("%s.indexing.%s[%d]", cp, list.name, i), splitPath(p), design.Pos{})
				}
			}
			for i, ci := range ix.Composite {
				for j, p := range ci {
					l.checkPath(c, nil, fmt.Sprintf("%s.indexing.composite[%d][%d].path", cp, i, j), splitPath(p.Path), design.Pos{})
				}
			}
		}
	}
	for i := range l.d.AccessPatterns {
		ap := &l.d.AccessPatterns[i]
		c := l.d.Container(ap.Container)
		if c == nil {
			continue
		}
		path := fmt.Sprintf("accessPatterns[%d]", i)
		var sample *design.DocType
		if ap.Sample != "" {
			sample = c.DocType(ap.Sample)
		}
		if ap.Op == design.OpQuery {
			l.queryPaths(c, nil, path+".query", ap.Query, 0)
		}
		if ap.Condition != "" {
			l.queryPaths(c, sample, path+".condition", ap.Condition, len(conditionPrefix))
		}
		l.patchPaths(c, sample, path+".patch", ap.Patch)
		for bi, op := range ap.Batch {
			l.patchPaths(c, sample, fmt.Sprintf("%s.batch[%d].patch", path, bi), op.Patch)
		}
	}
}

// conditionPrefix turns a patch condition ("FROM c WHERE ...") into a query the parser reads.
const conditionPrefix = "SELECT * "

func (l *linter) queryPaths(c *design.Container, sample *design.DocType, path, text string, shift int) {
	if shift > 0 {
		text = conditionPrefix + text
	}
	q, err := sql.Parse(text)
	if err != nil {
		return // reported by the query checks
	}
	for _, pp := range q.PropertyPaths() {
		l.checkPath(c, sample, path, pp.Path, l.valuePos(path, text[shift:], pp.Start, shift))
	}
}

func (l *linter) patchPaths(c *design.Container, sample *design.DocType, path string, ops []design.PatchOp) {
	for j, op := range ops {
		if strings.HasPrefix(op.Path, "/") && op.Path != "/" {
			l.checkPath(c, sample, fmt.Sprintf("%s[%d].path", path, j), splitPath(op.Path), design.Pos{})
		}
		if strings.HasPrefix(op.From, "/") && op.From != "/" {
			l.checkPath(c, sample, fmt.Sprintf("%s[%d].from", path, j), splitPath(op.From), design.Pos{})
		}
	}
}

// splitPath turns "/a/b" into ["a", "b"]; an array index segment ("/tags/0") becomes "[]".
func splitPath(p string) []string {
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range segs {
		if s != "" && strings.Trim(s, "0123456789") == "" || s == "-" {
			segs[i] = index.ArrayElem
		}
	}
	return segs
}

// checkPath reports p unless a document type of c (sample alone when set) generates it or lists it
// under appFields. at, when set, is where the path stands in the file.
func (l *linter) checkPath(c *design.Container, sample *design.DocType, path string, p []string, at design.Pos) {
	if len(p) == 0 || slices.Contains(systemProperties, p[0]) || strings.HasPrefix(p[0], "_") {
		return
	}
	types := c.Documents
	if sample != nil {
		types = []design.DocType{*sample}
	}
	var candidates []string
	for ti := range types {
		t := &types[ti]
		if t.Fields.Generates(p) || appWritten(t.AppFields, p) {
			return
		}
		candidates = append(candidates, dotted(t.Fields, "", 0)...)
		for _, a := range t.AppFields {
			candidates = append(candidates, strings.ReplaceAll(strings.TrimPrefix(a, "/"), "/", "."))
		}
	}
	name := strings.ReplaceAll(strings.Join(p, "."), ".[]", "[]")
	owner := "any document type of " + c.Name
	var names []string
	for _, t := range types {
		names = append(names, t.Type)
	}
	if len(names) == 1 {
		owner = names[0]
	} else if len(names) > 1 {
		owner += " (" + strings.Join(names, ", ") + ")"
	}
	where := "its document type"
	if len(names) == 1 {
		where = names[0]
	}
	hint := fmt.Sprintf("; if the application writes it outside the seeded documents, add appFields: [%s] to %s", "/"+strings.Join(p, "/"), where)
	if m := design.Suggest(name, candidates); m != "" {
		hint = fmt.Sprintf("; did you mean %s?", m)
	}
	l.addAt(path, at, "unknown-field", "%s is not a field of %s%s", name, owner, hint)
}

// appWritten reports whether p is one of the application-written paths or lies below one.
func appWritten(paths []string, p []string) bool {
	for _, a := range paths {
		as := splitPath(a)
		if len(as) <= len(p) && slices.Equal(as, p[:len(as)]) {
			return true
		}
	}
	return false
}

// dotted lists the property paths fs generates as a query writes them ("address.city", "tags[]").
func dotted(fs design.Fields, prefix string, depth int) []string {
	var out []string
	for _, nf := range fs {
		n := prefix + nf.Name
		out = append(out, n)
		if depth < 3 {
			f := &nf.Field
			for f.Array != nil && f.Of != nil {
				n += "[]"
				f = f.Of
			}
			out = append(out, dotted(f.Object, n+".", depth+1)...)
		}
	}
	return out
}
