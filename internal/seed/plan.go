// Package seed fills provisioned containers with synthetic documents. Generation is deterministic:
// one integer seed gives byte-identical documents, because every document draws from its own random
// stream derived from (seed, type, sequence number) and never from state shared between workers.
package seed

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"time"

	"github.com/cosmosdv/validate/internal/design"
)

// Plan is a design's document types compiled for generation. A Plan is immutable and safe for
// concurrent use; generation state lives in the walk or call that uses it.
type Plan struct {
	seed   uint64
	types  []*typePlan
	byName map[string]*typePlan
}

type typePlan struct {
	index     int
	name      string
	container string
	count     int
	targetB   int
	parent    *typePlan
	per       design.Per
	children  []*typePlan
	idTmpl    []tmplPart
	fields    []*cfield
	fieldIdx  map[string]int
	pkPaths   [][]string
	// uniqueKeys are the container's unique-key sets as designed (for explanations).
	uniqueKeys [][]string
}

type fieldKind uint8

const (
	kConst fieldKind = iota
	kCopy
	kTemplate
	kGen
	kOneOf
	kArray
	kObject
)

// cfield is a compiled field generator.
type cfield struct {
	name     string
	kind     fieldKind
	salt     uint64
	optional float64

	constVal any
	ref      ref
	tmpl     []tmplPart

	gen      string
	min, max float64
	hasMin   bool
	hasMax   bool
	decimals int
	from, to time.Time
	bytes    int
	dims     int // gen vector
	prefix   string
	unique   bool
	card     int
	dist     string
	skew     float64
	hot      float64

	oneOf []any
	cum   []float64

	arrMin, arrMax int
	of             *cfield
	obj            []*cfield
}

// ref names a value a copy or template reads: a field of this document (path from the root), one of
// the parent document, or a special (id, seq, type, uuid).
type ref struct {
	parent  bool
	special string
	path    []string
}

type tmplPart struct {
	lit   string
	ref   ref
	isRef bool
}

// Known generator names.
var generators = map[string]bool{
	"fullName": true, "firstName": true, "lastName": true, "email": true, "word": true, "text": true,
	"code": true, "uuid": true, "int": true, "decimal": true, "money": true, "bool": true,
	"isoTime": true, "epoch": true, "city": true, "country": true, "phone": true, "sku": true, "seq": true,
	"vector": true,
}

var (
	// fixedNow stands for {now} in seeded documents.
	fixedNow    = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	defaultFrom = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	defaultTo   = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
)

// Compile prepares the document types of d for generation with the given seed. It reports every
// problem a generator would hit (unknown generator, dangling copy, cycle) before anything is written.
func Compile(d *design.Design, seed int64) (*Plan, error) {
	p := &Plan{seed: uint64(seed), byName: map[string]*typePlan{}}
	for ci := range d.Containers {
		c := &d.Containers[ci]
		pk := c.KeyPaths()
		for di := range c.Documents {
			dt := &c.Documents[di]
			if _, dup := p.byName[dt.Type]; dup {
				return nil, fmt.Errorf("document type %q: defined twice", dt.Type)
			}
			t := &typePlan{
				index: len(p.types), name: dt.Type, container: c.Name, count: dt.Count,
				targetB: dt.TargetBytes, pkPaths: pk, uniqueKeys: c.UniqueKeys, fieldIdx: map[string]int{},
			}
			p.types = append(p.types, t)
			p.byName[dt.Type] = t
		}
	}
	// Second pass: parents, then fields (copies may name the parent).
	for ci := range d.Containers {
		c := &d.Containers[ci]
		for di := range c.Documents {
			dt := &c.Documents[di]
			t := p.byName[dt.Type]
			if dt.Parent != nil {
				parent, ok := p.byName[dt.Parent.Type]
				if !ok {
					return nil, fmt.Errorf("document type %q: parent type %q is not defined", dt.Type, dt.Parent.Type)
				}
				if dt.Parent.Per.Min < 0 || dt.Parent.Per.Max < dt.Parent.Per.Min {
					return nil, fmt.Errorf("document type %q: parent.per bounds %d..%d are invalid", dt.Type, dt.Parent.Per.Min, dt.Parent.Per.Max)
				}
				t.parent = parent
				t.per = dt.Parent.Per
				parent.children = append(parent.children, t)
			}
		}
	}
	for _, t := range p.types {
		for a := t.parent; a != nil; a = a.parent {
			if a == t {
				return nil, fmt.Errorf("document type %q: parent chain is a cycle", t.name)
			}
		}
	}
	for ci := range d.Containers {
		c := &d.Containers[ci]
		for di := range c.Documents {
			dt := &c.Documents[di]
			t := p.byName[dt.Type]
			if err := p.compileType(t, dt); err != nil {
				return nil, fmt.Errorf("document type %q: %w", dt.Type, err)
			}
		}
	}
	// A dry run of one document per type surfaces cycles and type errors now rather than mid-load.
	for _, t := range p.types {
		if _, err := p.dryRun(t); err != nil {
			return nil, fmt.Errorf("document type %q: %w", t.name, err)
		}
	}
	return p, nil
}

func (p *Plan) compileType(t *typePlan, dt *design.DocType) error {
	idT := dt.ID
	if idT == "" {
		idT = "{type}-{seq}"
	}
	parts, err := parseTemplate(idT)
	if err != nil {
		return fmt.Errorf("id: %w", err)
	}
	t.idTmpl = parts
	for i, nf := range dt.Fields {
		if _, dup := t.fieldIdx[nf.Name]; dup {
			return fmt.Errorf("field %q: defined twice", nf.Name)
		}
		f, err := compileField(nf.Name, &nf.Field, hashString(t.name+"."+nf.Name))
		if err != nil {
			return fmt.Errorf("field %q: %w", nf.Name, err)
		}
		t.fieldIdx[nf.Name] = i
		t.fields = append(t.fields, f)
	}
	// Children live in their parent's logical partition: a partition-key property the child does not
	// generate is copied from the parent.
	for _, pk := range t.pkPaths {
		top := pk[0]
		if top == "id" {
			continue
		}
		if _, ok := t.fieldIdx[top]; ok {
			continue
		}
		if t.parent == nil {
			return fmt.Errorf("partition key /%s is not generated: add a field %q", strings.Join(pk, "/"), top)
		}
		f := &cfield{name: top, kind: kCopy, salt: hashString(t.name + "." + top), ref: ref{parent: true, path: []string{top}}}
		t.fieldIdx[top] = len(t.fields)
		t.fields = append(t.fields, f)
	}
	return p.checkRefs(t)
}

// checkRefs verifies that every copy and template names something that exists.
func (p *Plan) checkRefs(t *typePlan) error {
	check := func(r ref, where string) error {
		switch {
		case r.special != "":
			return nil
		case r.parent:
			if t.parent == nil {
				return fmt.Errorf("%s: %q refers to a parent but the type has none", where, "parent."+strings.Join(r.path, "."))
			}
			if _, ok := t.parent.fieldIdx[r.path[0]]; !ok && r.path[0] != "id" {
				return fmt.Errorf("%s: parent type %q has no field %q", where, t.parent.name, r.path[0])
			}
		default:
			if _, ok := t.fieldIdx[r.path[0]]; !ok {
				return fmt.Errorf("%s: no field %q", where, r.path[0])
			}
		}
		return nil
	}
	for _, part := range t.idTmpl {
		if part.isRef {
			if err := check(part.ref, "id"); err != nil {
				return err
			}
		}
	}
	var walk func(f *cfield) error
	walk = func(f *cfield) error {
		switch f.kind {
		case kCopy:
			return check(f.ref, "field "+f.name)
		case kTemplate:
			for _, part := range f.tmpl {
				if part.isRef {
					if err := check(part.ref, "field "+f.name); err != nil {
						return err
					}
				}
			}
		case kArray:
			return walk(f.of)
		case kObject:
			for _, sub := range f.obj {
				if err := walk(sub); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, f := range t.fields {
		if err := walk(f); err != nil {
			return err
		}
	}
	return nil
}

func compileField(name string, f *design.Field, salt uint64) (*cfield, error) {
	c := &cfield{name: name, salt: salt, optional: f.Optional}
	if f.Optional < 0 || f.Optional > 1 {
		return nil, fmt.Errorf("optional %v: must be between 0 and 1", f.Optional)
	}
	set := 0
	if f.Const != nil {
		set++
		c.kind = kConst
		c.constVal = normalize(f.Const)
	}
	if f.Copy != "" {
		set++
		c.kind = kCopy
		c.ref = parseRef(f.Copy)
	}
	if f.Template != "" {
		set++
		c.kind = kTemplate
		parts, err := parseTemplate(f.Template)
		if err != nil {
			return nil, err
		}
		c.tmpl = parts
	}
	if f.Gen != "" {
		set++
		c.kind = kGen
		if !generators[f.Gen] {
			return nil, fmt.Errorf("unknown generator %q", f.Gen)
		}
		if err := compileGen(c, f); err != nil {
			return nil, err
		}
	}
	if len(f.OneOf) > 0 {
		set++
		c.kind = kOneOf
		if len(f.Weights) > 0 && len(f.Weights) != len(f.OneOf) {
			return nil, fmt.Errorf("weights: %d weights for %d values", len(f.Weights), len(f.OneOf))
		}
		total := 0.0
		for i, v := range f.OneOf {
			c.oneOf = append(c.oneOf, normalize(v))
			w := 1.0
			if len(f.Weights) > 0 {
				w = f.Weights[i]
			}
			if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
				return nil, fmt.Errorf("weights[%d]: %v is not a non-negative number", i, w)
			}
			total += w
			c.cum = append(c.cum, total)
		}
		if total <= 0 {
			return nil, errors.New("weights: all zero")
		}
	}
	if f.Array != nil {
		set++
		c.kind = kArray
		if f.Array.Min < 0 || f.Array.Max < f.Array.Min {
			return nil, fmt.Errorf("array bounds %d..%d are invalid", f.Array.Min, f.Array.Max)
		}
		if f.Of == nil {
			return nil, errors.New("array: missing of")
		}
		c.arrMin, c.arrMax = f.Array.Min, f.Array.Max
		of, err := compileField(name+"[]", f.Of, mix2(salt, 0xa77a))
		if err != nil {
			return nil, fmt.Errorf("of: %w", err)
		}
		of.optional = 0
		c.of = of
	}
	if len(f.Object) > 0 {
		set++
		c.kind = kObject
		seen := map[string]bool{}
		for i, nf := range f.Object {
			if seen[nf.Name] {
				return nil, fmt.Errorf("field %q: defined twice", nf.Name)
			}
			seen[nf.Name] = true
			sub, err := compileField(nf.Name, &nf.Field, mix2(salt, uint64(i)+1))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", nf.Name, err)
			}
			c.obj = append(c.obj, sub)
		}
	}
	if set != 1 {
		return nil, fmt.Errorf("exactly one of const, copy, template, gen, oneOf, array or object must be set (got %d)", set)
	}
	return c, nil
}

func compileGen(c *cfield, f *design.Field) error {
	c.gen = f.Gen
	c.prefix = f.Prefix
	c.unique = f.Unique
	c.bytes = f.Bytes
	c.dims = f.Dimensions
	c.card = f.Cardinality
	c.dist = f.Dist
	c.skew = f.Skew
	c.hot = f.HotShare
	if f.Min != nil {
		c.min, c.hasMin = *f.Min, true
	}
	if f.Max != nil {
		c.max, c.hasMax = *f.Max, true
	}
	switch c.gen {
	case "int", "decimal", "money":
		if !c.hasMin {
			c.min = 0
		}
		if !c.hasMax {
			c.max = math.Max(c.min, 0) + 1000
		}
		if c.max < c.min {
			return fmt.Errorf("max %v is below min %v", c.max, c.min)
		}
	}
	c.decimals = 2
	if f.Decimals != nil {
		if *f.Decimals < 0 || *f.Decimals > 9 {
			return fmt.Errorf("decimals %d: must be 0..9", *f.Decimals)
		}
		c.decimals = *f.Decimals
	}
	if c.gen == "money" {
		c.decimals = 2
	}
	c.from, c.to = defaultFrom, defaultTo
	if f.From != "" {
		t, err := parseTime(f.From)
		if err != nil {
			return fmt.Errorf("from: %w", err)
		}
		c.from = t
	}
	if f.To != "" {
		t, err := parseTime(f.To)
		if err != nil {
			return fmt.Errorf("to: %w", err)
		}
		c.to = t
	}
	if !c.to.After(c.from) && (c.gen == "isoTime" || c.gen == "epoch") {
		return fmt.Errorf("to %s is not after from %s", c.to.Format(time.RFC3339), c.from.Format(time.RFC3339))
	}
	if c.bytes < 0 {
		return fmt.Errorf("bytes %d: must not be negative", c.bytes)
	}
	if c.card < 0 {
		return fmt.Errorf("cardinality %d: must not be negative", c.card)
	}
	switch c.dist {
	case "", "uniform", "zipf", "hot":
	default:
		return fmt.Errorf("dist %q: want uniform, zipf or hot", c.dist)
	}
	if c.dist == "zipf" && c.skew == 0 {
		c.skew = 1.2
	}
	if c.dist == "zipf" && c.skew <= 1 {
		return fmt.Errorf("skew %v: zipf needs an exponent above 1", c.skew)
	}
	if c.dist == "hot" && c.hot == 0 {
		c.hot = 0.5
	}
	if c.hot < 0 || c.hot > 1 {
		return fmt.Errorf("hotShare %v: must be between 0 and 1", c.hot)
	}
	// A skewed distribution without an explicit cardinality: integers draw over their own range,
	// everything else over 100 distinct values.
	if c.card == 0 && c.dist != "" && c.dist != "uniform" {
		if c.gen == "int" && c.max-c.min+1 <= 1e7 {
			c.card = int(c.max-c.min) + 1
		} else {
			c.card = 100
		}
	}
	return nil
}

func parseTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date (2006-01-02) or RFC 3339 time", s)
}

// parseTemplate splits "order-{parent.userId}-{seq}" into literal and reference parts.
func parseTemplate(s string) ([]tmplPart, error) {
	var parts []tmplPart
	for len(s) > 0 {
		open := strings.IndexByte(s, '{')
		if open < 0 {
			parts = append(parts, tmplPart{lit: s})
			break
		}
		if open > 0 {
			parts = append(parts, tmplPart{lit: s[:open]})
		}
		end := strings.IndexByte(s[open:], '}')
		if end < 0 {
			return nil, fmt.Errorf("template %q: unclosed {", s)
		}
		name := strings.TrimSpace(s[open+1 : open+end])
		if name == "" {
			return nil, fmt.Errorf("template %q: empty {}", s)
		}
		parts = append(parts, tmplPart{ref: parseRef(name), isRef: true})
		s = s[open+end+1:]
	}
	return parts, nil
}

func parseRef(s string) ref {
	switch s {
	case "id", "seq", "type", "uuid", "now":
		return ref{special: s}
	}
	if rest, ok := strings.CutPrefix(s, "parent."); ok {
		return ref{parent: true, path: strings.Split(rest, ".")}
	}
	return ref{path: strings.Split(s, ".")}
}

func hashString(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// Types returns the document type names in design order.
func (p *Plan) Types() []string {
	out := make([]string, len(p.types))
	for i, t := range p.types {
		out[i] = t.name
	}
	return out
}

// Container returns the container of a document type.
func (p *Plan) Container(docType string) (string, bool) {
	t, ok := p.byName[docType]
	if !ok {
		return "", false
	}
	return t.container, true
}

// ParentType returns the parent type of docType, "" for a root type.
func (p *Plan) ParentType(docType string) string {
	t, ok := p.byName[docType]
	if !ok || t.parent == nil {
		return ""
	}
	return t.parent.name
}

// Counts returns how many documents of each type a full walk generates, without generating them.
func (p *Plan) Counts() map[string]int {
	counts := make([]int, len(p.types))
	var sub func(t *typePlan, seq int64)
	sub = func(t *typePlan, seq int64) {
		for _, c := range t.children {
			n := p.childCount(c, seq)
			for range n {
				seq := int64(counts[c.index])
				counts[c.index]++
				sub(c, seq)
			}
		}
	}
	for _, t := range p.types {
		if t.parent != nil {
			continue
		}
		for range t.count {
			seq := int64(counts[t.index])
			counts[t.index]++
			sub(t, seq)
		}
	}
	out := make(map[string]int, len(p.types))
	for _, t := range p.types {
		out[t.name] = counts[t.index]
	}
	return out
}

// Range is the interval a numeric or time generator draws its values from, with the defaults the
// seeder applies: int, decimal and money between min and max; epoch and isoTime between from and
// to, as Unix seconds (isoTime writes them as "2006-01-02T15:04:05Z"). ok is false for any other
// field, invalid options, and a unique int (it counts up from min).
func Range(f *design.Field) (lo, hi float64, ok bool) {
	if f == nil || f.Gen == "" {
		return 0, 0, false
	}
	c := &cfield{}
	if err := compileGen(c, f); err != nil {
		return 0, 0, false
	}
	switch c.gen {
	case "int", "decimal", "money":
		if c.unique && c.gen == "int" {
			return 0, 0, false
		}
		return c.min, c.max, true
	case "epoch", "isoTime":
		return float64(c.from.Unix()), float64(c.to.Unix()), true
	}
	return 0, 0, false
}
