package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/record"
)

// The estimator check puts the one estimator's facts for a query at the seeded scale beside the
// facts the engine reported for the executions of the same query, as EXPLAIN ANALYZE puts a
// planner's estimated rows beside the rows a plan produced. Where they disagree, the report says
// so as a finding against the model, with both sets of facts; nothing is scaled to hide it.

// CheckTolerance is how far an executed fact may be from the estimate and still agree: 10% of the
// larger of the two, and never less than one item (or one KB for a byte total), since an estimate
// is an expected value and a count a whole number.
const CheckTolerance = 0.10

// A fact also agrees within SampleErrors standard errors of the executions' mean: the executions
// draw their keys and values from the seeded documents, so their mean is itself an estimate whose
// spread shrinks with their number (σ/√n). Two standard errors hold about 95% of such means
// (the normal approximation of the central limit theorem, assumed from MinSampled executions on;
// below that the spread is not estimated and only CheckTolerance applies). A model that is wrong
// stays outside as the executions grow; a sample that drew a few large tenants does not.
const (
	SampleErrors = 2.0
	MinSampled   = 10
)

// EstimatorCheck is one query's estimated facts beside its executed ones.
type EstimatorCheck struct {
	// Run is the run whose executions were compared ("modeled", or "measured" when that target
	// reports facts, as `validate serve` does).
	Run string `json:"run"`
	// Executions is how many executions reported facts; the executed figure is their mean.
	Executions int         `json:"executions"`
	Facts      []FactCheck `json:"facts"`
	// Agree is true when every fact is within CheckTolerance.
	Agree bool `json:"agree"`
	// EstimatedRU is what the estimator's facts cost at the seeded scale; ExecutedRU the mean
	// charge of the executions compared: what a disagreement of facts comes to in RU.
	EstimatedRU float64 `json:"estimatedRU"`
	ExecutedRU  float64 `json:"executedRU"`
}

// FactCheck is one fact, estimated and executed.
type FactCheck struct {
	Name      string  `json:"name"`
	Estimated float64 `json:"estimated"`
	Executed  float64 `json:"executed"`
	// StdErr is the standard error of Executed (the executions' standard deviation ÷ √n), 0 below
	// MinSampled executions.
	StdErr float64 `json:"stdErr,omitempty"`
	Agree  bool    `json:"agree"`
	// BySampling is set when the fact agrees only within SampleErrors standard errors.
	BySampling bool `json:"bySampling,omitempty"`
}

// checkEstimator compares the estimator's seeded facts of pattern pj with the facts pat's
// executions reported; nil when either side has none.
func checkEstimator(run string, pj *record.Projection, ok []record.Execution) *EstimatorCheck {
	if pj == nil || len(pj.Estimated) == 0 {
		return nil
	}
	var withFacts []map[string]float64
	ru := 0.0
	for _, e := range ok {
		if e.Facts != nil {
			withFacts = append(withFacts, e.Facts)
			ru += e.RU
		}
	}
	if len(withFacts) == 0 {
		return nil
	}
	ec := &EstimatorCheck{Run: run, Executions: len(withFacts), Agree: true,
		EstimatedRU: round2(pj.SeededRU), ExecutedRU: round2(ru / float64(len(withFacts)))}
	for _, name := range factOrder(pj.Estimated) {
		// The estimator gives expected values (the generators' distributions averaged), so the
		// executions' mean is what it is checked against: a median would hold an expected count
		// of 1.8 reviews a product against the 0 of most products under a skewed distribution.
		n := float64(len(withFacts))
		mean := 0.0
		for _, f := range withFacts {
			mean += f[name]
		}
		mean /= n
		se := 0.0
		if len(withFacts) >= MinSampled {
			ss := 0.0
			for _, f := range withFacts {
				ss += (f[name] - mean) * (f[name] - mean)
			}
			se = math.Sqrt(ss/(n-1)) / math.Sqrt(n)
		}
		est := pj.Estimated[name]
		fc := FactCheck{Name: name, Estimated: round2(est), Executed: round2(mean), StdErr: round2(se), Agree: factsAgree(name, est, mean)}
		if !fc.Agree && math.Abs(est-mean) <= SampleErrors*se {
			fc.Agree, fc.BySampling = true, true
		}
		ec.Agree = ec.Agree && fc.Agree
		ec.Facts = append(ec.Facts, fc)
	}
	return ec
}

// factOrder is the names of facts in the order the engine reports them (cost.FactNames, which the
// estimate was made from); the record carries them as a map.
func factOrder(m map[string]float64) []string {
	var out []string
	for _, n := range cost.FactNames {
		if _, ok := m[n]; ok {
			out = append(out, n)
		}
	}
	return out
}

// factsAgree applies CheckTolerance.
func factsAgree(name string, est, exe float64) bool {
	slack := 1.0
	if strings.HasPrefix(name, "bytes") {
		slack = 1024
	}
	return math.Abs(est-exe) <= math.Max(CheckTolerance*math.Max(est, exe), slack)
}

// estimatorHead says how to read the estimator check.
const estimatorHead = "not a verdict: a check of the model against itself. For each query, the facts the one estimator predicts at the seeded scale beside the mean of what the engine did in the executions (estimated | executed), and what each comes to in RU; ✗ marks a fact more than 10% (and more than one item or 1 KB) off and outside two standard errors of that mean (±, shown where it decides: the executions sample keys and values, so their mean has a spread of its own). A disagreement is a finding against the model, not against the design, and changes no verdict or exit code"

// estimatorLines are the estimator check of every query, disagreements first, for the renderers.
func estimatorLines(r *Report) []string {
	var off, ok []string
	for _, p := range r.Patterns {
		ec := p.EstimatorCheck
		if ec == nil {
			continue
		}
		var parts, bad []string
		for _, f := range ec.Facts {
			if f.Estimated == 0 && f.Executed == 0 {
				continue
			}
			cell := fmt.Sprintf("%s %s | %s", f.Name, factNum(f.Name, f.Estimated), factNum(f.Name, f.Executed))
			if f.BySampling || (!f.Agree && f.StdErr > 0) {
				cell += " ±" + factNum(f.Name, SampleErrors*f.StdErr)
			}
			if !f.Agree {
				cell += " ✗"
				bad = append(bad, f.Name)
			}
			parts = append(parts, cell)
		}
		ru := fmt.Sprintf("%s | %s RU", fmtRU(ec.EstimatedRU), fmtRU(ec.ExecutedRU))
		if ec.Agree {
			how := "agrees"
			for _, f := range ec.Facts {
				if f.BySampling {
					how = fmt.Sprintf("agrees within the sampling error of %d executions", ec.Executions)
				}
			}
			ok = append(ok, fmt.Sprintf("%s %s: %s (%s) — %s", p.ID, p.Name, how, ru, strings.Join(parts, ", ")))
			continue
		}
		off = append(off, fmt.Sprintf("%s %s: the estimate misses the execution on %s (%s; mean of %d executions) — %s",
			p.ID, p.Name, strings.Join(bad, ", "), ru, ec.Executions, strings.Join(parts, ", ")))
	}
	return append(off, ok...)
}

// factNum prints a fact: bytes in KB, counts with at most one decimal.
func factNum(name string, v float64) string {
	if strings.HasPrefix(name, "bytes") {
		return fmt.Sprintf("%.1f KB", v/1024)
	}
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// DisputedShare is how far apart the estimator's and the executions' charges at the seeded scale
// may be before a verdict on the production figure says it rests on a disputed figure: the ±15%
// the estimator is held to against executions at scale (TestEstimatorMatchesExecutionAtScale).
const DisputedShare = 0.15

// disputedReason says that a verdict judged on the production figure rests on a figure the
// executions dispute: the estimator, which gives the production figure, misses the executions'
// facts at the seeded scale and their charge by more than DisputedShare. "" otherwise.
func disputedReason(c *Charge, ec *EstimatorCheck) string {
	if c == nil || c.VerdictOn != VerdictOnProjected || ec == nil || ec.Agree || ec.ExecutedRU <= 0 {
		return ""
	}
	if math.Abs(ec.EstimatedRU-ec.ExecutedRU) <= DisputedShare*ec.ExecutedRU {
		return ""
	}
	return fmt.Sprintf("the verdict rests on a disputed figure: the production figure is the estimator's, and at the seeded scale "+
		"its facts cost %s RU where the executions cost %s RU (Estimator check)", fmtRU(ec.EstimatedRU), fmtRU(ec.ExecutedRU))
}
