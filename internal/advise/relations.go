package advise

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/lint"
	"github.com/cosmosdv/validate/internal/plan"
)

// Relation answers embed or reference for one relationship: a child type with `parent:`, or an
// array of objects inside a document type.
type Relation struct {
	Container string `json:"container"`
	// Kind is "parent" (a child type) or "array" (an array of objects in a type).
	Kind   string `json:"kind"`
	Parent string `json:"parent"`
	// Child is the child type, or the array's path.
	Child string `json:"child"`
	// ChildType is, for an array, the document type its elements get in the options that store
	// them as documents of their own.
	ChildType string `json:"childType,omitempty"`
	// PerParent is the children of one parent at production (average), PerParentMax the most.
	PerParent    float64 `json:"perParent"`
	PerParentMax float64 `json:"perParentMax"`
	// Bounded is the modeling article's first question: does the number of children stay bounded?
	Bounded bool `json:"bounded"`
	// EmbeddedBytes and EmbeddedMaxBytes are the parent's size with its children inside, on average
	// and at the most children, against ItemLimitBytes (the 2 MB item limit).
	EmbeddedBytes    float64 `json:"embeddedBytes"`
	EmbeddedMaxBytes float64 `json:"embeddedMaxBytes"`
	ItemLimitBytes   float64 `json:"itemLimitBytes"`
	// ReadTogether are the patterns that read the children with or through their parent;
	// UpdatedApart the patterns that write a child alone.
	ReadTogether []string `json:"readTogether"`
	UpdatedApart []string `json:"updatedApart"`
	// Rules are the modeling article's rules of thumb, each with what the design says to it.
	Rules []string `json:"rules"`
	// RewriteRUs is, for a child written alone, what embedding adds to those writes: Σ over
	// UpdatedApart of (the parent's replace with its children inside − the child's own write) ×
	// the average rate (plan's charges of both variants); a patch of the parent costs no less than
	// the replace (partial-document-update FAQ: the RU charge of a patch is that of a replace).
	// BusiestParentWrites is the child writes a second that land on one parent at peak (the
	// busiest, by the children's key spread), against ContentionLimit: concurrent writers of one
	// embedded document must replace it with optimistic concurrency, and each conflict (412) costs a
	// re-read and a second replace.
	RewriteRUs          float64 `json:"rewriteRUs,omitempty"`
	BusiestParentWrites float64 `json:"busiestParentWrites,omitempty"`
	// rewritePriced: RewriteRUs was priced (the embedded variant could be built).
	rewritePriced   bool
	ContentionLimit float64          `json:"contentionLimit,omitempty"`
	Options         []RelationOption `json:"options"`
	// Answer is advise's answer, in words.
	Answer string `json:"answer"`
}

// RelationOption is one way to store the relationship, priced as a variant of the design.
type RelationOption struct {
	// Name is "as designed", "embedded in the parent", "separate documents in the parent's
	// partition" (an array's elements) or "separate container".
	Name string `json:"name"`
	// Priced is false when the option could not be priced (Note says why).
	Priced bool `json:"priced"`
	// WriteRU is the charge of one child change (a create of a child document, or a replace of
	// the parent that holds it; for an array as designed, the dearest write of the parent that
	// touches its elements, and as documents, the dearest write of one element document); ReadRUs
	// the RU/s of the patterns that read the children.
	WriteRU float64 `json:"writeRU"`
	ReadRUs float64 `json:"readRUs"`
	RUs     float64 `json:"rus"`
	Monthly float64 `json:"monthlyUSD"`
	Change  Change  `json:"change"`
	Note    string  `json:"note,omitempty"`
	// Breaks lists what the variant breaks that plan can see (a query the service would refuse, a
	// type without the key): such an option is priced but never the answer.
	Breaks []string `json:"breaks,omitempty"`
}

// boundedGrowth is how much more children a parent may have at production than seeded for the
// relationship to count as bounded (assumed: the article's "will not grow without bound" read as
// "production keeps about the seeded number per parent").
const boundedGrowth = 1.5

// contentionLimit is the child writes a second on one parent at peak from which embedding is not
// advised whatever it saves (assumed: a read-modify-write replace with If-Match takes tens of
// milliseconds, so at about one write a second to one document conflicts (412) and their retries
// begin to show; no published figure).
const contentionLimit = 1.0

// relations answers embed or reference for every relationship of the design.
func (s *search) relations() {
	for ci := range s.d.Containers {
		c := &s.d.Containers[ci]
		cp := containerPlan(s.base, c.Name)
		if cp == nil {
			continue
		}
		docs := map[string]plan.Document{}
		for _, pd := range cp.Documents {
			docs[pd.Type] = pd
		}
		for ti := range c.Documents {
			dt := &c.Documents[ti]
			if dt.Parent != nil {
				s.parentRelation(ci, dt, docs)
			}
			for _, nf := range dt.Fields {
				if kindOf(&nf.Field) == objectArrayField {
					s.arrayRelation(ci, dt, nf, docs[dt.Type])
				}
			}
		}
	}
}

func (s *search) parentRelation(ci int, child *design.DocType, docs map[string]plan.Document) {
	c := &s.d.Containers[ci]
	pt := child.Parent.Type
	pd, cd := docs[pt], docs[child.Type]
	rc := s.rateCard()
	r := Relation{Container: c.Name, Kind: "parent", Parent: pt, Child: child.Type, ItemLimitBytes: rc.ItemMaxKB.Value * 1024,
		ReadTogether: []string{}, UpdatedApart: []string{}}
	seededPer := 0.0
	if pd.Count > 0 {
		seededPer = cd.Count / pd.Count
	}
	r.PerParent = seededPer
	if pd.Production > 0 {
		r.PerParent = cd.Production / pd.Production
	}
	growth := 1.0
	if seededPer > 0 {
		growth = r.PerParent / seededPer
	}
	r.PerParentMax = float64(child.Parent.Per.Max) * max(growth, 1)
	r.PerParent, r.PerParentMax = round2(r.PerParent), round2(r.PerParentMax)
	r.EmbeddedBytes = round2(pd.Bytes + r.PerParent*cd.Bytes)
	r.EmbeddedMaxBytes = round2(pd.Bytes + r.PerParentMax*cd.Bytes)
	r.Bounded = growth <= boundedGrowth && r.EmbeddedMaxBytes <= r.ItemLimitBytes

	// Which patterns read the children together with their parent, and which write a child alone.
	typeValue := constType(child)
	touches := map[string]bool{}
	qs := map[string]query{}
	for _, qq := range queriesOf(s.d, ci) {
		qs[qq.ap.ID] = qq
	}
	for i := range s.d.AccessPatterns {
		ap := &s.d.AccessPatterns[i]
		if ap.Container != c.Name {
			continue
		}
		t := ap.Sample == child.Type || ap.Document == child.Type
		for _, bo := range ap.Batch {
			t = t || bo.Document == child.Type
		}
		if qq, ok := qs[ap.ID]; ok && typeValue != "" && qq.a.TypeLiteral == typeValue {
			t = true
		}
		if !t {
			continue
		}
		touches[ap.ID] = true
		switch {
		case IsWrite(ap.Op):
			r.UpdatedApart = append(r.UpdatedApart, ap.ID)
		case ap.Op == design.OpQuery && len(ap.PartitionKey) > 0:
			r.ReadTogether = append(r.ReadTogether, ap.ID)
		}
	}

	// As designed.
	asIs := s.relationOption("as designed: separate documents in the parent's partition", s.base, touches, true)
	if !shareKey(child, c) {
		asIs.Name = "as designed: separate documents (not in the parent's logical partition)"
	}
	r.Options = append(r.Options, asIs)
	// Embedded.
	emb := RelationOption{Name: "embedded in the parent"}
	if v, why := s.embedded(ci, child, touches); v == nil {
		emb.Note = why
	} else if p, vd, err := s.price("embed "+child.Type+" in "+pt, v); err != nil {
		emb.Note = err.Error()
	} else if p == nil {
		emb.Note = capNote
	} else {
		estimates(vd, p, touches)
		emb = s.relationOption(emb.Name, p, touches, false)
		emb.Note = "each child write replaces the parent with its children inside"
		if !r.Bounded {
			emb.Note += "; not advised: the children are not bounded (see the rules)"
		} else {
			s.variants["embed-"+child.Type] = priced{p, vd}
		}
	}
	r.Options = append(r.Options, emb)
	// Separate container.
	sep := RelationOption{Name: "separate container"}
	if v, why := separate(s.d, ci, child.Type, touches); v == nil {
		sep.Note = why
	} else if p, vd, err := s.price("move "+child.Type+" to its own container", v); err != nil {
		sep.Note = err.Error()
	} else if p == nil {
		sep.Note = capNote
	} else {
		sep = s.relationOption(sep.Name, p, touches, false)
		sep.Note = "keyed like the parent's container; a container has its own throughput and its own minimum"
		s.variants["separate-"+child.Type] = priced{p, vd}
	}
	r.Options = append(r.Options, sep)

	// What embedding does to the children written alone: the parent rewrites, and the writers that
	// meet on one parent.
	contended := false
	if len(r.UpdatedApart) > 0 {
		r.ContentionLimit = contentionLimit
		share := cd.BusiestShare
		if cd.ProductionBusiestShare > 0 {
			share = cd.ProductionBusiestShare
		}
		pv := s.variants["embed-"+child.Type]
		for _, id := range r.UpdatedApart {
			bp := patternPlan(s.base, id)
			if bp == nil {
				continue
			}
			r.BusiestParentWrites += bp.PeakRPS * share
			if pv.p != nil {
				if ep := patternPlan(pv.p, id); ep != nil {
					r.RewriteRUs += PatternRUs(*ep) - PatternRUs(*bp)
					r.rewritePriced = true
				}
			}
		}
		// The busiest parent's rate is kept unrounded: a small rate is still a rate (0.0004 a second
		// is not 0).
		r.RewriteRUs = round2(r.RewriteRUs)
		contended = r.BusiestParentWrites >= contentionLimit
		if len(r.Options) > 1 && r.Options[1].Priced {
			r.Options[1].Note += fmt.Sprintf("; the children written alone (%s) add %s RU/s as parent rewrites (a patch of the parent costs no less: partial-document-update FAQ), and each such write costs more as the parent grows toward %.0f KB; the busiest parent takes %.2g child writes a second at peak (contention from %.0f a second, assumed)",
				strings.Join(r.UpdatedApart, ", "), signed(r.RewriteRUs), r.EmbeddedMaxBytes/1024, r.BusiestParentWrites, contentionLimit)
		}
	}
	r.Rules = s.rules(r)

	// The answer: the cheapest option that is allowed by the rules. A child written alone is
	// embedded only when the saving, which already pays for the parent rewrites, is there and the
	// writers do not meet on one parent.
	best := 0
	for i, o := range r.Options {
		if !o.Priced || (i == 1 && (!r.Bounded || contended)) {
			continue
		}
		if o.RUs < r.Options[best].RUs-max(significantRUs, significantShare*s.baseT.RUs) && o.Change.MonthlyUSD <= 0.005 {
			best = i
		}
	}
	switch best {
	case 0:
		r.Answer = fmt.Sprintf("keep %s as separate documents: %s", child.Type, s.keepWhy(r))
	case 1:
		r.Answer = fmt.Sprintf("embed %s in %s: bounded (at most %.0f a parent, %.0f KB embedded), and fewer RU/s (%s RU/s)", child.Type, pt, r.PerParentMax, r.EmbeddedMaxBytes/1024, signed(r.Options[1].Change.RUs))
		if len(r.UpdatedApart) > 0 {
			r.Answer += fmt.Sprintf(", net of the parent rewrites of %s (%s RU/s); the busiest parent takes %.2g child writes a second at peak, under the %.0f a second where writers start to contend",
				strings.Join(r.UpdatedApart, ", "), signed(r.RewriteRUs), r.BusiestParentWrites, contentionLimit)
		}
		if pv := s.variants["embed-"+child.Type]; pv.p != nil {
			s.recommend("embed-"+slug(child.Type), fmt.Sprintf("embed %s in %s (an array %s)", child.Type, pt, embedField(child)), pv.p, pv.d)
		}
	case 2:
		r.Answer = fmt.Sprintf("move %s to a container of its own: fewer RU/s (%s RU/s)", child.Type, signed(r.Options[2].Change.RUs))
		if pv := s.variants["separate-"+child.Type]; pv.p != nil {
			s.recommend("separate-"+slug(child.Type), fmt.Sprintf("move %s to a container of its own", child.Type), pv.p, pv.d)
		}
	}
	s.a.Relations = append(s.a.Relations, r)
}

// rules are the modeling article's rules of thumb with what the design says to each.
func (s *search) rules(r Relation) []string {
	var out []string
	if r.Bounded {
		out = append(out, fmt.Sprintf("embed when the related data is bounded: yes, %.3g a parent at production (at most %.0f), %.0f KB embedded at the most, under the %.0f KB item limit",
			r.PerParent, r.PerParentMax, r.EmbeddedMaxBytes/1024, r.ItemLimitBytes/1024))
	} else {
		out = append(out, fmt.Sprintf("reference when the related data is unbounded: %.3g a parent at production (at most %.0f), %.0f KB embedded at the most against the %.0f KB item limit",
			r.PerParent, r.PerParentMax, r.EmbeddedMaxBytes/1024, r.ItemLimitBytes/1024))
	}
	if len(r.ReadTogether) > 0 {
		out = append(out, "embed when it is read together with its parent: "+strings.Join(r.ReadTogether, ", ")+" read the children in the parent's partition")
	} else {
		out = append(out, "embed when it is read together with its parent: no pattern reads the children through their parent")
	}
	if len(r.UpdatedApart) > 0 {
		rule := "reference when it changes often and apart from its parent: " + strings.Join(r.UpdatedApart, ", ") + " write a child alone"
		if r.ContentionLimit > 0 {
			verdict := "few enough that embedding may still pay, if the saving outweighs the rewrites"
			var embed RelationOption // the embedded option, when there is one
			if len(r.Options) > 1 {
				embed = r.Options[1]
			}
			switch {
			case r.BusiestParentWrites >= r.ContentionLimit:
				verdict = "too many: writers contend on one parent document, not embedded"
			case !embed.Priced:
				verdict = "few enough not to contend; embedding is not priced (see its row)"
			case embed.Change.RUs >= 0 || embed.Change.MonthlyUSD > 0.005:
				verdict = fmt.Sprintf("few enough not to contend, but embedding costs more (%s RU/s, %s $/month)", signed(embed.Change.RUs), signedUSD(embed.Change.MonthlyUSD))
			}
			rewrite := "not priced"
			if r.rewritePriced {
				rewrite = signed(r.RewriteRUs) + " RU/s in all"
			}
			rule += fmt.Sprintf(" — embedded, each becomes a replace of the parent (%s), and the busiest parent takes %.3g such writes a second at peak: %s", rewrite, r.BusiestParentWrites, verdict)
		}
		out = append(out, rule)
	} else {
		out = append(out, "embed when it changes infrequently: no pattern writes a child alone")
	}
	return out
}

func (s *search) keepWhy(r Relation) string {
	var why []string
	if !r.Bounded {
		why = append(why, "unbounded")
	}
	if len(r.UpdatedApart) > 0 {
		w := "written apart (" + strings.Join(r.UpdatedApart, ", ") + ")"
		if r.ContentionLimit > 0 && r.BusiestParentWrites >= r.ContentionLimit {
			w += fmt.Sprintf(" by writers that would contend on one parent (%.2g writes a second at peak on the busiest)", r.BusiestParentWrites)
		}
		why = append(why, w)
	}
	priced := false
	for _, o := range r.Options[1:] {
		priced = priced || o.Priced
	}
	capped := false
	for _, o := range r.Options[1:] {
		capped = capped || o.Note == capNote
	}
	switch {
	case !priced && capped:
		why = append(why, "the other options were not priced: "+capNote)
	case !priced:
		why = append(why, "the other options cannot be built from this design (see their notes)")
	case len(why) == 0:
		why = append(why, "no other option lowers the RU/s")
	default:
		why = append(why, "and no other option is cheaper")
	}
	return strings.Join(why, "; ")
}

// relationOption reads one option's figures from its plan: the RU/s of the patterns that touch the
// children, their reads and a child write's charge.
func (s *search) relationOption(name string, p *plan.Plan, touches map[string]bool, asIs bool) RelationOption {
	o := RelationOption{Name: name, Priced: true, Monthly: p.MonthlyUSD, Change: diff(s.baseT, totalsOf(p))}
	o.RUs = totalsOf(p).RUs
	for _, pp := range p.Patterns {
		if !touches[pp.ID] {
			continue
		}
		if IsWrite(pp.Op) {
			if o.WriteRU == 0 || Charge(pp) > o.WriteRU {
				o.WriteRU = Charge(pp)
			}
		} else {
			o.ReadRUs += PatternRUs(pp)
		}
	}
	o.ReadRUs = round2(o.ReadRUs)
	_ = asIs
	return o
}

// constType is the value of a document type's const type-like field ("order"), "" when none.
func constType(dt *design.DocType) string {
	_, v := typeFieldOf(dt)
	return v
}

// shareKey reports whether a child copies its parent's partition-key values (it then lives in its
// parent's logical partition).
func shareKey(child *design.DocType, c *design.Container) bool {
	for _, kp := range c.PartitionKey {
		f, ok := child.Fields.Lookup(strings.TrimPrefix(kp, "/"))
		if !ok || !strings.HasPrefix(f.Copy, "parent.") {
			return false
		}
	}
	return true
}

func embedField(child *design.DocType) string {
	return child.Type + "s"
}

// embedded is d with the child type folded into its parent as an array of objects, and every
// pattern that touches a child redone on the parent: a read of a child, or a query of the
// children in the parent's partition, reads the parent; a child write replaces the parent. nil,
// and why, when a pattern cannot be redone (a cross-partition query of the children, a batch).
func (s *search) embedded(ci int, child *design.DocType, touches map[string]bool) (*design.Design, string) {
	v := shallow(s.d)
	c := v.Containers[ci]
	pi := slices.IndexFunc(c.Documents, func(dt design.DocType) bool { return dt.Type == child.Parent.Type })
	ki := slices.IndexFunc(c.Documents, func(dt design.DocType) bool { return dt.Type == child.Type })
	if pi < 0 || ki < 0 {
		return nil, "the parent is in another container"
	}
	for _, dt := range c.Documents {
		if dt.Parent != nil && dt.Parent.Type == child.Type {
			return nil, fmt.Sprintf("%s has children of its own (%s)", child.Type, dt.Type)
		}
	}
	var obj design.Fields
	for _, nf := range child.Fields {
		if nf.Field.Copy != "" || nf.Field.Template != "" || nf.Field.Const != nil {
			continue // the parent's values, the type, or built from them
		}
		obj = append(obj, nf)
	}
	if len(obj) == 0 {
		return nil, "the child has no fields of its own"
	}
	c.Documents = slices.Clone(c.Documents)
	parent := c.Documents[pi]
	parent.Fields = append(slices.Clone(parent.Fields), design.NamedField{Name: embedField(child), Field: design.Field{
		Array: &design.ArraySpec{Min: child.Parent.Per.Min, Max: child.Parent.Per.Max}, Of: &design.Field{Object: obj}}})
	parent.AppFields = append(slices.Clone(parent.AppFields), child.AppFields...)
	// Index paths of the children's own fields now sit under the array.
	if c.Indexing != nil {
		ix := *c.Indexing
		ix.Included = slices.Clone(ix.Included)
		for i, ip := range ix.Included {
			seg := strings.Split(strings.TrimPrefix(ip, "/"), "/")
			if _, inParent := parent.Fields.Lookup(seg[0]); inParent || len(seg) < 2 {
				continue
			}
			if _, inChild := child.Fields.Lookup(seg[0]); inChild {
				ix.Included[i] = "/" + embedField(child) + "/[]/" + strings.Join(seg, "/")
			}
		}
		c.Indexing = &ix
	}
	c.Documents[pi] = parent
	c.Documents = slices.Delete(c.Documents, ki, ki+1)
	v.Containers[ci] = c
	pt := parent.Type
	for i := range v.AccessPatterns {
		ap := &v.AccessPatterns[i]
		if !touches[ap.ID] {
			continue
		}
		switch {
		case ap.Op == design.OpBatch:
			return nil, ap.ID + " is a transactional batch over the children"
		case ap.Op == design.OpRead, ap.Op == design.OpQuery && len(ap.PartitionKey) == len(c.PartitionKey):
			if ap.Op == design.OpQuery && ap.Sample != pt && ap.Sample != child.Type {
				return nil, ap.ID + " samples another type"
			}
			*ap = design.AccessPattern{ID: ap.ID, Name: ap.Name + " (the parent, children inside)", Container: ap.Container,
				Op: design.OpRead, Sample: pt, RPS: ap.RPS, Estimate: ap.Estimate, Consistency: ap.Consistency, Samples: ap.Samples}
		case ap.Op == design.OpCreate, ap.Op == design.OpUpsert, ap.Op == design.OpReplace, ap.Op == design.OpPatch, ap.Op == design.OpDelete:
			if ap.Expect != nil && ap.Expect.Status != 0 {
				return nil, ap.ID + " expects a status of the child's own write"
			}
			*ap = design.AccessPattern{ID: ap.ID, Name: ap.Name + " (replaces the parent, children inside)", Container: ap.Container,
				Op: design.OpReplace, Sample: pt, Document: pt, RPS: ap.RPS, Estimate: ap.Estimate, Samples: ap.Samples}
		default:
			return nil, fmt.Sprintf("%s (%s) reads the children across parents: embedded, it would need a JOIN over every parent", ap.ID, ap.Op)
		}
	}
	dropUnread(v, ci)
	return v, ""
}

// dropUnread removes from container ci's included paths those that no pattern of v reads any more
// (lint's index-unused): embedded, the queries that filtered the children became reads of the
// parent, and their paths would cost every write index terms for no reader.
func dropUnread(v *design.Design, ci int) {
	c := &v.Containers[ci]
	if c.Indexing == nil {
		return
	}
	prefix := fmt.Sprintf("containers[%d].indexing.included[", ci)
	drop := map[int]bool{}
	for _, f := range lint.Check(v) {
		if f.Code != "index-unused" || !strings.HasPrefix(f.Path, prefix) {
			continue
		}
		var i int
		if _, err := fmt.Sscanf(strings.TrimPrefix(f.Path, prefix), "%d]", &i); err == nil {
			drop[i] = true
		}
	}
	if len(drop) == 0 || len(drop) == len(c.Indexing.Included) {
		return // none to drop, or every one: an empty list would read as the default policy
	}
	ix := *c.Indexing
	ix.Included = nil
	for i, ip := range c.Indexing.Included {
		if !drop[i] {
			ix.Included = append(ix.Included, ip)
		}
	}
	c.Indexing = &ix
}

// separate is d with the child type in a container of its own, keyed as the parent's container, and
// the patterns in moves (the ones that touch only the children) moved with it. nil, and why, when
// the child has children of its own.
func separate(d *design.Design, ci int, child string, moves map[string]bool) (*design.Design, string) {
	v := shallow(d)
	c := v.Containers[ci]
	ki := slices.IndexFunc(c.Documents, func(dt design.DocType) bool { return dt.Type == child })
	if ki < 0 {
		return nil, child + " is not in " + c.Name
	}
	for _, dt := range c.Documents {
		if dt.Parent != nil && dt.Parent.Type == child {
			return nil, fmt.Sprintf("%s has children of its own (%s)", child, dt.Type)
		}
	}
	name := c.Name + "-" + slug(child)
	nc := design.Container{Name: name, PartitionKey: c.PartitionKey, Indexing: c.Indexing, Documents: []design.DocType{c.Documents[ki]}}
	c.Documents = slices.Delete(slices.Clone(c.Documents), ki, ki+1)
	v.Containers[ci] = c
	v.Containers = append(v.Containers, nc)
	for i := range v.AccessPatterns {
		ap := &v.AccessPatterns[i]
		if moves[ap.ID] {
			ap.Container = name
		}
	}
	// Each container keeps only the index paths its own patterns read.
	dropUnread(v, ci)
	dropUnread(v, len(v.Containers)-1)
	return v, ""
}
