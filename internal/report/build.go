package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/record"
)

// Build computes the verdict of every access pattern of in.Design from the runs. It never fails:
// missing runs or patterns become error verdicts with their reason.
//
// Rules (docs/report-format.md has the long form):
//   - The figure compared with the estimate is the median charge of a run's successful executions.
//   - The band is max(RU, Pct% of the estimate); "emulator-indicative" measured charges get
//     IndicativeFactor times the band; "emulator-placeholder" charges never carry a verdict.
//   - error: an execution failed with a status the design did not expect, or nothing was probed.
//   - fail: an expectation failed, or every verdict-bearing figure lies outside its band, or the
//     "service" figure does (the service is ground truth).
//   - warn: figures disagree (one within, one outside), a figure within its band is beyond
//     CloseFraction of it, or the measured charges are placeholders.
func Build(in Input) *Report {
	opts := in.Options
	if opts.CloseFraction <= 0 {
		opts.CloseFraction = DefaultCloseFraction
	}
	if opts.IndicativeFactor <= 0 {
		opts.IndicativeFactor = DefaultIndicativeFactor
	}
	d := in.Design
	if d == nil {
		d = &design.Design{}
	}

	modelRun, measRun := in.Modeled, in.Measured
	if modelRun == nil && measRun != nil && measRun.Target.ChargeSource == record.ChargeModel {
		modelRun = measRun
	}
	if measRun == modelRun || (measRun != nil && measRun.Target.ChargeSource == record.ChargeModel) {
		// One run whose charges are modeled: never show them a second time as measured.
		measRun = nil
	}

	r := &Report{
		SchemaVersion: SchemaVersion,
		Tool:          Tool{Name: "validate", Version: in.Version, RateCard: in.RateCard},
		ModelCard:     in.ModelCard,
		Started:       in.Started.UTC(),
		DurationMs:    in.Duration.Milliseconds(),
		Design:        summarizeDesign(d),
		Tolerance:     baseTolerance(opts),
		Patterns:      []PatternResult{},
		Containers:    []ContainerLoad{},
	}
	if in.Started.IsZero() {
		r.Started = in.Started
	}
	primary := in.Measured
	if primary == nil {
		primary = modelRun
	}
	if primary != nil {
		r.Target = primary.Target
		r.Seed = primary.Seed
		r.Samples = primary.Samples
		r.StageFindings = primary.Findings
		r.Seeding = primary.Seeding
		documentBytes(&r.Design, primary.Seeding)
	}
	if primary != nil && primary != modelRun && modelRun != nil {
		for _, f := range modelRun.Findings {
			f.Subject = "modeled run: " + f.Subject
			r.StageFindings = append(r.StageFindings, f)
		}
	}

	projBy := projectionsByID(modelRun, measRun)
	var measSource record.ChargeSource
	if measRun != nil {
		measSource = measRun.Target.ChargeSource
	}
	j := &judge{d: d, opts: opts, proj: projBy, unknown: in.UnknownFields, review: in.Review}
	if modelRun != nil {
		j.runs = append(j.runs, runView{"modeled", record.ChargeModel, patternsByID(modelRun)})
	}
	if measRun != nil {
		j.runs = append(j.runs, runView{"measured", measSource, patternsByID(measRun)})
	}

	var ran map[string]bool
	if in.Incomplete != "" && primary != nil {
		// An interrupted run reports what completed: a pattern it never reached has no verdict.
		r.Incomplete = in.Incomplete
		ran = patternIDs(primary)
	}
	for i := range d.AccessPatterns {
		if ran != nil && !ran[d.AccessPatterns[i].ID] {
			continue
		}
		r.Patterns = append(r.Patterns, j.evaluate(&d.AccessPatterns[i]))
	}
	throttleFrom(r, primary)
	accountFacts(r, d, measRun, modelRun)
	r.Containers = containerLoads(d, r.Patterns, measSource)
	r.Summary = summarize(r.Patterns, modelRun != nil, measRun != nil, measSource)
	if modelRun != nil && measRun == nil && modelRun.Target.Kind != record.KindEmbedded {
		r.Summary.Basis = "modeled charges only (validate serve)" // a serve's run is the modeled one
	}
	r.Summary.Basis += scaleBasis(r.Patterns)
	if primary != nil {
		for _, m := range in.DesignReview {
			r.StageFindings = append(slices.Clip(r.StageFindings), record.Finding{Stage: StageReview, Level: LevelWarn, Subject: "design", Message: "lint: " + m})
		}
		capacity := capacityFindings(d, r.Containers, in.Capacity)
		r.StageFindings = append(slices.Clip(r.StageFindings), capacity...)
		if len(capacity) > 0 {
			r.Summary.Verdict = worse(r.Summary.Verdict, Fail)
		}
	}
	return r
}

func patternsByID(run *record.Run) map[string]*record.Pattern {
	if run == nil {
		return nil
	}
	m := make(map[string]*record.Pattern, len(run.Patterns))
	for i := range run.Patterns {
		m[run.Patterns[i].ID] = &run.Patterns[i]
	}
	return m
}

// baseTolerance is the default band set after the global options.
func baseTolerance(opts Options) ToleranceSet {
	t := ToleranceSet{Point: DefaultPointBand, Query: DefaultQueryBand}
	if opts.PointPct > 0 {
		t.Point.Pct = opts.PointPct
	}
	if opts.QueryPct > 0 {
		t.Query.Pct = opts.QueryPct
	}
	if opts.MinRU > 0 {
		t.Point.RU, t.Query.RU = opts.MinRU, opts.MinRU
	}
	return t
}

// tolerance resolves the band of one pattern: defaults, changed field by field by the options; then
// the design's band and the pattern's band, each replacing the one below it as a whole.
func tolerance(d *design.Design, ap *design.AccessPattern, opts Options) (design.Band, string) {
	base := baseTolerance(opts)
	band, from := base.Point, "default"
	if ap.Op == design.OpQuery {
		band = base.Query
		if opts.QueryPct > 0 || opts.MinRU > 0 {
			from = "options"
		}
	} else if opts.PointPct > 0 || opts.MinRU > 0 {
		from = "options"
	}
	if d.Tolerance != nil {
		b := d.Tolerance.Point
		if ap.Op == design.OpQuery {
			b = d.Tolerance.Query
		}
		if b != nil {
			band, from = *b, "design"
		}
	}
	if ap.Tolerance != nil {
		band, from = *ap.Tolerance, "pattern"
	}
	return band, from
}

// bandRU is the absolute width of a band around an estimate.
func bandRU(b design.Band, estimate float64) float64 {
	return math.Max(b.RU, math.Abs(estimate)*b.Pct/100)
}

// expectedStatus reports whether an execution ended the way the design expects.
func expectedStatus(ap *design.AccessPattern, e *record.Execution) bool {
	if ap.Expect != nil && ap.Expect.Status != 0 {
		return e.Status == ap.Expect.Status
	}
	return e.Error == "" && (e.Status == 0 || e.Status < 400)
}

// okExecutions returns the executions that ended as expected.
func okExecutions(ap *design.AccessPattern, p *record.Pattern) []record.Execution {
	var out []record.Execution
	for _, e := range p.Executions {
		if expectedStatus(ap, &e) {
			out = append(out, e)
		}
	}
	return out
}

// judge holds what every pattern of a design is judged against: the runs that were made, modeled
// first, and the tolerance options.
type judge struct {
	d    *design.Design
	opts Options
	runs []runView
	proj map[string]*record.Projection // the patterns' production-scale projections, by ID
	// unknown are lint's unknown-field findings of each pattern's query, by ID (Input.UnknownFields).
	unknown map[string][]string
	// review are lint's design-review findings of each pattern, by ID (Input.Review).
	review map[string][]string
}

// runView is one run as the judge sees it: its role, the source of its charges, its patterns by ID.
type runView struct {
	name   string // "modeled" or "measured"
	source record.ChargeSource
	byID   map[string]*record.Pattern
}

// observed is what the runs of one pattern showed, before the verdict: reasons for an error verdict,
// reasons for a failed expectation, the executions per run, and the pattern the shape figures
// (results, partitions, latency) come from (the measured run's when there is one).
type observed struct {
	errReasons, checkReasons []string
	totals                   map[string]int
	checksOn                 *record.Pattern
}

// evaluate judges one access pattern: what each run observed, the shape of its results, and the
// verdict from errors, expectations and charges, the worst of which wins.
func (j *judge) evaluate(ap *design.AccessPattern) PatternResult {
	pr, width := j.newResult(ap)
	if len(j.runs) == 0 {
		pr.Verdict = Error
		pr.Reasons = append(pr.Reasons, "no probe run to judge")
		return pr
	}
	obs := j.observe(ap, &pr, width)
	empty := 0 // successful executions of a query that found nothing in any of them
	for _, e := range pr.Errors {
		msg := fmt.Sprintf("%s run: %d of %d executions failed with status %d: %s", e.Run, e.Count,
			obs.totals[e.Run], e.Status, e.Message)
		if e.Explanation != "" {
			msg += " — " + e.Explanation
		}
		obs.errReasons = append(obs.errReasons, msg)
	}
	if obs.checksOn != nil {
		if pr.FanOut = fanOutOf(j.d, obs.checksOn, j.runs[len(j.runs)-1].source); pr.FanOut != nil {
			pr.Advice = append(pr.Advice, fanOutNote(pr.FanOut))
		}
		empty = describeShape(ap, &pr, obs.checksOn)
	}

	if len(obs.errReasons) > 0 {
		pr.Verdict = Error
		pr.Reasons = append(pr.Reasons, obs.errReasons...)
	}
	if len(obs.checkReasons) > 0 {
		pr.Verdict = worse(pr.Verdict, Fail)
		pr.Reasons = append(pr.Reasons, obs.checkReasons...)
	}
	v, reasons := chargeVerdict(ap, pr.Modeled, pr.Measured, j.opts)
	pr.Verdict = worse(pr.Verdict, v)
	pr.Reasons = append(pr.Reasons, reasons...)
	if r := disputedReason(pr.Modeled, pr.EstimatorCheck); r != "" {
		pr.Reasons = append(pr.Reasons, r)
	}
	// A query that names a field no document type has measures another query than the design means,
	// whatever it returned (a COUNT returns its 0): lint's finding, in lint's words, makes the
	// verdict at least warn, so run never passes what lint flags.
	if u := j.unknown[ap.ID]; len(u) > 0 {
		pr.Verdict = worse(pr.Verdict, Warn)
		for _, m := range u {
			pr.Reasons = append(pr.Reasons, "lint: "+m+": its charge is that of a query filtering on a field no seeded document has, not of the query the design means")
		}
	}
	// Lint's design review of the pattern (a key template reading another field, a filter no
	// document can match, a lost partition key, ...): run never passes what lint flags.
	if r := j.review[ap.ID]; len(r) > 0 {
		pr.Verdict = worse(pr.Verdict, Warn)
		for _, m := range r {
			pr.Reasons = append(pr.Reasons, "lint: "+m)
		}
	}
	if empty > 0 {
		pr.Verdict = worse(pr.Verdict, Warn)
		pr.Reasons = append(pr.Reasons, emptyReason(empty, len(j.unknown[ap.ID])+len(j.review[ap.ID]) > 0, ap))
	}
	return pr
}

// emptyReason says why a query that found nothing is a warning and what likely caused it: lint's
// findings above when it has any, else the mistakes that make a query find nothing.
func emptyReason(n int, linted bool, ap *design.AccessPattern) string {
	msg := fmt.Sprintf("the query returned no items in any of its %d successful executions, so its charge is not the charge of the query the design means", n)
	if linted {
		return msg + "; likely cause: lint's finding above"
	}
	from := "its parameters"
	if ap.Sample != "" {
		from = fmt.Sprintf("its parameters (drawn from a %s document)", ap.Sample)
	}
	return msg + fmt.Sprintf("; likely causes: a partitionKey template that reads another field than the container's key, %s not holding the values the filters compare with, or a filter on a value the generators never produce; if finding nothing is right, add expect: {maxResults: 0}", from)
}

// newResult is the pattern's result before any run is looked at, with the width of its band in RU.
func (j *judge) newResult(ap *design.AccessPattern) (PatternResult, float64) {
	band, from := tolerance(j.d, ap, j.opts)
	pr := PatternResult{
		ID:               ap.ID,
		Name:             ap.Name,
		Container:        ap.Container,
		Op:               ap.Op,
		Query:            ap.Query,
		PartitionKey:     ap.PartitionKey,
		RPS:              ap.RPS,
		Estimate:         round2(ap.Estimate.RU),
		DesignerMeasured: round2(ap.Estimate.Measured),
		Tolerance:        band,
		ToleranceFrom:    from,
		Regression:       ap.Regression,
		Verdict:          Pass,
		Reasons:          []string{},
		Projection:       j.proj[ap.ID],
	}
	return pr, bandRU(band, ap.Estimate.RU)
}

// observe goes through the runs of one pattern: errors grouped, expectations checked, advice
// merged, and the charge summarised (with its band, when its source carries a verdict).
func (j *judge) observe(ap *design.AccessPattern, pr *PatternResult, width float64) observed {
	obs := observed{totals: map[string]int{}}
	for _, rv := range j.runs {
		pat := rv.byID[ap.ID]
		if pat != nil {
			obs.totals[rv.name] = len(pat.Executions)
		}
		if pat == nil || len(pat.Executions) == 0 {
			obs.errReasons = append(obs.errReasons, fmt.Sprintf("%s run: pattern was not executed", rv.name))
			continue
		}
		if obs.checksOn == nil || rv.name == "measured" {
			obs.checksOn = pat
		}
		pr.Errors = append(pr.Errors, groupErrors(ap, rv.name, pat)...)
		checks := checkExpectations(ap, rv.name, pat)
		pr.Checks = append(pr.Checks, checks...)
		for _, c := range checks {
			if !c.OK {
				obs.checkReasons = append(obs.checkReasons, fmt.Sprintf("%s run: expectation %s not met: want %s, got %s", rv.name, c.Name, c.Want, c.Got))
			}
		}
		pr.Advice = mergeAdvice(pr.Advice, j.d, ap, pat)

		ok := okExecutions(ap, pat)
		if len(ok) == 0 {
			continue
		}
		c := summarizeCharge(rv.source, ok)
		c.CarriesVerdict = CarriesVerdict(rv.source)
		project(c, j.proj[ap.ID])
		if c.CarriesVerdict {
			c.Band = width
			if rv.source == record.ChargeEmulatorIndicative {
				c.Band = width * j.opts.IndicativeFactor
			}
			c.Band = round2(c.Band)
			c.Within = math.Abs(c.judged()-ap.Estimate.RU) <= c.Band+1e-9
		}
		if rv.name == "modeled" {
			pr.Modeled = c
		} else {
			pr.Measured = c
		}
		if ec := checkEstimator(rv.name, j.proj[ap.ID], ok); ec != nil && (pr.EstimatorCheck == nil || rv.name == "modeled") {
			pr.EstimatorCheck = ec
		}
	}
	return obs
}

// describeShape records the results, partitions and latency of the pattern's executions, and
// returns the successful executions of a query that never found anything (0 otherwise).
func describeShape(ap *design.AccessPattern, pr *PatternResult, pat *record.Pattern) int {
	pr.Results, pr.Partitions = ranges(pat)
	pr.LatencyMs = medianLatencyMs(pat)
	// A query that never finds anything measures another query than the one the design means, and
	// says so nowhere else unless the design expects a number of results: a warning (emptyReason).
	noExpectation := ap.Expect == nil || (ap.Expect.MinResults == nil && ap.Expect.MaxResults == nil && ap.Expect.Status == 0)
	if ok := okExecutions(ap, pat); ap.Op == design.OpQuery && noExpectation && len(ok) > 0 && pr.Results.Max == 0 {
		return len(ok)
	}
	return 0
}

// chargeVerdict compares the verdict-bearing figures with the estimate.
func chargeVerdict(ap *design.AccessPattern, modeled, measured *Charge, opts Options) (Verdict, []string) {
	est := ap.Estimate.RU
	describe := func(c *Charge) string {
		dir := "above"
		if c.Delta < 0 {
			dir = "below"
		}
		return fmt.Sprintf("%s %s %s is %s RU %s the estimate %s RU (tolerance ±%s RU)",
			SourceLabel(c.Source), c.judgedName(), c.judgedWords(), fmtRU(math.Abs(c.Delta)), dir, fmtRU(est), fmtRU(c.Band))
	}
	var bearing []*Charge
	var reasons []string
	for _, c := range []*Charge{modeled, measured} {
		if c == nil {
			continue
		}
		c.Delta = round2(c.judged() - est)
		if c.CarriesVerdict {
			bearing = append(bearing, c)
		}
	}
	if measured != nil && !measured.CarriesVerdict {
		rest := "the charge verdict rests on the modeled figure"
		if modeled == nil {
			rest = "with no modeled figure either, the charge was not judged"
		}
		reasons = append(reasons, fmt.Sprintf("measured charges are %s (%s RU) and carry no verdict; %s",
			SourceLabel(measured.Source), fmtRU(measured.Median), rest))
	}
	if len(bearing) == 0 {
		if measured != nil {
			// Only placeholder charges: nothing was judged, which is not a pass.
			return Warn, reasons
		}
		return Pass, reasons
	}
	var outside, inside []*Charge
	for _, c := range bearing {
		if c.Within {
			inside = append(inside, c)
		} else {
			outside = append(outside, c)
		}
	}
	v := Pass
	switch {
	case len(inside) == 0:
		v = Fail
		for _, c := range outside {
			reasons = append(reasons, describe(c))
		}
	case len(outside) > 0:
		// The figures disagree. The service is ground truth; otherwise the disagreement is a warning.
		v = Warn
		for _, c := range outside {
			if c.Source == record.ChargeService {
				v = Fail
			}
		}
		for _, c := range outside {
			reasons = append(reasons, describe(c))
		}
		for _, c := range inside {
			reasons = append(reasons, fmt.Sprintf("%s %s %s RU is within the tolerance, so the figures disagree", SourceLabel(c.Source), c.judgedName(), fmtRU(c.judged())))
		}
	default:
		for _, c := range inside {
			if c.Band > 0 && math.Abs(c.Delta) > opts.CloseFraction*c.Band {
				v = Warn
				reasons = append(reasons, fmt.Sprintf("%s %s %s RU is within the tolerance but uses %.0f%% of it (estimate %s ± %s RU)",
					SourceLabel(c.Source), c.judgedName(), fmtRU(c.judged()), 100*math.Abs(c.Delta)/c.Band, fmtRU(est), fmtRU(c.Band)))
			}
		}
	}
	if measured != nil && !measured.CarriesVerdict && v == Pass {
		v = Warn
	}
	for _, c := range bearing {
		if r, ok := insideRuleBand(c, est); ok {
			reasons = append(reasons, r)
			break
		}
	}
	return v, reasons
}

// summarizeCharge computes median, p95 and the rest over executions.
// patternIDs is the set of the patterns a run holds.
func patternIDs(run *record.Run) map[string]bool {
	out := map[string]bool{}
	for _, p := range run.Patterns {
		out[p.ID] = true
	}
	return out
}

func summarizeCharge(source record.ChargeSource, execs []record.Execution) *Charge {
	vals := make([]float64, len(execs))
	sum := 0.0
	for i, e := range execs {
		vals[i] = e.RU
		sum += e.RU
	}
	sort.Float64s(vals)
	return &Charge{
		Source:  source,
		Samples: len(vals),
		Median:  round2(median(vals)),
		P95:     round2(percentile(vals, 95)),
		Min:     round2(vals[0]),
		Max:     round2(vals[len(vals)-1]),
		Mean:    round2(sum / float64(len(vals))),
	}
}

// median of sorted values; the mean of the middle two for an even count.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// percentile of sorted values by the nearest-rank method.
func percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(n)))
	rank = min(max(rank, 1), n)
	return sorted[rank-1]
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// fmtRU formats a charge with at most two decimals and no trailing zeros.
func fmtRU(v float64) string {
	s := fmt.Sprintf("%.2f", round2(v))
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

func groupErrors(ap *design.AccessPattern, run string, p *record.Pattern) []ExecError {
	var out []ExecError
	for _, e := range p.Executions {
		if expectedStatus(ap, &e) {
			continue
		}
		// An unexpected status without an error message is judged by the status check instead.
		if e.Error == "" && ap.Expect != nil && ap.Expect.Status != 0 {
			continue
		}
		msg := e.Error
		if msg == "" {
			msg = fmt.Sprintf("status %d", e.Status)
		}
		found := false
		for i := range out {
			if out[i].Status == e.Status && out[i].Message == msg {
				out[i].Count++
				found = true
				break
			}
		}
		if !found {
			out = append(out, ExecError{Run: run, Status: e.Status, Count: 1, Message: msg, Explanation: e.Explanation})
		}
	}
	return out
}

func checkExpectations(ap *design.AccessPattern, run string, p *record.Pattern) []Check {
	x := ap.Expect
	if x == nil {
		return nil
	}
	var out []Check
	n := len(p.Executions)
	countBad := func(bad func(e *record.Execution) bool) int {
		c := 0
		for i := range p.Executions {
			if bad(&p.Executions[i]) {
				c++
			}
		}
		return c
	}
	gotText := func(bad int, worst string) string {
		if bad == 0 {
			return fmt.Sprintf("met by all %d executions", n)
		}
		return fmt.Sprintf("%s in %d of %d executions", worst, bad, n)
	}
	if x.SinglePartition != nil && *x.SinglePartition {
		bad := countBad(func(e *record.Execution) bool { return e.Partitions > 1 })
		_, parts := ranges(p)
		out = append(out, Check{Name: "singlePartition", Run: run, Want: "one partition per execution",
			Got: gotText(bad, fmt.Sprintf("up to %d partitions", parts.Max)), OK: bad == 0})
	}
	if x.MinResults != nil {
		bad := countBad(func(e *record.Execution) bool { return e.Results < *x.MinResults })
		res, _ := ranges(p)
		out = append(out, Check{Name: "minResults", Run: run, Want: fmt.Sprintf("at least %d results per execution", *x.MinResults),
			Got: gotText(bad, fmt.Sprintf("as few as %d results", res.Min)), OK: bad == 0})
	}
	if x.MaxResults != nil {
		bad := countBad(func(e *record.Execution) bool { return e.Results > *x.MaxResults })
		res, _ := ranges(p)
		out = append(out, Check{Name: "maxResults", Run: run, Want: fmt.Sprintf("at most %d results per execution", *x.MaxResults),
			Got: gotText(bad, fmt.Sprintf("as many as %d results", res.Max)), OK: bad == 0})
	}
	if x.Status != 0 {
		var other []int
		bad := countBad(func(e *record.Execution) bool {
			if e.Status != x.Status {
				if !slices.Contains(other, e.Status) {
					other = append(other, e.Status)
				}
				return true
			}
			return false
		})
		out = append(out, Check{Name: "status", Run: run, Want: fmt.Sprintf("status %d in every execution", x.Status),
			Got: gotText(bad, "status "+joinInts(other)), OK: bad == 0})
	}
	return out
}

func ranges(p *record.Pattern) (results, partitions IntRange) {
	for i, e := range p.Executions {
		if i == 0 {
			results = IntRange{e.Results, e.Results}
			partitions = IntRange{e.Partitions, e.Partitions}
			continue
		}
		results.Min, results.Max = min(results.Min, e.Results), max(results.Max, e.Results)
		partitions.Min, partitions.Max = min(partitions.Min, e.Partitions), max(partitions.Max, e.Partitions)
	}
	return results, partitions
}

func medianLatencyMs(p *record.Pattern) float64 {
	vals := make([]float64, len(p.Executions))
	for i, e := range p.Executions {
		vals[i] = float64(e.Latency.Microseconds()) / 1000
	}
	sort.Float64s(vals)
	return round2(median(vals))
}

// mergeAdvice adds the index changes the target recommended for the pattern that the service would
// use (Suggestions), in the design's syntax.
func mergeAdvice(advice []string, d *design.Design, ap *design.AccessPattern, p *record.Pattern) []string {
	for _, s := range Suggestions(d, ap, p) {
		if !slices.Contains(advice, s.Text) {
			advice = append(advice, s.Text)
		}
	}
	return advice
}

func summarize(ps []PatternResult, haveModel, haveMeas bool, measSource record.ChargeSource) Summary {
	s := Summary{Patterns: len(ps), Verdict: Pass}
	for _, p := range ps {
		switch p.Verdict {
		case Pass:
			s.Pass++
		case Warn:
			s.Warn++
		case Fail:
			s.Fail++
		case Error:
			s.Error++
		}
		s.Verdict = worse(s.Verdict, p.Verdict)
	}
	switch {
	case haveMeas && CarriesVerdict(measSource):
		s.Basis = fmt.Sprintf("modeled and %s charges", SourceLabel(measSource))
		if !haveModel {
			s.Basis = SourceLabel(measSource) + " charges"
		}
	case haveMeas:
		s.Basis = fmt.Sprintf("modeled charges only: measured charges are %s", SourceLabel(measSource))
	case haveModel:
		s.Basis = "modeled charges only (embedded engine)"
	default:
		s.Basis = "no charges"
	}
	return s
}

func containerLoads(d *design.Design, ps []PatternResult, measSource record.ChargeSource) []ContainerLoad {
	var out []ContainerLoad
	for _, c := range d.Containers {
		cl := ContainerLoad{Name: c.Name, Throughput: throughputText(c.Throughput), Estimate: Load{Source: "estimate"}}
		// The production load's sums at the low (0) and the high (1) end of its queries' bands.
		type loadEnds struct {
			avg, peak [2]float64
			rules     []string
		}
		bands := map[*Load]loadEnds{}
		switch {
		case c.Throughput.AutoscaleMax > 0:
			cl.Provisioned = float64(c.Throughput.AutoscaleMax)
		case c.Throughput.Manual > 0:
			cl.Provisioned = float64(c.Throughput.Manual)
		case !c.Throughput.Serverless:
			cl.Provisioned = design.DefaultManualThroughput
		}
		for _, p := range ps {
			if p.Container != c.Name {
				continue
			}
			peak := p.RPS.Peak
			if peak == 0 {
				peak = p.RPS.Avg
			}
			add := func(l *Load, ru float64) {
				l.Avg += ru * p.RPS.Avg
				l.Peak += ru * peak
			}
			// A run's load sums each median twice: as seeded, and carried to production scale
			// (the projected median of a query judged there, the median of the rest); the second
			// also at the low and the high end of each production figure's band. The bands are
			// plan's (each computed once, by the estimator); the load is the run's own figure, so
			// its band is summed here from them, with record.Band.Ends as plan sums its own.
			addRun := func(l *Load, c *Charge) {
				add(l, c.Median)
				l.ProductionAvg += c.judged() * p.RPS.Avg
				l.ProductionPeak += c.judged() * peak
				if c.VerdictOn == VerdictOnProjected {
					l.Scale = VerdictOnProjected
				}
				ends := bands[l]
				at := [2]float64{c.judged(), c.judged()}
				if b := c.rules; b != nil && c.VerdictOn == VerdictOnProjected {
					at = b.Ends(c.judged())
					ends.rules = record.AddRules(ends.rules, b.RuleNames()...)
				}
				for i, ru := range at {
					ends.avg[i] += ru * p.RPS.Avg
					ends.peak[i] += ru * peak
				}
				bands[l] = ends
			}
			add(&cl.Estimate, p.Estimate)
			if p.Modeled != nil {
				if cl.Modeled == nil {
					cl.Modeled = &Load{Source: string(record.ChargeModel), Scale: VerdictOnSeeded}
				}
				addRun(cl.Modeled, p.Modeled)
			}
			if p.Measured != nil && CarriesVerdict(measSource) {
				if cl.Measured == nil {
					cl.Measured = &Load{Source: string(measSource), Scale: VerdictOnSeeded}
				}
				addRun(cl.Measured, p.Measured)
			}
		}
		for _, l := range []*Load{&cl.Estimate, cl.Modeled, cl.Measured} {
			if l == nil {
				continue
			}
			l.Avg, l.Peak = round2(l.Avg), round2(l.Peak)
			l.ProductionAvg, l.ProductionPeak = round2(l.ProductionAvg), round2(l.ProductionPeak)
			if l.Scale != VerdictOnProjected {
				l.ProductionAvg, l.ProductionPeak = 0, 0
				continue
			}
			e := bands[l]
			l.AvgBand = record.NewLoadRange(round2(e.avg[0]), round2(e.avg[1]), e.rules)
			l.PeakBand = record.NewLoadRange(round2(e.peak[0]), round2(e.peak[1]), e.rules)
		}
		out = append(out, cl)
	}
	return out
}

func throughputText(t design.Throughput) string {
	switch {
	case t.Serverless:
		return "serverless"
	case t.AutoscaleMax > 0:
		return fmt.Sprintf("autoscale %d", t.AutoscaleMax)
	case t.Manual > 0:
		return fmt.Sprintf("manual %d", t.Manual)
	}
	return fmt.Sprintf("manual %d", design.DefaultManualThroughput)
}

func summarizeDesign(d *design.Design) DesignSummary {
	s := DesignSummary{Name: d.Name, File: d.File, VariantOf: d.VariantOf, Fingerprint: d.Fingerprint(), Containers: []ContainerSummary{}, SDK: d.SDKName()}
	for _, c := range d.Containers {
		cs := ContainerSummary{
			Name:         c.Name,
			PartitionKey: c.PartitionKey,
			Throughput:   throughputText(c.Throughput),
			Indexing:     IndexingSummary{Mode: "consistent", Included: []string{"/*"}, Excluded: []string{}},
			DefaultTTL:   c.DefaultTTL,
		}
		if ix := c.Indexing; ix != nil {
			if ix.Mode != "" {
				cs.Indexing.Mode = ix.Mode
			}
			if len(ix.Included) > 0 {
				cs.Indexing.Included = slices.Clone(ix.Included)
			}
			cs.Indexing.Excluded = append([]string{}, ix.Excluded...)
			for _, comp := range ix.Composite {
				parts := make([]string, len(comp))
				for i, p := range comp {
					o := p.Order
					if o == "" {
						o = "asc"
					}
					parts[i] = p.Path + " " + o
				}
				cs.Indexing.Composite = append(cs.Indexing.Composite, strings.Join(parts, ", "))
			}
		}
		for _, uk := range c.UniqueKeys {
			cs.UniqueKeys = append(cs.UniqueKeys, strings.Join(uk, ", "))
		}
		cs.StorageGB = c.StorageGB
		for _, dt := range c.Documents {
			ds := DocumentSummary{Type: dt.Type, Fields: fieldPaths("", dt.Fields, nil), Production: dt.Production}
			if dt.Parent == nil {
				ds.Seeded = dt.Count
			}
			cs.Documents = append(cs.Documents, ds)
		}
		s.Containers = append(s.Containers, cs)
	}
	s.StorageGB = d.Scale.StorageGB
	return s
}

// fieldPaths lists the property paths a type's fields generate, nested objects as /a/b.
func fieldPaths(prefix string, fs design.Fields, out []string) []string {
	if out == nil {
		out = []string{}
	}
	for _, f := range fs {
		p := prefix + "/" + f.Name
		out = append(out, p)
		if len(f.Field.Object) > 0 {
			out = fieldPaths(p, f.Field.Object, out)
		}
	}
	return out
}

// documentBytes fills each document type's mean seeded size from the run's seeding.
func documentBytes(s *DesignSummary, seeding []record.SeedStat) {
	for i := range s.Containers {
		c := &s.Containers[i]
		for j := range c.Documents {
			for _, st := range seeding {
				if st.Container == c.Name && st.Type == c.Documents[j].Type && st.Documents > 0 {
					c.Documents[j].Bytes = math.Round(float64(st.Bytes) / float64(st.Documents))
				}
			}
		}
	}
}

func joinInts(vs []int) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, ", ")
}
