package probe

import (
	"math"
	"slices"

	"github.com/cosmosdv/validate/internal/record"
)

// Stable medians. With skewed keys (zipf) a pattern's charge depends on which key an execution
// draws, and 20 executions move the median by half between runs. The probe therefore keeps sampling
// a pattern past its minimum until the median is known to ±MedianPrecision (its 95% confidence
// interval from the order statistics, which assumes nothing about the distribution), and stops at
// the bound whatever the interval.

// MedianPrecision is the half-width of the median's 95% confidence interval, relative to the median,
// that ends the sampling of a pattern.
const MedianPrecision = 0.05

// DefaultMaxSamplesFactor bounds the executions of a pattern: this many times its minimum count when
// Options.MaxSamples is 0.
const DefaultMaxSamplesFactor = 10

// ParamReservoir is how many seeded documents per type the seeding stage keeps for the probe to
// draw parameters from. The draws can be no more representative than the reservoir: with skewed keys
// a reservoir of 64 holds the large keys' share ± 6 points, enough to move a median from one mode to
// another between seeds. 1,024 keeps every document of most example types.
const ParamReservoir = 1024

// settleStep is how many executions the probe adds between checks of the interval.
const settleStep = 10

// medianInterval returns the median of xs and the bounds of its 95% confidence interval: the order
// statistics at n/2 ∓ 1.96·√n/2 (the binomial's normal approximation), clamped to the sample.
func medianInterval(xs []float64) (median, lo, hi float64) {
	n := len(xs)
	if n == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n%2 == 1 {
		median = s[n/2]
	} else {
		median = (s[n/2-1] + s[n/2]) / 2
	}
	half := 1.96 * math.Sqrt(float64(n)) / 2
	l := max(int(math.Floor(float64(n)/2-half)), 0)
	u := min(int(math.Ceil(float64(n)/2+half)), n-1)
	return median, s[l], s[u]
}

// medianSettled reports whether the charges of the successful executions have a median whose
// interval lies within ±MedianPrecision of it. A pattern whose executions all fail, or that charges
// nothing, is settled: more executions would not tell more.
func medianSettled(exs []record.Execution) bool {
	rus := make([]float64, 0, len(exs))
	for _, ex := range exs {
		if ex.Error == "" && ex.RU > 0 {
			rus = append(rus, ex.RU)
		}
	}
	if len(rus) < 2 {
		return true
	}
	m, lo, hi := medianInterval(rus)
	if m <= 0 {
		return true
	}
	return m-lo <= MedianPrecision*m && hi-m <= MedianPrecision*m
}

// wantMore reports whether pattern executions exs (min the minimum count, max the bound) need more
// executions, checked every settleStep executions past the minimum.
func wantMore(exs []record.Execution, minN, maxN int) bool {
	n := len(exs)
	switch {
	case n < minN:
		return true
	case n >= maxN:
		return false
	case (n-minN)%settleStep != 0:
		return true
	}
	return !medianSettled(exs)
}
