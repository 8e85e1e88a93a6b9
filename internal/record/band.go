package record

import (
	"slices"
	"strconv"
	"strings"
)

// Band is a production figure under each alternative of the rules no published figure pins
// (cost.Rules: a rule whose source is `assumed` and which no calibration profile decided) and
// which move this query's figure. It is computed once, by the one estimator (internal/plan), and
// carried as it is to every report: plan, run (text, Markdown, JSON, HTML, JUnit) and MCP. A band
// is about the model's rules, never about the design's own choices (an indexing policy is the
// design's; `validate advise` compares those).
type Band struct {
	// LowRU and HighRU are the least and the most the production figure is under the alternatives,
	// the figure itself (the chosen alternatives') included. Each rule is varied alone, the others
	// at their chosen alternative.
	LowRU  float64 `json:"lowRU"`
	HighRU float64 `json:"highRU"`
	// Rules lists, for every rule that moves the figure, the figure under each of its alternatives
	// (the chosen one's is the production figure), rules by name, alternatives in the registry's
	// order.
	Rules []BandRule `json:"rules"`
}

// BandRule is the production figure under one alternative of one rule.
type BandRule struct {
	Name        string  `json:"name"`
	Alternative string  `json:"alternative"`
	RU          float64 `json:"ru"`
}

// RuleNames lists the band's rules, each once, in order.
func (b *Band) RuleNames() []string {
	if b == nil {
		return nil
	}
	var out []string
	for _, r := range b.Rules {
		if len(out) == 0 || out[len(out)-1] != r.Name {
			out = append(out, r.Name)
		}
	}
	return out
}

// Words is the band as every report writes it after the figure, with num formatting a charge:
// "9–31: rule order-top-unserved-filter unvalidated" ("" for no band).
func (b *Band) Words(num func(float64) string) string {
	if b == nil || len(b.Rules) == 0 {
		return ""
	}
	return rangeWords(b.LowRU, b.HighRU, b.RuleNames(), num)
}

// rangeWords is "low–high: rule(s) names unvalidated", the one wording of every band.
func rangeWords(low, high float64, names []string, num func(float64) string) string {
	return num(low) + "–" + num(high) + ": " + RuleWords(names)
}

// RuleWords names the unpinned rules a band rests on: "rule X unvalidated", "rules X, Y
// unvalidated".
func RuleWords(names []string) string {
	word := "rule "
	if len(names) > 1 {
		word = "rules "
	}
	return word + strings.Join(names, ", ") + " unvalidated"
}

// Range is a figure computed from production figures that have a Band (a container's load, the
// throughput and the monthly cost sized for it) under the low end and under the high end of those
// bands. Each rule's alternative is chosen independently, so with several rules the low end takes
// every pattern's LowRU and the high end every pattern's HighRU: the two ends bound every
// combination of alternatives for a figure that grows with the charges it sums. It is computed
// once, where the figure is, and carried as it is.
type Range struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// Rules names the unpinned rules the figure rests on, each once.
	Rules []string `json:"rules"`
}

// NewRange is the range low–high resting on rules, nil when the two ends give the same figure
// (rounded by num: no band is shown that the figure's own digits cannot tell apart) or no rule
// moves it.
func NewRange(low, high float64, rules []string, num func(float64) string) *Range {
	if len(rules) == 0 || num(low) == num(high) {
		return nil
	}
	return &Range{Low: min(low, high), High: max(low, high), Rules: rules}
}

// Words is the range as every report writes it after the figure, with num formatting it:
// "1700–1900: rule aggregate-seek-postings unvalidated" ("" for no range).
func (r *Range) Words(num func(float64) string) string {
	if r == nil || len(r.Rules) == 0 {
		return ""
	}
	return rangeWords(r.Low, r.High, r.Rules, num)
}

// After is the figure followed by its range in parentheses, or the figure alone without one:
// "1762 (1700–1900: rule X unvalidated)".
func (r *Range) After(figure string, num func(float64) string) string {
	return after(figure, r.Words(num))
}

// After is the figure followed by its band in parentheses, or the figure alone without one.
func (b *Band) After(figure string, num func(float64) string) string {
	return after(figure, b.Words(num))
}

func after(figure, words string) string {
	if words == "" {
		return figure
	}
	return figure + " (" + words + ")"
}

// Ends is the figure ru at the low (0) and the high (1) end of the band: the band's ends, or ru at
// both without a band. A figure that sums charges (a container's load, in plan and in run) adds
// each pattern's ends to its own.
func (b *Band) Ends(ru float64) [2]float64 {
	if b == nil || len(b.Rules) == 0 {
		return [2]float64{ru, ru}
	}
	return [2]float64{b.LowRU, b.HighRU}
}

// AddRules adds names to rules, each once, in cost.Rules' order (by name), the one order every
// report lists the rules of a figure in.
func AddRules(rules []string, names ...string) []string {
	for _, n := range names {
		if !slices.Contains(rules, n) {
			rules = append(rules, n)
		}
	}
	slices.Sort(rules)
	return rules
}

// NewLoadRange is NewRange for a load in RU/s, nil when its ends agree to three significant
// figures: a load's range is shown when it moves the load by more than that (docs/cost-model.md,
// "Bands"); whatever the load decides (the throughput, the cost, a verdict) carries its own range.
func NewLoadRange(low, high float64, rules []string) *Range {
	return NewRange(low, high, rules, significant3)
}

// significant3 is x to three significant figures.
func significant3(x float64) string {
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// Spanned is the figure followed by the band's ends in parentheses, "13235 (132–13235)", or the
// figure alone without a band: for a line that names the rules once (RuleWords).
func (b *Band) Spanned(figure string, num func(float64) string) string {
	if b == nil || len(b.Rules) == 0 {
		return figure
	}
	return after(figure, num(b.LowRU)+"–"+num(b.HighRU))
}

// Span is the range's ends, "1700–1900" ("" for no range).
func (r *Range) Span(num func(float64) string) string {
	if r == nil || len(r.Rules) == 0 {
		return ""
	}
	return num(r.Low) + "–" + num(r.High)
}

// Spanned is the figure followed by its range's ends in parentheses, "1762 (1700–1900)", or the
// figure alone without one: for a line that writes several figures resting on the same rules and
// names the rules once (NameRules).
func (r *Range) Spanned(figure string, num func(float64) string) string {
	return after(figure, r.Span(num))
}

// NameRules ends text, which writes figures with Spanned, with the rules their ranges rest on,
// named once: "16404 (139–52025) RU/s average, 52025 (139–52025) RU/s peak — rules A, B
// unvalidated" (text alone when no range is shown).
func NameRules(text string, ranges ...*Range) string {
	var rules []string
	for _, r := range ranges {
		if r != nil {
			rules = AddRules(rules, r.Rules...)
		}
	}
	if len(rules) == 0 {
		return text
	}
	return text + " — " + RuleWords(rules)
}

// Contains reports whether ru lies inside the band (bounds included).
func (b *Band) Contains(ru float64) bool {
	return b != nil && len(b.Rules) > 0 && ru >= b.LowRU && ru <= b.HighRU
}

// Alternatives spells out the figure under each alternative: "order-top-unserved-filter: stops 14,
// scans 31".
func (b *Band) Alternatives(num func(float64) string) []string {
	if b == nil {
		return nil
	}
	var out []string
	for _, r := range b.Rules {
		part := r.Alternative + " " + num(r.RU)
		if n := len(out); n > 0 && strings.HasPrefix(out[n-1], r.Name+": ") {
			out[n-1] += ", " + part
			continue
		}
		out = append(out, r.Name+": "+part)
	}
	return out
}

// PinnedRule is a rule a calibration profile decided that moves a production figure: the figure is
// the calibrated alternative's, with no band.
type PinnedRule struct {
	Name        string `json:"name"`
	Alternative string `json:"alternative"`
	// By is the calibration's label: "calibrated: <account>, <date>".
	By string `json:"by"`
}
