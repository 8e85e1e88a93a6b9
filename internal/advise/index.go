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

// IndexAdvice is the indexing what-if of one container.
type IndexAdvice struct {
	Container string `json:"container"`
	// Changes are the candidate changes, each priced alone against the design.
	Changes []IndexChange `json:"changes"`
	// Policy is the recommended indexing policy (nil when no change saves), PolicyYAML the same as
	// YAML to paste under the container, Change its total change against the design.
	Policy     *design.Indexing `json:"policy,omitempty"`
	PolicyYAML string           `json:"policyYAML,omitempty"`
	Change     *Change          `json:"change,omitempty"`
}

// IndexChange is one candidate change of a policy, priced alone.
type IndexChange struct {
	// Kind is exclude (stop indexing a path no query names), include (index a path a query filters
	// or sorts on), drop-composite or add-composite.
	Kind string `json:"kind"`
	// Path is the index path or the composite index, as the design writes it.
	Path string `json:"path"`
	// Why says what the candidate rests on: the queries that name the path, or that none does.
	Why    string `json:"why"`
	Change Change `json:"change"`
	// Verdict is "saves", "costs" (keep the design's choice), "no change", or why the change
	// cannot be made ("breaks AP4: …").
	Verdict string `json:"verdict"`
}

// indexing prices the index what-if of every container with a consistent policy.
func (s *search) indexing() {
	for ci := range s.d.Containers {
		c := &s.d.Containers[ci]
		if c.Indexing == nil || !strings.EqualFold(c.Indexing.Mode, "consistent") {
			continue
		}
		pol, err := indexpolicy.Compile(c.Indexing)
		if err != nil {
			continue
		}
		ia := IndexAdvice{Container: c.Name, Changes: []IndexChange{}}
		var good []func(*design.Indexing)
		try := func(kind, path, why string, edit func(*design.Indexing)) {
			v := s.withIndexing(ci, edit)
			label := fmt.Sprintf("index %s %s on %s", kind, path, c.Name)
			p, _, err := s.price(label, v)
			if err != nil {
				s.note("%v", err)
				return
			}
			if p == nil {
				return
			}
			broken := newWarnings(s.base, p)
			if why == "" {
				why = "no query's charge depends on it"
				if up := s.dearer(p); len(up) > 0 {
					why = "serves " + strings.Join(up, ", ")
				}
				if len(broken) > 0 {
					why = "the service refuses a query without it"
				}
			}
			ch := IndexChange{Kind: kind, Path: path, Why: why, Change: diff(s.baseT, totalsOf(p))}
			switch {
			case len(broken) > 0:
				ch.Verdict = "breaks " + strings.Join(broken, "; ")
			case s.saves(ch.Change):
				ch.Verdict = "saves"
				good = append(good, edit)
			case ch.Change.RUs > 0 || ch.Change.MonthlyUSD > 0:
				ch.Verdict = "costs"
			default:
				ch.Verdict = "no change"
			}
			ia.Changes = append(ia.Changes, ch)
		}
		qs := queriesOf(s.d, ci)
		// Exclude: top-level fields no query names, indexed today.
		seen := map[string]bool{}
		keyFields := map[string]bool{}
		for _, kp := range c.PartitionKey {
			keyFields[strings.TrimPrefix(kp, "/")] = true
		}
		for ti := range c.Documents {
			for _, nf := range c.Documents[ti].Fields {
				name := nf.Name
				if seen[name] || name == "id" || keyFields[name] {
					continue
				}
				seen[name] = true
				if !indexedUnder(pol, []string{name}, &nf.Field) {
					continue
				}
				if users := namedBy(qs, []string{name}); len(users) > 0 || s.conditionNames(c.Name, name) {
					continue
				}
				path := excludePath(name, kindOf(&nf.Field))
				try("exclude", path, "no query names /"+name, func(ix *design.Indexing) {
					// A path the policy lists as included is dropped from it; otherwise excluded.
					if i := slices.Index(ix.Included, path); i >= 0 {
						ix.Included = slices.Delete(ix.Included, i, i+1)
						if !slices.Contains(ix.Excluded, "/*") && !slices.Contains(ix.Included, "/*") {
							ix.Excluded = append(ix.Excluded, path)
						}
						return
					}
					ix.Excluded = append(ix.Excluded, path)
				})
			}
		}
		// Drop a composite index: priced; a query whose ORDER BY needs it shows as broken.
		for i, comp := range c.Indexing.Composite {
			i := i
			try("drop-composite", compositeWords(comp), "", func(ix *design.Indexing) {
				ix.Composite = slices.Delete(slices.Clone(ix.Composite), i, i+1)
			})
		}
		// Include: paths queries filter or sort on that the policy does not index.
		added := map[string]bool{}
		for _, qq := range qs {
			for _, path := range qq.a.Unindexed {
				ip := index.FormatPath(path)
				if added[ip] {
					continue
				}
				added[ip] = true
				try("include", ip, qq.ap.ID+" filters on "+pathWords(path), func(ix *design.Indexing) {
					ix.Included = append(ix.Included, ip)
				})
			}
		}
		// Add a composite: an equality filter followed by the ORDER BY, or an ORDER BY of several
		// paths, that no composite serves.
		for _, qq := range qs {
			comp := wantComposite(qq, pol)
			if comp == nil {
				continue
			}
			w := compositeWords(comp)
			if added[w] {
				continue
			}
			added[w] = true
			try("add-composite", w, qq.ap.ID+" filters and sorts on these paths", func(ix *design.Indexing) {
				ix.Composite = append(slices.Clone(ix.Composite), comp)
			})
		}
		// The recommended policy: every saving change together, priced as one variant.
		if len(good) > 0 {
			v := s.withIndexing(ci, func(ix *design.Indexing) {
				for _, e := range good {
					e(ix)
				}
			})
			name := "index-" + slug(c.Name)
			p, vd, err := s.price("recommended indexing policy of "+c.Name, v)
			switch {
			case err != nil:
				s.note("%v", err)
			case p == nil:
			case len(newWarnings(s.base, p)) > 0 || !s.saves(diff(s.baseT, totalsOf(p))):
				s.note("%s: the saving changes together do not save (%s); priced one by one above", c.Name, strings.Join(newWarnings(s.base, p), "; "))
			default:
				ix := vd.Containers[ci].Indexing
				ch := diff(s.baseT, totalsOf(p))
				ia.Policy, ia.Change = ix, &ch
				ia.PolicyYAML = indexingYAML(ix)
				s.recommend(name, fmt.Sprintf("indexing policy of %s: %s", c.Name, changeList(ia.Changes)), p, vd)
			}
		}
		s.a.Indexing = append(s.a.Indexing, ia)
	}
}

// withIndexing is d with container ci's indexing policy edited (on a copy).
func (s *search) withIndexing(ci int, edit func(*design.Indexing)) *design.Design {
	v := shallow(s.d)
	c := &v.Containers[ci]
	ix := *c.Indexing
	ix.Included = slices.Clone(ix.Included)
	ix.Excluded = slices.Clone(ix.Excluded)
	ix.Composite = slices.Clone(ix.Composite)
	edit(&ix)
	c.Indexing = &ix
	return v
}

// shallow copies the design's top level and its container and pattern lists, so that a variant can
// replace a container or a pattern without touching d; price deep-copies through the parser.
func shallow(d *design.Design) *design.Design {
	v := *d
	v.Containers = slices.Clone(d.Containers)
	v.AccessPatterns = slices.Clone(d.AccessPatterns)
	return &v
}

// namedBy lists the queries that name path or anything under it.
func namedBy(qs []query, path []string) []string {
	var out []string
	for _, qq := range qs {
		if qq.names(path) {
			out = append(out, qq.ap.ID)
		}
	}
	return out
}

// conditionNames reports whether a patch condition on the container names the field (a condition
// is a filter the service evaluates on the document, not through the index, but keep it).
func (s *search) conditionNames(container, field string) bool {
	for _, ap := range s.d.AccessPatterns {
		if ap.Container == container && strings.Contains(ap.Condition, "."+field) {
			return true
		}
	}
	return false
}

// wantComposite is the composite index a query would be served by and that the policy lacks: the
// paths of its equality filters (ascending) then its ORDER BY items; nil when the query has no
// ORDER BY, or the ORDER BY already streams from the index.
func wantComposite(qq query, pol *index.Compiled) []design.CompositePath {
	if len(qq.a.OrderBy) == 0 || qq.a.SearchSort {
		return nil
	}
	var comp []design.CompositePath
	used := map[string]bool{}
	add := func(path []string, desc bool) {
		p := strings.TrimSuffix(index.FormatPath(path), "/?")
		if used[p] || slices.Contains(path, index.ArrayElem) {
			return
		}
		used[p] = true
		o := "asc"
		if desc {
			o = "desc"
		}
		comp = append(comp, design.CompositePath{Path: p, Order: o})
	}
	for _, f := range qq.a.Filters {
		if f.Kind == sql.FilterEqual && len(f.Path) > 0 {
			add(f.Path, false)
		}
	}
	nEq := len(comp)
	for _, it := range qq.a.OrderBy {
		add(it.Path, it.Desc)
	}
	if len(comp) < 2 || len(comp) == nEq {
		return nil
	}
	// Already there (the ORDER BY alone or with the equalities)?
	items := make([]index.OrderItem, len(comp))
	for i, cp := range comp {
		items[i] = index.OrderItem{Path: strings.Split(strings.TrimPrefix(cp.Path, "/"), "/"), Desc: cp.Order == "desc"}
	}
	if pol.HasComposite(items) || (qq.a.OrderStreams && pol.HasComposite(qq.a.OrderBy)) {
		return nil
	}
	return comp
}

// indexingYAML is the policy as YAML to paste under the container (indexing: …).
func indexingYAML(ix *design.Indexing) string {
	b, err := design.MarshalPart("indexing", ix)
	if err != nil {
		return ""
	}
	return string(b)
}

func changeList(cs []IndexChange) string {
	var out []string
	for _, c := range cs {
		if c.Verdict == "saves" {
			out = append(out, c.Kind+" "+c.Path)
		}
	}
	return strings.Join(out, ", ")
}
