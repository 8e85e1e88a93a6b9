package report

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/record"
)

// ErrIncomparable is returned (wrapped) by Compare when two reports cannot be compared honestly.
var ErrIncomparable = errors.New("reports are not comparable")

// DefaultRegression is the default drift threshold: a charge may grow by the larger of 1 RU and 10%
// of the old figure before it is a regression (and shrink as much before a measured charge is an
// improvement).
var DefaultRegression = design.Band{Pct: 10, RU: 1}

// ModeledImprovement is how far a modeled charge must fall to count as an improvement: the model is
// deterministic (the same design and seed give the same charge to the cent), so a fall beyond its
// rounding is a real saving, however small — an index change that saves 0.2 RU on each write is
// what advise recommends (assumed: 0.5% or 0.01 RU, the figures' rounding). A measured charge keeps
// the regression band both ways, since a service's medians move by themselves.
var ModeledImprovement = design.Band{Pct: 0.5, RU: 0.01}

// CompareOptions tune Compare.
type CompareOptions struct {
	// Pct and RU replace the percentage and the absolute floor of DefaultRegression for every
	// pattern (0 = default); a pattern's own regression band in the design replaces the result.
	Pct float64
	RU  float64
	// Force compares reports of differently named designs, or with different seeds or sample counts
	// (the comparison says so). Reports with different charge sources or schema versions are never
	// compared.
	Force bool
	// USD is the monthly-cost threshold in dollars: a bill at production (at the designed throughput
	// or sized for the peak) that rises by more than USD a month is a regression (0 = none).
	USD float64
	// FailOnModelChange counts the patterns that moved with the model (ModelChanged) as failures, as
	// a repository that tracks the model itself wants; by default they are reported, apart, and pass.
	FailOnModelChange bool
}

// Change is how one pattern moved between two reports.
type Change string

// Changes of a pattern.
const (
	Regression  Change = "regression"
	Improvement Change = "improvement"
	Unchanged   Change = "unchanged"
	Added       Change = "added"
	Removed     Change = "removed"
	// ModelChanged is a drift beyond the threshold (or a verdict that moved) between two runs of the
	// same design by different models (tool version or rate card): the model moved, not the design.
	ModelChanged Change = "model-changed"
	// TradeOff is a pattern made dearer by a variant that lowers the whole design's RU/s without
	// raising its monthly cost (compared with its origin): the price of the saving, shown with its
	// numbers, not a regression (#37: an advised embedding makes a child write a parent replace).
	TradeOff Change = "trade-off"
)

// Comparison is the drift between an old report (the baseline) and a new one.
type Comparison struct {
	SchemaVersion int  `json:"schemaVersion"`
	Old           Side `json:"old"`
	New           Side `json:"new"`
	// Forced lists the mismatches accepted because CompareOptions.Force was set.
	Forced []string `json:"forced,omitempty"`
	// Variant says that one side is a variant of the other (its design's variantOf names the other
	// design): differently named, yet compared without Force, since the change is what is judged.
	Variant string `json:"variant,omitempty"`
	// DesignChanges describes what changed in the design itself, one line per change.
	DesignChanges []string        `json:"designChanges"`
	Summary       CompareSummary  `json:"summary"`
	Patterns      []PatternChange `json:"patterns"`
	// Cost is how the monthly bill at production moved, when both sides were priced.
	Cost *CostChange `json:"monthlyCost,omitempty"`
	// Load is how the traffic-weighted RU/s moved: Σ over the containers of the load the verdicts
	// rest on (at production when projected, each charge × its average request rate), modeled or
	// measured as the reports carry it (LoadSource).
	Load       *Delta `json:"load,omitempty"`
	LoadSource string `json:"loadSource,omitempty"`
	// Model is present when the two sides were written by different models: another tool version or
	// rate card (a baseline that does not record them counts as another model).
	Model *ModelChange `json:"model,omitempty"`
	// FailOnModelChange is CompareOptions.FailOnModelChange: model changes count as failures.
	FailOnModelChange bool `json:"failOnModelChange,omitempty"`
}

// ModelChange says which model wrote each side of a comparison and what that means for its drifts.
type ModelChange struct {
	// ToolChanged and RateCardChanged say which part of the model differs (Old and New carry them).
	ToolChanged     bool `json:"toolChanged"`
	RateCardChanged bool `json:"rateCardChanged"`
	// DesignChanged says the design moved too (another fingerprint): the drifts are then classified as
	// usual, and may mix the design's change with the model's.
	DesignChanged bool `json:"designChanged"`
	// Note says it in words, with what to do.
	Note string `json:"note"`
}

// CostChange is how a design's monthly bill at production moved between two runs (MonthlyCost).
type CostChange struct {
	Currency string `json:"currency"`
	// Designed is the bill at the designed throughput; Required the bill of the cheapest mode that
	// carries each container's peak.
	Designed Delta `json:"designed"`
	Required Delta `json:"required"`
	// Note says what is not like for like (another rate card).
	Note string `json:"note,omitempty"`
	// ThresholdUSD is CompareOptions.USD (0: no cost threshold) and Change what the bill's move is
	// against it: regression, model-changed (the model moved and the design did not), or "" within.
	ThresholdUSD float64 `json:"thresholdUSD,omitempty"`
	Change       Change  `json:"change,omitempty"`
}

// Delta is a figure on both sides of a comparison.
type Delta struct {
	Old   float64 `json:"old"`
	New   float64 `json:"new"`
	Delta float64 `json:"delta"`
	// Pct is Delta as a percentage of Old (0 when Old is 0).
	Pct float64 `json:"pct"`
}

// Side identifies one of the two compared reports.
type Side struct {
	Design       string              `json:"design"`
	Fingerprint  string              `json:"fingerprint"`
	ChargeSource record.ChargeSource `json:"chargeSource"`
	Seed         int64               `json:"seed"`
	Samples      int                 `json:"samples"`
	ToolVersion  string              `json:"toolVersion,omitempty"`
	// RateCard is the version of the rate card the modeled charges were priced with ("" in a
	// baseline written before baselines recorded it).
	RateCard string `json:"rateCard,omitempty"`
	// File is the file the side was read from ("" for a run).
	File string `json:"file,omitempty"`
}

// CompareSummary counts pattern changes.
type CompareSummary struct {
	Patterns       int `json:"patterns"`
	Regressions    int `json:"regressions"`
	Improvements   int `json:"improvements"`
	Unchanged      int `json:"unchanged"`
	Added          int `json:"added"`
	Removed        int `json:"removed"`
	VerdictChanges int `json:"verdictChanges"`
	// ModelChanges counts the patterns that moved with the model (ModelChanged), not with the design.
	ModelChanges int `json:"modelChanges,omitempty"`
	// TradeOffs counts the patterns a variant made dearer as the price of its saving (TradeOff).
	TradeOffs int `json:"tradeOffs,omitempty"`
	// AddedFailing counts the added patterns whose verdict is fail or error: new failures, which
	// fail the comparison like regressions (a worse design must not read "no regressions").
	AddedFailing int `json:"addedFailing,omitempty"`
}

// PatternChange is the drift of one pattern.
type PatternChange struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Change Change `json:"change"`
	// OldVerdict and NewVerdict are empty for added and removed patterns respectively.
	OldVerdict Verdict `json:"oldVerdict,omitempty"`
	NewVerdict Verdict `json:"newVerdict,omitempty"`
	// Threshold is the drift band that applied and where it came from ("default", "options", "pattern").
	Threshold     design.Band `json:"threshold"`
	ThresholdFrom string      `json:"thresholdFrom"`
	Modeled       *Drift      `json:"modeled,omitempty"`
	Measured      *Drift      `json:"measured,omitempty"`
	// Production is the drift of the production figure (ProductionFigure: the projected median of
	// the charge the verdict rests on), present when either side projects the pattern to a stated
	// production scale: a change of the production counts or of an index that matters only at scale
	// moves it alone, and it is classified like the others.
	Production *Drift `json:"production,omitempty"`
	// Reasons say why the change is what it is.
	Reasons []string `json:"reasons,omitempty"`
	// byVerdict is true when the pattern regressed because its verdict turned fail or error (never
	// a trade-off).
	byVerdict bool
}

// Drift is how a median charge moved.
type Drift struct {
	Source record.ChargeSource `json:"source"`
	Old    float64             `json:"old"`
	New    float64             `json:"new"`
	Delta  float64             `json:"delta"`
	// Pct is Delta as a percentage of Old (0 when Old is 0).
	Pct float64 `json:"pct"`
	// Limit is the threshold in RU: max(Threshold.RU, Threshold.Pct% of Old).
	Limit  float64 `json:"limit"`
	Change Change  `json:"change"`
	// better is the fall that counts as an improvement: Limit, or for modeled charges (deterministic)
	// ModeledImprovement; the reason names it.
	better float64
}

// Regressions returns the number of patterns that regressed (the CLI exits 1 when it is not zero).
func (c *Comparison) Regressions() int {
	if c == nil {
		return 0
	}
	return c.Summary.Regressions
}

// Failures is what the comparison fails on (the run's findings, the CLI's exit 1): the regressions,
// a monthly cost beyond its dollar threshold, and, with FailOnModelChange, what moved with the model.
func (c *Comparison) Failures() int {
	if c == nil {
		return 0
	}
	n := c.Summary.Regressions + c.Summary.AddedFailing
	if c.Cost != nil && (c.Cost.Change == Regression || c.Cost.Change == ModelChanged && c.FailOnModelChange) {
		n++
	}
	if c.FailOnModelChange {
		n += c.Summary.ModelChanges
	}
	return n
}

// Compare reports the drift from old (the baseline) to new. It refuses, with ErrIncomparable, to
// compare reports of different schema versions or charge sources, and of different designs (by
// name; a variant and the design its variantOf names are not different), seeds or sample counts
// unless opts.Force is set.
func Compare(old, new *Report, opts CompareOptions) (*Comparison, error) {
	if old == nil || new == nil {
		return nil, fmt.Errorf("compare: %w: a report is missing", ErrIncomparable)
	}
	if old.SchemaVersion != new.SchemaVersion {
		return nil, fmt.Errorf("compare: %w: schema version %d against %d; regenerate the baseline with this version",
			ErrIncomparable, old.SchemaVersion, new.SchemaVersion)
	}
	if oldSrc, newSrc := old.Target.ChargeSource, new.Target.ChargeSource; oldSrc != newSrc {
		return nil, fmt.Errorf("compare: %w: the baseline's charges are %s (%s) and this run's are %s (%s); take a baseline on the same kind of target",
			ErrIncomparable, oldSrc, SourceLabel(oldSrc), newSrc, SourceLabel(newSrc))
	}
	c := &Comparison{
		SchemaVersion: SchemaVersion,
		Old:           side(old),
		New:           side(new),
		DesignChanges: diffDesign(old, new),
		Patterns:      []PatternChange{},
	}
	var mismatch []string
	switch on, nn := old.Design.Name, new.Design.Name; {
	case on == nn:
	case new.Design.VariantOf == on:
		c.Variant = fmt.Sprintf("%s is a variant of %s: this compares the variant with its origin", nn, on)
	case old.Design.VariantOf == nn:
		c.Variant = fmt.Sprintf("%s is a variant of %s: this compares the origin with its variant", on, nn)
	default:
		mismatch = append(mismatch, fmt.Sprintf("design %s against %s", on, nn))
	}
	if old.Seed != new.Seed {
		mismatch = append(mismatch, fmt.Sprintf("seed %d against %d", old.Seed, new.Seed))
	}
	if old.Samples != new.Samples {
		mismatch = append(mismatch, fmt.Sprintf("%d samples against %d", old.Samples, new.Samples))
	}
	if len(mismatch) > 0 {
		if !opts.Force {
			return nil, fmt.Errorf("compare: %w: %s (another design, other data or other sample sizes make charges drift by themselves; --force compares anyway, e.g. after renaming a design; a variant names its origin with variantOf)",
				ErrIncomparable, strings.Join(mismatch, ", "))
		}
		c.Forced = mismatch
	}

	oldBy := map[string]*PatternResult{}
	for i := range old.Patterns {
		oldBy[old.Patterns[i].ID] = &old.Patterns[i]
	}
	seen := map[string]bool{}
	for i := range new.Patterns {
		np := &new.Patterns[i]
		seen[np.ID] = true
		op, ok := oldBy[np.ID]
		if !ok {
			reasons := []string{"pattern is new in this design"}
			if np.Verdict == Fail || np.Verdict == Error {
				reasons = append(reasons, "it fails: "+strings.Join(np.Reasons, "; "))
			}
			c.Patterns = append(c.Patterns, PatternChange{ID: np.ID, Name: np.Name, Change: Added, NewVerdict: np.Verdict, Reasons: reasons})
			continue
		}
		c.Patterns = append(c.Patterns, comparePattern(op, np, opts))
	}
	c.Cost = compareCost(old.Cost, new.Cost, opts.USD)
	c.Load, c.LoadSource = compareLoad(old, new)
	c.Model = modelChange(old, new)
	c.FailOnModelChange = opts.FailOnModelChange
	if c.Model != nil && !c.Model.DesignChanged {
		// The same design under another model: what moved, moved with the model.
		for i := range c.Patterns {
			p := &c.Patterns[i]
			if p.Change == Regression || p.Change == Improvement {
				p.Reasons = append(p.Reasons, "the design is unchanged: the model moved ("+c.Model.short(c.Old, c.New)+")")
				p.Change = ModelChanged
			}
		}
		if c.Cost != nil && c.Cost.Change == Regression {
			c.Cost.Change = ModelChanged
		}
	}
	c.tradeOffs()
	for _, op := range old.Patterns {
		if !seen[op.ID] {
			c.Patterns = append(c.Patterns, PatternChange{ID: op.ID, Name: op.Name, Change: Removed, OldVerdict: op.Verdict,
				Reasons: []string{"pattern is no longer in the design"}})
		}
	}
	for _, p := range c.Patterns {
		c.Summary.Patterns++
		switch p.Change {
		case Regression:
			c.Summary.Regressions++
		case Improvement:
			c.Summary.Improvements++
		case Unchanged:
			c.Summary.Unchanged++
		case Added:
			c.Summary.Added++
			if p.NewVerdict == Fail || p.NewVerdict == Error {
				c.Summary.AddedFailing++
			}
		case Removed:
			c.Summary.Removed++
		case ModelChanged:
			c.Summary.ModelChanges++
		case TradeOff:
			c.Summary.TradeOffs++
		}
		if p.OldVerdict != "" && p.NewVerdict != "" && p.OldVerdict != p.NewVerdict {
			c.Summary.VerdictChanges++
		}
	}
	return c, nil
}

func side(r *Report) Side {
	return Side{Design: r.Design.Name, Fingerprint: r.Design.Fingerprint, ChargeSource: r.Target.ChargeSource,
		Seed: r.Seed, Samples: r.Samples, ToolVersion: r.Tool.Version, RateCard: r.Tool.RateCard}
}

// modelChange is nil when the same model wrote both reports (tool version and rate card), else says
// what differs. A side that does not record its model (a baseline written before baselines did)
// counts as another model.
func modelChange(old, new *Report) *ModelChange {
	tool := old.Tool.Version != new.Tool.Version
	card := old.Tool.RateCard != new.Tool.RateCard
	if !tool && !card {
		return nil
	}
	m := &ModelChange{ToolChanged: tool, RateCardChanged: card, DesignChanged: old.Design.Fingerprint != new.Design.Fingerprint}
	what := "the baseline was written by " + modelName(old.Tool) + ", this run by " + modelName(new.Tool)
	if m.DesignChanged {
		m.Note = what + "; the design changed as well, so the drifts below may mix the two: to tell them apart, " +
			"regenerate the baseline with this build from the old design first (--update-baseline, a commit of its own)"
	} else {
		m.Note = what + "; the design is unchanged, so what moved is the model's, listed as model-changed, not as regressions " +
			"(--fail-on-model-change fails on them): regenerate the baseline with --update-baseline in a commit of its own that says why"
	}
	return m
}

// ModelShort names the two models of a comparison in a few words ("" when the same model wrote both):
// "validate v1.0.0 → v1.1.0, rate card 2026.11-3 → 2026.12-1".
func (c *Comparison) ModelShort() string {
	if c == nil || c.Model == nil {
		return ""
	}
	return c.Model.short(c.Old, c.New)
}

// short names the two models of a comparison in a few words.
func (m *ModelChange) short(old, new Side) string {
	var parts []string
	if m.ToolChanged {
		parts = append(parts, "validate "+orUnknown(old.ToolVersion)+" → "+orUnknown(new.ToolVersion))
	}
	if m.RateCardChanged {
		parts = append(parts, "rate card "+orUnknown(old.RateCard)+" → "+orUnknown(new.RateCard))
	}
	return strings.Join(parts, ", ")
}

func modelName(t Tool) string {
	return "validate " + orUnknown(t.Version) + " with rate card " + orUnknown(t.RateCard)
}

func orUnknown(s string) string {
	if s == "" {
		return "(not recorded)"
	}
	return s
}

func comparePattern(op, np *PatternResult, opts CompareOptions) PatternChange {
	pc := PatternChange{ID: np.ID, Name: np.Name, Change: Unchanged, OldVerdict: op.Verdict, NewVerdict: np.Verdict,
		Threshold: DefaultRegression, ThresholdFrom: "default"}
	if opts.Pct > 0 {
		pc.Threshold.Pct, pc.ThresholdFrom = opts.Pct, "options"
	}
	if opts.RU > 0 {
		pc.Threshold.RU, pc.ThresholdFrom = opts.RU, "options"
	}
	if np.Regression != nil {
		pc.Threshold, pc.ThresholdFrom = *np.Regression, "pattern"
	}
	pc.Modeled = drift(op.Modeled, np.Modeled, pc.Threshold)
	if op.Measured != nil && np.Measured != nil && CarriesVerdict(np.Measured.Source) {
		pc.Measured = drift(op.Measured, np.Measured, pc.Threshold)
	}
	pc.Production = productionDrift(op, np, pc.Threshold)
	regressed, improved := false, false
	for _, d := range []*Drift{pc.Modeled, pc.Measured, pc.Production} {
		if d == nil {
			continue
		}
		label := SourceLabel(d.Source)
		if d == pc.Production {
			label += " production"
		}
		switch d.Change {
		case Regression:
			regressed = true
			pc.Reasons = append(pc.Reasons, fmt.Sprintf("%s charge rose from %s to %s RU (%+.0f%%, threshold %s RU)",
				label, fmtRU(d.Old), fmtRU(d.New), d.Pct, fmtRU(d.Limit)))
		case Improvement:
			improved = true
			pc.Reasons = append(pc.Reasons, fmt.Sprintf("%s charge fell from %s to %s RU (%+.0f%%; a fall beyond %s RU is an improvement)",
				label, fmtRU(d.Old), fmtRU(d.New), d.Pct, fmtRU(d.better)))
		}
	}
	failing := func(v Verdict) bool { return v == Fail || v == Error }
	if op.Verdict != np.Verdict {
		pc.Reasons = append(pc.Reasons, fmt.Sprintf("verdict changed from %s to %s", op.Verdict, np.Verdict))
		switch {
		case failing(np.Verdict) && !failing(op.Verdict) && !regressed && improved && onlyOffEstimate(np):
			// A charge that fell below its estimate's band fails the pattern's estimate, not the
			// design: the saving is an improvement, and the estimate wants updating.
			pc.Reasons = append(pc.Reasons, fmt.Sprintf("it fails only because the charge fell below its estimate (%s RU): state the new figure as the estimate", fmtRU(np.Estimate)))
		case failing(np.Verdict) && !failing(op.Verdict):
			regressed = true
			pc.byVerdict = true
		}
		if failing(op.Verdict) && !failing(np.Verdict) {
			improved = true
		}
	}
	if (op.Modeled == nil) != (np.Modeled == nil) {
		if np.Modeled == nil {
			pc.Reasons = append(pc.Reasons, "the modeled run no longer produces a charge (its executions fail)")
		} else {
			pc.Reasons = append(pc.Reasons, "the modeled run now produces a charge (its executions failed before)")
		}
	}
	switch {
	case regressed:
		pc.Change = Regression
	case improved:
		pc.Change = Improvement
	}
	return pc
}

// onlyOffEstimate reports whether a failing pattern fails for its estimate alone: every execution
// succeeded and every expectation (single partition, result counts, status) held.
func onlyOffEstimate(p *PatternResult) bool {
	if p.Verdict != Fail || len(p.Errors) > 0 {
		return false
	}
	for _, c := range p.Checks {
		if !c.OK {
			return false
		}
	}
	return true
}

func drift(o, n *Charge, band design.Band) *Drift {
	if o == nil || n == nil {
		return nil
	}
	d := &Drift{Source: n.Source, Old: o.Median, New: n.Median, Delta: round2(n.Median - o.Median), Change: Unchanged}
	if o.Median != 0 {
		d.Pct = round2(100 * d.Delta / o.Median)
	}
	d.Limit = round2(math.Max(band.RU, math.Abs(o.Median)*band.Pct/100))
	better := d.Limit
	if n.Source == record.ChargeModel {
		better = math.Max(ModeledImprovement.RU, math.Abs(o.Median)*ModeledImprovement.Pct/100)
	}
	switch {
	case d.Delta > d.Limit+1e-9:
		d.Change = Regression
	case -d.Delta > better+1e-9:
		d.Change = Improvement
	}
	d.better = round2(better)
	return d
}

// tradeOffs turns the charge regressions of a variant compared with its origin into trade-offs when
// the variant lowers the whole design's RU/s (by more than a hundredth) and raises neither monthly
// bill: the dearer patterns are what the saving costs. A pattern whose verdict turned fail or error
// stays a regression, and so does every regression of a comparison that is not of a variant.
func (c *Comparison) tradeOffs() {
	if c.Variant == "" || c.Load == nil || c.Load.Delta >= -0.01 {
		return
	}
	if c.Cost != nil && (c.Cost.Designed.Delta > 0.005 || c.Cost.Required.Delta > 0.005) {
		return
	}
	why := fmt.Sprintf("dearer as the price of the variant's saving: the design's RU/s fall from %s to %s", fmtRU(c.Load.Old), fmtRU(c.Load.New))
	if c.Cost != nil {
		why += fmt.Sprintf(" and its monthly cost changes by %s", signedUSD(c.Cost.Required.Delta))
	}
	for i := range c.Patterns {
		if p := &c.Patterns[i]; p.Change == Regression && !p.byVerdict {
			p.Change = TradeOff
			p.Reasons = append(p.Reasons, why)
		}
	}
}

// compareLoad is the traffic-weighted RU/s of each side (ContainerLoad: the load the verdicts rest
// on), measured when both sides carry a measured load, else modeled; nil when either side has none.
func compareLoad(old, new *Report) (*Delta, string) {
	total := func(r *Report, measured bool) (float64, bool) {
		sum, any := 0.0, false
		for _, c := range r.Containers {
			l := c.Modeled
			if measured {
				l = c.Measured
			}
			if l == nil {
				continue
			}
			avg, _ := l.judged()
			sum += avg
			any = true
		}
		return sum, any
	}
	for _, measured := range []bool{true, false} {
		o, ok1 := total(old, measured)
		n, ok2 := total(new, measured)
		if !ok1 || !ok2 {
			continue
		}
		d := &Delta{Old: round2(o), New: round2(n), Delta: round2(n - o)}
		if o != 0 {
			d.Pct = round2(100 * (n - o) / o)
		}
		if measured {
			return d, "measured"
		}
		return d, "modeled"
	}
	return nil, ""
}

// LoadLine is the comparison's traffic-weighted RU/s line in words ("" when a side has no load).
func (c *Comparison) LoadLine() string {
	if c == nil || c.Load == nil {
		return ""
	}
	d := c.Load
	s := fmt.Sprintf("RU/s (%s, each charge × its average rate; at production where projected): %s → %s (%+.1f",
		c.LoadSource, fmtRU(d.Old), fmtRU(d.New), d.Delta)
	if d.Old != 0 && d.Delta != 0 {
		s += fmt.Sprintf(", %+.0f%%", d.Pct)
	}
	return s + ")"
}

// productionDrift is the drift of the production figure, when either side carries the pattern to a
// stated production scale (otherwise the figure is the seeded median, whose drift is already there)
// and both sides have one from the same source.
func productionDrift(op, np *PatternResult, band design.Band) *Drift {
	oru, osrc, oscaled, ook := ProductionFigure(*op)
	nru, nsrc, nscaled, nok := ProductionFigure(*np)
	if !ook || !nok || (!oscaled && !nscaled) || osrc != nsrc {
		return nil
	}
	return drift(&Charge{Source: osrc, Median: oru}, &Charge{Source: nsrc, Median: nru}, band)
}

// compareCost is how the monthly bill moved, nil unless both sides were priced; a rise of either bill
// by more than usd dollars a month (usd > 0) is a regression.
func compareCost(old, new *MonthlyCost, usd float64) *CostChange {
	if old == nil || new == nil {
		return nil
	}
	delta := func(o, n float64) Delta {
		d := Delta{Old: round2(o), New: round2(n), Delta: round2(n - o)}
		if o != 0 {
			d.Pct = round2(100 * (n - o) / o)
		}
		return d
	}
	cc := &CostChange{Currency: new.Currency, Designed: delta(old.DesignedUSD, new.DesignedUSD), Required: delta(old.RequiredUSD, new.RequiredUSD)}
	if old.RateCard != new.RateCard {
		cc.Note = fmt.Sprintf("priced with rate card %s, the baseline with %s: part of the change is the price", new.RateCard, old.RateCard)
	}
	if usd > 0 {
		cc.ThresholdUSD = usd
		if cc.Designed.Delta > usd+1e-9 || cc.Required.Delta > usd+1e-9 {
			cc.Change = Regression
		}
	}
	return cc
}

// CostOrMissingLine is CostLine, or a line saying which side was not priced: a comparison always
// says what happened to the bill.
func (c *Comparison) CostOrMissingLine() string {
	if line := c.CostLine(); line != "" {
		return line
	}
	return "monthly cost at production: not compared (a side carries no price: a report written without a rate card)"
}

// CostLine is the comparison's monthly-cost line in words ("" when either side was not priced).
func (c *Comparison) CostLine() string {
	if c == nil || c.Cost == nil {
		return ""
	}
	cc := c.Cost
	money := func(d Delta) string {
		s := fmt.Sprintf("%s → %s (%s", usd(d.Old), usd(d.New), signedUSD(d.Delta))
		if d.Old != 0 && d.Delta != 0 {
			s += fmt.Sprintf(", %+.0f%%", d.Pct)
		}
		return s + ")"
	}
	line := fmt.Sprintf("monthly cost at production: %s at the designed throughput; %s sized for this run's peak",
		money(cc.Designed), money(cc.Required))
	switch cc.Change {
	case Regression:
		line += fmt.Sprintf("; REGRESSION: rose by more than the threshold of %s a month", usd(cc.ThresholdUSD))
	case ModelChanged:
		line += fmt.Sprintf("; rose by more than the threshold of %s a month with the model (model-changed)", usd(cc.ThresholdUSD))
	}
	if cc.Note != "" {
		line += "; " + cc.Note
	}
	return line
}

func usd(v float64) string { return fmt.Sprintf("$%s", thousands(v)) }

func signedUSD(v float64) string {
	switch {
	case v > 0.004:
		return "+" + usd(v)
	case v < -0.004:
		return "−" + usd(-v)
	}
	return "±$0"
}

// thousands formats v with two decimals and comma thousands separators.
func thousands(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	intPart, frac, _ := strings.Cut(s, ".")
	neg := strings.HasPrefix(intPart, "-")
	intPart = strings.TrimPrefix(intPart, "-")
	var b strings.Builder
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	out := b.String() + "." + frac
	if neg {
		out = "-" + out
	}
	return out
}

// Ordered returns the pattern changes most important first: regressions, then improvements, added,
// removed and unchanged patterns, each in design order. Renderers list them so.
func (c *Comparison) Ordered() []PatternChange {
	rank := map[Change]int{Regression: 0, ModelChanged: 1, TradeOff: 2, Improvement: 3, Added: 4, Removed: 5, Unchanged: 6}
	out := slices.Clone(c.Patterns)
	slices.SortStableFunc(out, func(a, b PatternChange) int { return rank[a.Change] - rank[b.Change] })
	return out
}

// Of returns the change of pattern id, nil when the comparison has none.
func (c *Comparison) Of(id string) *PatternChange {
	if c == nil {
		return nil
	}
	for i := range c.Patterns {
		if c.Patterns[i].ID == id {
			return &c.Patterns[i]
		}
	}
	return nil
}

// diffDesign lists what changed in the design between two reports, from their design summaries and
// pattern definitions.
func diffDesign(old, new *Report) []string {
	out := []string{}
	if old.Design.Fingerprint != "" && old.Design.Fingerprint == new.Design.Fingerprint {
		return out
	}
	if old.Design.Name != new.Design.Name {
		out = append(out, fmt.Sprintf("design renamed from %s to %s", old.Design.Name, new.Design.Name))
	}
	if old.Design.StorageGB != new.Design.StorageGB {
		out = append(out, fmt.Sprintf("production storage (scale.storageGB) changed from %s to %s", gb(old.Design.StorageGB), gb(new.Design.StorageGB)))
	}
	oc := map[string]ContainerSummary{}
	for _, c := range old.Design.Containers {
		oc[c.Name] = c
	}
	nc := map[string]bool{}
	for _, c := range new.Design.Containers {
		nc[c.Name] = true
		o, ok := oc[c.Name]
		if !ok {
			out = append(out, fmt.Sprintf("container %s added", c.Name))
			continue
		}
		pre := "container " + c.Name + ": "
		if !slices.Equal(o.PartitionKey, c.PartitionKey) {
			out = append(out, pre+fmt.Sprintf("partition key changed from %s to %s", strings.Join(o.PartitionKey, ", "), strings.Join(c.PartitionKey, ", ")))
		}
		if o.Throughput != c.Throughput {
			out = append(out, pre+fmt.Sprintf("throughput changed from %s to %s", o.Throughput, c.Throughput))
		}
		if o.Indexing.Mode != c.Indexing.Mode {
			out = append(out, pre+fmt.Sprintf("indexing mode changed from %s to %s", o.Indexing.Mode, c.Indexing.Mode))
		}
		out = append(out, setDiff(pre+"included path", o.Indexing.Included, c.Indexing.Included)...)
		out = append(out, setDiff(pre+"excluded path", o.Indexing.Excluded, c.Indexing.Excluded)...)
		out = append(out, setDiff(pre+"composite index", o.Indexing.Composite, c.Indexing.Composite)...)
		out = append(out, setDiff(pre+"unique key", o.UniqueKeys, c.UniqueKeys)...)
		if ttl(o.DefaultTTL) != ttl(c.DefaultTTL) {
			out = append(out, pre+fmt.Sprintf("default TTL changed from %s to %s", ttl(o.DefaultTTL), ttl(c.DefaultTTL)))
		}
		if o.StorageGB != c.StorageGB {
			out = append(out, pre+fmt.Sprintf("production storage changed from %s to %s", gb(o.StorageGB), gb(c.StorageGB)))
		}
		out = append(out, diffDocuments(pre, o.Documents, c.Documents)...)
	}
	for _, c := range old.Design.Containers {
		if !nc[c.Name] {
			out = append(out, fmt.Sprintf("container %s removed", c.Name))
		}
	}
	op := map[string]*PatternResult{}
	for i := range old.Patterns {
		op[old.Patterns[i].ID] = &old.Patterns[i]
	}
	for _, n := range new.Patterns {
		o, ok := op[n.ID]
		if !ok {
			continue // reported as an added pattern
		}
		pre := "pattern " + n.ID + ": "
		if o.Container != n.Container {
			out = append(out, pre+fmt.Sprintf("container changed from %s to %s", o.Container, n.Container))
		}
		if o.Op != n.Op {
			out = append(out, pre+fmt.Sprintf("operation changed from %s to %s", o.Op, n.Op))
		}
		if o.Query != n.Query {
			out = append(out, pre+fmt.Sprintf("query changed from %q to %q", o.Query, n.Query))
		}
		if !slices.Equal(o.PartitionKey, n.PartitionKey) {
			out = append(out, pre+fmt.Sprintf("partition key changed from [%s] to [%s]", strings.Join(o.PartitionKey, ", "), strings.Join(n.PartitionKey, ", ")))
		}
		if o.Estimate != n.Estimate {
			out = append(out, pre+fmt.Sprintf("estimate changed from %s to %s RU", fmtRU(o.Estimate), fmtRU(n.Estimate)))
		}
	}
	return out
}

// diffDocuments names the document types added and removed, and per type the fields added and
// removed (with the type's seeded document size on both sides, which the field moved), and the
// seeded and production counts that changed. A baseline written before types were recorded has
// none, and nothing is said.
func diffDocuments(pre string, old, new []DocumentSummary) []string {
	if len(old) == 0 {
		return nil
	}
	var out []string
	ob := map[string]DocumentSummary{}
	for _, d := range old {
		ob[d.Type] = d
	}
	seen := map[string]bool{}
	for _, n := range new {
		seen[n.Type] = true
		o, ok := ob[n.Type]
		if !ok {
			out = append(out, pre+fmt.Sprintf("document type %s added (%s%s)", n.Type, design.Count(len(n.Fields), "field"), sizeWords(n.Bytes)))
			continue
		}
		tpre := pre + "type " + n.Type + ": "
		var added, removed []string
		for _, f := range n.Fields {
			if !slices.Contains(o.Fields, f) {
				added = append(added, f)
			}
		}
		for _, f := range o.Fields {
			if !slices.Contains(n.Fields, f) {
				removed = append(removed, f)
			}
		}
		size := ""
		if (len(added) > 0 || len(removed) > 0) && o.Bytes > 0 && n.Bytes > 0 {
			size = fmt.Sprintf(" (documents %s → %s bytes, %+.0f)", fmtCount(o.Bytes), fmtCount(n.Bytes), n.Bytes-o.Bytes)
		}
		if len(added) > 0 {
			out = append(out, tpre+fmt.Sprintf("%s added: %s%s", plural(len(added), "field", "fields"), strings.Join(added, ", "), size))
			size = ""
		}
		if len(removed) > 0 {
			out = append(out, tpre+fmt.Sprintf("%s removed: %s%s", plural(len(removed), "field", "fields"), strings.Join(removed, ", "), size))
		}
		if len(added) == 0 && len(removed) == 0 && o.Bytes > 0 && n.Bytes > 0 && math.Abs(n.Bytes-o.Bytes) >= math.Max(16, 0.05*o.Bytes) {
			out = append(out, tpre+fmt.Sprintf("seeded documents changed size from %s to %s bytes", fmtCount(o.Bytes), fmtCount(n.Bytes)))
		}
		if o.Seeded != n.Seeded {
			out = append(out, tpre+fmt.Sprintf("seeded count changed from %s to %s", fmtCount(float64(o.Seeded)), fmtCount(float64(n.Seeded))))
		}
		if o.Production != n.Production {
			out = append(out, tpre+fmt.Sprintf("production count changed from %s to %s", countOrUnset(o.Production), countOrUnset(n.Production)))
		}
	}
	for _, o := range old {
		if !seen[o.Type] {
			out = append(out, pre+fmt.Sprintf("document type %s removed", o.Type))
		}
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func sizeWords(bytes float64) string {
	if bytes <= 0 {
		return ""
	}
	return fmt.Sprintf(", documents of %s bytes", fmtCount(bytes))
}

func countOrUnset(v float64) string {
	if v == 0 {
		return "not stated"
	}
	return fmtCount(v)
}

// fmtCount writes a count with thousands separators: 30,000,000.
func fmtCount(v float64) string {
	s := thousands(math.Round(v))
	return strings.TrimSuffix(s, ".00")
}

func gb(v float64) string {
	if v == 0 {
		return "not stated"
	}
	return fmt.Sprintf("%g GB", v)
}

func setDiff(what string, old, new []string) []string {
	var out []string
	for _, n := range new {
		if !slices.Contains(old, n) {
			out = append(out, fmt.Sprintf("%s added: %s", what, n))
		}
	}
	for _, o := range old {
		if !slices.Contains(new, o) {
			out = append(out, fmt.Sprintf("%s removed: %s", what, o))
		}
	}
	return out
}

func ttl(v *int) string {
	if v == nil {
		return "off"
	}
	return fmt.Sprint(*v)
}
