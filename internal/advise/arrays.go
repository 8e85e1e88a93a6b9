package advise

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine/sql"
	"github.com/cosmosdv/validate/internal/indexpolicy"
	"github.com/cosmosdv/validate/internal/plan"
)

// The options of an array of objects, in Relation.Options order.
const (
	arrayAsDesigned = iota
	arraySplit
	arraySeparate
)

// arrayRelation answers embed or reference for an array of objects inside a document type: as
// designed (embedded), the elements as documents of their own in the parent's logical partition,
// and those documents in a container of their own, each priced as a variant of the design.
func (s *search) arrayRelation(ci int, dt *design.DocType, nf design.NamedField, pd plan.Document) {
	c := &s.d.Containers[ci]
	rc := s.rateCard()
	r := Relation{Container: c.Name, Kind: "array", Parent: dt.Type, Child: "/" + nf.Name, ItemLimitBytes: rc.ItemMaxKB.Value * 1024,
		ReadTogether: []string{}, UpdatedApart: []string{}}
	a := nf.Field.Array
	r.PerParent = float64(a.Min+a.Max) / 2
	r.PerParentMax = float64(a.Max)
	r.EmbeddedBytes = pd.Bytes
	// The size at the most elements: the average document plus the elements above the average, each
	// about the document's array share (assumed: elements of equal size).
	per := 0.0
	if r.PerParent > 0 {
		per = pd.Bytes / (r.PerParent + 1)
	}
	r.EmbeddedMaxBytes = round2(pd.Bytes + (r.PerParentMax-r.PerParent)*per)
	r.Bounded = r.EmbeddedMaxBytes <= r.ItemLimitBytes

	// The patterns that read the elements with their parent and the ones that change an element
	// alone, from the same reading of the patterns the variant is built from.
	sp, why := s.elements(ci, dt, nf, true)
	if sp != nil {
		if err := s.restateStorage(sp, ci, dt.Type, pd, -1); err != nil {
			sp, why = nil, err.Error()
		}
	}
	if sp != nil {
		r.ChildType = sp.child
		r.ReadTogether = append(r.ReadTogether, sp.readTogether...)
		r.UpdatedApart = append(r.UpdatedApart, sp.updatedApart...)
	} else {
		r.ReadTogether, r.UpdatedApart = s.arrayUse(c, dt, nf.Name)
	}
	r.Rules = s.rules(r)

	touched := map[string]bool{}
	if sp != nil {
		touched = sp.touched
	} else {
		for _, id := range append(slices.Clone(r.ReadTogether), r.UpdatedApart...) {
			touched[id] = true
		}
	}
	r.Options = append(r.Options, s.relationOption("as designed: embedded in "+dt.Type, s.base, touched, true))

	// The elements as documents of their own, in the parent's logical partition.
	split := RelationOption{Name: "separate documents in the parent's partition"}
	if sp == nil {
		split.Note = why
	} else {
		split.Name = fmt.Sprintf("separate %s documents in the parent's partition", sp.child)
		split = s.priceElements(split, "move "+r.Child+" of "+dt.Type+" to "+sp.child+" documents", sp, "split-"+slug(dt.Type+"-"+nf.Name),
			"each element is a document of its own; each element change writes one")
	}
	r.Options = append(r.Options, split)

	// The same documents in a container of their own (separate, as for a child type).
	sep := RelationOption{Name: "separate container"}
	if sp2, why2 := s.elements(ci, dt, nf, false); sp2 == nil {
		sep.Note = why2
	} else if v, why3 := separate(sp2.v, ci, sp2.child, sp2.childOps); v == nil {
		sep.Note = why3
	} else if sp2.v = v; s.restateStorage(sp2, ci, dt.Type, pd, len(v.Containers)-1) != nil {
		sep.Note = "the variant could not be sized"
	} else {
		r.ChildType = sp2.child
		sep.Name = fmt.Sprintf("separate container of %s documents", sp2.child)
		sep = s.priceElements(sep, "move "+r.Child+" of "+dt.Type+" to a container of "+sp2.child+" documents", sp2, "separate-"+slug(sp2.child),
			"keyed like the parent's container; a container has its own throughput and its own minimum")
	}
	r.Options = append(r.Options, sep)

	// The answer: the cheapest option by the relations' threshold; an array that can outgrow the
	// item limit moves out whatever it costs, when a way out is priced.
	best := arrayAsDesigned
	for i, o := range r.Options {
		if i == arrayAsDesigned || !o.Priced || len(o.Breaks) > 0 {
			continue
		}
		if o.RUs < r.Options[best].RUs-max(significantRUs, significantShare*s.baseT.RUs) && o.Change.MonthlyUSD <= 0.005 {
			best = i
		}
	}
	forced := false
	if best == arrayAsDesigned && !r.Bounded {
		for _, i := range []int{arraySplit, arraySeparate} {
			o := r.Options[i]
			if o.Priced && len(o.Breaks) == 0 && (best == arrayAsDesigned || o.RUs < r.Options[best].RUs) {
				best, forced = i, true
			}
		}
	}
	switch best {
	case arrayAsDesigned:
		r.Answer = fmt.Sprintf("keep %s embedded in %s: %s", r.Child, dt.Type, s.keepArrayWhy(r))
	case arraySplit, arraySeparate:
		o := r.Options[best]
		where := "in " + dt.Type + "'s logical partition"
		name := "split-" + slug(dt.Type+"-"+nf.Name)
		if best == arraySeparate {
			where = "in a container of their own"
			name = "separate-" + slug(r.ChildType)
		}
		why := fmt.Sprintf("fewer RU/s (%s RU/s, %s $/month)", signed(o.Change.RUs), signedUSD(o.Change.MonthlyUSD))
		if forced {
			why = fmt.Sprintf("%s can outgrow the item limit (%.0f KB at %.0f elements against %.0f KB), whatever it costs (%s RU/s)",
				dt.Type, r.EmbeddedMaxBytes/1024, r.PerParentMax, r.ItemLimitBytes/1024, signed(o.Change.RUs))
		}
		r.Answer = fmt.Sprintf("move %s of %s to %s documents %s: %s", r.Child, dt.Type, r.ChildType, where, why)
		if pv := s.variants[name]; pv.p != nil {
			s.recommend(name, fmt.Sprintf("move %s of %s to %s documents %s", r.Child, dt.Type, r.ChildType, where), pv.p, pv.d)
		}
	}
	s.a.Relations = append(s.a.Relations, r)
}

// priceElements prices one element variant into the option o and keeps the variant by name for a
// recommendation.
func (s *search) priceElements(o RelationOption, what string, sp *elementSplit, name, note string) RelationOption {
	p, vd, err := s.price(what, sp.v)
	switch {
	case err != nil:
		o.Note = err.Error()
		return o
	case p == nil:
		o.Note = capNote
		return o
	}
	estimates(vd, p, sp.all)
	out := s.relationOption(o.Name, p, sp.all, false)
	// An element change is a write of one element document, not the parent's writes that stay.
	out.WriteRU = 0
	for _, ap := range vd.AccessPatterns {
		if pp := patternPlan(p, ap.ID); pp != nil && sp.childOps[ap.ID] && IsWrite(ap.Op) && (ap.Document == sp.child || ap.Sample == sp.child) {
			out.WriteRU = max(out.WriteRU, Charge(*pp))
		}
	}
	out.Note = note
	if len(sp.notes) > 0 {
		out.Note += "; " + strings.Join(sp.notes, "; ")
	}
	if len(sp.assumed) > 0 {
		out.Note += "; assumed: " + strings.Join(sp.assumed, "; ")
	}
	if out.Breaks = newWarnings(s.base, p); len(out.Breaks) > 0 {
		out.Note += "; breaks " + strings.Join(out.Breaks, ", ")
		return out
	}
	s.variants[name] = priced{p, vd}
	return out
}

// restateStorage keeps a storage figure the design states true to an element variant: each
// element as a document of its own takes its own bytes (its id, system properties and the copied
// key), which a fixed figure would hide from the storage price and the partition count. The
// parent's production documents (pd) each change by the variant's parent size minus the design's,
// plus the average number of elements × the element document's size, both plan's estimates; the
// design's scale.storageGB and the container's storageGB, where stated, take the change (the
// element documents' part goes to container sep when they have a container of their own, -1 when
// not). It takes one plan.Build of the variant to size its documents, only when a figure is stated.
func (s *search) restateStorage(sp *elementSplit, ci int, parent string, pd plan.Document, sep int) error {
	c := &s.d.Containers[ci]
	if (c.StorageGB <= 0 && s.d.Scale.StorageGB <= 0) || s.priced >= s.max {
		return nil // nothing to restate, or the variant will not be priced
	}
	vd, err := design.Clone(sp.v)
	if err != nil {
		return err
	}
	vp, err := s.build(vd)
	if err != nil {
		return err
	}
	var parentBytes, childBytes float64
	for _, pc := range vp.Containers {
		for _, doc := range pc.Documents {
			switch doc.Type {
			case parent:
				parentBytes = doc.Bytes
			case sp.child:
				childBytes = doc.Bytes
			}
		}
	}
	gb := func(bytes float64) float64 { return bytes / 1e9 } // plan's GB (storage.go)
	dParent := gb(pd.Production * (parentBytes - pd.Bytes))
	dChild := gb(pd.Production * sp.mean * childBytes)
	if s.d.Scale.StorageGB > 0 {
		sp.v.Scale.StorageGB = round2(max(s.d.Scale.StorageGB+dParent+dChild, 0.01))
	}
	if c.StorageGB > 0 {
		own := c.StorageGB + dParent
		if sep < 0 {
			own += dChild
		} else {
			sp.v.Containers[sep].StorageGB = round2(max(dChild, 0.01))
		}
		sp.v.Containers[ci].StorageGB = round2(max(own, 0.01))
	}
	sp.notes = appendOnce(sp.notes, fmt.Sprintf("the stated storage grows by %.3g GB: %.3g element documents of %.0f B each, the parent %.0f B smaller",
		dParent+dChild, pd.Production*sp.mean, childBytes, pd.Bytes-parentBytes))
	return nil
}

// keepArrayWhy says why an array stays embedded.
func (s *search) keepArrayWhy(r Relation) string {
	var why []string
	if r.Bounded {
		why = append(why, fmt.Sprintf("at most %.0f elements, %.1f KB at the most", r.PerParentMax, r.EmbeddedMaxBytes/1024))
	}
	if len(r.UpdatedApart) == 0 {
		why = append(why, "no pattern changes an element alone")
	}
	cheapest, priced := 0.0, false
	for _, o := range r.Options[1:] {
		if o.Priced && (!priced || o.Change.RUs < cheapest) {
			cheapest, priced = o.Change.RUs, true
		}
	}
	switch {
	case !priced:
		why = append(why, "separate documents cannot be built from this design (see the options' notes)")
	case cheapest > 0:
		why = append(why, fmt.Sprintf("separate documents cost more (%s RU/s at the least)", signed(cheapest)))
	default:
		why = append(why, "separate documents do not save enough")
	}
	if !r.Bounded {
		why = append([]string{fmt.Sprintf("it can outgrow the item limit (%.0f KB at the most), but no way out is priced", r.EmbeddedMaxBytes/1024)}, why...)
	}
	return strings.Join(why, "; ")
}

// arrayUse is the patterns that read an array with its parent and the ones that patch an element,
// for an array whose variant could not be built.
func (s *search) arrayUse(c *design.Container, dt *design.DocType, name string) (readTogether, updatedApart []string) {
	readTogether, updatedApart = []string{}, []string{}
	for _, ap := range s.d.AccessPatterns {
		if ap.Container != c.Name {
			continue
		}
		if ap.Op == design.OpRead && ap.Sample == dt.Type {
			readTogether = append(readTogether, ap.ID)
		}
		for _, op := range ap.Patch {
			if underArray(op.Path, name) {
				updatedApart = append(updatedApart, ap.ID)
				break
			}
		}
	}
	return readTogether, updatedApart
}

func underArray(path, name string) bool {
	return path == "/"+name || strings.HasPrefix(path, "/"+name+"/")
}

// elementSplit is a variant of the design with an array's elements as documents of their own.
type elementSplit struct {
	v *design.Design
	// child is the element type's name.
	child string
	// touched are the design's patterns that read or write the array; childOps the variant's
	// patterns that read or write the element documents (made or redone); all both.
	touched, childOps, all map[string]bool
	// readTogether are the patterns that read the elements with their parent; updatedApart the
	// ones that change an element alone.
	readTogether, updatedApart []string
	// assumed are the assumptions the rewrite made, in words.
	assumed []string
	// notes say what else the variant changes (the stated storage).
	notes []string
	// mean is the average number of elements of a parent.
	mean float64
}

// elements is d with the array nf of dt turned into a child type of dt in the same container and
// logical partition, and every pattern that reads or writes the array redone on the variant — the
// reverse of embedded:
//
//   - the element type has dt's partition-key fields (copied from the parent), a reference to the
//     parent's id, the design's type discriminator when dt has one, and the element's fields; its
//     count per parent is the array's min..max;
//   - a point read of dt becomes, when oneQuery is set and the logical partition is dt's alone (its
//     key copies dt's id and no other type lives under dt), one query of the partition, which
//     returns the parent and its elements; otherwise it stays and a query of the elements in the
//     partition is added;
//   - a create or delete of dt adds a create or delete of its elements (rate × the average count);
//   - a patch of dt splits: the operations on its own fields stay a patch of dt, `add /a/-` is a
//     create of one element, `remove /a/n` a delete, `set /a/n` a replace, `set /a/n/f` a patch of
//     one element document;
//   - a query with JOIN over the array becomes a query of the element type when it names nothing of
//     the parent but the fields the elements copy.
//
// nil, and why, when a pattern cannot be redone.
func (s *search) elements(ci int, dt *design.DocType, nf design.NamedField, oneQuery bool) (*elementSplit, string) {
	c := s.d.Containers[ci]
	arr := nf.Name
	obj := nf.Field.Of.Object
	sp := &elementSplit{touched: map[string]bool{}, childOps: map[string]bool{}, all: map[string]bool{}}

	// The element type's name: the array's name made singular, unique in the design.
	types := map[string]bool{}
	for _, cc := range s.d.Containers {
		for _, t := range cc.Documents {
			types[t.Type] = true
		}
	}
	child := singular(arr)
	if types[child] || child == "" {
		child = dt.Type + "-" + arr
	}
	if types[child] {
		return nil, fmt.Sprintf("no free type name for the elements (%s is taken)", child)
	}
	sp.child = child

	// Its fields: the partition key's, the reference to the parent, the discriminator, the element's.
	var fields design.Fields
	taken := map[string]string{}
	ref := ""
	for _, kp := range c.PartitionKey {
		seg := design.SplitPath(kp)
		if len(seg) == 0 || seg[0] == "id" {
			return nil, fmt.Sprintf("%s is keyed by %s: a document of its own cannot share its parent's logical partition", c.Name, kp)
		}
		f, ok := dt.Fields.Lookup(seg[0])
		if !ok {
			return nil, fmt.Sprintf("%s has no field %s to copy into the elements", dt.Type, seg[0])
		}
		if _, dup := taken[seg[0]]; dup {
			continue
		}
		taken[seg[0]] = "the partition key"
		fields = append(fields, design.NamedField{Name: seg[0], Field: design.Field{Copy: "parent." + seg[0]}})
		if f.Copy == "id" && ref == "" {
			ref = seg[0] // the key copies the parent's id: it is the reference already
		}
	}
	if ref == "" {
		for _, cand := range []string{dt.Type + "Id", "parentId"} {
			if _, inParent := dt.Fields.Lookup(cand); inParent {
				continue
			}
			if _, inElem := obj.Lookup(cand); !inElem && taken[cand] == "" {
				ref = cand
				break
			}
		}
		if ref == "" {
			return nil, fmt.Sprintf("no free field name for the reference to the %s (%sId and parentId are taken)", dt.Type, dt.Type)
		}
		taken[ref] = "the reference to the parent"
		fields = append(fields, design.NamedField{Name: ref, Field: design.Field{Copy: "parent.id"}})
	}
	typeName, parentTypeValue := typeFieldOf(dt)
	if typeName != "" {
		if why := taken[typeName]; why != "" {
			return nil, fmt.Sprintf("the discriminator %s of %s is %s", typeName, dt.Type, why)
		}
		taken[typeName] = "the type discriminator"
		fields = append(fields, design.NamedField{Name: typeName, Field: design.Field{Const: child}})
	}
	for _, ef := range obj {
		if why := taken[ef.Name]; why != "" || ef.Name == "id" {
			if ef.Name == "id" {
				why = "the document id"
			}
			return nil, fmt.Sprintf("the element field %s has the name of %s", ef.Name, why)
		}
		fields = append(fields, ef)
	}
	a := nf.Field.Array
	mean := float64(a.Min+a.Max) / 2
	sp.mean = mean
	cdt := design.DocType{Type: child, Parent: &design.Parent{Type: dt.Type, Per: design.Per{Min: a.Min, Max: a.Max}},
		ID: child + "-{uuid}", Fields: fields}
	if dt.Production > 0 {
		cdt.Production = dt.Production * mean
	}
	parent := *dt
	parent.Fields = slices.DeleteFunc(slices.Clone(dt.Fields), func(f design.NamedField) bool { return f.Name == arr })
	parent.AppFields = nil
	for _, p := range dt.AppFields {
		if !underArray(p, arr) {
			parent.AppFields = append(parent.AppFields, p)
			continue
		}
		// "/lines/[]/note" or "/lines/0/note" is the element's "/note".
		seg := design.SplitPath(p)[1:]
		if len(seg) > 0 && (seg[0] == "[]" || isIndex(seg[0]) || seg[0] == "-") {
			seg = seg[1:]
		}
		if len(seg) > 0 {
			cdt.AppFields = append(cdt.AppFields, "/"+strings.Join(seg, "/"))
		}
	}
	for _, uk := range c.UniqueKeys {
		for _, p := range uk {
			if underArray(p, arr) {
				return nil, fmt.Sprintf("the unique key %s names the array", p)
			}
		}
	}
	if c.FullText != nil {
		for _, p := range c.FullText.Paths {
			if underArray(p, arr) {
				return nil, fmt.Sprintf("the full-text path %s is in the array", p)
			}
		}
	}
	for _, vs := range c.Vectors {
		if underArray(vs.Path, arr) {
			return nil, fmt.Sprintf("the vector path %s is in the array", vs.Path)
		}
	}

	// The container: the parent without its array, the element type after it, the index paths of
	// the elements moved to the element type's top level.
	v := shallow(s.d)
	nc := c
	pi := slices.IndexFunc(c.Documents, func(t design.DocType) bool { return t.Type == dt.Type })
	nc.Documents = slices.Clone(c.Documents)
	nc.Documents[pi] = parent
	nc.Documents = slices.Insert(nc.Documents, pi+1, cdt)
	others := map[string]bool{}
	for _, t := range c.Documents {
		if t.Type == dt.Type {
			continue
		}
		for _, f := range t.Fields {
			others[f.Name] = true
		}
	}
	nc.Indexing = elementIndexing(c.Indexing, arr, obj, others)
	if nc.Indexing == nil || nc.Indexing.Mode != "none" {
		if pol, err := indexpolicy.Compile(nc.Indexing); err == nil && !pol.Indexed([]string{ref}) {
			ix := design.Indexing{}
			if nc.Indexing != nil {
				ix = *nc.Indexing
			}
			ix.Included = append(slices.Clone(ix.Included), "/"+ref+"/?")
			nc.Indexing = &ix
			sp.assumed = append(sp.assumed, "/"+ref+"/? indexed for the query of the elements")
		}
	}
	v.Containers[ci] = nc

	// The patterns.
	ids := map[string]bool{}
	for _, ap := range s.d.AccessPatterns {
		ids[ap.ID] = true
	}
	newID := func(base string) string {
		id := base
		for n := 2; ids[id]; n++ {
			id = fmt.Sprintf("%s-%d", base, n)
		}
		ids[id] = true
		return id
	}
	scaled := func(r design.RPS, k float64) design.RPS {
		return design.RPS{Avg: r.Avg * k, Peak: r.Peak * k, HotKeyShare: r.HotKeyShare}
	}
	qs := map[string]query{}
	for _, qq := range queriesOf(s.d, ci) {
		qs[qq.ap.ID] = qq
	}
	// The partition is dt's alone when its key copies dt's id and no other type lives under dt.
	alone := ref != "" && taken[ref] == "the partition key"
	for _, t := range c.Documents {
		if t.Parent != nil && t.Parent.Type == dt.Type {
			alone = false
		}
	}
	// The parent's fields the element documents carry with the same value: the key and the type.
	copied := map[string]bool{}
	for name, why := range taken {
		if why == "the partition key" {
			copied[name] = true
		}
	}
	if typeName != "" {
		copied[typeName] = true
	}
	var elemFields []string
	for _, ef := range obj {
		elemFields = append(elemFields, "c."+ef.Name)
	}
	childQuery := func(ap *design.AccessPattern) design.AccessPattern {
		t := ap.ItemID
		if t == "" {
			t = "{id}"
		}
		q := fmt.Sprintf("SELECT %s FROM c WHERE c.%s = @%s", strings.Join(elemFields, ", "), ref, ref)
		// The parent carries the key too, and other types may carry the reference: the type says
		// which documents are the elements.
		if typeName != "" && (others[ref] || taken[ref] == "the partition key") {
			q += fmt.Sprintf(" AND c.%s = '%s'", typeName, child)
		}
		return design.AccessPattern{ID: newID(ap.ID + "-" + arr), Name: ap.Name + " (its " + arr + ": the " + child + " documents)",
			Container: ap.Container, Op: design.OpQuery, Sample: dt.Type, Query: q, Params: map[string]any{"@" + ref: t},
			PartitionKey: slices.Clone(ap.PartitionKey), Consistency: ap.Consistency, RPS: ap.RPS, Estimate: ap.Estimate, Samples: ap.Samples}
	}
	childWrite := func(ap *design.AccessPattern, op string, k float64, id, what string) design.AccessPattern {
		w := design.AccessPattern{ID: id, Name: ap.Name + " (" + what + ")", Container: ap.Container, Op: op,
			RPS: scaled(ap.RPS, k), Estimate: ap.Estimate, Samples: ap.Samples}
		switch op {
		case design.OpCreate:
			// A seeded parent stands for the fresh one: the element copies only its key and id.
			w.Sample, w.Document = dt.Type, child
		case design.OpReplace:
			w.Sample, w.Document = child, child
		default:
			w.Sample = child
		}
		return w
	}
	var out []design.AccessPattern
	for i := range s.d.AccessPatterns {
		ap := s.d.AccessPatterns[i]
		if ap.Container != c.Name {
			out = append(out, ap)
			continue
		}
		mine := ap.Sample == dt.Type || ap.Document == dt.Type
		switch ap.Op {
		case design.OpRead:
			if ap.Sample != dt.Type {
				out = append(out, ap)
				continue
			}
			sp.touched[ap.ID] = true
			sp.readTogether = append(sp.readTogether, ap.ID)
			if oneQuery && alone {
				// One query of the partition returns the parent and its elements.
				q := design.AccessPattern{ID: ap.ID, Name: ap.Name + " (one query of its partition: the parent and its " + child + " documents)",
					Container: ap.Container, Op: design.OpQuery, Sample: dt.Type,
					Query: fmt.Sprintf("SELECT * FROM c WHERE c.%s = @%s", ref, ref), Params: map[string]any{"@" + ref: "{" + ref + "}"},
					PartitionKey: slices.Clone(ap.PartitionKey), Consistency: ap.Consistency, RPS: ap.RPS, Estimate: ap.Estimate, Samples: ap.Samples}
				out = append(out, q)
				sp.childOps[q.ID] = true
				continue
			}
			q := childQuery(&ap)
			out = append(out, ap, q)
			sp.childOps[q.ID] = true
		case design.OpQuery:
			qq, ok := qs[ap.ID]
			if !ok {
				out = append(out, ap)
				continue
			}
			whole := qq.a.Projection.Kind == sql.ProjectStar ||
				(qq.a.Projection.Kind == sql.ProjectValue && len(qq.a.Projection.Items) == 1 && qq.a.Projection.Items[0].IsPath && len(qq.a.Projection.Items[0].Path) == 0)
			ofParent := qq.a.TypeLiteral == "" || (parentTypeValue != "" && qq.a.TypeLiteral == parentTypeValue)
			switch {
			case qq.names([]string{arr}):
				nq, why := rewriteJoin(qq, arr, typeName, parentTypeValue, child, copied, cdt.Fields)
				if nq == "" {
					return nil, fmt.Sprintf("%s reads %s: %s", ap.ID, "/"+arr, why)
				}
				sp.touched[ap.ID] = true
				sp.readTogether = append(sp.readTogether, ap.ID)
				ap.Query = nq
				ap.Name += " (a query of the " + child + " documents)"
				out = append(out, ap)
				sp.childOps[ap.ID] = true
			case whole && ofParent && len(qq.a.Joins) == 0:
				return nil, fmt.Sprintf("%s returns whole %s documents, %s included: as separate documents it would need a query of their elements too, which one pattern cannot say", ap.ID, dt.Type, "/"+arr)
			default:
				out = append(out, ap)
			}
		case design.OpCreate, design.OpUpsert, design.OpDelete:
			// A parent written or deleted writes or deletes its elements with it.
			op, ofType := design.OpCreate, ap.Document == dt.Type
			if ap.Op == design.OpDelete {
				op, ofType = design.OpDelete, ap.Sample == dt.Type
			}
			if !ofType {
				out = append(out, ap)
				continue
			}
			sp.touched[ap.ID] = true
			out = append(out, ap)
			if mean > 0 {
				w := childWrite(&ap, op, mean, newID(ap.ID+"-"+arr), fmt.Sprintf("its %s: %.3g %s documents", arr, mean, child))
				out = append(out, w)
				sp.childOps[w.ID] = true
			}
		case design.OpReplace:
			if !mine {
				out = append(out, ap)
				continue
			}
			sp.touched[ap.ID] = true
			out = append(out, ap)
			sp.assumed = appendOnce(sp.assumed, "a replace of "+dt.Type+" changes its own fields, not its elements")
		case design.OpPatch:
			if ap.Sample != dt.Type {
				out = append(out, ap)
				continue
			}
			ws, why := splitPatch(&ap, arr)
			if why != "" {
				return nil, why
			}
			if ws == nil {
				out = append(out, ap)
				continue
			}
			sp.touched[ap.ID] = true
			sp.updatedApart = append(sp.updatedApart, ap.ID)
			first := true
			if len(ws.parentOps) > 0 {
				p := ap
				p.Patch = ws.parentOps
				out = append(out, p)
				first = false
			} else if ap.Condition != "" {
				return nil, fmt.Sprintf("%s has a condition on %s and changes only elements: a condition cannot be carried to the element documents", ap.ID, dt.Type)
			}
			if ap.Expect != nil && ap.Expect.Status != 0 {
				return nil, ap.ID + " expects a status of the patch of " + dt.Type
			}
			id := func() string {
				if first {
					first = false
					return ap.ID
				}
				return newID(ap.ID + "-" + arr)
			}
			add := func(w design.AccessPattern) {
				out = append(out, w)
				sp.childOps[w.ID] = true
			}
			if ws.creates > 0 {
				add(childWrite(&ap, design.OpCreate, float64(ws.creates), id(), fmt.Sprintf("%d new %s documents", ws.creates, child)))
			}
			if ws.deletes > 0 {
				add(childWrite(&ap, design.OpDelete, float64(ws.deletes), id(), fmt.Sprintf("%d %s documents deleted", ws.deletes, child)))
			}
			if ws.replaces > 0 {
				add(childWrite(&ap, design.OpReplace, float64(ws.replaces), id(), fmt.Sprintf("%d %s documents replaced", ws.replaces, child)))
			}
			if ws.patched > 0 {
				what := "a patch of one " + child + " document"
				if ws.patched > 1 {
					what = fmt.Sprintf("a patch of each of %d %s documents", ws.patched, child)
				}
				w := childWrite(&ap, design.OpPatch, float64(ws.patched), id(), what)
				w.Patch = ws.elemOps
				add(w)
			}
		case design.OpBatch:
			for _, bo := range ap.Batch {
				if bo.Document == dt.Type {
					return nil, fmt.Sprintf("%s is a transactional batch that writes %s with its %s", ap.ID, dt.Type, "/"+arr)
				}
				for _, op := range bo.Patch {
					if underArray(op.Path, arr) || underArray(op.From, arr) {
						return nil, fmt.Sprintf("%s is a transactional batch that patches %s", ap.ID, "/"+arr)
					}
				}
			}
			out = append(out, ap)
		default:
			out = append(out, ap)
		}
	}
	v.AccessPatterns = out
	dropUnread(v, ci)
	sp.v = v
	for id := range sp.touched {
		sp.all[id] = true
	}
	for id := range sp.childOps {
		sp.all[id] = true
	}
	return sp, ""
}

// patchSplit is a patch of a parent split into the operations on its own fields and the writes of
// element documents.
type patchSplit struct {
	parentOps                           []design.PatchOp
	creates, deletes, replaces, patched int
	// elemOps is the patch of one element document (the same on each element patched).
	elemOps []design.PatchOp
}

// splitPatch reads a patch of the parent: nil when no operation touches the array, why when one
// cannot be redone on element documents.
func splitPatch(ap *design.AccessPattern, arr string) (*patchSplit, string) {
	ws := &patchSplit{}
	touches := false
	byElem := map[string][]design.PatchOp{}
	var order []string
	for _, op := range ap.Patch {
		if underArray(op.From, arr) {
			return nil, fmt.Sprintf("%s moves a value out of %s: no element document can say it", ap.ID, "/"+arr)
		}
		if !underArray(op.Path, arr) {
			ws.parentOps = append(ws.parentOps, op)
			continue
		}
		touches = true
		seg := design.SplitPath(op.Path)
		if op.Op == "move" {
			return nil, fmt.Sprintf("%s moves a value into %s: no element document can say it", ap.ID, "/"+arr)
		}
		if len(seg) == 1 {
			return nil, fmt.Sprintf("%s writes the whole %s: as separate documents every element would be rewritten, which one pattern cannot say", ap.ID, "/"+arr)
		}
		idx, rest := seg[1], seg[2:]
		switch {
		case op.Op == "add" && len(rest) == 0:
			ws.creates++
		case op.Op == "remove" && len(rest) == 0:
			ws.deletes++
		case len(rest) == 0:
			ws.replaces++
		default:
			if _, seen := byElem[idx]; !seen {
				order = append(order, idx)
			}
			byElem[idx] = append(byElem[idx], design.PatchOp{Op: op.Op, Path: "/" + strings.Join(rest, "/"), Value: op.Value})
		}
	}
	if !touches {
		return nil, ""
	}
	if ap.Condition != "" && strings.Contains(ap.Condition, "."+arr) {
		return nil, fmt.Sprintf("%s's condition tests %s: a condition cannot be carried to the element documents", ap.ID, "/"+arr)
	}
	for _, idx := range order {
		if ws.elemOps == nil {
			ws.elemOps = byElem[idx]
		} else if fmt.Sprint(byElem[idx]) != fmt.Sprint(ws.elemOps) {
			return nil, fmt.Sprintf("%s changes elements %s differently: one pattern of element documents cannot say it", ap.ID, strings.Join(order, ", "))
		}
		ws.patched++
	}
	return ws, ""
}

// rewriteJoin redoes a query that reads the array through JOIN as a query of the element type: the
// JOIN dropped, the alias read as the element document, the parent's type literal as the element
// type's. "" and why when the query names more of the parent than the elements copy, or reads the
// array another way (ARRAY_CONTAINS, a path into it, a subquery).
func rewriteJoin(qq query, arr, typeName, parentType, child string, copied map[string]bool, fields design.Fields) (string, string) {
	if len(qq.a.Joins) != 1 || qq.a.Joins[0].Subquery || !slices.Equal(qq.a.Joins[0].Path, []string{arr}) {
		return "", "it reads the array in place, not through one JOIN (ARRAY_CONTAINS, the array or a path into it, a subquery): as separate documents that takes a query of the elements and another of their parents"
	}
	if qq.a.Projection.Kind == sql.ProjectStar {
		return "", "SELECT * over a JOIN returns the parent with each element: one query of the element documents cannot say it"
	}
	root := qq.q.Alias()
	alias := qq.a.Joins[0].Alias
	if root == "" || alias == "" {
		return "", "its FROM is not the container"
	}
	for _, p := range qq.paths {
		switch {
		case len(p) >= 2 && p[0] == arr && p[1] == "[]":
		case slices.Equal(p, []string{arr}):
		default:
			if !copied[p[0]] {
				return "", fmt.Sprintf("it names /%s of the parent, which the element documents do not copy", strings.Join(p, "/"))
			}
		}
	}
	text := qq.q.Text()
	join := regexp.MustCompile(`(?i)\s+JOIN\s+` + regexp.QuoteMeta(alias) + `\s+IN\s+` + regexp.QuoteMeta(root) + `\.` + regexp.QuoteMeta(arr) + `\b`)
	if len(join.FindAllStringIndex(text, -1)) != 1 {
		return "", "its JOIN is not written JOIN x IN c." + arr
	}
	text = join.ReplaceAllString(text, "")
	// The alias, not a parameter (@x) nor a property (c.x) of the same name.
	text = regexp.MustCompile(`(^|[^@\w.])`+regexp.QuoteMeta(alias)+`\b`).ReplaceAllString(text, "${1}"+root)
	if typeName != "" && parentType != "" && qq.a.TypeLiteral == parentType {
		for _, quote := range []string{"'", `"`} {
			text = strings.ReplaceAll(text, quote+parentType+quote, quote+child+quote)
		}
	}
	nq, err := sql.Parse(text)
	if err != nil {
		return "", "the query without its JOIN does not parse: " + err.Error()
	}
	for _, pp := range nq.PropertyPaths() {
		if _, ok := fields.Lookup(pp.Path[0]); !ok {
			return "", fmt.Sprintf("the query without its JOIN names /%s, which the element documents do not have", strings.Join(pp.Path, "/"))
		}
	}
	return text, ""
}

// elementIndexing is ix with the paths under the array moved to the element documents' top level:
// /lines/[]/sku/? is /sku/?, /lines/* excludes (or includes) each element field. A path whose field
// another type of the container also has is dropped rather than moved: it would change that type's
// index too.
func elementIndexing(ix *design.Indexing, arr string, obj design.Fields, others map[string]bool) *design.Indexing {
	if ix == nil {
		return nil
	}
	out := *ix
	seen := map[string]bool{}
	move := func(paths []string) []string {
		var res []string
		add := func(p string) {
			if !seen[p] {
				seen[p] = true
				res = append(res, p)
			}
		}
		for _, p := range paths {
			seg := design.SplitPath(p)
			if len(seg) == 0 || seg[0] != arr {
				add(p)
				continue
			}
			rest := seg[1:]
			if len(rest) > 0 && rest[0] == "[]" {
				rest = rest[1:]
			}
			if len(rest) == 0 || rest[0] == "*" || rest[0] == "?" {
				if len(rest) > 0 && rest[0] == "?" {
					continue // the array's own scalar: nothing in an element
				}
				for _, ef := range obj {
					if !others[ef.Name] {
						add(excludePath(ef.Name, kindOf(&ef.Field)))
					}
				}
				continue
			}
			if !others[rest[0]] {
				add("/" + strings.Join(rest, "/"))
			}
		}
		return res
	}
	out.Included = move(ix.Included)
	out.Excluded = move(ix.Excluded)
	var comps [][]design.CompositePath
	for _, cp := range ix.Composite {
		if !slices.ContainsFunc(cp, func(p design.CompositePath) bool { return underArray(p.Path, arr) }) {
			comps = append(comps, cp)
		}
	}
	out.Composite = comps
	return &out
}

// typeFieldOf is the name and value of a document type's const type-like field ("type", "order"),
// "" when none.
func typeFieldOf(dt *design.DocType) (string, string) {
	for _, name := range []string{"type", "kind", "docType", "entity"} {
		if f, ok := dt.Fields.Lookup(name); ok {
			if s, ok := f.Const.(string); ok {
				return name, s
			}
		}
	}
	return "", ""
}

// singular is an English plural made singular, the way arrays are usually named: lines → line,
// entries → entry, boxes → box; "" when the name does not end in s.
func singular(name string) string {
	switch {
	case strings.HasSuffix(name, "ies") && len(name) > 3:
		return name[:len(name)-3] + "y"
	case strings.HasSuffix(name, "xes"), strings.HasSuffix(name, "ches"), strings.HasSuffix(name, "shes"), strings.HasSuffix(name, "sses"):
		return name[:len(name)-2]
	case strings.HasSuffix(name, "ss"):
		return ""
	case strings.HasSuffix(name, "s") && len(name) > 1:
		return name[:len(name)-1]
	}
	return ""
}

func isIndex(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
