package cost

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// Rules with alternatives are data (STYLE.md #22): each is a named value with its alternatives,
// read by the engine (internal/engine/sql) and the estimator (internal/plan) alike through a
// Selection, listed by `validate rules`, and chosen by calibration (`validate calibrate --scale`).
// A rule no published figure pins has a band: the production figure under each alternative.
//
// To add a rule: add it to registry below (name, description, alternatives, default, source), read
// it in both the engine and the estimator with Selection.Alt, and say it in docs/cost-model.md.
// TestRules_Registry checks the entries' form.

// Rule names. The engine and the estimator read a rule by these constants, never by a literal.
const (
	// RuleTopUnservedFilter: a streamed ORDER BY with TOP k (or a page to fill) and a filter the
	// index does not serve.
	RuleTopUnservedFilter = "order-top-unserved-filter"
	// RulePKOrderComposite: a single-partition query's equality on the partition key with an ORDER
	// BY on other paths, and a composite index (partition key, the ORDER BY's paths).
	RulePKOrderComposite = "pk-equality-order-composite"
	// RuleAggregateNoFilter: an aggregate with no WHERE over indexed paths.
	RuleAggregateNoFilter = "aggregate-without-filter"
	// RuleAggregateSeekPostings: an aggregate the index answers, filtered by equality or IN seeks.
	RuleAggregateSeekPostings = "aggregate-seek-postings"
)

// Alternative names, by rule.
const (
	AltStops = "stops" // RuleTopUnservedFilter: the walk stops when k documents pass the filter
	AltScans = "scans" // RuleTopUnservedFilter: every document the walk reaches is loaded and evaluated

	AltSorts   = "sorts"   // RulePKOrderComposite: charged as an ORDER BY the index does not serve
	AltStreams = "streams" // RulePKOrderComposite: streams from the composite (partition key, ORDER BY)

	AltLoads = "loads" // RuleAggregateNoFilter: every document in scope is loaded
	AltIndex = "index" // RuleAggregateNoFilter: answered from the index, no document loaded

	AltPostings = "postings" // RuleAggregateSeekPostings: each seek reads its posting, one entry per matching document
	AltSeek     = "seek"     // RuleAggregateSeekPostings: each seek is constant, as outside aggregates
)

// Alternative is one way a rule may go.
type Alternative struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// Rule is one named rule of the index and query model whose behaviour on the service is not
// settled by the published figures the card cites, with the ways it may go.
type Rule struct {
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Alt         []Alternative `json:"alternatives"`
	// Default is the alternative the engine and the estimator take unless a Selection says otherwise:
	// the one published evidence leans to, else today's behaviour (Note says which and why).
	Default string `json:"default"`
	// Source is the published source that decides the default, or SrcAssumed.
	Source string `json:"source"`
	// Note says why the default was chosen, and what evidence there is either way.
	Note string `json:"note"`
	// Pins says which measurement decides the rule (`validate calibrate --scale` runs it).
	Pins string `json:"pins"`
}

// Assumed reports whether no published figure decides the rule: its production figures carry a band.
func (r Rule) Assumed() bool { return r.Source == SrcAssumed }

// HasAlternative reports whether alt is one of the rule's alternatives.
func (r Rule) HasAlternative(alt string) bool {
	return slices.ContainsFunc(r.Alt, func(a Alternative) bool { return a.Name == alt })
}

// AlternativeNames lists the names of the rule's alternatives, in the registry's order.
func (r Rule) AlternativeNames() []string {
	out := make([]string, len(r.Alt))
	for i, a := range r.Alt {
		out[i] = a.Name
	}
	return out
}

// registry is the one list of rules with alternatives.
var registry = []Rule{
	{
		Name: RuleTopUnservedFilter,
		Description: "An ORDER BY streamed from the index with TOP k (or a page to fill) and a filter the index " +
			"does not serve (a function, an unindexed path): whether the walk stops once k documents pass the filter.",
		Alt: []Alternative{
			{AltStops, "documents are loaded and evaluated in index order until k pass: a TOP 10 whose filter keeps one in five loads about 50"},
			{AltScans, "every document the served filters keep is loaded and evaluated before the first k are returned"},
		},
		Default: AltStops,
		Source:  SrcAssumed,
		Note: "today's behaviour: the ORDER BY index is the one path a range index walks in order, so the " +
			"service can stop; nothing published gives the charge of such a query",
		Pins: "ORDER BY c.sortKey with TOP k and a filter on an unindexed path over a probe container: " +
			"retrievedDocumentCount near k × documents ÷ matches pins stops, near the documents in scope pins scans",
	},
	{
		Name: RulePKOrderComposite,
		Description: "A single-partition query with an equality on the partition key and an ORDER BY on other " +
			"paths (WHERE c.pk = @k ORDER BY c.ts), with the composite index (partition key, the ORDER BY's paths): " +
			"whether it streams from the composite index.",
		Alt: []Alternative{
			{AltSorts, "charged as an ORDER BY the index does not serve: the key's documents loaded and sorted in memory"},
			{AltStreams, "streams from the composite index as ORDER BY c.pk, c.ts would: the walk stops when TOP or the page is full"},
		},
		Default: AltSorts,
		Source:  SrcAssumed,
		Note: "index-policy.md's \"Queries with a filter and ORDER BY\" makes an equality on a path the ORDER BY " +
			"does not name use the range index, and names no exception for the partition key; the docs tell to " +
			"write ORDER BY c.pk, c.ts",
		Pins: "WHERE c.pk = @k ORDER BY c.ts with TOP k over one key of a probe container with the composite " +
			"(pk, ts): retrievedDocumentCount near k pins streams, the key's documents pins sorts",
	},
	{
		Name: RuleAggregateNoFilter,
		Description: "An aggregate (COUNT, SUM, AVG, MIN, MAX) with no WHERE and no GROUP BY over a constant or " +
			"indexed paths: whether the service answers it from the index.",
		Alt: []Alternative{
			{AltLoads, "every document in scope is loaded"},
			{AltIndex, "answered from the index: one index entry read per document per aggregated path, no document loaded"},
		},
		Default: AltLoads,
		Source:  SrcAssumed,
		Note: "today's behaviour; the April 2020 query-updates devblog publishes filtered aggregates from the " +
			"index, nothing published counts a whole container from it (not established either way)",
		Pins: "SELECT VALUE COUNT(1) FROM c over a probe container: retrievedDocumentCount 0 pins index, the " +
			"container's documents pins loads",
	},
	{
		Name: RuleAggregateSeekPostings,
		Description: "An aggregate the index answers (COUNT, SUM, … with every filter served) whose filters include " +
			"an equality or IN: whether each seek reads its posting, one entry per matching document, to count them.",
		Alt: []Alternative{
			{AltPostings, "each seek reads its posting: a COUNT over 45 million matching documents reads 45 million entries"},
			{AltSeek, "each seek is constant, as outside aggregates (index-overview.md): the count comes with the seek"},
		},
		Default: AltPostings,
		Source:  SrcAssumed,
		Note: "outside aggregates a seek is constant per equality filter (index-overview.md); an aggregate must " +
			"count or sum over the matching documents, and the April 2020 devblog's COUNT from the index (24.58 RU " +
			"over 5 GB) is more than a seek, but publishes no count to say how much more per document",
		Pins: "SELECT VALUE COUNT(1) FROM c WHERE c.pk = @k AND c.pad = @p, both matching every document of the partition, " +
			"over two probe containers 4× apart (calibrate --scale): a charge growing with the documents pins postings, a flat one pins seek",
	},
}

// Rules lists the rules with alternatives, sorted by name. The slice is a copy.
func Rules() []Rule {
	out := slices.Clone(registry)
	for i := range out {
		out[i].Alt = slices.Clone(out[i].Alt)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LookupRule returns the rule named name.
func LookupRule(name string) (Rule, bool) {
	for _, r := range registry {
		if r.Name == name {
			return r, true
		}
	}
	return Rule{}, false
}

// Selection chooses an alternative for each rule; a rule it does not name takes its default. A nil
// *Selection is the defaults. The engine's and the estimator's options carry one.
type Selection struct {
	// Alternatives maps a rule's name to the alternative chosen.
	Alternatives map[string]string `json:"alternatives,omitempty"`
	// Pinned maps a rule a calibration decided to the calibration's label ("calibrated: <account>,
	// <date>"): its production figures carry no band.
	Pinned map[string]string `json:"pinned,omitempty"`
}

// Alt returns the alternative chosen for rule name: the selection's, else the rule's default. It
// panics for a name not in the registry (a programming error: read rules by their constants).
func (s *Selection) Alt(name string) string {
	if s != nil {
		if a, ok := s.Alternatives[name]; ok {
			return a
		}
	}
	r, ok := LookupRule(name)
	if !ok {
		panic("cost: no rule " + name)
	}
	return r.Default
}

// Is reports whether rule name's chosen alternative is alt.
func (s *Selection) Is(name, alt string) bool { return s.Alt(name) == alt }

// PinnedBy returns the label of the calibration that decided rule name, if one did.
func (s *Selection) PinnedBy(name string) (string, bool) {
	if s == nil {
		return "", false
	}
	l, ok := s.Pinned[name]
	return l, ok
}

// With returns a copy of the selection with rule name set to alt.
func (s *Selection) With(name, alt string) *Selection {
	n := &Selection{Alternatives: map[string]string{}}
	if s != nil {
		maps.Copy(n.Alternatives, s.Alternatives)
		if s.Pinned != nil {
			n.Pinned = maps.Clone(s.Pinned)
		}
	}
	n.Alternatives[name] = alt
	return n
}

// Check reports an alternative that names no rule or no alternative of its rule.
func (s *Selection) Check() error {
	if s == nil {
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(s.Alternatives)) {
		if err := checkChoice(name, s.Alternatives[name]); err != nil {
			return err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Pinned)) {
		if _, ok := LookupRule(name); !ok {
			return fmt.Errorf("rule %q: no such rule (validate rules lists them)", name)
		}
	}
	return nil
}

func checkChoice(name, alt string) error {
	r, ok := LookupRule(name)
	if !ok {
		var names []string
		for _, r := range Rules() {
			names = append(names, r.Name)
		}
		return fmt.Errorf("rule %q: no such rule; the rules are %s (validate rules)", name, strings.Join(names, ", "))
	}
	if !r.HasAlternative(alt) {
		return fmt.Errorf("rule %s: no alternative %q; its alternatives are %s", name, alt, strings.Join(r.AlternativeNames(), ", "))
	}
	return nil
}

// ParseSelection reads NAME=ALT settings (`validate serve --rules`, repeatable or comma-separated)
// into a selection, checked against the registry.
func ParseSelection(settings []string) (*Selection, error) {
	s := &Selection{Alternatives: map[string]string{}}
	for _, set := range settings {
		for _, one := range strings.Split(set, ",") {
			one = strings.TrimSpace(one)
			if one == "" {
				continue
			}
			name, alt, ok := strings.Cut(one, "=")
			if !ok {
				return nil, fmt.Errorf("rule setting %q: want NAME=ALTERNATIVE (validate rules lists them)", one)
			}
			name, alt = strings.TrimSpace(name), strings.TrimSpace(alt)
			if err := checkChoice(name, alt); err != nil {
				return nil, err
			}
			if prev, dup := s.Alternatives[name]; dup && prev != alt {
				return nil, fmt.Errorf("rule %s: set twice (%s and %s)", name, prev, alt)
			}
			s.Alternatives[name] = alt
		}
	}
	return s, nil
}

// String writes the selection's non-default choices as NAME=ALT,…, sorted ("" for the defaults).
func (s *Selection) String() string {
	if s == nil {
		return ""
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(s.Alternatives)) {
		if r, ok := LookupRule(name); ok && r.Default == s.Alternatives[name] {
			continue
		}
		parts = append(parts, name+"="+s.Alternatives[name])
	}
	return strings.Join(parts, ",")
}
