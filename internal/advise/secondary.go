package advise

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine/sql"
)

// GSIDocs is the documentation of the global secondary index feature, which is in preview.
const GSIDocs = "https://learn.microsoft.com/azure/cosmos-db/nosql/global-secondary-indexes"

// Secondary prices keeping a copy of a container keyed for one cross-partition query.
type Secondary struct {
	Pattern   string `json:"pattern"`
	Container string `json:"container"`
	// Key is the copy's partition key: the field the query pins by equality.
	Key string `json:"key"`
	// FanOutRUs is the query's RU/s today, across partitions.
	FanOutRUs float64           `json:"fanOutRUs"`
	Options   []SecondaryOption `json:"options"`
	Answer    string            `json:"answer"`
}

// SecondaryOption is one way to keep the copy, priced as a variant of the design.
type SecondaryOption struct {
	// Name is "secondary container" (kept by the application from the change feed) or "global
	// secondary index" (kept by the service; preview).
	Name   string `json:"name"`
	Priced bool   `json:"priced"`
	// QueryRUs is the query's RU/s on the copy; UpkeepRUs the RU/s of keeping the copy (the writes
	// copied, and the change-feed reads for a secondary container).
	QueryRUs  float64 `json:"queryRUs"`
	UpkeepRUs float64 `json:"upkeepRUs"`
	RUs       float64 `json:"rus"`
	Monthly   float64 `json:"monthlyUSD"`
	Change    Change  `json:"change"`
	// Preview, Docs and Assumed say what the figure rests on.
	Preview bool   `json:"preview,omitempty"`
	Docs    string `json:"docs,omitempty"`
	Assumed string `json:"assumed,omitempty"`
	Note    string `json:"note,omitempty"`
}

// What the copies' figures assume.
const (
	assumedChangeFeed = "assumed: the application's change-feed processor reads each changed document once, charged as a point read of it (change-feed.md publishes no per-item figure); deletes reach the copy only as soft deletes, which the change feed's latest-version mode shows"
	assumedGSI        = "assumed: the documentation says the index container is kept in sync by the service, has its own request units and storage, and must use autoscale; it publishes no charge for the sync, so each write to the source is priced as the same write to the index container, and the source pays nothing more"
)

// secondary prices a secondary container and a global secondary index for every cross-partition
// query that pins some other field by equality.
func (s *search) secondary() {
	for i := range s.d.AccessPatterns {
		ap := &s.d.AccessPatterns[i]
		pp := patternPlan(s.base, ap.ID)
		if ap.Op != design.OpQuery || pp == nil || pp.SinglePartition {
			continue
		}
		ci := containerIndex(s.d, ap.Container)
		if ci < 0 {
			continue
		}
		c := &s.d.Containers[ci]
		var qq *query
		for _, q := range queriesOf(s.d, ci) {
			if q.ap.ID == ap.ID {
				qq = &q
				break
			}
		}
		if qq == nil {
			continue
		}
		field, tmpl := "", ""
		for _, f := range qq.a.Filters {
			if f.Kind == sql.FilterEqual && len(f.Path) == 1 && qq.template(f) != "" && inAllTypes(c, f.Path[0]) &&
				!slices.Contains(c.PartitionKey, "/"+f.Path[0]) && strings.Contains(qq.template(f), "{") {
				field, tmpl = f.Path[0], qq.template(f)
				break
			}
		}
		if field == "" {
			continue
		}
		sc := Secondary{Pattern: ap.ID, Container: c.Name, Key: "/" + field, FanOutRUs: round2(PatternRUs(*pp))}
		for _, gsi := range []bool{false, true} {
			o := SecondaryOption{Name: "secondary container", Assumed: assumedChangeFeed}
			if gsi {
				o = SecondaryOption{Name: "global secondary index", Preview: true, Docs: GSIDocs, Assumed: assumedGSI}
			}
			v, copyName := s.withCopy(ci, ap.ID, field, tmpl, gsi)
			p, vd, err := s.price(fmt.Sprintf("%s of %s keyed by /%s for %s", o.Name, c.Name, field, ap.ID), v)
			if err != nil {
				o.Note = err.Error()
				sc.Options = append(sc.Options, o)
				continue
			}
			if p == nil {
				continue
			}
			moved := map[string]bool{ap.ID: true}
			for _, vp := range vdPatterns(vd) {
				if strings.HasPrefix(vp, copyPrefix) {
					moved[vp] = true
				}
			}
			estimates(vd, p, moved)
			o.Priced = true
			t := totalsOf(p)
			o.RUs, o.Monthly, o.Change = t.RUs, t.MonthlyUSD, diff(s.baseT, t)
			for _, vp := range p.Patterns {
				switch {
				case vp.ID == ap.ID:
					o.QueryRUs = round2(PatternRUs(vp))
				case strings.HasPrefix(vp.ID, copyPrefix):
					o.UpkeepRUs += PatternRUs(vp)
				}
			}
			o.UpkeepRUs = round2(o.UpkeepRUs)
			o.Note = fmt.Sprintf("container %s keyed by /%s", copyName, field)
			sc.Options = append(sc.Options, o)
			key := fmt.Sprintf("%s-%s", map[bool]string{false: "secondary", true: "gsi"}[gsi], ap.ID)
			s.variants[key] = priced{p, vd}
		}
		// The answer: a secondary container when it saves; a global secondary index is named, never
		// recommended as a variant, while it is in preview.
		sc.Answer = fmt.Sprintf("keep %s across partitions: a copy keyed by /%s costs more to keep than the fan-out it removes", ap.ID, field)
		var own, gsi *SecondaryOption
		for k := range sc.Options {
			o := &sc.Options[k]
			if o.Priced && s.saves(o.Change) {
				if o.Preview {
					gsi = o
				} else {
					own = o
				}
			}
		}
		if own != nil {
			sc.Answer = fmt.Sprintf("keep a secondary container keyed by /%s for %s: %.1f RU/s fewer (%s $/month), kept from the change feed", field, ap.ID, -own.Change.RUs, signedUSD(own.Change.MonthlyUSD))
			if pv := s.variants["secondary-"+ap.ID]; pv.p != nil {
				s.recommend("secondary-"+slug(ap.ID), fmt.Sprintf("a copy of %s keyed by /%s for %s, kept from the change feed", c.Name, field, ap.ID), pv.p, pv.d)
			}
		}
		if gsi != nil {
			sc.Answer += fmt.Sprintf("; a global secondary index would save %.1f RU/s (%s $/month) without the change-feed reads, but the feature is in preview (%s): not for production yet", -gsi.Change.RUs, signedUSD(gsi.Change.MonthlyUSD), GSIDocs)
		}
		s.a.Secondary = append(s.a.Secondary, sc)
	}
}

// copyPrefix starts the id of every pattern that keeps a copy up to date.
const copyPrefix = "COPY-"

// withCopy is d with a copy of container ci keyed by field: the query moved to it with its key
// pinned, each write to the source copied to it, and (for a secondary container kept by the
// application) a change-feed read of each written document on the source.
func (s *search) withCopy(ci int, id, field, tmpl string, gsi bool) (*design.Design, string) {
	v := shallow(s.d)
	src := v.Containers[ci]
	name := src.Name + "-by-" + slug(field)
	// Type names are unique in a design: the copy's types are renamed, and the patterns moved or
	// copied to it name them so.
	rename := map[string]string{}
	docs := slices.Clone(src.Documents)
	for i := range docs {
		rename[docs[i].Type] = docs[i].Type + "Copy"
		docs[i].Type += "Copy"
	}
	for i := range docs {
		if docs[i].Parent != nil {
			pa := *docs[i].Parent
			pa.Type = rename[pa.Type]
			docs[i].Parent = &pa
		}
	}
	to := func(t string) string {
		if r, ok := rename[t]; ok {
			return r
		}
		return t
	}
	nc := design.Container{Name: name, PartitionKey: []string{"/" + field}, Indexing: src.Indexing,
		Documents: docs, FullText: src.FullText, Vectors: src.Vectors}
	if gsi {
		// The documentation: an index container must use autoscale.
		nc.Throughput = design.Throughput{AutoscaleMax: 1000}
	}
	v.Containers = append(v.Containers, nc)
	var extra []design.AccessPattern
	for i := range v.AccessPatterns {
		ap := &v.AccessPatterns[i]
		if ap.ID == id {
			ap.Container = name
			ap.Sample, ap.Document = to(ap.Sample), to(ap.Document)
			ap.PartitionKey = []string{tmpl}
			if ap.Expect != nil && ap.Expect.SinglePartition != nil {
				e := *ap.Expect
				one := true
				e.SinglePartition = &one
				ap.Expect = &e
			}
			continue
		}
		if ap.Container != src.Name || !IsWrite(ap.Op) || (ap.Expect != nil && ap.Expect.Status != 0) {
			continue
		}
		cp := *ap
		cp.ID = copyPrefix + ap.ID
		cp.Name = ap.Name + " (copied to " + name + ")"
		cp.Container = name
		cp.PartitionKey = nil
		cp.Expect = nil
		cp.Sample, cp.Document = to(ap.Sample), to(ap.Document)
		cp.Batch = slices.Clone(ap.Batch)
		for j := range cp.Batch {
			cp.Batch[j].Document = to(cp.Batch[j].Document)
		}
		extra = append(extra, cp)
		if !gsi {
			typ := ap.Document
			if typ == "" || ap.Op != design.OpCreate && ap.Op != design.OpUpsert {
				typ = ap.Sample
			}
			if typ == "" || ap.Op == design.OpBatch {
				continue
			}
			extra = append(extra, design.AccessPattern{ID: copyPrefix + "CF-" + ap.ID, Name: "change feed of " + ap.ID + " (one read a change)",
				Container: src.Name, Op: design.OpRead, Sample: typ, RPS: ap.RPS, Estimate: design.Estimate{RU: 1}, Samples: ap.Samples})
		}
	}
	v.AccessPatterns = append(v.AccessPatterns, extra...)
	return v, name
}
