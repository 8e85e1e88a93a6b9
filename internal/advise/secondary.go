package advise

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine/sql"
	"github.com/cosmosdv/validate/internal/plan"
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
	// NotBuildable says why the copy cannot be built: its own key does not fit (its busiest logical
	// partition over 20 GB or over what one physical partition serves). Such a copy is never
	// recommended.
	NotBuildable string `json:"notBuildable,omitempty"`
}

// What the copies' figures assume.
const (
	assumedChangeFeed = "assumed: the application's change-feed processor (latest-version mode) reads each changed document once, charged as a point read of it (change-feed.md publishes no per-item figure); latest-version mode does not log deletes, so each delete of a copied type becomes a soft delete (a patch setting deleted and ttl, TTL on; the TTL's delete runs on left-over RU/s, time-to-live.md), and every query over that type in the source gets AND NOT IS_DEFINED(c.deleted), priced, or a removed item would still be returned until its TTL — or read in all-versions-and-deletes mode, which logs deletes but is in preview and needs continuous backup on the account (its price is not on the rate card, not priced here); the lease container (a provisioned container, since serverless is an account-level mode, in its cheapest provisioned mode) with one lease per feed range renewed every 17 s and each drained range polled every 5 s (the .NET SDK's defaults) are priced; the copy is eventually consistent with the source"
	assumedGSI        = "from the documentation: the index container is kept in sync from the source's change feed by the service (change-feed reads billed on the source, writes on the index container), is eventually consistent (its lag shows as the Catchup Gap metric), must use autoscale, and needs continuous backup on the account; its definition has no WHERE, so in a container of several types it copies every type (a type without the key field lands in one logical partition). Assumed: each change is read once, as a point read of it, and written once, as the same write to the index container"
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
			if f.Kind == sql.FilterEqual && len(f.Path) == 1 && qq.template(f) != "" && len(typesWith(c, f.Path[0])) > 0 &&
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
				o.Note = capNote
				sc.Options = append(sc.Options, o)
				continue
			}
			moved := map[string]bool{ap.ID: true}
			for _, vp := range vdPatterns(vd) {
				if strings.HasPrefix(vp, copyPrefix) {
					moved[vp] = true
				}
			}
			estimates(vd, p, moved)
			sizeCopy(s.rateCard(), vd, p, copyName, gsi)
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
			// The copy's own key must fit: plan's verdict on the copy container, the one rule the key
			// table uses too (cost.RateCard.HotPartition).
			if cc := containerPlan(p, copyName); cc != nil && !cc.Hot.Fits {
				o.NotBuildable = fmt.Sprintf("not buildable: the copy's key /%s does not fit (%s)", field, strings.Join(cc.Hot.Findings, "; "))
				o.Note = o.NotBuildable
			}
			sc.Options = append(sc.Options, o)
			key := fmt.Sprintf("%s-%s", map[bool]string{false: "secondary", true: "gsi"}[gsi], ap.ID)
			s.variants[key] = priced{p, vd}
		}
		// The answer: a secondary container when it saves; a global secondary index is named, never
		// recommended as a variant, while it is in preview.
		sc.Answer = fmt.Sprintf("keep %s across partitions: a copy keyed by /%s costs more to keep than the fan-out it removes", ap.ID, field)
		if k := slices.IndexFunc(sc.Options, func(o SecondaryOption) bool { return o.Priced && !o.Preview }); k >= 0 {
			if o := sc.Options[k]; o.Change.RUs < 0 && o.Change.MonthlyUSD > 0.005 {
				sc.Answer = fmt.Sprintf("keep %s across partitions: a copy keyed by /%s takes %.1f RU/s fewer but costs %s $/month more (the copy's and the lease container's own throughput outweigh the fan-out's share of the bill)", ap.ID, field, -o.Change.RUs, signedUSD(o.Change.MonthlyUSD))
			}
		}
		if k := slices.IndexFunc(sc.Options, func(o SecondaryOption) bool { return o.NotBuildable != "" }); k >= 0 {
			sc.Answer = fmt.Sprintf("keep %s across partitions: a copy keyed by /%s is %s", ap.ID, field, sc.Options[k].NotBuildable)
		}
		if !slices.ContainsFunc(sc.Options, func(o SecondaryOption) bool { return o.Priced }) {
			sc.Answer = fmt.Sprintf("not answered: no copy of %s keyed by /%s could be priced (%s)", c.Name, field, sc.Options[0].Note)
		}
		var own, gsi *SecondaryOption
		for k := range sc.Options {
			o := &sc.Options[k]
			if o.Priced && o.NotBuildable == "" && s.saves(o.Change) {
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
			sc.Answer += fmt.Sprintf("; a global secondary index would save %.1f RU/s (%s $/month) without a lease container or its polling, but the feature is in preview (%s): not for production yet", -gsi.Change.RUs, signedUSD(gsi.Change.MonthlyUSD), GSIDocs)
		}
		s.a.Secondary = append(s.a.Secondary, sc)
	}
}

// sizeCopy gives the copy container of a written variant the throughput plan found for it, so that
// the variant does not read as short of throughput: its cheapest provisioned mode, autoscale for a
// global secondary index (the documentation requires it) and for a serverless answer (an account
// with provisioned containers cannot hold a serverless one). The price does not move: plan prices
// every container in its cheapest mode either way.
func sizeCopy(rc *cost.RateCard, vd *design.Design, p *plan.Plan, name string, gsi bool) {
	cp := containerPlan(p, name)
	ci := containerIndex(vd, name)
	if cp == nil || ci < 0 {
		return
	}
	th := design.Throughput{AutoscaleMax: rc.AutoscaleFor(cp.PeakRUs, cp.StorageGB)}
	if !gsi && cp.Recommended.Mode == cost.Manual {
		th = design.Throughput{Manual: cp.Recommended.RU}
	} else if cp.Recommended.Mode == cost.Autoscale {
		th = design.Throughput{AutoscaleMax: cp.Recommended.RU}
	}
	vd.Containers[ci].Throughput = th
}

// copyPrefix starts the id of every pattern that keeps a copy up to date.
const copyPrefix = "COPY-"

// The change feed processor's defaults (Azure/azure-cosmos-dotnet-v3, ChangeFeedLeaseOptions and
// ChangeFeedProcessorOptions: DefaultRenewInterval 17 s, DefaultFeedPollDelay 5 s): each lease (one
// per feed range of the source) is renewed every 17 s, and a range whose changes are drained is
// polled again after 5 s.
const (
	leaseRenewSeconds = 17.0
	feedPollSeconds   = 5.0
	// softDeleteTTL is the time a soft-deleted document stays in the source before TTL removes it
	// (assumed: long enough for the processor to read the change, which it does within seconds).
	softDeleteTTL = 3600
)

// typesWith are the document types of c that carry the top-level scalar field name (every type for
// id).
func typesWith(c *design.Container, name string) map[string]bool {
	out := map[string]bool{}
	for i := range c.Documents {
		if name == "id" {
			out[c.Documents[i].Type] = true
			continue
		}
		if f, ok := c.Documents[i].Fields.Lookup(name); ok && kindOf(f) == scalarField {
			out[c.Documents[i].Type] = true
		}
	}
	return out
}

// withCopy is d with a copy of container ci keyed by field: the query moved to it with its key
// pinned, each write to the source copied to it, and for a secondary container kept by the
// application from the change feed (gsi false):
//   - only the types that carry the field are copied (the processor filters the rest out);
//   - a change-feed read of each written document on the source, priced as a point read of it;
//   - latest-version mode does not log deletes, so a delete of a copied type becomes a soft delete:
//     a patch of the source document setting deleted and a ttl (TTL on), whose change the processor
//     reads and turns into the copy's delete (the TTL's own delete later runs on left-over RU/s,
//     time-to-live.md);
//   - the lease container (400 RU/s manual, the least a container gets) with one lease per feed
//     range of the source, each renewed (a replace) every 17 s, and each range polled every 5 s
//     when drained (an empty change-feed page).
//
// For a global secondary index (gsi true) the service keeps the copy from the source's change feed:
// its definition has no WHERE, so every type of the source is copied (a type without the field has
// no key value: all of its documents share one logical partition, modelled as the value ""); each
// write to the source is written to the index container and read from the change feed on the
// source (the documentation bills the reads to the source and the writes to the index container);
// the index container must use autoscale; no lease container.
func (s *search) withCopy(ci int, id, field, tmpl string, gsi bool) (*design.Design, string) {
	v := shallow(s.d)
	src := v.Containers[ci]
	name := src.Name + "-by-" + slug(field)
	keep := typesWith(&src, field)
	// Type names are unique in a design: the copy's types are renamed, and the patterns moved or
	// copied to it name them so.
	rename := map[string]string{}
	var docs []design.DocType
	for _, dt := range src.Documents {
		if !gsi && !keep[dt.Type] {
			continue
		}
		rename[dt.Type] = dt.Type + "Copy"
		dt.Type += "Copy"
		if !keep[strings.TrimSuffix(dt.Type, "Copy")] {
			dt.Fields = append(slices.Clone(dt.Fields), design.NamedField{Name: field, Field: design.Field{Const: ""}})
		}
		docs = append(docs, dt)
	}
	for i := range docs {
		if docs[i].Parent != nil {
			pa := *docs[i].Parent
			if r, ok := rename[pa.Type]; ok {
				pa.Type = r
			}
			docs[i].Parent = &pa
		}
	}
	to := func(t string) string {
		if r, ok := rename[t]; ok {
			return r
		}
		return t
	}
	copied := func(ap *design.AccessPattern) bool {
		if gsi {
			return true
		}
		t := ap.Document
		if t == "" {
			t = ap.Sample
		}
		if ap.Op == design.OpBatch {
			for _, b := range ap.Batch {
				if keep[b.Document] {
					return true
				}
			}
			return t == "" || keep[t]
		}
		return t == "" || keep[t]
	}
	nc := design.Container{Name: name, PartitionKey: []string{"/" + field}, Indexing: src.Indexing,
		Documents: docs, FullText: src.FullText, Vectors: src.Vectors}
	if gsi {
		// The documentation: an index container must use autoscale.
		nc.Throughput = design.Throughput{AutoscaleMax: 1000}
	}
	// The copy's storage is added to the design's, not carved out of it: its share of the source's
	// production storage by the copied types' production bytes (plan's sizes).
	if cp := containerPlan(s.base, src.Name); cp != nil && cp.StorageGB > 0 && (src.StorageGB > 0 || v.Scale.StorageGB > 0) {
		var kept, all float64
		for _, dp := range cp.Documents {
			b := dp.Production * dp.Bytes
			all += b
			if gsi || keep[dp.Type] {
				kept += b
			}
		}
		if all > 0 {
			gb := cp.StorageGB * kept / all
			if src.StorageGB > 0 {
				nc.StorageGB = gb
			} else {
				v.Scale.StorageGB += gb
			}
		}
	}
	v.Containers = append(v.Containers, nc)
	var extra []design.AccessPattern
	softDeleted := map[string]bool{}
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
		if ap.Container != src.Name || !IsWrite(ap.Op) || (ap.Expect != nil && ap.Expect.Status != 0) || !copied(ap) {
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
		typ := ap.Document
		if typ == "" || ap.Op != design.OpCreate && ap.Op != design.OpUpsert {
			typ = ap.Sample
		}
		if !gsi && ap.Op == design.OpDelete && typ != "" {
			// Latest-version change feed does not log deletes: the source soft-deletes instead.
			ap.Op = design.OpPatch
			ap.Name += " (soft delete: deleted and ttl set, for the change feed)"
			ap.Patch = []design.PatchOp{{Op: "set", Path: "/deleted", Value: true}, {Op: "set", Path: "/ttl", Value: softDeleteTTL}}
			softDeleted[typ] = true
		}
		if typ == "" || ap.Op == design.OpBatch || (gsi && ap.Op == design.OpDelete) {
			continue
		}
		// The change feed's read of the change, billed on the source (for a global secondary index
		// too: the documentation bills its change-feed reads to the source container).
		extra = append(extra, design.AccessPattern{ID: copyPrefix + "CF-" + ap.ID, Name: "change feed of " + ap.ID + " (one read a change)",
			Container: src.Name, Op: design.OpRead, Sample: typ, RPS: ap.RPS, Estimate: design.Estimate{RU: 1}, Samples: ap.Samples})
	}
	if len(softDeleted) > 0 {
		// TTL on, and the flag the application writes declared (appFields) on the types it marks.
		if src.DefaultTTL == nil {
			on := -1
			src.DefaultTTL = &on
		}
		src.Documents = slices.Clone(src.Documents)
		for i := range src.Documents {
			if dt := &src.Documents[i]; softDeleted[dt.Type] && !slices.Contains(dt.AppFields, "/deleted") {
				dt.AppFields = append(slices.Clone(dt.AppFields), "/deleted")
			}
		}
		v.Containers[ci] = src
		// A soft-deleted document stays in the source until its TTL: every query over its type
		// there must leave it out, or a removed item is returned for up to softDeleteTTL seconds.
		for i := range v.AccessPatterns {
			ap := &v.AccessPatterns[i]
			if ap.Container != src.Name || ap.Op != design.OpQuery {
				continue
			}
			if q, ok := hidesSoftDeleted(ap.Query, softDeleted); ok {
				ap.Query = q
				ap.Name += " (leaves soft-deleted items out)"
			}
		}
	}
	if !gsi {
		// The lease container and the processor's own traffic.
		ranges := 1
		if cp := containerPlan(s.base, src.Name); cp != nil {
			ranges = max(cp.Partitions, 1)
		}
		leases := name + "-leases"
		v.Containers = append(v.Containers, design.Container{Name: leases, PartitionKey: []string{"/id"},
			Throughput: design.Throughput{Manual: 400},
			Documents: []design.DocType{{Type: slug(name) + "-lease", Count: ranges, Production: float64(ranges),
				Fields: design.Fields{{Name: "owner", Field: design.Field{Gen: "code", Prefix: "host-"}}, {Name: "continuation", Field: design.Field{Gen: "uuid"}}}}}})
		renew := float64(ranges) / leaseRenewSeconds
		poll := float64(ranges) / feedPollSeconds
		extra = append(extra,
			design.AccessPattern{ID: copyPrefix + "LEASE", Name: fmt.Sprintf("lease renewals (%d lease(s), each every %.0f s)", ranges, leaseRenewSeconds),
				Container: leases, Op: design.OpReplace, Sample: slug(name) + "-lease", RPS: design.RPS{Avg: renew, Peak: renew}, Estimate: design.Estimate{RU: 10}},
			design.AccessPattern{ID: copyPrefix + "POLL", Name: fmt.Sprintf("change-feed polls of drained ranges (%d range(s), each every %.0f s)", ranges, feedPollSeconds),
				Container: src.Name, Op: design.OpChangeFeed, ChangeFeed: &design.ChangeFeedSpec{From: "now", Scope: "range"},
				RPS: design.RPS{Avg: poll, Peak: poll}, Estimate: design.Estimate{RU: 1}})
	}
	v.AccessPatterns = append(v.AccessPatterns, extra...)
	return v, name
}

// typeLiteral finds a query's type filter (c.type = 'friendship').
var typeLiteral = regexp.MustCompile(`(?i)\.type\s*=\s*'([^']*)'`)

// fromAlias is the alias a query names its documents by (FROM c).
var fromAlias = regexp.MustCompile(`(?i)\bFROM\s+([A-Za-z_][A-Za-z0-9_]*)`)

// hidesSoftDeleted rewrites a query over the source so that it no longer returns soft-deleted
// documents: its WHERE becomes (WHERE …) AND NOT IS_DEFINED(c.deleted), or a WHERE with that alone
// is added before ORDER BY, GROUP BY or OFFSET. A query that filters on a type not soft-deleted
// (c.type = 'user') is kept; ok is false when the query is kept or cannot be rewritten (the result
// does not parse).
func hidesSoftDeleted(q string, softDeleted map[string]bool) (string, bool) {
	if strings.Contains(strings.ToLower(q), "deleted") {
		return q, false
	}
	if m := typeLiteral.FindStringSubmatch(q); m != nil && !softDeleted[m[1]] {
		return q, false
	}
	am := fromAlias.FindStringSubmatch(q)
	if am == nil || strings.EqualFold(am[1], "ROOT") {
		return q, false
	}
	cond := "NOT IS_DEFINED(" + am[1] + ".deleted)"
	where, tail := topLevel(q)
	var out string
	switch {
	case where >= 0:
		body := q[where+len("WHERE") : tail]
		out = q[:where] + "WHERE (" + strings.TrimSpace(body) + ") AND " + cond + " " + q[tail:]
	default:
		out = q[:tail] + " WHERE " + cond + " " + q[tail:]
	}
	out = strings.TrimSpace(out)
	if _, err := sql.Parse(out); err != nil {
		return q, false
	}
	return out, true
}

// topLevel is the offset of the query's outermost WHERE (-1 when none) and of the clause that ends
// it (ORDER BY, GROUP BY, OFFSET; len(q) when none), outside parentheses and string literals.
func topLevel(q string) (where, tail int) {
	where, tail = -1, len(q)
	depth := 0
	up := strings.ToUpper(q)
	word := func(i int, w string) bool {
		if !strings.HasPrefix(up[i:], w) || (i > 0 && isWordByte(up[i-1])) {
			return false
		}
		j := i + len(w)
		return j >= len(up) || !isWordByte(up[j])
	}
	for i := 0; i < len(q); i++ {
		switch q[i] {
		case '\'', '"':
			quote := q[i]
			for i++; i < len(q) && q[i] != quote; i++ {
				if q[i] == '\\' {
					i++
				}
			}
		case '(':
			depth++
		case ')':
			depth--
		default:
			if depth != 0 {
				continue
			}
			if where < 0 && word(i, "WHERE") {
				where = i
			} else if word(i, "ORDER") || word(i, "GROUP") || word(i, "OFFSET") {
				return where, i
			}
		}
	}
	return where, tail
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z'
}
