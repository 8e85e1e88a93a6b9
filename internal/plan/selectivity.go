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
// was read. known is false when the generator does not tell. A path through an array's elements
// ("/lines/[]/qty") keeps the documents holding at least one element that passes (elemShare), as
// the index's posting of the path holds a document once for any of its elements.
func (s *sizer) filterShare(dt *design.DocType, fl sql.Filter) (share float64, why string, known bool) {
	path := "/" + strings.Join(fl.Path, "/")
	if i := slices.Index(fl.Path, "[]"); i >= 0 && fl.Kind != sql.FilterFunction {
		arr := fieldAt(dt, "/"+strings.Join(fl.Path[:i], "/"))
		if arr == nil {
			if s.anyTypeHas(path) {
				return 0, dt.Type + " has no " + path, true
			}
			return 1, "no document type generates " + path, false
		}
		if arr.Array == nil || arr.Of == nil {
			return 1, "/" + strings.Join(fl.Path[:i], "/") + " is not generated as an array", false
		}
		q, why, known := s.elemShare(dt, arr, fl.Path[i+1:], fl)
		if !known {
			return 1, why, false
		}
		d := (1 - clamp01(arr.Optional)) * anyElement(arr.Array, q)
		return d, fmt.Sprintf("%s; %.3g%% of elements, of %d–%d per document", why, 100*q, arr.Array.Min, arr.Array.Max), true
	}
	if len(fl.Values) == 0 || slices.ContainsFunc(fl.Values, func(v any) bool { _, p := v.(sql.Param); return p }) {
		return 1, "a bound is a parameter filled from a seeded document", false
	}
	f := fieldAt(dt, path)
	if f == nil {
		if s.anyTypeHas(path) {
			return 0, dt.Type + " has no " + path, true
		}
		return 1, "no document type generates " + path, false
	}
	return s.valueShare(f, fl)
}

// valueShare is the share of the values field f generates (absent ones included, as optional
// makes them) that pass fl, whose Values are constants: a const's or oneOf's weights, a range over
// the generator's interval, none for an equality or IN whose constants the generator never
// produces (seed.Produces); known is false when the generator does not tell.
func (s *sizer) valueShare(f *design.Field, fl sql.Filter) (share float64, why string, known bool) {
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
	if never, why := neverProduced(f, fl); never {
		return 0, why, true
	}
	lo, hi, ok := seed.Range(f)
	if !ok || fl.Kind != sql.FilterRange {
		return 1, "gen " + genName(f) + " has no range this estimate reads", false
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

// genName names a field's generator for a note: gen, template or copy.
func genName(f *design.Field) string {
	switch {
	case f.Template != "":
		return "template " + f.Template
	case f.Copy != "":
		return "copy " + f.Copy
	}
	return f.Gen
}

// neverProduced reports whether an equality or IN (not NOT IN) filter names only constants that
// field f's generator never produces (seed.Produces), and says so.
func neverProduced(f *design.Field, fl sql.Filter) (bool, string) {
	if (fl.Kind != sql.FilterEqual && (fl.Kind != sql.FilterIn || fl.Op != "IN")) || len(fl.Values) == 0 {
		return false, ""
	}
	for _, v := range fl.Values {
		if _, p := v.(sql.Param); p {
			return false, ""
		}
		if possible, known := seed.Produces(f, literalOf(v)); possible || !known {
			return false, ""
		}
	}
	return true, fmt.Sprintf("gen %s never produces %s", genName(f), valuesText(fl.Values))
}

// producesUnknown reports whether an equality or IN names a constant of which the generator of f
// cannot tell whether it produces it: the estimate then assumes it does.
func producesUnknown(f *design.Field, fl sql.Filter) bool {
	if f.Const != nil || len(f.OneOf) > 0 {
		return false
	}
	for _, v := range fl.Values {
		if _, p := v.(sql.Param); p {
			continue
		}
		if _, known := seed.Produces(f, literalOf(v)); !known {
			return true
		}
	}
	return false
}

func valuesText(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		if str, ok := v.(string); ok {
			parts[i] = "'" + str + "'"
		} else {
			parts[i] = fmt.Sprint(v)
		}
	}
	return strings.Join(parts, ", ")
}

// elemShare is the share of the elements of array field arr whose value at path below the element
// (empty for a scalar element) passes fl: valueShare for a range, an IN or an equality the
// generator sizes; otherwise, for an equality or IN, as many of the element field's distinct
// values (among every element seeded) as it names (one, the value a sampled document holds, for a
// parameter). An array inside the element keeps the elements holding one that passes.
func (s *sizer) elemShare(dt *design.DocType, arr *design.Field, path []string, fl sql.Filter) (share float64, why string, known bool) {
	if j := slices.Index(path, "[]"); j >= 0 {
		inner := fieldUnder(arr.Of, path[:j])
		if inner == nil || inner.Array == nil || inner.Of == nil {
			return 1, "/" + strings.Join(fl.Path, "/") + " is not generated", false
		}
		q, why, known := s.elemShare(dt, inner, path[j+1:], fl)
		return (1 - clamp01(inner.Optional)) * anyElement(inner.Array, q), why, known
	}
	f := fieldUnder(arr.Of, path)
	if f == nil {
		return 1, "/" + strings.Join(fl.Path, "/") + " is not generated", false
	}
	hasParam := slices.ContainsFunc(fl.Values, func(v any) bool { _, p := v.(sql.Param); return p })
	if !hasParam && len(fl.Values) > 0 {
		if share, why, known := s.valueShare(f, fl); known {
			return share, why, true
		}
	}
	if (fl.Kind == sql.FilterEqual || (fl.Kind == sql.FilterIn && fl.Op == "IN")) && len(fl.Values) > 0 {
		elems := math.Max(s.count(dt, 0)*float64(arr.Array.Min+arr.Array.Max)/2, 1)
		kd := s.fieldDist(dt, f, elems, 0)
		per := 1 / math.Max(kd.Card, 1)
		if drawnFrom(fl) {
			per = kd.drawnShare()
		}
		share = (1 - clamp01(f.Optional)) * math.Min(1, float64(len(fl.Values))*per)
		why = fmt.Sprintf("about %.3g distinct values of gen %s", kd.Card, genName(f))
		if producesUnknown(f, fl) {
			why += fmt.Sprintf(", assumed to produce %s", valuesText(fl.Values))
		}
		return share, why, true
	}
	if hasParam {
		return 1, "a bound is a parameter filled from a seeded document", false
	}
	return 1, "gen " + genName(f) + " has no range this estimate reads", false
}

// anyElement is the share of arrays of arr's length (drawn uniformly between its min and max, as
// the seeder draws it) holding at least one element that passes, each passing with probability q
// on its own: the mean of 1 − (1 − q)^L.
func anyElement(arr *design.ArraySpec, q float64) float64 {
	lo, hi := max(arr.Min, 0), max(arr.Max, arr.Min, 0)
	sum := 0.0
	for l := lo; l <= hi; l++ {
		sum += 1 - math.Pow(1-clamp01(q), float64(l))
	}
	return sum / float64(hi-lo+1)
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
		elem := isElemFilter(fl)
		if fl.Kind == sql.FilterEqual && !elem && !s.pinnedKey(strings.Join(fl.Path, ".")) {
			// An equality on a document property: said only when its constant is one the
			// generator never produces, or one it cannot tell about (assumed produced).
			f := fieldAt(rt, "/"+strings.Join(fl.Path, "/"))
			switch {
			case f == nil || drawnFrom(fl):
			case f.Const == nil && len(f.OneOf) == 0:
				if never, why := neverProduced(f, fl); never {
					notes = append(notes, fmt.Sprintf("%s keeps none of %s documents (%s)", fl.Text, rt.Type, why))
				} else if producesUnknown(f, fl) {
					notes = append(notes, fmt.Sprintf("%s: gen %s does not tell whether it produces %s: assumed it does, one of the field's distinct values", fl.Text, genName(f), valuesText(fl.Values)))
				}
			}
			continue
		}
		if (fl.Kind != sql.FilterRange && fl.Kind != sql.FilterIn && !elem) || s.pinnedKey(strings.Join(fl.Path, ".")) {
			continue
		}
		share, why, known := s.filterShare(rt, fl)
		switch {
		case known && elem:
			notes = append(notes, fmt.Sprintf("%s keeps %.3g%% of %s documents, those holding an element that passes (%s)", fl.Text, 100*share, rt.Type, why))
		case elem && fl.Kind != sql.FilterRange:
			notes = append(notes, fmt.Sprintf("%s: %s, so its selectivity is unknown: assumed to keep every document and row in scope", fl.Text, why))
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
