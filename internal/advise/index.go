package advise

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine/index"
	"github.com/cosmosdv/validate/internal/engine/sql"
	"github.com/cosmosdv/validate/internal/indexpolicy"
	"github.com/cosmosdv/validate/internal/querycheck"
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
	// Queries are the patterns' queries the recommended policy needs rewritten (an ORDER BY with
	// the filtered paths in front), each with its new text.
	Queries []QueryRewrite `json:"queries,omitempty"`
}

// QueryRewrite is a pattern's query written anew as part of an index change.
type QueryRewrite struct {
	Pattern string `json:"pattern"`
	Query   string `json:"query"`
}

// IndexChange is one candidate change of a policy, priced alone.
type IndexChange struct {
	// Kind is exclude (stop indexing a path no query names), include (index a path a query filters
	// or sorts on), drop-composite, add-composite, or rewrite-add-composite (add a composite index
	// and rewrite a query's ORDER BY so that the index serves it: Rewrite says how).
	Kind string `json:"kind"`
	// Path is the index path or the composite index, as the design writes it.
	Path string `json:"path"`
	// Why says what the candidate rests on: the queries that name the path, or that none does.
	Why    string `json:"why"`
	Change Change `json:"change"`
	// Verdict is "saves", "costs" (keep the design's choice), "no change", or why the change
	// cannot be made ("breaks AP4: …").
	Verdict string `json:"verdict"`
	// Rewrite is the query the change rewrites (rewrite-add-composite), nil for none.
	Rewrite *QueryRewrite `json:"rewrite,omitempty"`
	// Breaks lists what the change breaks (a query the service would refuse without the index);
	// such a change has no figures (Change is zero): a refused query has no charge to compare.
	Breaks []string `json:"breaks,omitempty"`
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
		type edit struct {
			ix func(*design.Indexing)
			rw *QueryRewrite
		}
		var good []edit
		// try prices a change of the policy alone, with a pattern's query rewritten (rw) or not.
		try := func(kind, path, why string, ixEdit func(*design.Indexing), rw *QueryRewrite) {
			v := s.withIndexing(ci, ixEdit)
			if rw != nil {
				v.AccessPatterns[patternIndex(v, rw.Pattern)].Query = rw.Query
			}
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
			ch := IndexChange{Kind: kind, Path: path, Why: why, Change: diff(s.baseT, totalsOf(p)), Rewrite: rw}
			switch {
			case len(broken) > 0:
				ch.Verdict = "breaks " + strings.Join(broken, "; ")
				ch.Breaks, ch.Change = broken, Change{}
			case s.saves(ch.Change):
				ch.Verdict = "saves"
				good = append(good, edit{ixEdit, rw})
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
				}, nil)
			}
		}
		// Drop a composite index: priced; a query whose ORDER BY needs it shows as broken.
		for i, comp := range c.Indexing.Composite {
			i := i
			why := ""
			if ids, ok := querycheck.CompositeNeeded(s.d, ci, comp); ok && len(ids) == 0 {
				// The rule lint's index-unused follows: every write pays its terms for no reader.
				why = "no query needs it (none orders by it, none filters on all of its paths): every write pays its index terms for no reader"
			}
			try("drop-composite", compositeWords(comp), why, func(ix *design.Indexing) {
				ix.Composite = slices.Delete(slices.Clone(ix.Composite), i, i+1)
			}, nil)
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
				}, nil)
			}
		}
		// Add a composite: an equality filter followed by the ORDER BY, or an ORDER BY of several
		// paths, that no composite serves. The service uses a composite index that leads with the
		// equality-filtered paths only when they stand in front of the ORDER BY too
		// (querycheck.CompositeServes): for a query that does not write them there, the index alone
		// is priced as is (the query does not use it), and with the ORDER BY rewritten as well.
		for _, qq := range qs {
			comp := wantComposite(qq, pol)
			if comp == nil {
				continue
			}
			w := compositeWords(comp)
			rw, ok := querycheck.CompositeServes(querycheck.Result{Query: qq.q, Analysis: qq.a}, qq.ap.Query, orderItems(comp))
			addComp := func(ix *design.Indexing) { ix.Composite = withComposite(ix.Composite, comp) }
			if !added[w] {
				added[w] = true
				why := qq.ap.ID + " filters and sorts on these paths"
				if ok && rw.Query != "" {
					why = qq.ap.ID + " as written does not use it: its ORDER BY lacks the filtered paths in front"
				}
				try("add-composite", w, why, addComp, nil)
			}
			if !ok || rw.Query == "" || added[w+" "+qq.ap.ID] {
				continue
			}
			added[w+" "+qq.ap.ID] = true
			try("rewrite-add-composite", w, fmt.Sprintf("rewrite %s's ORDER BY to %s (the filter pins the added paths, so the results keep their order) and add the composite",
				qq.ap.ID, rw.OrderBy), addComp, &QueryRewrite{Pattern: qq.ap.ID, Query: rw.Query})
		}
		// The recommended policy: every saving change together, priced as one variant.
		if len(good) > 0 {
			v := s.withIndexing(ci, func(ix *design.Indexing) {
				for _, e := range good {
					e.ix(ix)
				}
			})
			var rws []QueryRewrite
			rewritten := map[string]bool{}
			for _, e := range good {
				if e.rw != nil && !rewritten[e.rw.Pattern] {
					rewritten[e.rw.Pattern] = true
					v.AccessPatterns[patternIndex(v, e.rw.Pattern)].Query = e.rw.Query
					rws = append(rws, *e.rw)
				}
			}
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
				ia.Policy, ia.Change, ia.Queries = ix, &ch, rws
				ia.PolicyYAML = indexingYAML(ix)
				// The rewritten queries state the variant's own figure.
				estimates(vd, p, rewritten)
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
	items := orderItems(comp)
	if pol.HasComposite(items) || (qq.a.OrderStreams && pol.HasComposite(qq.a.OrderBy)) {
		return nil
	}
	return comp
}

// withComposite is the composite indexes with comp added (on a copy), unless one with the same paths
// and orders is there already.
func withComposite(have [][]design.CompositePath, comp []design.CompositePath) [][]design.CompositePath {
	if slices.ContainsFunc(have, func(h []design.CompositePath) bool { return slices.Equal(h, comp) }) {
		return have
	}
	return append(slices.Clone(have), comp)
}

// orderItems is a composite index as the planner's order items.
func orderItems(comp []design.CompositePath) []index.OrderItem {
	items := make([]index.OrderItem, len(comp))
	for i, cp := range comp {
		items[i] = index.OrderItem{Path: strings.Split(strings.TrimPrefix(cp.Path, "/"), "/"), Desc: cp.Order == "desc"}
	}
	return items
}

// patternIndex is the index of pattern id in d.AccessPatterns.
func patternIndex(d *design.Design, id string) int {
	return slices.IndexFunc(d.AccessPatterns, func(ap design.AccessPattern) bool { return ap.ID == id })
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
		switch {
		case c.Verdict != "saves":
		case c.Rewrite != nil:
			out = append(out, fmt.Sprintf("add-composite %s with %s's ORDER BY rewritten", c.Path, c.Rewrite.Pattern))
		default:
			out = append(out, c.Kind+" "+c.Path)
		}
	}
	return strings.Join(out, ", ")
}
