package plan

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine/sql"
	"github.com/cosmosdv/validate/internal/seed"
)

// A filter's selectivity comes from the generator of the field it tests, the one the seeder draws
// the documents from: a range over an int, decimal, money, epoch or isoTime generator keeps the
// share of the generator's interval it covers (values are drawn uniformly over it, also when a
// cardinality limits them to a pool of uniformly drawn values); an IN list or an equality on a
// oneOf or a const keeps the weights of the values it names; a text search (FullTextContains and
// its All/Any forms, CONTAINS) on a text generator's field keeps the documents whose generated text
// holds its words or its substring, with the probability the seed package derives from the text
// generator (textShare). When the generator says nothing (a
// bound filled from a template, another generator, a path no type has), the estimate states its
// assumption instead (rangeFallback).

// rangeFallback is what the estimate assumes of a range filter whose selectivity the generators do
// not tell.
const rangeFallback = "assumed to keep every document in scope, its index scan reading half of the path's entries"

// boundFilters returns the query's filters with each parameter that the pattern fills with a fixed
// value (not a {template}) replaced by that value, and an equality's constant also in Values, so
// that filterShare reads literals only.
func boundFilters(ap *design.AccessPattern, filters []sql.Filter) []sql.Filter {
	out := slices.Clone(filters)
	for i := range out {
		fl := &out[i]
		if fl.Kind == sql.FilterEqual {
			switch {
			case fl.HasLiteral:
				fl.Values = []any{fl.Literal}
			case fl.Param != "":
				fl.Values = []any{sql.Param(fl.Param)}
			}
		}
		if len(fl.Values) == 0 {
			continue
		}
		vals := slices.Clone(fl.Values)
		for j, v := range vals {
			p, ok := v.(sql.Param)
			if !ok {
				continue
			}
			if pv, ok := ap.Params[string(p)]; ok {
				if s, isString := pv.(string); !isString || !strings.Contains(s, "{") {
					vals[j] = literalOf(pv)
				}
			}
		}
		fl.Values = vals
	}
	return out
}

// literalOf is a YAML value as the query language holds it: numbers as float64.
func literalOf(v any) any {
	switch x := v.(type) {
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case uint64:
		return float64(x)
	case float32:
		return float64(x)
	}
	return v
}

// filterShare is the share of dt's documents that pass fl (a range, an IN list or an equality with
// constant Values, see boundFilters) by the generator of the field at fl's path; why says how it
// was read. known is false when the generator does not tell.
func (s *sizer) filterShare(dt *design.DocType, fl sql.Filter) (share float64, why string, known bool) {
	if len(fl.Values) == 0 || slices.ContainsFunc(fl.Values, func(v any) bool { _, p := v.(sql.Param); return p }) {
		return 1, "a bound is a parameter filled from a seeded document", false
	}
	path := "/" + strings.Join(fl.Path, "/")
	f := fieldAt(dt, path)
	if f == nil {
		if s.anyTypeHas(path) {
			return 0, dt.Type + " has no " + path, true
		}
		return 1, "no document type generates " + path, false
	}
	present := 1 - clamp01(f.Optional)
	switch {
	case f.Const != nil:
		if passes(fl, literalOf(f.Const)) {
			return present, "a const", true
		}
		return 0, "a const", true
	case len(f.OneOf) > 0:
		total, kept := 0.0, 0.0
		for i, v := range f.OneOf {
			w := 1.0
			if i < len(f.Weights) {
				w = f.Weights[i]
			}
			total += w
			if passes(fl, literalOf(v)) {
				kept += w
			}
		}
		if total <= 0 {
			return 1, "oneOf without weight", false
		}
		return present * kept / total, fmt.Sprintf("oneOf of %d values", len(f.OneOf)), true
	}
	lo, hi, ok := seed.Range(f)
	if !ok || fl.Kind == sql.FilterEqual {
		return 1, "gen " + f.Gen + " has no range this estimate reads", false
	}
	bounds := make([]float64, len(fl.Values))
	for i, v := range fl.Values {
		b, ok := rangeValue(f.Gen, v)
		if !ok {
			// Values of another type never compare true (the query language's comparisons across
			// types are undefined).
			return 0, fmt.Sprintf("gen %s compared with %v", f.Gen, v), true
		}
		bounds[i] = b
	}
	return present * intervalShare(fl, f.Gen == "int", lo, hi, bounds),
		fmt.Sprintf("gen %s %s–%s, uniform", f.Gen, rangeText(f.Gen, lo), rangeText(f.Gen, hi)), true
}

// rangeValue is a literal on the scale seed.Range gives: a number for numeric generators, a time
// string (complete, or a prefix such as "2025-01-14T10") as Unix seconds for isoTime.
func rangeValue(gen string, v any) (float64, bool) {
	if gen == "isoTime" {
		s, ok := v.(string)
		if !ok {
			return 0, false
		}
		const full = "0000-01-01T00:00:00Z"
		if len(s) < len(full) {
			s += full[len(s):]
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return 0, false
		}
		return float64(t.Unix()), true
	}
	x, ok := v.(float64)
	return x, ok
}

func rangeText(gen string, v float64) string {
	if gen == "isoTime" || gen == "epoch" {
		return time.Unix(int64(v), 0).UTC().Format("2006-01-02")
	}
	return fmt.Sprintf("%g", v)
}

// intervalShare is the share of values drawn uniformly from [lo, hi] (the integers in it when
// integers) that pass fl's comparison with bounds.
func intervalShare(fl sql.Filter, integers bool, lo, hi float64, bounds []float64) float64 {
	// within is the share in [a, b] (both included).
	within := func(a, b float64) float64 {
		if integers {
			a, b = math.Max(math.Ceil(a), lo), math.Min(math.Floor(b), hi)
			return math.Max(b-a+1, 0) / (hi - lo + 1)
		}
		if hi <= lo {
			if a <= lo && lo <= b {
				return 1
			}
			return 0
		}
		return clamp01((math.Min(b, hi) - math.Max(a, lo)) / (hi - lo))
	}
	inf := math.Inf(1)
	b := bounds[0]
	// A strict bound on integers moves to the next integer; on continuous values it changes nothing.
	above, below := b, b
	if integers {
		above, below = math.Floor(b)+1, math.Ceil(b)-1
	}
	switch fl.Op {
	case ">":
		return within(above, inf)
	case ">=":
		return within(b, inf)
	case "<":
		return within(-inf, below)
	case "<=":
		return within(-inf, b)
	case "!=":
		if integers {
			return 1 - within(b, b)
		}
		return 1
	case "BETWEEN", "NOT BETWEEN":
		if len(bounds) < 2 {
			return 1
		}
		in := within(b, bounds[1])
		if fl.Op == "NOT BETWEEN" {
			return 1 - in
		}
		return in
	}
	return 1
}

// passes reports whether the value v passes fl's comparison with its Values (numbers and strings;
// values of different types never compare true).
func passes(fl sql.Filter, v any) bool {
	cmp := func(w any) (int, bool) {
		switch a := v.(type) {
		case float64:
			if b, ok := w.(float64); ok {
				switch {
				case a < b:
					return -1, true
				case a > b:
					return 1, true
				}
				return 0, true
			}
		case string:
			if b, ok := w.(string); ok {
				return strings.Compare(a, b), true
			}
		case bool:
			if b, ok := w.(bool); ok && a == b {
				return 0, true
			}
		}
		return 0, false
	}
	if fl.Kind == sql.FilterEqual || fl.Kind == sql.FilterIn {
		in := slices.ContainsFunc(fl.Values, func(w any) bool { c, ok := cmp(w); return ok && c == 0 })
		return in != (fl.Op == "NOT IN")
	}
	c, ok := cmp(fl.Values[0])
	if !ok {
		return false
	}
	switch fl.Op {
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case "!=":
		return c != 0
	case "BETWEEN", "NOT BETWEEN":
		hi, ok := cmp(fl.Values[len(fl.Values)-1])
		in := ok && c >= 0 && hi <= 0
		return in != (fl.Op == "NOT BETWEEN")
	}
	return true
}

// rangeEntries is the index entries a served range filter reads in scope (per key values share
// the container's documents): the entries in its range, or half of the path's when a generator
// does not tell (rangeFallback).
func (s *sizer) rangeEntries(fl sql.Filter, per, allInScope float64) float64 {
	entries := 0.0
	for i := range s.c.Documents {
		dt := &s.c.Documents[i]
		share, _, known := s.filterShare(dt, fl)
		if !known {
			return allInScope / 2
		}
		entries += share * s.count(dt, 0) / per
	}
	return entries
}

// selectivityNotes says how each range, IN and text-search filter was sized for the result type rt: the share
// its generator gives, or the assumption made without one.
func (s *sizer) selectivityNotes(rt *design.DocType, filters []sql.Filter) []string {
	var notes []string
	for _, fl := range filters {
		if fl.Kind == sql.FilterFunction && textSearch(fl.Function) {
			if share, why, known := s.textShare(rt, fl); known {
				notes = append(notes, fmt.Sprintf("%s keeps %.3g%% of %s documents (%s)", fl.Text, 100*share, rt.Type, why))
			} else {
				notes = append(notes, fmt.Sprintf("%s: %s, so its selectivity is unknown: %s", fl.Text, why, textAssumed))
			}
			continue
		}
		if (fl.Kind != sql.FilterRange && fl.Kind != sql.FilterIn) || isKeyPath(s.c, strings.Join(fl.Path, ".")) {
			continue
		}
		share, why, known := s.filterShare(rt, fl)
		switch {
		case known:
			notes = append(notes, fmt.Sprintf("%s keeps %.3g%% of %s documents (%s)", fl.Text, 100*share, rt.Type, why))
		case fl.Kind == sql.FilterRange:
			notes = append(notes, fmt.Sprintf("%s: %s, so its selectivity is unknown: %s", fl.Text, why, rangeFallback))
		default:
			notes = append(notes, fmt.Sprintf("%s: %s, so its selectivity is unknown: assumed to keep as many of the field's distinct values as it lists", fl.Text, why))
		}
	}
	return notes
}

// textSearch reports whether a function filter searches a text: every document is assumed to
// match one unless textShare can tell.
func textSearch(fn string) bool {
	switch strings.ToUpper(fn) {
	case "FULLTEXTCONTAINS", "FULLTEXTCONTAINSALL", "FULLTEXTCONTAINSANY", "CONTAINS":
		return true
	}
	return false
}

// textAssumed is what the estimate assumes of a text search whose selectivity the generator does
// not tell.
const textAssumed = "assumed to keep every document in scope"

// textShare is the share of dt's documents whose text at fl's path holds what the text search fl
// looks for, by the field's generator: for the text generator, the probability that a generated
// text of its length holds the term's words (FullTextContains: seed.TextHasWord for each word of
// the term, its words drawn independently; All: every term's; Any: at least one term's) or the
// substring (CONTAINS, its third argument ignoring case: seed.TextHasSubstring), times the share
// of documents that have the field. why says how it was read; known is false when the generator
// does not tell (another generator, free text of unknown vocabulary, a term filled from a sampled
// document, a substring across words): textAssumed then.
func (s *sizer) textShare(dt *design.DocType, fl sql.Filter) (share float64, why string, known bool) {
	path := "/" + strings.Join(fl.Path, "/")
	f := fieldAt(dt, path)
	switch {
	case f == nil && s.anyTypeHas(path):
		return 0, dt.Type + " has no " + path, true
	case f == nil:
		return 1, "no document type generates " + path, false
	case f.Gen != "text":
		return 1, path + " is not from the text generator, whose vocabulary the estimate knows", false
	}
	var terms []string
	for _, v := range fl.Values {
		t, ok := v.(string)
		if !ok {
			if _, ok := v.(bool); ok && strings.EqualFold(fl.Function, "CONTAINS") {
				continue // ignoreCase
			}
			return 1, "a term is a parameter filled from a seeded document", false
		}
		terms = append(terms, t)
	}
	if len(terms) == 0 {
		return 1, "no constant term", false
	}
	present := 1 - clamp01(f.Optional)
	why = fmt.Sprintf("gen text of %d bytes over the seed vocabulary", f.Bytes)
	if f.Bytes <= 0 {
		why = "gen text of its default length over the seed vocabulary"
	}
	// words is the probability that a text holds every word of term (none for a term without one,
	// which FullTextContains never matches).
	words := func(term string) float64 {
		toks := slices.Compact(slices.Sorted(slices.Values(sql.Tokens(term))))
		if len(toks) == 0 {
			return 0
		}
		p := 1.0
		for _, w := range toks {
			p *= seed.TextHasWord(f.Bytes, w)
		}
		return p
	}
	switch strings.ToUpper(fl.Function) {
	case "FULLTEXTCONTAINS", "FULLTEXTCONTAINSALL":
		p := 1.0
		for _, t := range terms {
			p *= words(t)
		}
		return present * p, why, true
	case "FULLTEXTCONTAINSANY":
		none := 1.0
		for _, t := range terms {
			none *= 1 - words(t)
		}
		return present * (1 - none), why, true
	case "CONTAINS":
		ignoreCase := len(fl.Values) > 1 && fl.Values[1] == true
		p, ok := seed.TextHasSubstring(f.Bytes, terms[0], ignoreCase)
		if !ok {
			return 1, "a substring across words, which the text generator's words do not tell", false
		}
		return present * p, why, true
	}
	return 1, fl.Function + " is not a text search", false
}
