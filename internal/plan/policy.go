package plan

import (
	"strings"

	"github.com/cosmosdv/validate/internal/design"
)

// policy answers "is this scalar path indexed?" for a design's compact indexing policy, with the
// service's precedence: the most precise matching path wins, an excluded path wins a tie
// (index-policy.md). It is the plan's static view; the engine has its own implementation.
type policy struct {
	none      bool
	rules     []rule
	composite [][]string
}

type rule struct {
	segs     []string
	exact    bool // "/?" ending: only this scalar path
	excluded bool
}

func newPolicy(ix *design.Indexing) *policy {
	p := &policy{}
	if ix == nil {
		p.rules = []rule{{segs: nil}}
		return p
	}
	if strings.EqualFold(ix.Mode, "none") {
		p.none = true
		return p
	}
	add := func(paths []string, excluded bool) {
		for _, s := range paths {
			r := parseRule(s)
			r.excluded = excluded
			p.rules = append(p.rules, r)
		}
	}
	add(ix.Included, false)
	add(ix.Excluded, true)
	if len(ix.Included) == 0 {
		// The service requires the root to be included or excluded; a policy listing only exclusions
		// includes the rest.
		p.rules = append(p.rules, rule{})
	}
	for _, ci := range ix.Composite {
		var paths []string
		for _, cp := range ci {
			paths = append(paths, strings.Trim(cp.Path, "/"))
		}
		p.composite = append(p.composite, paths)
	}
	return p
}

func parseRule(s string) rule {
	s = strings.TrimSpace(s)
	r := rule{}
	switch {
	case strings.HasSuffix(s, "/?"):
		r.exact = true
		s = strings.TrimSuffix(s, "/?")
	case strings.HasSuffix(s, "/*"):
		s = strings.TrimSuffix(s, "/*")
	}
	for seg := range strings.SplitSeq(strings.Trim(s, "/"), "/") {
		if seg != "" {
			r.segs = append(r.segs, strings.Trim(seg, `"`))
		}
	}
	return r
}

func (r rule) match(path []string) bool {
	if r.exact && len(path) != len(r.segs) {
		return false
	}
	if len(path) < len(r.segs) {
		return false
	}
	for i, s := range r.segs {
		if s != path[i] {
			return false
		}
	}
	return true
}

// indexed reports whether the scalar at path (property names, "[]" for array elements) is indexed.
func (p *policy) indexed(path []string) bool {
	if p.none {
		return false
	}
	best, bestPrec, found := false, -1, false
	for _, r := range p.rules {
		if !r.match(path) {
			continue
		}
		prec := 2 * len(r.segs)
		if r.exact {
			prec++
		}
		if prec > bestPrec || (prec == bestPrec && r.excluded) {
			best, bestPrec, found = !r.excluded, prec, true
		}
	}
	return found && best
}

// systemTerms is the number of always-indexed system terms (id and _ts under consistent indexing).
func (p *policy) systemTerms() int {
	if p.none {
		return 0
	}
	return 2
}

// hasComposite reports whether a composite index starts with exactly these paths, in order.
func (p *policy) hasComposite(paths []string) bool {
	for _, ci := range p.composite {
		if len(ci) < len(paths) {
			continue
		}
		ok := true
		for i := range paths {
			if ci[i] != paths[i] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
