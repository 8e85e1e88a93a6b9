package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine/index"
	"github.com/cosmosdv/validate/internal/querycheck"
	"github.com/cosmosdv/validate/internal/record"
)

// Suggestion is one change to a design that the target's index metrics recommend for a pattern, kept
// only when the service's documented rules say it would use it, and written in the design's syntax.
type Suggestion struct {
	// Text says what to paste where, in the design's YAML.
	Text string
	// Composite is a composite index to add to the pattern's container; nil for none.
	Composite []index.OrderItem
	// Include is an index path ("/status/?") to include in, or remove from the excluded paths of,
	// the container's policy; "" for none.
	Include string
	// Query is the pattern's query rewritten so that the index serves it; "" to keep the query.
	Query string
}

// Suggestions turns the indexes the target recommended for pattern ap (index metrics) into changes
// of the design. A recommended composite index is given as is when the query uses it, with the ORDER
// BY that uses it — the filtered properties added in front, which leaves the order of the results as
// it was — or dropped, by the service's rule (querycheck.CompositeServes, which advise uses too). A
// single-path index on a property no document type generates is dropped (lint names the field).
func Suggestions(d *design.Design, ap *design.AccessPattern, p *record.Pattern) []Suggestion {
	ci := slices.IndexFunc(d.Containers, func(c design.Container) bool { return c.Name == ap.Container })
	if ci < 0 || p == nil {
		return nil
	}
	var out []Suggestion
	add := func(s Suggestion) {
		if !slices.ContainsFunc(out, func(o Suggestion) bool { return o.Text == s.Text }) {
			out = append(out, s)
		}
	}
	var check *querycheck.Result
	if ap.Op == design.OpQuery {
		r := querycheck.Check(d, ci, ap.Query)
		check = &r
	}
	if im := firstIndexMetrics(p); im != nil {
		for _, spec := range im.PotentialSingle {
			if s, ok := singleSuggestion(d, ci, spec); ok {
				add(s)
			}
		}
		for _, specs := range im.PotentialComposite {
			items, ok := parseComposite(specs)
			if !ok || check == nil || check.Query == nil {
				continue
			}
			if s, ok := compositeSuggestion(d, ci, ap, check, items); ok {
				add(s)
			}
		}
	}
	return out
}

func singleSuggestion(d *design.Design, ci int, spec string) (Suggestion, bool) {
	c := &d.Containers[ci]
	segs := strings.Split(strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(spec, "/"), "/?"), "/*"), "/")
	if !slices.ContainsFunc(c.Documents, func(t design.DocType) bool { return t.Fields.Generates(segs) }) {
		return Suggestion{}, false
	}
	if c.Indexing != nil && slices.Contains(c.Indexing.Excluded, spec) {
		return Suggestion{Include: spec, Text: fmt.Sprintf("remove %q from containers[%d].indexing.excluded", spec, ci)}, true
	}
	return Suggestion{Include: spec, Text: fmt.Sprintf("add to containers[%d].indexing.included: - %q", ci, spec)}, true
}

func compositeSuggestion(d *design.Design, ci int, ap *design.AccessPattern, r *querycheck.Result, items []index.OrderItem) (Suggestion, bool) {
	fix := querycheck.CompositeFix(d, ci, items)
	rw, ok := querycheck.CompositeServes(*r, ap.Query, items)
	switch {
	case !ok:
		return Suggestion{}, false
	case rw.Query == "":
		return Suggestion{Composite: items, Text: fix}, true
	}
	return Suggestion{Composite: items, Query: rw.Query, Text: fmt.Sprintf(
		"a composite index serves this filter and ORDER BY only with the filtered properties first in the ORDER BY too (the filter pins them, so the results keep their order): "+
			"write ORDER BY %s in accessPatterns[%d].query and %s", rw.OrderBy, slices.IndexFunc(d.AccessPatterns, func(x design.AccessPattern) bool { return x.ID == ap.ID }), fix)}, true
}

// parseComposite reads index metrics' composite specs ("/userId ASC", "/createdAt DESC").
func parseComposite(specs []string) ([]index.OrderItem, bool) {
	out := make([]index.OrderItem, 0, len(specs))
	for _, s := range specs {
		path, dir, _ := strings.Cut(strings.TrimSpace(s), " ")
		if !strings.HasPrefix(path, "/") {
			return nil, false
		}
		out = append(out, index.OrderItem{Path: strings.Split(strings.TrimPrefix(path, "/"), "/"), Desc: strings.EqualFold(dir, "DESC")})
	}
	return out, len(out) > 0
}

// Apply makes the change in d (a copy the caller owns) for pattern ap.
func (s Suggestion) Apply(d *design.Design, ap *design.AccessPattern) {
	ci := slices.IndexFunc(d.Containers, func(c design.Container) bool { return c.Name == ap.Container })
	if ci < 0 {
		return
	}
	c := &d.Containers[ci]
	if c.Indexing == nil {
		c.Indexing = &design.Indexing{Mode: "consistent"}
	}
	if s.Composite != nil {
		var cp []design.CompositePath
		for _, it := range s.Composite {
			order := "asc"
			if it.Desc {
				order = "desc"
			}
			cp = append(cp, design.CompositePath{Path: "/" + strings.Join(it.Path, "/"), Order: order})
		}
		c.Indexing.Composite = append(c.Indexing.Composite, cp)
	}
	if s.Include != "" {
		if i := slices.Index(c.Indexing.Excluded, s.Include); i >= 0 {
			c.Indexing.Excluded = slices.Delete(c.Indexing.Excluded, i, i+1)
		} else {
			c.Indexing.Included = append(c.Indexing.Included, s.Include)
		}
	}
	if s.Query != "" {
		ap.Query = s.Query
	}
}
