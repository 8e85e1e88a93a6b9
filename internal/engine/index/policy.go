// Package index holds the semantics of a container's indexing policy: which paths are indexed, how
// many index terms a document has, and which composite indexes exist.
package index

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Policy is the service's indexingPolicy resource, JSON-compatible with what azcosmos sends.
type Policy struct {
	Automatic        bool              `json:"automatic"`
	IndexingMode     string            `json:"indexingMode"`
	IncludedPaths    []Path            `json:"includedPaths"`
	ExcludedPaths    []Path            `json:"excludedPaths"`
	CompositeIndexes [][]CompositePath `json:"compositeIndexes,omitempty"`
}

// Path is an included or excluded path such as "/userId/?" or "/*".
type Path struct {
	Path string `json:"path"`
}

// CompositePath is one path of a composite index; Order is "ascending" or "descending".
type CompositePath struct {
	Path  string `json:"path"`
	Order string `json:"order,omitempty"`
}

// OrderItem is one ORDER BY item: a property path from the document root and its direction.
type OrderItem struct {
	Path []string
	Desc bool
}

// Indexing modes as the service names them (compared case-insensitively).
const (
	ModeConsistent = "consistent"
	ModeLazy       = "lazy"
	ModeNone       = "none"
)

// ArrayElem is the path segment that stands for "any element of an array", as in "/tags/[]/?".
const ArrayElem = "[]"

// rule is one compiled included or excluded path.
type rule struct {
	segs     []string // property segments before the terminal "?" or "*"
	wildcard bool     // terminal "*": the path and everything below it
	include  bool
	text     string
}

// specificity orders rules so that the most specific match wins: more segments first, and for the
// same segments an exact "?" path before a "*" path.
func (r rule) specificity() int {
	s := len(r.segs) * 2
	if !r.wildcard {
		s++
	}
	return s
}

// matches reports whether the rule covers the scalar at path.
func (r rule) matches(path []string) bool {
	if r.wildcard {
		if len(path) < len(r.segs) {
			return false
		}
	} else if len(path) != len(r.segs) {
		return false
	}
	for i, s := range r.segs {
		if s != path[i] {
			return false
		}
	}
	return true
}

// Composite is one compiled composite index.
type Composite struct {
	Paths [][]string
	Desc  []bool
	// Specs are the paths as written with their order, e.g. "/name ASC".
	Specs []string
}

// Compiled is a validated policy ready for fast path checks. The zero value is not useful; a nil
// *Compiled means "everything indexed" to callers that accept one.
type Compiled struct {
	mode       string
	rules      []rule // sorted by descending specificity; excluded before included on a tie
	composites []Composite
}

// PolicyError is a policy the service would refuse with 400 Bad Request.
type PolicyError struct {
	Msg string
}

func (e *PolicyError) Error() string { return e.Msg }

func policyErr(format string, args ...any) error {
	return &PolicyError{Msg: fmt.Sprintf(format, args...)}
}

// Compile validates p and prepares it for lookups. Errors read like the service's 400 messages.
// A consistent or lazy policy with no included paths gets "/*" included, and "/_etag/?" is excluded
// unless the policy says otherwise, as the service does.
func Compile(p Policy) (*Compiled, error) {
	mode := strings.ToLower(strings.TrimSpace(p.IndexingMode))
	switch mode {
	case "":
		mode = ModeConsistent
	case ModeConsistent, ModeLazy, ModeNone:
	default:
		return nil, policyErr("The value '%s' specified for indexingMode is invalid. Valid values are 'consistent', 'lazy' and 'none'.", p.IndexingMode)
	}
	c := &Compiled{mode: mode}
	if mode == ModeNone {
		if len(p.IncludedPaths) > 0 || len(p.ExcludedPaths) > 0 || len(p.CompositeIndexes) > 0 {
			return nil, policyErr("Included paths, excluded paths and composite indexes must be empty when the indexing mode is 'none'.")
		}
		return c, nil
	}
	seen := map[string]bool{}
	add := func(raw string, include bool) error {
		r, err := parseRulePath(raw)
		if err != nil {
			return err
		}
		r.include = include
		key := strings.Join(r.segs, "/") + fmt.Sprint(r.wildcard)
		if seen[key] {
			return policyErr("The indexing path '%s' is specified more than once in the included and excluded paths.", raw)
		}
		seen[key] = true
		c.rules = append(c.rules, r)
		return nil
	}
	included := p.IncludedPaths
	if len(included) == 0 && !hasRoot(p.ExcludedPaths) {
		included = []Path{{Path: "/*"}}
	}
	for _, ip := range included {
		if err := add(ip.Path, true); err != nil {
			return nil, err
		}
	}
	for _, ep := range p.ExcludedPaths {
		if err := add(ep.Path, false); err != nil {
			return nil, err
		}
	}
	if !seen["true"] { // the root "/*" must be in one of the sets
		return nil, policyErr("The special mandatory indexing path \"/*\" is not provided in any of the path type sets. Please provide this path in one of the sets.")
	}
	if !seen["_etag"+"false"] && !seen["_etag"+"true"] {
		c.rules = append(c.rules, rule{segs: []string{"_etag"}, text: "/_etag/?"})
	}
	sort.SliceStable(c.rules, func(i, j int) bool {
		si, sj := c.rules[i].specificity(), c.rules[j].specificity()
		if si != sj {
			return si > sj
		}
		return !c.rules[i].include && c.rules[j].include
	})
	for i, ci := range p.CompositeIndexes {
		comp, err := compileComposite(i, ci)
		if err != nil {
			return nil, err
		}
		c.composites = append(c.composites, comp)
	}
	return c, nil
}

func hasRoot(paths []Path) bool {
	for _, p := range paths {
		if strings.TrimSpace(p.Path) == "/*" {
			return true
		}
	}
	return false
}

func badPath(raw string, pos int) error {
	return policyErr("The indexing path '%s' could not be accepted, failed near position '%d'. Please ensure that the path is a valid path. Common errors include invalid characters or absence of quotes around labels.", raw, pos)
}

// splitSegments splits "/a/\"b c\"/[]" into its segments, unquoting quoted labels.
func splitSegments(raw string) ([]string, int, bool) {
	if !strings.HasPrefix(raw, "/") {
		return nil, 0, false
	}
	var segs []string
	i := 1
	for i <= len(raw) {
		if i == len(raw) {
			return nil, i, false // trailing "/"
		}
		if raw[i] == '"' {
			end := strings.IndexByte(raw[i+1:], '"')
			if end < 0 {
				return nil, i, false
			}
			segs = append(segs, raw[i+1:i+1+end])
			i += end + 2
		} else {
			end := strings.IndexByte(raw[i:], '/')
			if end < 0 {
				end = len(raw) - i
			}
			seg := raw[i : i+end]
			if seg == "" || strings.ContainsAny(seg, " \"'\t") {
				return nil, i, false
			}
			segs = append(segs, seg)
			i += end
		}
		if i == len(raw) {
			return segs, 0, true
		}
		if raw[i] != '/' {
			return nil, i, false
		}
		i++
	}
	return segs, 0, true
}

func parseRulePath(raw string) (rule, error) {
	segs, pos, ok := splitSegments(raw)
	if !ok || len(segs) == 0 {
		return rule{}, badPath(raw, pos)
	}
	last := segs[len(segs)-1]
	r := rule{segs: segs[:len(segs)-1], text: raw}
	switch last {
	case "?":
		if len(r.segs) == 0 {
			return rule{}, badPath(raw, 1)
		}
	case "*":
		r.wildcard = true
	default:
		return rule{}, badPath(raw, len(raw))
	}
	for i, s := range r.segs {
		if s == "*" || s == "?" {
			return rule{}, badPath(raw, i)
		}
	}
	return r, nil
}

func compileComposite(i int, ci []CompositePath) (Composite, error) {
	if len(ci) < 2 {
		return Composite{}, policyErr("The number of paths in composite index %d is %d. A composite index must have at least 2 paths.", i, len(ci))
	}
	var comp Composite
	for _, cp := range ci {
		segs, pos, ok := splitSegments(cp.Path)
		if !ok || len(segs) == 0 {
			return Composite{}, badPath(cp.Path, pos)
		}
		for _, s := range segs {
			if s == "*" || s == "?" || s == ArrayElem {
				return Composite{}, policyErr("The composite index path '%s' is invalid: composite index paths must not contain wildcards or array segments.", cp.Path)
			}
		}
		var desc bool
		switch strings.ToLower(cp.Order) {
		case "", "ascending":
		case "descending":
			desc = true
		default:
			return Composite{}, policyErr("The value '%s' specified for the order of composite index path '%s' is invalid. Valid values are 'ascending' and 'descending'.", cp.Order, cp.Path)
		}
		comp.Paths = append(comp.Paths, segs)
		comp.Desc = append(comp.Desc, desc)
		dir := "ASC"
		if desc {
			dir = "DESC"
		}
		comp.Specs = append(comp.Specs, cp.Path+" "+dir)
	}
	return comp, nil
}

// Mode is the policy's indexing mode in lower case: "consistent", "lazy" or "none".
func (c *Compiled) Mode() string {
	if c == nil {
		return ModeConsistent
	}
	return c.mode
}

// Indexed reports whether the scalar value at path (property names from the root; array elements as
// "[]") is indexed. The most specific matching included or excluded path decides; on a tie the
// excluded path wins. A nil *Compiled indexes everything.
func (c *Compiled) Indexed(path []string) bool {
	if c == nil {
		return true
	}
	if c.mode == ModeNone {
		return false
	}
	for _, r := range c.rules {
		if r.matches(path) {
			return r.include
		}
	}
	return false
}

// ArrayLeafTerms is the number of index terms of one scalar inside an array: one, like any other
// leaf. An earlier card counted two (its positional path and the "/[]" path) from a reading of
// index-overview.md's tree; no published figure supports a second term, and independent measurements
// of array-heavy writes under the default policy came out below what two terms charge, by more than
// the model's ±30%, so the assumption is dropped (see Terms).
const ArrayLeafTerms = 1

// Terms counts the index terms of a document under the policy.
//
// The service does not define an "index term"; this package assumes one term per scalar leaf value
// (null, boolean, number, string) whose path is indexed, plus one term per composite index whose
// paths all hold a scalar in the document. A leaf inside an array counts ArrayLeafTerms (one), like
// any other — an assumption, no document counts terms. The cost model's write charges are
// calibrated against this count, not against the service's internals.
func (c *Compiled) Terms(body map[string]any) int {
	if c != nil && c.mode == ModeNone {
		return 0
	}
	n, inArray := 0, 0
	path := make([]string, 0, 8)
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, child := range t {
				path = append(path, k)
				walk(child)
				path = path[:len(path)-1]
			}
		case []any:
			path = append(path, ArrayElem)
			inArray++
			for _, child := range t {
				walk(child)
			}
			inArray--
			path = path[:len(path)-1]
		default:
			if c.Indexed(path) {
				n++
				if inArray > 0 {
					n += ArrayLeafTerms - 1
				}
			}
		}
	}
	walk(body)
	if c != nil {
		for _, comp := range c.composites {
			all := true
			for _, p := range comp.Paths {
				if !scalarAt(body, p) {
					all = false
					break
				}
			}
			if all {
				n++
			}
		}
	}
	return n
}

func scalarAt(body map[string]any, path []string) bool {
	var v any = body
	for _, s := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if v, ok = m[s]; !ok {
			return false
		}
	}
	switch v.(type) {
	case map[string]any, []any:
		return false
	}
	return true
}

// Composites returns the policy's composite indexes in policy order.
func (c *Compiled) Composites() []Composite {
	if c == nil {
		return nil
	}
	return c.composites
}

// HasComposite reports whether a composite index serves these ORDER BY items: the index's paths
// equal the items' paths in the same order (no more, no fewer), and the directions are either all equal to the
// index's or all inverted. A nil *Compiled has no composite indexes.
func (c *Compiled) HasComposite(items []OrderItem) bool {
	_, ok := c.FindComposite(items)
	return ok
}

// FindComposite returns the composite index that serves items, as HasComposite decides.
func (c *Compiled) FindComposite(items []OrderItem) (Composite, bool) {
	if c == nil || len(items) == 0 {
		return Composite{}, false
	}
	for _, comp := range c.composites {
		if len(comp.Paths) != len(items) { // the docs' table: a longer index does not serve a prefix
			continue
		}
		same, inverted := true, true
		for i, it := range items {
			if !slices.Equal(comp.Paths[i], it.Path) {
				same, inverted = false, false
				break
			}
			if comp.Desc[i] == it.Desc {
				inverted = false
			} else {
				same = false
			}
		}
		if same || inverted {
			return comp, true
		}
	}
	return Composite{}, false
}

// FormatPath renders path segments as an index path ending in "/?", e.g. ["a","[]"] → "/a/[]/?".
// Segments that are not plain identifiers are quoted.
func FormatPath(path []string) string {
	var b strings.Builder
	for _, s := range path {
		b.WriteByte('/')
		if s == ArrayElem || isPlain(s) {
			b.WriteString(s)
		} else {
			b.WriteString(`"` + s + `"`)
		}
	}
	b.WriteString("/?")
	return b.String()
}

func isPlain(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
