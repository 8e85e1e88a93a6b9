package plan

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine/index"
)

// systemPropsBytes is what the service adds to every stored item (_rid, _self, _etag, _attachments,
// _ts). Assumed from the shape of those properties; the engine measures the real figure.
const systemPropsBytes = 180

// genBytes is the expected JSON length of a generator's value, quotes included. Assumed typical
// lengths of the values such generators produce; the seed package's generators are the reference.
var genBytes = map[string]float64{
	"fullName": 16, "firstName": 9, "lastName": 10, "email": 26, "word": 9, "text": 102,
	"code": 10, "uuid": 38, "int": 4, "decimal": 7, "money": 7, "bool": 4.5, "isoTime": 26,
	"epoch": 10, "city": 11, "country": 11, "phone": 16, "sku": 12,
}

// docEstimate is the static picture of one document type.
type docEstimate struct {
	Bytes    float64 // expected stored JSON size
	MinBytes float64 // size with optional fields absent and arrays at their minimum
	Terms    float64 // expected indexed terms under the container's policy (system terms included)
	MinTerms float64
	leaves   map[string]leafInfo // by dotted path, for patch and query analysis
	pol      *index.Compiled
}

type leafInfo struct {
	indexed bool
	count   float64 // expected occurrences (array elements)
	bytes   float64
	stable  bool // a constant or a copy: a freshly generated replacement keeps it
}

type sizer struct {
	d *design.Design
	c *design.Container
	// pol is the container's compiled policy; nil indexes everything.
	pol *index.Compiled
	// seeded is how many documents of each type `run` seeds (default seed); nil when the seed
	// plan could not be built, and count falls back to averages.
	seeded map[string]int
	// prod, when set, makes this a production sizer: documents per type at production, from which
	// key values and counts are taken (see count and growth).
	prod map[string]float64
	// rules chooses the alternative of each rule with alternatives (cost.Rules); nil = defaults.
	rules *cost.Selection
	// query is true while a query is estimated, and pinned is then how many levels of the
	// container's key its partition key gives: an equality on a later level is a filter like any
	// other, not the routing's narrowing.
	query  bool
	pinned int
}

func (s *sizer) docType(name string) *design.DocType {
	for i := range s.c.Documents {
		if s.c.Documents[i].Type == name {
			return &s.c.Documents[i]
		}
	}
	return nil
}

// estimate sizes a document type: the properties, the id, the system properties and padding.
func (s *sizer) estimate(dt *design.DocType) docEstimate {
	e := docEstimate{leaves: map[string]leafInfo{}, pol: s.pol}
	exp, mn := 2.0, 2.0 // braces
	hasID := false
	n := 0
	for _, nf := range dt.Fields {
		if nf.Name == "id" {
			hasID = true
		}
		b, bmin := s.fieldBytes(dt, &nf.Field, 0)
		key := float64(len(nf.Name) + 3) // "name": and a comma
		occ := 1 - clamp01(nf.Field.Optional)
		exp += occ * (key + b)
		if nf.Field.Optional <= 0 {
			mn += key + bmin
		}
		n++
		t, tmin := s.terms(dt, &nf.Field, []string{nf.Name}, occ, &e)
		e.Terms += t
		if nf.Field.Optional <= 0 {
			e.MinTerms += tmin
		}
	}
	if !hasID {
		idb := s.templateBytes(dt, idTemplate(dt), 0) + 7 // "id":"…",
		exp += idb
		mn += idb
	}
	exp += systemPropsBytes
	mn += systemPropsBytes
	if t := float64(dt.TargetBytes); t > exp {
		// Padding adds one filler property (the seed package's "pad"); a term when it is indexed.
		exp = t
		if s.pol.Indexed([]string{"pad"}) {
			e.Terms++
		}
	}
	if t := float64(dt.TargetBytes); t > mn {
		mn = t
	}
	sys := float64(systemTerms(s.pol, !hasID))
	e.Terms += sys
	e.MinTerms += sys
	// Composite indexes add one entry per document that has all their paths.
	for _, ci := range s.pol.Composites() {
		all := true
		for _, p := range ci.Paths {
			if _, ok := e.leaves[strings.Join(p, ".")]; !ok {
				all = false
			}
		}
		if all {
			e.Terms++
			e.MinTerms++
		}
	}
	e.Bytes, e.MinBytes = exp, math.Min(mn, exp)
	return e
}

func idTemplate(dt *design.DocType) string {
	if dt.ID != "" {
		return dt.ID
	}
	return "{type}-{seq}"
}

func clamp01(x float64) float64 { return math.Max(0, math.Min(1, x)) }

// terms counts the indexed scalar leaves under f at path, weighted by occurrence.
func (s *sizer) terms(dt *design.DocType, f *design.Field, path []string, occ float64, e *docEstimate) (exp, mn float64) {
	switch {
	case f.Array != nil:
		avg := float64(f.Array.Min+f.Array.Max) / 2
		if f.Of == nil {
			return 0, 0
		}
		sub := append(append([]string{}, path...), "[]")
		t, tmin := s.terms(dt, f.Of, sub, occ*avg, e)
		return t * avg, tmin * float64(f.Array.Min)
	case len(f.Object) > 0:
		for _, nf := range f.Object {
			o := 1 - clamp01(nf.Field.Optional)
			t, tmin := s.terms(dt, &nf.Field, append(append([]string{}, path...), nf.Name), occ*o, e)
			exp += o * t
			if nf.Field.Optional <= 0 {
				mn += tmin
			}
		}
		return exp, mn
	}
	if f.Gen == "vector" {
		// Each number of the array is an index term where the path is indexed (vector paths
		// belong in excludedPaths, which the plan then sees as no terms).
		sub := append(append([]string{}, path...), "[]")
		b, _ := s.fieldBytes(dt, f, 0)
		ix := s.pol.Indexed(sub)
		e.leaves[strings.Join(path, ".")] = leafInfo{indexed: ix, count: occ, bytes: b}
		if ix {
			return float64(f.Dimensions), float64(f.Dimensions)
		}
		return 0, 0
	}
	ix := s.pol.Indexed(path)
	b, _ := s.fieldBytes(dt, f, 0)
	e.leaves[strings.Join(path, ".")] = leafInfo{indexed: ix, count: occ, bytes: b, stable: f.Const != nil || f.Copy != ""}
	if ix {
		return 1, 1
	}
	return 0, 0
}

// fieldBytes is the expected and minimum JSON length of a field's value.
func (s *sizer) fieldBytes(dt *design.DocType, f *design.Field, depth int) (exp, mn float64) {
	if depth > 8 {
		return 4, 4 // a reference cycle; design validation reports it
	}
	switch {
	case f.Const != nil:
		b, err := json.Marshal(f.Const)
		if err != nil {
			return 4, 4
		}
		return float64(len(b)), float64(len(b))
	case f.Copy != "":
		return s.copyBytes(dt, f.Copy, depth)
	case f.Template != "":
		b := s.templateBytes(dt, f.Template, depth+1) + 2
		return b, b
	case len(f.OneOf) > 0:
		var sum, wsum float64
		mn = math.Inf(1)
		for i, v := range f.OneOf {
			b, _ := json.Marshal(v)
			w := 1.0
			if i < len(f.Weights) && f.Weights[i] >= 0 {
				w = f.Weights[i]
			}
			sum += w * float64(len(b))
			wsum += w
			mn = math.Min(mn, float64(len(b)))
		}
		if wsum == 0 {
			return mn, mn
		}
		return sum / wsum, mn
	case f.Array != nil:
		var eb, ebm float64
		if f.Of != nil {
			eb, ebm = s.fieldBytes(dt, f.Of, depth+1)
		}
		avg := float64(f.Array.Min+f.Array.Max) / 2
		exp = 2 + avg*(eb+1)
		mn = 2 + float64(f.Array.Min)*(ebm+1)
		return exp, mn
	case len(f.Object) > 0:
		exp, mn = 2, 2
		for _, nf := range f.Object {
			b, bm := s.fieldBytes(dt, &nf.Field, depth+1)
			key := float64(len(nf.Name) + 3)
			exp += (1 - clamp01(nf.Field.Optional)) * (key + b)
			if nf.Field.Optional <= 0 {
				mn += key + bm
			}
		}
		return exp, mn
	case f.Gen != "":
		return genSize(f), genSize(f)
	}
	return 4, 4 // null
}

func genSize(f *design.Field) float64 {
	switch f.Gen {
	case "vector":
		// Four decimals of a unit vector: "-0.1234," about 7.5 characters per number.
		return 2 + 7.5*float64(max(f.Dimensions, 1))
	case "text":
		if f.Bytes > 0 {
			return float64(f.Bytes + 2)
		}
	case "code", "sku":
		return genBytes[f.Gen] + float64(len(f.Prefix))
	case "int":
		if f.Max != nil {
			lo := 0.0
			if f.Min != nil {
				lo = *f.Min
			}
			return float64(len(strconv.FormatInt(int64((lo+*f.Max)/2), 10)))
		}
	case "decimal", "money":
		if f.Max != nil {
			return float64(len(strconv.FormatInt(int64(*f.Max/2), 10))) + 3
		}
	}
	if b, ok := genBytes[f.Gen]; ok {
		return b
	}
	return 12 // an unknown generator: assume a short string
}

// copyBytes sizes "id", "parent.x" or a sibling field.
func (s *sizer) copyBytes(dt *design.DocType, ref string, depth int) (float64, float64) {
	if depth > 8 {
		return 12, 12
	}
	if parent, ok := strings.CutPrefix(ref, "parent."); ok && dt.Parent != nil {
		if pt := s.parentOf(dt); pt != nil {
			return s.copyBytes(pt, parent, depth+1)
		}
		return 12, 12
	}
	if f, ok := dt.Fields.Lookup(ref); ok {
		return s.fieldBytes(dt, f, depth+1)
	}
	if ref == "id" {
		b := s.templateBytes(dt, idTemplate(dt), depth+1) + 2
		return b, b
	}
	return 12, 12
}

// templateBytes is the expected length of an expanded template, without quotes.
func (s *sizer) templateBytes(dt *design.DocType, tpl string, depth int) float64 {
	if depth > 8 {
		return float64(len(tpl))
	}
	var n float64
	for {
		i := strings.IndexByte(tpl, '{')
		if i < 0 {
			return n + float64(len(tpl))
		}
		j := strings.IndexByte(tpl[i:], '}')
		if j < 0 {
			return n + float64(len(tpl))
		}
		n += float64(i)
		name := tpl[i+1 : i+j]
		switch name {
		case "seq":
			n += 5
		case "uuid":
			n += 36
		case "type":
			n += float64(len(dt.Type))
		default:
			b, _ := s.copyBytes(dt, name, depth+1)
			n += math.Max(b-2, 1) // unquoted
		}
		tpl = tpl[i+j+1:]
	}
}

// parentOf is dt's parent type: in dt's container, or in another one (a child type kept apart in a
// container of its own, keyed as its parent); nil for a root type.
func (s *sizer) parentOf(dt *design.DocType) *design.DocType {
	if dt.Parent == nil {
		return nil
	}
	if pt := s.docType(dt.Parent.Type); pt != nil {
		return pt
	}
	for ci := range s.d.Containers {
		if pt := s.d.Containers[ci].DocType(dt.Parent.Type); pt != nil {
			return pt
		}
	}
	return nil
}

// ElementBytes is the expected JSON size of one element of the array field f of document type dt in
// container c (the separator excluded), as the plan sizes documents: the one home of a generated
// value's size. ok is false when f is not an array.
func ElementBytes(d *design.Design, c *design.Container, dt *design.DocType, f *design.Field) (float64, bool) {
	if f == nil || f.Array == nil {
		return 0, false
	}
	if f.Of == nil {
		return 4, true // null elements
	}
	s := &sizer{d: d, c: c}
	exp, _ := s.fieldBytes(dt, f.Of, 1)
	return exp, true
}
