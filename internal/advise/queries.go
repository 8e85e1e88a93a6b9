package advise

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine/index"
	"github.com/cosmosdv/validate/internal/engine/sql"
	"github.com/cosmosdv/validate/internal/indexpolicy"
)

// query is one query pattern read with the engine's parser and planner under its container's
// policy: the paths it names, its filters and its ORDER BY.
type query struct {
	ap    *design.AccessPattern
	q     *sql.Query
	a     sql.Analysis
	paths [][]string // every document path the query names
}

// queriesOf reads the query patterns of container ci (the ones that parse).
func queriesOf(d *design.Design, ci int) []query {
	c := &d.Containers[ci]
	pol, _ := indexpolicy.Compile(c.Indexing)
	var out []query
	for i := range d.AccessPatterns {
		ap := &d.AccessPatterns[i]
		if ap.Container != c.Name || ap.Op != design.OpQuery {
			continue
		}
		q, err := sql.Parse(ap.Query)
		if err != nil {
			continue
		}
		qq := query{ap: ap, q: q, a: sql.Analyze(q, pol)}
		for _, pp := range q.PropertyPaths() {
			qq.paths = append(qq.paths, pp.Path)
		}
		out = append(out, qq)
	}
	return out
}

// template is the partition-key template of an equality filter: the parameter's template or the
// string literal, "" when neither (a number, an expression).
func (qq query) template(f sql.Filter) string {
	if f.Kind != sql.FilterEqual {
		return ""
	}
	if f.Param != "" {
		if s, ok := qq.ap.Params[f.Param].(string); ok {
			return s
		}
		return ""
	}
	if s, ok := f.Literal.(string); ok && f.HasLiteral && !strings.ContainsAny(s, "{}") {
		return s
	}
	return ""
}

// pinned is the templates that pin each of the key paths to one value through the query's equality
// filters, in key order, stopping at the first path not pinned: a full key, a prefix, or nothing.
// A synthetic path (one a template field builds from others) is pinned when each of its parts is.
func (qq query) pinned(key [][]string, synth map[string][]string) []string {
	var out []string
	for _, path := range key {
		t := qq.pin(path)
		if t == "" && len(path) == 1 {
			if parts, ok := synth[path[0]]; ok {
				var ts []string
				for _, p := range parts {
					pt := qq.pin([]string{p})
					if pt == "" {
						ts = nil
						break
					}
					ts = append(ts, pt)
				}
				if ts != nil {
					t = strings.Join(ts, synthSep)
				}
			}
		}
		if t == "" {
			break
		}
		out = append(out, t)
	}
	return out
}

func (qq query) pin(path []string) string {
	for _, f := range qq.a.Filters {
		if f.Kind == sql.FilterEqual && slices.Equal(f.Path, path) {
			if t := qq.template(f); t != "" {
				return t
			}
		}
	}
	return ""
}

// names reports whether the query names path or anything under it.
func (qq query) names(path []string) bool {
	for _, p := range qq.paths {
		if len(p) >= len(path) && slices.Equal(p[:len(path)], path) {
			return true
		}
	}
	return false
}

// synthSep joins the parts of a synthetic key value.
const synthSep = "_"

// fieldKind is the shape of a top-level field of a document type.
type fieldKind int

const (
	scalarField fieldKind = iota
	objectField
	arrayField
	objectArrayField
)

func kindOf(f *design.Field) fieldKind {
	switch {
	case f.Array != nil && f.Of != nil && len(f.Of.Object) > 0:
		return objectArrayField
	case f.Array != nil:
		return arrayField
	case len(f.Object) > 0:
		return objectField
	}
	return scalarField
}

// excludePath is the index path that removes a top-level field and everything under it.
func excludePath(name string, k fieldKind) string {
	if k == scalarField {
		return index.FormatPath([]string{name})
	}
	return strings.TrimSuffix(index.FormatPath([]string{name}), "?") + "*"
}

// indexedUnder reports whether the policy indexes any scalar of field f at path.
func indexedUnder(pol *index.Compiled, path []string, f *design.Field) bool {
	switch {
	case len(f.Object) > 0:
		for _, nf := range f.Object {
			if indexedUnder(pol, append(slices.Clone(path), nf.Name), &nf.Field) {
				return true
			}
		}
		return false
	case f.Array != nil && f.Of != nil:
		return indexedUnder(pol, append(slices.Clone(path), index.ArrayElem), f.Of)
	}
	return pol.Indexed(path)
}

// inAllTypes reports whether every document type of c has the top-level field name (id always).
func inAllTypes(c *design.Container, name string) bool {
	if name == "id" {
		return true
	}
	for i := range c.Documents {
		f, ok := c.Documents[i].Fields.Lookup(name)
		if !ok || kindOf(f) != scalarField || f.Optional > 0 {
			return false
		}
	}
	return true
}

func pathWords(path []string) string {
	return "/" + strings.Join(path, "/")
}

func compositeWords(cp []design.CompositePath) string {
	var parts []string
	for _, p := range cp {
		parts = append(parts, fmt.Sprintf("%s %s", p.Path, p.Order))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
