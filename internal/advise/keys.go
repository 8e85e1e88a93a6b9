package advise

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/plan"
)

// KeyAdvice is the partition-key alternatives of one container, ranked best first.
type KeyAdvice struct {
	Container string `json:"container"`
	// Design is the container's key as designed.
	Design     []string       `json:"design"`
	Candidates []KeyCandidate `json:"candidates"`
	// Recommended is the key advise recommends instead of the design's (nil when the design's is
	// best).
	Recommended []string `json:"recommended,omitempty"`
}

// KeyCandidate is one partition key priced as a variant of the design.
type KeyCandidate struct {
	Rank int      `json:"rank"`
	Key  []string `json:"key"`
	// Kind is design (the container's own key), field, synthetic (a field built from others),
	// suffix (a value spread over buckets) or hierarchical.
	Kind string `json:"kind"`
	// Build says how a synthetic key's field is generated.
	Build string `json:"build,omitempty"`
	// SingleShare is the share of the container's requests (average rate) that one logical
	// partition serves; FanOutRUs is the RU/s of the rest (the cross-partition patterns).
	SingleShare float64 `json:"singlePartitionShare"`
	FanOutRUs   float64 `json:"fanOutRUs"`
	// RUs is the container's traffic-weighted RU/s.
	RUs float64 `json:"rus"`
	// BusiestRUs and BusiestGB are the busiest logical partition at peak and its storage at
	// production, against the throughput one logical partition can use (LimitRUs: min(10,000 RU/s,
	// the container's RU/s ÷ its physical partitions)) and the 20 GB it can hold (LimitGB). Fits and
	// Headroom are plan's verdict (cost.Hot, the one rule plan's hot-partition warnings follow):
	// Fits within every limit, Headroom within HeadroomShare of both. Why says what a key without
	// headroom is short of.
	BusiestRUs    float64 `json:"busiestRUs"`
	BusiestGB     float64 `json:"busiestGB"`
	LimitRUs      float64 `json:"limitRUs"`
	LimitGB       float64 `json:"limitGB"`
	Fits          bool    `json:"fits"`
	Headroom      bool    `json:"headroom"`
	HeadroomShare float64 `json:"headroomShare"`
	Why           string  `json:"why,omitempty"`
	// MonthlyUSD is the container's cost in its cheapest mode; Change is the whole design's change.
	MonthlyUSD float64 `json:"monthlyUSD"`
	Change     Change  `json:"change"`
	// Cross lists the patterns that fan out under this key.
	Cross []string `json:"crossPartition,omitempty"`
	Note  string   `json:"note,omitempty"`
}

// keyPlan is a candidate key before pricing.
type keyPlan struct {
	key   []string
	kind  string
	build string
	// synth maps a synthetic field to the fields it is built from; extra are fields to add.
	synth map[string][]string
	extra design.Fields
}

// maxKeyCandidates bounds the keys tried for one container besides its own (assumed: enough for
// the fields a handful of patterns filter on, their pairs and one triple).
const maxKeyCandidates = 10

// keys ranks partition-key alternatives for the containers cis (indexes into the design's).
func (s *search) keys(cis []int) {
	for _, ci := range cis {
		c := &s.d.Containers[ci]
		ka := KeyAdvice{Container: c.Name, Design: c.PartitionKey, Candidates: []KeyCandidate{}}
		own := s.keyCandidate(ci, keyPlan{key: c.PartitionKey, kind: "design"}, s.base, s.d)
		cands := []KeyCandidate{own}
		for _, kp := range s.keyPlans(ci) {
			v := s.withKey(ci, kp)
			p, vd, err := s.price(fmt.Sprintf("key %s of %s", strings.Join(kp.key, ", "), c.Name), v)
			if err != nil {
				s.note("%v", err)
				continue
			}
			if p == nil {
				continue
			}
			kc := s.keyCandidate(ci, kp, p, vd)
			if broken := newWarnings(s.base, p); len(broken) > 0 {
				kc.Note = "breaks " + strings.Join(broken, "; ")
				kc.Fits, kc.Headroom = false, false
			}
			cands = append(cands, kc)
			s.variants[keyName(kp.key)+"@"+c.Name] = priced{p, vd}
		}
		// An engineer's order: the keys that fit with headroom, then the keys that fit without it,
		// then the keys over a limit; within each, the cheaper first, and at the same price the one
		// whose busiest logical partition is smaller.
		class := func(k KeyCandidate) int {
			switch {
			case k.Headroom:
				return 0
			case k.Fits:
				return 1
			}
			return 2
		}
		slices.SortStableFunc(cands, func(a, b KeyCandidate) int {
			if c := cmp.Compare(class(a), class(b)); c != 0 {
				return c
			}
			if c := cmp.Compare(round2(a.MonthlyUSD), round2(b.MonthlyUSD)); c != 0 {
				return c
			}
			if c := cmp.Compare(a.RUs, b.RUs); c != 0 {
				return c
			}
			// At the same price, the more headroom the better.
			return cmp.Or(cmp.Compare(a.BusiestRUs, b.BusiestRUs), cmp.Compare(a.BusiestGB, b.BusiestGB))
		})
		for i := range cands {
			cands[i].Rank = i + 1
		}
		ka.Candidates = cands
		best := cands[0]
		if best.Kind != "design" {
			pv := s.variants[keyName(best.key())+"@"+c.Name]
			short := !own.Headroom && best.Headroom
			if pv.p != nil && (short || s.savesKey(best.Change, c.Name)) {
				ka.Recommended = best.Key
				why := "fewer RU/s and a lower monthly cost"
				switch {
				case !own.Fits:
					why = "the design's key does not fit a logical partition's limits: " + own.Why
				case short:
					why = "the design's key leaves no headroom: " + own.Why
				}
				why += "; " + rekeyCaveats(c, best.Key, containerPlan(s.base, c.Name))
				s.recommend("key-"+slug(c.Name), fmt.Sprintf("partition key of %s: %s instead of %s (%s)", c.Name,
					strings.Join(best.Key, ", "), strings.Join(c.PartitionKey, ", "), why), pv.p, pv.d)
			}
		}
		s.a.Keys = append(s.a.Keys, ka)
	}
}

func (kc KeyCandidate) key() []string { return kc.Key }

// urgent splits the design's containers into those whose key or throughput does not fit — the
// busiest logical partition without headroom (cost.Hot, plan's verdict), or designed throughput
// below the modeled peak — and the others, each in design order: the search prices the first
// group's keys before anything else, so that a cap never hides what matters most.
func (s *search) urgent() (first, rest []int) {
	for ci := range s.d.Containers {
		cp := containerPlan(s.base, s.d.Containers[ci].Name)
		short := cp != nil && (!cp.Hot.Headroom || (cp.Designed.Mode != cost.Serverless && float64(cp.Designed.RU) < cp.PeakRUs))
		if short {
			first = append(first, ci)
		} else {
			rest = append(rest, ci)
		}
	}
	return first, rest
}

func keyName(key []string) string { return strings.Join(key, ",") }

// keyCandidate reads a candidate key's figures from the plan of its variant.
func (s *search) keyCandidate(ci int, kp keyPlan, p *plan.Plan, _ *design.Design) KeyCandidate {
	name := s.d.Containers[ci].Name
	rc := s.rateCard()
	kc := KeyCandidate{Key: kp.key, Kind: kp.kind, Build: kp.build, LimitRUs: rc.PartitionMaxRU.Value, LimitGB: rc.LogicalMaxGB.Value, HeadroomShare: cost.DefaultKeyHeadroom}
	var rps, single float64
	for _, pp := range p.Patterns {
		if pp.Container != name {
			continue
		}
		rps += pp.AvgRPS
		if pp.SinglePartition {
			single += pp.AvgRPS
		} else {
			kc.FanOutRUs += PatternRUs(pp)
			kc.Cross = append(kc.Cross, pp.ID)
		}
	}
	if rps > 0 {
		kc.SingleShare = round2(single / rps)
	}
	kc.FanOutRUs = round2(kc.FanOutRUs)
	kc.RUs, _, _ = containerRUs(p, name)
	if cp := containerPlan(p, name); cp != nil {
		kc.BusiestRUs, kc.BusiestGB, kc.MonthlyUSD = cp.BusiestRUs, cp.BusiestGB, cp.MonthlyUSD
		// plan's verdict, the one rule (cost.RateCard.HotPartition): not a second judgement here.
		kc.LimitRUs, kc.Fits, kc.Headroom, kc.HeadroomShare = cp.Hot.CapacityRU, cp.Hot.Fits, cp.Hot.Headroom, cp.Hot.HeadroomShare
		kc.Why = strings.Join(cp.Hot.Findings, "; ")
	}
	kc.Change = diff(s.baseT, totalsOf(p))
	return kc
}

// keyPlans are the keys to try for container ci: each scalar field every document type has that
// a query pins by equality (by traffic, most first), id, synthetic concatenations of the two most
// pinned, hierarchical keys of the most pinned, and a suffixed design key when the design's busiest
// logical partition is over a limit.
func (s *search) keyPlans(ci int) []keyPlan {
	c := &s.d.Containers[ci]
	weight := map[string]float64{}
	for _, qq := range queriesOf(s.d, ci) {
		for _, f := range qq.a.Filters {
			if len(f.Path) == 1 && qq.template(f) != "" && inAllTypes(c, f.Path[0]) {
				weight[f.Path[0]] += qq.ap.RPS.Avg + 1e-9
			}
		}
	}
	fields := make([]string, 0, len(weight))
	for f := range weight {
		fields = append(fields, f)
	}
	slices.SortFunc(fields, func(a, b string) int {
		if c := cmp.Compare(weight[b], weight[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	own := keyName(c.PartitionKey)
	var out []keyPlan
	seen := map[string]bool{own: true}
	add := func(kp keyPlan) {
		k := keyName(kp.key)
		if seen[k] || len(out) >= maxKeyCandidates {
			return
		}
		seen[k] = true
		out = append(out, kp)
	}
	// A time-valued field (isoTime, epoch, {now}) is no key for a container that takes writes: every
	// new document carries the newest value, so the writes all land on one logical partition at a
	// time, which the generators' uniform spread over the interval does not show.
	if takesWrites(s.d, c.Name) {
		fields = slices.DeleteFunc(fields, func(f string) bool { return timeValued(c, f) })
	}
	for _, f := range append(slices.Clone(fields), "id") {
		add(keyPlan{key: []string{"/" + f}, kind: "field"})
	}
	top := fields[:min(len(fields), 3)]
	if len(top) >= 2 {
		a, b := top[0], top[1]
		name := a + "_" + b
		if !hasField(c, name) {
			add(keyPlan{key: []string{"/" + name}, kind: "synthetic", build: fmt.Sprintf("template \"{%s}%s{%s}\"", a, synthSep, b),
				synth: map[string][]string{name: {a, b}},
				extra: design.Fields{{Name: name, Field: design.Field{Template: "{" + a + "}" + synthSep + "{" + b + "}"}}}})
		}
		add(keyPlan{key: []string{"/" + a, "/" + b}, kind: "hierarchical"})
		add(keyPlan{key: []string{"/" + b, "/" + a}, kind: "hierarchical"})
		if len(top) == 3 {
			add(keyPlan{key: []string{"/" + top[0], "/" + top[1], "/" + top[2]}, kind: "hierarchical"})
		}
	}
	// A design key over a logical partition's limits: the key with the item id below it, and the key
	// spread over ten buckets.
	if cp := containerPlan(s.base, c.Name); cp != nil && len(c.PartitionKey) == 1 && c.PartitionKey[0] != "/id" {
		if !cp.Hot.Headroom {
			f := strings.TrimPrefix(c.PartitionKey[0], "/")
			add(keyPlan{key: []string{c.PartitionKey[0], "/id"}, kind: "hierarchical"})
			name := f + "Bucket"
			if !hasField(c, name) && !hasField(c, "bucket") {
				add(keyPlan{key: []string{"/" + name}, kind: "suffix", build: fmt.Sprintf("template \"{%s}-{bucket}\", bucket an int 0..9", f),
					extra: design.Fields{
						{Name: "bucket", Field: design.Field{Gen: "int", Min: ptr(0), Max: ptr(9)}},
						{Name: name, Field: design.Field{Template: "{" + f + "}-{bucket}"}}}})
			}
		}
	}
	return out
}

func ptr(f float64) *float64 { return &f }

// keyChangeShare is the least share of a container's monthly cost a new partition key must save to
// be recommended when the design's key fits: re-keying copies every document into a new container,
// a migration a few dollars a month does not pay for (assumed; the table still ranks every key).
const keyChangeShare = 0.10

// savesKey reports whether a key change's saving is worth a migration: significant (saves) and at
// least keyChangeShare of the container's monthly cost.
func (s *search) savesKey(c Change, container string) bool {
	if !s.saves(c) {
		return false
	}
	cp := containerPlan(s.base, container)
	return cp == nil || -c.MonthlyUSD >= keyChangeShare*cp.MonthlyUSD
}

// takesWrites reports whether a pattern creates or upserts documents in the container.
func takesWrites(d *design.Design, container string) bool {
	for i := range d.AccessPatterns {
		ap := &d.AccessPatterns[i]
		if ap.Container != container {
			continue
		}
		switch ap.Op {
		case design.OpCreate, design.OpUpsert:
			return true
		case design.OpBatch:
			for _, b := range ap.Batch {
				if b.Op == design.OpCreate || b.Op == design.OpUpsert {
					return true
				}
			}
		}
	}
	return false
}

// timeValued reports whether some type of the container generates the top-level field from the
// clock: an isoTime or epoch generator, or a template with {now}.
func timeValued(c *design.Container, name string) bool {
	for i := range c.Documents {
		f, ok := c.Documents[i].Fields.Lookup(name)
		if !ok {
			continue
		}
		if f.Gen == "isoTime" || f.Gen == "epoch" || strings.Contains(f.Template, "{now}") {
			return true
		}
	}
	return false
}

func hasField(c *design.Container, name string) bool {
	for i := range c.Documents {
		if _, ok := c.Documents[i].Fields.Lookup(name); ok {
			return true
		}
	}
	return false
}

// withKey is d with container ci keyed by kp: the synthetic fields added to every document type,
// and each pattern's partition key redone: a point operation takes its document's own values; a
// query gives the levels its equality filters pin (the whole key, a prefix of a hierarchical key,
// or none: cross-partition).
func (s *search) withKey(ci int, kp keyPlan) *design.Design {
	v := shallow(s.d)
	c := v.Containers[ci]
	c.PartitionKey = kp.key
	if len(kp.extra) > 0 {
		c.Documents = slices.Clone(c.Documents)
		for i := range c.Documents {
			c.Documents[i].Fields = append(slices.Clone(c.Documents[i].Fields), kp.extra...)
		}
	}
	v.Containers[ci] = c
	paths := make([][]string, len(kp.key))
	for i, k := range kp.key {
		paths[i] = design.SplitPath(k)
	}
	qs := map[string]query{}
	for _, qq := range queriesOf(s.d, ci) {
		qs[qq.ap.ID] = qq
	}
	for i := range v.AccessPatterns {
		ap := &v.AccessPatterns[i]
		if ap.Container != c.Name {
			continue
		}
		switch ap.Op {
		case design.OpQuery:
			qq, ok := qs[ap.ID]
			if !ok {
				ap.PartitionKey = nil
				continue
			}
			pk := qq.pinned(paths, kp.synth)
			if len(pk) < len(kp.key) && len(kp.key) == 1 {
				pk = nil
			}
			ap.PartitionKey = pk
			if ap.Expect != nil && ap.Expect.SinglePartition != nil {
				e := *ap.Expect
				one := len(pk) == len(kp.key)
				e.SinglePartition = &one
				ap.Expect = &e
			}
		case design.OpChangeFeed:
			if len(ap.PartitionKey) != len(kp.key) {
				ap.PartitionKey = nil
			}
		default:
			ap.PartitionKey = nil
		}
	}
	return v
}

// lowCardinality is the fewest distinct values a hierarchical key's first level should have
// (assumed: the hierarchical-key guidance asks for a high-cardinality first level without a
// figure; below 100 values the first level alone cannot spread the container's queries and
// writes, and every query that pins only it reads one value's share of the data).
const lowCardinality = 100

// rekeyCaveats says what a key change costs beyond its figures: the partition key cannot be changed
// in place, so the data is copied into a new container (change-partition-key.md: a container copy
// job or the change feed), and a hierarchical key whose first level has few values is against the
// hierarchical-key guidance (hierarchical-partition-keys.md: a first level of high cardinality).
func rekeyCaveats(c *design.Container, key []string, cp *plan.Container) string {
	out := "a partition key cannot be changed in place: it needs a new container and a copy of all of the data"
	if cp != nil {
		out += fmt.Sprintf(" (%.3g GB at production)", cp.StorageGB)
	}
	out += " into it, by a container copy job or the change feed (change-partition-key.md)"
	if len(key) > 1 {
		if n := distinctValues(c, strings.TrimPrefix(key[0], "/")); n > 0 && n < lowCardinality {
			out += fmt.Sprintf("; its first level %s has %.0f values: a low-cardinality first level is against the hierarchical-key guidance (hierarchical-partition-keys.md asks for high cardinality; under %d values, assumed)", key[0], n, lowCardinality)
		}
	}
	return out
}

// distinctValues is how many values the top-level field name takes at production across c's
// types (the largest any type states: oneOf's values, productionCardinality or cardinality), 0 when
// no type states it.
func distinctValues(c *design.Container, name string) float64 {
	n := 0.0
	for i := range c.Documents {
		f, ok := c.Documents[i].Fields.Lookup(name)
		if !ok {
			continue
		}
		switch {
		case len(f.OneOf) > 0:
			n = max(n, float64(len(f.OneOf)))
		case f.ProductionCardinality > 0:
			n = max(n, f.ProductionCardinality)
		case f.Cardinality > 0:
			n = max(n, float64(f.Cardinality))
		default:
			return 0
		}
	}
	return n
}
