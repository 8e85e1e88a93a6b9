package cost

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
)

// fitRange is the range a fitted figure must fall in, as multiples of the built-in value: a figure
// outside it says the measurement went wrong (another account's charges, a throttled run, a
// profile edited by hand), not that the service charges so differently.
type fitRange struct{ lo, hi float64 }

var (
	publishedRange = fitRange{0.25, 4}  // a figure a document gives
	assumedRange   = fitRange{0.02, 50} // a figure no document gives
	factorRange    = fitRange{0.5, 2}   // a multiplier (Strong reads)
)

// calibrated is the one table of the rate card's figures that measured charges pin, by their JSON
// names in RateCard. A size table's points are fitted each ("readBySize@4" is the 4 KB point). A
// figure added to RateCard goes here, or in notCalibrated with the reason no charge pins it;
// TestCalibrated_CoversTheCard fails until it does. queryScanValue is read off a published charge
// but goes as 1 ÷ the distinct values the scan read, which the post does not give (every address
// taken distinct): a measurement whose scans read fewer distinct values may fit it further from the
// built-in value than publishedRange allows, so it takes assumedRange, as queryIndexEntry does.
var calibrated = map[string]fitRange{
	"readBySize":        publishedRange,
	"writeBySize":       publishedRange,
	"indexTerm":         publishedRange,
	"patchBase":         publishedRange,
	"strongRead":        factorRange,
	"queryMin":          publishedRange,
	"queryPartition":    publishedRange,
	"queryIndexSeek":    publishedRange,
	"queryLookup":       assumedRange,
	"queryIndexEntry":   assumedRange,
	"queryScanValue":    assumedRange, // a published charge ÷ distinct values the post does not give
	"queryDocEvaluated": publishedRange,
	"queryKBLoaded":     publishedRange,
	"queryDocLoaded":    publishedRange,
	"queryKBOutput":     publishedRange,
	"queryFunction":     publishedRange,
	"queryJoinRow":      publishedRange,
	"querySortDoc":      assumedRange,
}

// notCalibrated names the figures of the card no request charge pins, and why.
var notCalibrated = map[string]string{
	"extraRegionWrite": "needs an account with several write regions",
}

// notCalibratedGroups: limits, throughput rules and prices are published facts, not charges.
var notCalibratedGroups = []string{
	"partitionMaxRU", "partitionMaxGB", "partitionCreateRU", "logicalMaxGB", "itemMaxKB", "batchMaxOps",
	"manualMinRU", "manualMinRUPerGB", "manualStep", "autoscaleMinMax", "autoscaleStep", "autoscaleMaxPerGB",
	"autoscaleFloor", "serverlessMaxRU", "serverlessPartitionRU", "serverlessMaxRegions", "burstMaxRU", "burstIdleSeconds",
	"hoursPerMonth", "manualPrice", "manualMultiRegionWritePrice", "autoscalePrice",
	"autoscaleMultiRegionWritePrice", "serverlessPrice", "storagePrice", "secondsPerMonth",
}

// Param is one figure of the rate card a calibration fits.
type Param struct {
	// Key is the figure's JSON name in RateCard, with "@<KB>" for a point of a size table.
	Key string
	// Name and Unit describe it, from the card.
	Name string
	Unit string
	// Lo and Hi bound a fitted value (absolute, from the built-in value).
	Lo, Hi float64
	field  func(*RateCard) *float64
}

// Value returns the figure's value in card c.
func (p Param) Value(c *RateCard) float64 { return *p.field(c) }

// Set sets the figure's value in card c.
func (p Param) Set(c *RateCard, v float64) { *p.field(c) = v }

// Params lists the figures of the card a calibration fits, in the card's field order, their sane
// ranges taken from the built-in card Current.
func Params() []Param {
	var out []Param
	t := reflect.TypeOf(RateCard{})
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		key := jsonName(f)
		r, ok := calibrated[key]
		if !ok {
			continue
		}
		idx := i
		switch f.Type {
		case reflect.TypeOf(Coefficient{}):
			c := reflect.ValueOf(Current).Elem().Field(idx).Interface().(Coefficient)
			out = append(out, Param{Key: key, Name: c.Name, Unit: c.Unit, Lo: c.Value * r.lo, Hi: c.Value * r.hi,
				field: func(rc *RateCard) *float64 {
					return &reflect.ValueOf(rc).Elem().Field(idx).Addr().Interface().(*Coefficient).Value
				}})
		case reflect.TypeOf(SizeTable{}):
			tab := reflect.ValueOf(Current).Elem().Field(idx).Interface().(SizeTable)
			for j, pt := range tab.Points {
				j := j
				out = append(out, Param{Key: key + "@" + strconv.FormatFloat(pt.KB, 'f', -1, 64),
					Name: fmt.Sprintf("%s at %g KB", key, pt.KB), Unit: "RU", Lo: pt.RU * r.lo, Hi: pt.RU * r.hi,
					field: func(rc *RateCard) *float64 {
						return &reflect.ValueOf(rc).Elem().Field(idx).Addr().Interface().(*SizeTable).Points[j].RU
					}})
			}
		}
	}
	return out
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}

// Clone returns a deep copy of the card (the size tables' points are copied).
func (c *RateCard) Clone() *RateCard {
	n := *c
	n.ReadBySize.Points = append([]SizePoint(nil), c.ReadBySize.Points...)
	n.WriteBySize.Points = append([]SizePoint(nil), c.WriteBySize.Points...)
	if c.Calibration != nil {
		cal := *c.Calibration
		n.Calibration = &cal
	}
	return &n
}

// CalibrationRef says which calibration a card's figures come from.
type CalibrationRef struct {
	// Account is the host the profile was measured on.
	Account string `json:"account"`
	// Date is the day of the measurement (YYYY-MM-DD).
	Date string `json:"date"`
}

// Label is how a charge priced with card c is labelled: "model", or "model (calibrated: <account>,
// <date>)" for a calibrated card. A calibrated charge is still modeled, never measured.
func (c *RateCard) Label() string {
	if c == nil || c.Calibration == nil {
		return "model"
	}
	return fmt.Sprintf("model (calibrated: %s, %s)", c.Calibration.Account, c.Calibration.Date)
}

// ChargesLabel is the one label of the charges an engine priced with card c: "model" for the
// built-in card (nil), "model (calibrated: <account>, <date>)" for a calibration profile's card, and
// "model (rate card: <file>)" for a card file (LoadRateCard). `validate serve` prints it on its ready
// line and answers it in engine.ChargesHeader; a run against the serve labels the serve's charges
// with it. Every label starts with "model": a calibrated charge is still modeled, never measured.
func ChargesLabel(c *RateCard) string {
	switch {
	case c == nil:
		return "model"
	case c.Calibration != nil:
		return c.Label()
	case c.File != "":
		return "model (rate card: " + c.File + ")"
	case c.Version != Current.Version:
		return "model (rate card " + c.Version + ")"
	}
	return "model"
}

// Measurement is one operation a calibration ran: its measured charge and the facts the engine
// recorded for the same operation (one PointOp per point operation, one QueryFacts per page).
type Measurement struct {
	// Name says what the operation was, for people ("read 16 KB", "scan, unindexed filter").
	Name string `json:"name"`
	// Measured is the charge the target reported, summed over pages.
	Measured float64 `json:"measured"`
	// Published is the built-in card's charge for the facts; Fitted the calibrated card's.
	Published float64      `json:"published"`
	Fitted    float64      `json:"fitted"`
	Point     []PointOp    `json:"point,omitempty"`
	Query     []QueryFacts `json:"query,omitempty"`
}

// Model is card c's charge of a measured operation: its point operations and query pages.
func (c *RateCard) Model(m Measurement) float64 {
	var ru float64
	for _, op := range m.Point {
		ru += c.Point(op)
	}
	for _, f := range m.Query {
		ru += c.Query(f)
	}
	return ru
}

// FittedParam is one figure of a profile.
type FittedParam struct {
	Key       string  `json:"key"`
	Name      string  `json:"name"`
	Unit      string  `json:"unit"`
	Published float64 `json:"published"`
	Fitted    float64 `json:"fitted"`
	// Pinned is false when no measurement depends on the figure enough to fit it: Fitted is then
	// the published value.
	Pinned bool `json:"pinned"`
	// Sensitivity is the largest share of a measured charge the figure accounts for (0..1).
	Sensitivity float64 `json:"sensitivity"`
	// Residual is the root mean square of the relative differences, fitted card against measured
	// charge, over the measurements the figure takes part in.
	Residual float64 `json:"residual"`
}

// Fit fits the card's calibrated figures (Params) to the measured charges by weighted least
// squares, starting from card base: each measurement weighs by the inverse of its charge, so a
// 2 RU query counts as much as a 1,000 RU write, and the figures are solved for as multiples of
// their base values (Gauss-Newton on a model that is linear in every figure but the Strong factor;
// a few iterations). A figure no measurement depends on for at least minSensitivity of its charge
// is not pinned and keeps its base value. It returns the fitted card and each figure's result.
func Fit(base *RateCard, ms []Measurement) (*RateCard, []FittedParam) {
	const minSensitivity = 0.01
	params := Params()
	card := base.Clone()
	n := len(params)
	var ys []float64
	for _, m := range ms {
		ys = append(ys, math.Max(m.Measured, 0.01))
	}
	// sensitivity[k][i]: d model_i / d (relative change of param k), at the base card.
	jac := func(c *RateCard) [][]float64 {
		J := make([][]float64, n)
		for k, p := range params {
			J[k] = make([]float64, len(ms))
			v := p.Value(c)
			h := math.Max(math.Abs(v)*1e-6, 1e-12)
			for i, m := range ms {
				m0 := c.Model(m)
				p.Set(c, v+h)
				m1 := c.Model(m)
				p.Set(c, v)
				J[k][i] = (m1 - m0) / h * math.Abs(v)
			}
		}
		return J
	}
	J0 := jac(card)
	sens := make([]float64, n)
	pinned := make([]bool, n)
	for k := range params {
		for i := range ms {
			sens[k] = math.Max(sens[k], math.Abs(J0[k][i])/ys[i])
		}
		pinned[k] = sens[k] >= minSensitivity && params[k].Value(base) != 0
	}
	var free []int
	for k := range params {
		if pinned[k] {
			free = append(free, k)
		}
	}
	for iter := 0; iter < 8 && len(free) > 0; iter++ {
		J := jac(card)
		// Normal equations in relative units: (AᵀA + λI) δ = Aᵀ r, A_ik = J_ik / y_i, r_i = (y_i − m_i) / y_i.
		m := len(free)
		A := make([][]float64, m)
		b := make([]float64, m)
		for a := range free {
			A[a] = make([]float64, m)
		}
		for i, me := range ms {
			r := (me.Measured - card.Model(me)) / ys[i]
			for a, ka := range free {
				ja := J[ka][i] / ys[i]
				b[a] += ja * r
				for c2, kc := range free {
					A[a][c2] += ja * J[kc][i] / ys[i]
				}
			}
		}
		for a := range free {
			A[a][a] += 1e-9 * (1 + A[a][a]) // keeps a figure that only moves with another near its base
		}
		delta, ok := solve(A, b)
		if !ok {
			break
		}
		step := 0.0
		for a, k := range free {
			v := params[k].Value(card)
			params[k].Set(card, v+delta[a]*math.Abs(v))
			step = math.Max(step, math.Abs(delta[a]))
		}
		if step < 1e-9 {
			break
		}
	}
	out := make([]FittedParam, n)
	for k, p := range params {
		var sum float64
		var cnt int
		for i, me := range ms {
			if math.Abs(J0[k][i])/ys[i] < minSensitivity/10 {
				continue
			}
			r := (me.Measured - card.Model(me)) / ys[i]
			sum += r * r
			cnt++
		}
		res := 0.0
		if cnt > 0 {
			res = math.Sqrt(sum / float64(cnt))
		}
		out[k] = FittedParam{Key: p.Key, Name: p.Name, Unit: p.Unit, Published: p.Value(base),
			Fitted: p.Value(card), Pinned: pinned[k], Sensitivity: round(sens[k], 4), Residual: round(res, 5)}
	}
	return card, out
}

func round(x float64, digits int) float64 {
	s := math.Pow(10, float64(digits))
	return math.Round(x*s) / s
}

// solve solves A x = b by Gaussian elimination with partial pivoting; ok is false for a singular A.
func solve(A [][]float64, b []float64) ([]float64, bool) {
	n := len(b)
	M := make([][]float64, n)
	for i := range A {
		M[i] = append(append([]float64(nil), A[i]...), b[i])
	}
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(M[r][c]) > math.Abs(M[p][c]) {
				p = r
			}
		}
		if math.Abs(M[p][c]) < 1e-300 {
			return nil, false
		}
		M[c], M[p] = M[p], M[c]
		for r := c + 1; r < n; r++ {
			f := M[r][c] / M[c][c]
			for k := c; k <= n; k++ {
				M[r][k] -= f * M[c][k]
			}
		}
	}
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		s := M[r][n]
		for k := r + 1; k < n; k++ {
			s -= M[r][k] * x[k]
		}
		x[r] = s / M[r][r]
	}
	return x, true
}

// ProfileSchemaVersion is the version of the calibration profile's JSON; additive changes keep it.
const ProfileSchemaVersion = 1

// Profile is a calibration: the figures fitted to one account's measured charges, with the
// measurements themselves, so that the next calibration (or a reviewer) can re-fit them.
type Profile struct {
	SchemaVersion int `json:"schemaVersion"`
	// Account is the account's host (never a key); Date the day it was measured (YYYY-MM-DD).
	Account string `json:"account"`
	Date    string `json:"date"`
	// SDKVersion is the azcosmos version the measurements went through.
	SDKVersion string `json:"sdkVersion"`
	// Consistency is the consistency level the reads and queries were measured at; StrongMeasured
	// says whether Strong reads were (an account whose default is weaker refuses them).
	Consistency    string `json:"consistency"`
	StrongMeasured bool   `json:"strongMeasured"`
	// RateCard is the version of the built-in card the fit started from and the growth points'
	// modeled charges were priced with: Check refuses growth priced with another card than this
	// build's (GrowthFits takes the growth beyond that card's model).
	RateCard string `json:"rateCard"`
	// Method says how the figures were fitted.
	Method       string        `json:"method"`
	Coefficients []FittedParam `json:"coefficients"`
	Measurements []Measurement `json:"measurements"`
	// Scale, Rules and Growth are a scale calibration's (validate calibrate --scale): the probe
	// containers, the alternative each rule with alternatives takes on the account (a decided rule
	// carries no band), and how the shapes' charges and index work grew with the documents.
	Scale  *ScaleProbe    `json:"scale,omitempty"`
	Rules  []RuleDecision `json:"rules,omitempty"`
	Growth []Growth       `json:"growth,omitempty"`
}

// ScaleProbe describes the probe containers of a scale calibration.
type ScaleProbe struct {
	// Documents is each probe container's documents, smallest first; DocumentBytes their size.
	Documents     []int `json:"documents"`
	DocumentBytes int   `json:"documentBytes"`
	// CapacityMode is the account's: "provisioned" or "serverless".
	CapacityMode string `json:"capacityMode"`
	// Date is the day the rules were decided (YYYY-MM-DD): the decided rules' label, which may
	// differ from the fitted figures' date when one profile holds both.
	Date string `json:"date,omitempty"`
}

// RuleDecision is how a scale calibration decided one rule: the query metric measured on the
// account beside what each alternative gives on the embedded engine over the same documents, and
// the alternative nearest to it.
type RuleDecision struct {
	Rule        string `json:"rule"`
	Alternative string `json:"alternative"`
	// Query is the probe query, Documents the probe container's documents, Metric the query metric
	// compared (summed over the pages: "retrievedDocumentCount").
	Query     string  `json:"query"`
	Documents int     `json:"documents"`
	Metric    string  `json:"metric"`
	Measured  float64 `json:"measured"`
	// Alternatives is the metric under each alternative, by name (the embedded engine's).
	Alternatives map[string]float64 `json:"alternatives"`
	// QueryMetrics is every query metric the target returned for the probe on the smaller
	// container, summed over its pages (retrievedDocumentCount, indexLookupTimeInMs,
	// outputDocumentCount, …): the evidence beside the one metric compared.
	QueryMetrics map[string]float64 `json:"queryMetrics,omitempty"`
}

// Growth is one probe shape's charge and index work at each probe container's size.
type Growth struct {
	Shape  string        `json:"shape"`
	Query  string        `json:"query"`
	Points []GrowthPoint `json:"points"`
	// Exponent is how the charge grew with the documents between the smallest and the largest
	// container: log(RU ratio) ÷ log(documents ratio); 0 is constant, 1 linear.
	Exponent float64 `json:"exponent"`
}

// GrowthPoint is one measurement of a growth shape.
type GrowthPoint struct {
	Documents int     `json:"documents"`
	RU        float64 `json:"ru"`
	// Retrieved, Output and IndexLookupMs are the query metrics' retrievedDocumentCount,
	// outputDocumentCount and indexLookupTimeInMs, summed over the pages.
	Retrieved     float64 `json:"retrieved"`
	Output        float64 `json:"output"`
	IndexLookupMs float64 `json:"indexLookupMs"`
	// Modeled is the built-in card's charge of the same query over the same documents on the
	// embedded engine, under the rules the profile decided, summed over the pages and unrounded
	// (the card's charge of each page's facts, not the response's two decimals); Facts the
	// engine's facts behind it (FactNames, summed over the pages: indexEntriesRead is what a
	// growth fit divides by). Both are absent from a profile written before growth pinned figures.
	Modeled float64            `json:"modeled,omitempty"`
	Facts   map[string]float64 `json:"facts,omitempty"`
}

// growthUse is what one growth shape tells: the figure its growth pins (a key of Params), or, for a
// shape whose charge the model keeps flat, the share of its smaller charge it may grow by beyond
// the model's own growth before the profile warns.
type growthUse struct {
	pins string
	// counts names what the pinned figure prices, counted from a growth point's facts.
	counts string
	count  func(GrowthPoint) float64
	flat   float64
}

// growthUses is the one table of what a scale calibration's growth shapes tell, by shape.
// Between the two container sizes the query minimum, the partition floor, the seek and the output
// of one COUNT stay the same, so the difference of the charges is the work that grows.
var growthUses = map[string]growthUse{
	// A range over every document: its index entries grow with the documents.
	"range": {pins: "queryIndexEntry", counts: "index entries", count: GrowthPoint.IndexEntries},
	// A CONTAINS over a path whose every value is distinct: a full index scan, its distinct values
	// grow with the documents.
	"contains": {pins: "queryScanValue", counts: "distinct values", count: GrowthPoint.ScanValues},
	//
	// An equality that finds one document is a seek: constant (index-overview.md). 10% is what it
	// may grow by before calibrate says the seek grew: the service reports charges to 0.01 RU (under
	// 1% of a 2–3 RU seek) and DP-420 lab 17's charges move ±0.1 RU run to run (queryLookup's note),
	// 4% of such a charge, twice over on a difference, so 8% is noise and 10% is not.
	"equality": {flat: 0.10},
}

// GrowthFit is a figure a growth shape pinned: the built-in value (Published), the fitted one, and
// the shape's growth it came from.
type GrowthFit struct {
	FittedParam
	// Growth is the shape's index in Profile.Growth; Shape its name.
	Growth int
	Shape  string
	// Small and Large are the smallest and largest growth points the fit came from.
	Small, Large GrowthPoint
	// Counts names what the figure prices ("index entries"); SmallCount and LargeCount are how many
	// the engine read at each point, the difference the fit divides by.
	Counts                 string
	SmallCount, LargeCount float64
	// Fixed and ModeledFixed are the part of the smaller charge that does not grow with what the
	// figure prices — the charge the line through the two points gives at none of them — measured
	// and modeled: a request's minimum, the partition's index check and seek, and any fixed charge
	// of the scan itself the model does not have.
	Fixed, ModeledFixed float64
	// Resolution is how far the fitted value can be off from the charges' rounding alone:
	// chargeStep on the difference of the two reported charges (±chargeStep/2 each; Modeled is
	// unrounded), per index entry read more. NeedDocuments is the smaller probe container's
	// documents (--scale-docs) at which it is growthResolution of the built-in value, the least a
	// fit is pinned at.
	Resolution    float64
	NeedDocuments int
}

const (
	// chargeStep is what a reported charge is rounded to: the service and the embedded engine
	// send x-ms-request-charge with two decimals.
	chargeStep = 0.01
	// growthResolution is the share of the built-in value the charges' rounding may move a growth
	// fit by, at most, for the fit to be pinned: calibrate calls a figure more than 10% from the
	// built-in card a drift, so a fit must resolve a 10% move.
	growthResolution = 0.10
)

// growthModeled says whether any growth point has a modeled charge (a profile written before growth
// pinned figures has none, and its growth pins nothing).
func (p *Profile) growthModeled() bool {
	for _, g := range p.Growth {
		for _, pt := range g.Points {
			if pt.Modeled != 0 {
				return true
			}
		}
	}
	return false
}

// growthPinned counts the figures the profile's growth pins.
func (p *Profile) growthPinned() int {
	n := 0
	for _, gf := range p.GrowthFits() {
		if gf.Pinned {
			n++
		}
	}
	return n
}

// IndexEntries is the index entries the engine read for a growth point (Facts) that are priced at
// queryIndexEntry: every entry but the distinct values of full index scans.
func (g GrowthPoint) IndexEntries() float64 {
	return g.Facts["indexEntriesRead"] - g.Facts["indexScanValues"]
}

// ScanValues is the distinct values the engine's full index scans read for a growth point (Facts),
// priced at queryScanValue.
func (g GrowthPoint) ScanValues() float64 { return g.Facts["indexScanValues"] }

// pair is a growth's smallest and largest point, ok when both have a measured and a modeled charge
// above zero.
func (g Growth) pair() (small, large GrowthPoint, ok bool) {
	if len(g.Points) < 2 {
		return small, large, false
	}
	small, large = g.Points[0], g.Points[len(g.Points)-1]
	usable := func(pt GrowthPoint) bool {
		return pt.RU > 0 && pt.Modeled > 0 && !math.IsInf(pt.RU, 0) && !math.IsInf(pt.Modeled, 0)
	}
	return small, large, usable(small) && usable(large) && large.Documents > small.Documents
}

// GrowthFits derives a figure from each growth shape that pins one (growthUses): the built-in value
// plus what the measured charge grew by beyond the built-in model's growth, per index entry the
// engine read more at the larger size:
//
//	fitted = built-in + ((RU_large − RU_small) − (Modeled_large − Modeled_small)) ÷ (Entries_large − Entries_small)
//
// A shape without two usable points (a charge of zero, no modeled charge, no more entries at the
// larger size) gives nothing. One whose Resolution is more than growthResolution of the built-in
// value is listed unpinned (Fitted the built-in value): the probe containers were too small to see
// the figure. The fitted value is not bounded here: Check refuses one outside the figure's sane
// range. Residual is over the two points, the built-in model with the fitted figure against the
// measured charge; Sensitivity is the share of the larger charge the figure accounts for.
func (p *Profile) GrowthFits() []GrowthFit {
	if p == nil {
		return nil
	}
	byKey := map[string]Param{}
	for _, pr := range Params() {
		byKey[pr.Key] = pr
	}
	var out []GrowthFit
	for i, g := range p.Growth {
		use, ok := growthUses[g.Shape]
		if !ok || use.pins == "" {
			continue
		}
		pr, ok := byKey[use.pins]
		small, large, usable := g.pair()
		if !ok || !usable {
			continue
		}
		de := use.count(large) - use.count(small)
		if !(de >= 1) {
			continue
		}
		base := pr.Value(Current)
		if !(base > 0) {
			continue // a figure of zero has no share to resolve, and scales nothing
		}
		fitted := base + ((large.RU-small.RU)-(large.Modeled-small.Modeled))/de
		if math.IsNaN(fitted) || math.IsInf(fitted, 0) {
			continue
		}
		gf := GrowthFit{Growth: i, Shape: g.Shape, Small: small, Large: large, Counts: use.counts,
			SmallCount: use.count(small), LargeCount: use.count(large), Resolution: chargeStep / de,
			Fixed:        round(small.RU-(large.RU-small.RU)/de*use.count(small), 4),
			ModeledFixed: round(small.Modeled-(large.Modeled-small.Modeled)/de*use.count(small), 4),
			FittedParam:  FittedParam{Key: pr.Key, Name: pr.Name, Unit: pr.Unit, Published: base, Fitted: base}}
		// The documents at which the entries (growing with the documents as they did) resolve it.
		gf.NeedDocuments = int(math.Ceil(float64(small.Documents) * gf.Resolution / (growthResolution * base)))
		if gf.Pinned = gf.Resolution <= growthResolution*base; gf.Pinned {
			gf.Fitted = fitted
			var sum float64
			for _, pt := range []GrowthPoint{small, large} {
				r := (pt.RU - (pt.Modeled + (fitted-base)*use.count(pt))) / pt.RU
				sum += r * r
			}
			gf.Sensitivity = round(math.Abs(fitted*use.count(large))/large.RU, 4)
			gf.Residual = round(math.Sqrt(sum/2), 5)
		}
		out = append(out, gf)
	}
	return out
}

// GrowthWarnings says, for each growth shape whose charge the model keeps flat (growthUses), when
// the measured charge grew by more than its share beyond the model's growth: the account's seek did
// not stay constant, and the figures pinned from growth take that growth in.
func (p *Profile) GrowthWarnings() []string {
	if p == nil {
		return nil
	}
	var out []string
	for i, g := range p.Growth {
		use, ok := growthUses[g.Shape]
		if !ok || use.flat == 0 || len(g.Points) < 2 {
			continue
		}
		small, large := g.Points[0], g.Points[len(g.Points)-1]
		if !(small.RU > 0) {
			continue
		}
		grew := (large.RU - small.RU - (large.Modeled - small.Modeled)) / small.RU
		if grew > use.flat {
			out = append(out, fmt.Sprintf("growth[%d] (%s): the charge grew %.0f%% from %d to %d documents (%g → %g RU; the model grows %g RU), "+
				"more than the %.0f%% a seek may: the account's seek did not stay constant; calibrate --scale again, and if it repeats, "+
				"the figures pinned from growth carry that growth", i, g.Shape, grew*100, small.Documents, large.Documents, small.RU, large.RU,
				round(large.Modeled-small.Modeled, 4), use.flat*100))
		}
	}
	return out
}

// Label is how a rule a profile decided is labelled: "calibrated: <account>, <date>", the date the
// rules were decided.
func (p *Profile) Label() string {
	date := p.Date
	if p.Scale != nil && p.Scale.Date != "" {
		date = p.Scale.Date
	}
	return "calibrated: " + p.Account + ", " + date
}

// Keep carries into p what old, an earlier profile of the same account written to the same file,
// holds and p does not: a scale calibration keeps the figures an earlier calibration fitted (with
// their date), a calibration keeps the rules an earlier scale calibration decided and the growth
// that pins figures (GrowthFits; with their date), so that one profile holds both. It returns what it kept, in words ("" when nothing: another account,
// or nothing to keep).
func (p *Profile) Keep(old *Profile) string {
	if old == nil || old.Account != p.Account {
		return ""
	}
	switch {
	case p.Scale != nil && old.pinnedFigures() > 0:
		if p.Scale.Date == "" {
			p.Scale.Date = p.Date
		}
		p.Date, p.Consistency, p.StrongMeasured, p.Method = old.Date, old.Consistency, old.StrongMeasured, old.Method
		p.Coefficients, p.Measurements = old.Coefficients, old.Measurements
		return fmt.Sprintf("the %s fitted on %s", counted(old.pinnedFigures(), "figure", "figures"), old.Date)
	case p.Scale == nil && old.Scale != nil && (len(old.Rules) > 0 || len(old.Growth) > 0):
		p.Scale, p.Rules, p.Growth = old.Scale, old.Rules, old.Growth
		if p.Scale.Date == "" {
			p.Scale.Date = old.Date
		}
		// Only what was kept: the rules, the figures the growth pins, or growth that pins none.
		var kept []string
		if len(old.Rules) > 0 {
			kept = append(kept, fmt.Sprintf("the %s decided on %s", counted(len(old.Rules), "rule", "rules"), p.Scale.Date))
		}
		switch n := old.growthPinned(); {
		case n > 0 && len(old.Rules) > 0:
			kept = append(kept, fmt.Sprintf("the %s its growth pinned", counted(n, "figure", "figures")))
		case n > 0:
			kept = append(kept, fmt.Sprintf("the %s pinned by the growth measured on %s", counted(n, "figure", "figures"), p.Scale.Date))
		case len(old.Rules) == 0:
			kept = append(kept, fmt.Sprintf("the growth measured on %s (it pins no figure)", p.Scale.Date))
		}
		return strings.Join(kept, " and ")
	}
	return ""
}

// counted is n with its noun: "1 rule", "2 rules".
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// Selection is the rules the profile decided, pinned with its label: the engine and the estimator
// take them, and their production figures carry no band. nil when it decided none.
func (p *Profile) Selection() *Selection {
	if p == nil || len(p.Rules) == 0 {
		return nil
	}
	s := &Selection{Alternatives: map[string]string{}, Pinned: map[string]string{}}
	for _, r := range p.Rules {
		s.Alternatives[r.Rule] = r.Alternative
		s.Pinned[r.Rule] = p.Label()
	}
	return s
}

// pinnedFigures counts the profile's fitted figures.
func (p *Profile) pinnedFigures() int {
	n := 0
	for _, fp := range p.Coefficients {
		if fp.Pinned {
			n++
		}
	}
	return n
}

// Card returns the built-in card Current with the profile's fitted figures, then the figures its
// growth pinned (GrowthFits), labelled with the profile's account and date. Figures the profile
// does not name keep their built-in values.
func (p *Profile) Card() *RateCard {
	card := Current.Clone()
	byKey := map[string]Param{}
	for _, pr := range Params() {
		byKey[pr.Key] = pr
	}
	for _, fp := range p.Coefficients {
		if pr, ok := byKey[fp.Key]; ok && fp.Pinned {
			pr.Set(card, fp.Fitted)
		}
	}
	// A figure a growth shape pinned replaces the same figure fitted from single charges.
	for _, gf := range p.GrowthFits() {
		if gf.Pinned {
			byKey[gf.Key].Set(card, gf.Fitted)
		}
	}
	card.Version = Current.Version + "+calibrated"
	card.Date = p.Date
	card.Calibration = &CalibrationRef{Account: p.Account, Date: p.Date}
	return card
}

// ErrProfile marks a calibration profile that cannot be used; the message says why and what to do.
var ErrProfile = errors.New("calibration profile")

// Check validates a profile for a build that talks through azcosmos sdkVersion: the schema, the
// SDK version (charges measured through another SDK may differ in what it sends) and every fitted
// figure within its sane range (Params). Errors name the file's field and what to do.
func (p *Profile) Check(sdkVersion string) error {
	if p.SchemaVersion != ProfileSchemaVersion {
		return fmt.Errorf("%w: schemaVersion %d: this build reads version %d; calibrate again with validate calibrate",
			ErrProfile, p.SchemaVersion, ProfileSchemaVersion)
	}
	if p.Account == "" || p.Date == "" {
		return fmt.Errorf("%w: account and date are required (a profile written by validate calibrate has both)", ErrProfile)
	}
	if err := checkHost(p.Account); err != nil {
		return fmt.Errorf("%w: account: %v", ErrProfile, err)
	}
	if _, err := time.Parse(time.DateOnly, p.Date); err != nil {
		if _, err2 := time.Parse(time.RFC3339, p.Date); err2 != nil {
			return fmt.Errorf("%w: date: %q is not an RFC 3339 date (YYYY-MM-DD, as validate calibrate writes it)", ErrProfile, printable(p.Date))
		}
	}
	if p.SDKVersion != sdkVersion {
		return fmt.Errorf("%w: measured through azcosmos %s, this build talks through %s: calibrate again with this build",
			ErrProfile, orNone(p.SDKVersion), sdkVersion)
	}
	byKey := map[string]Param{}
	for _, pr := range Params() {
		byKey[pr.Key] = pr
	}
	seen := map[string]int{}
	pinned := 0
	for i, fp := range p.Coefficients {
		pr, ok := byKey[fp.Key]
		if !ok {
			return fmt.Errorf("%w: coefficients[%d].key: %q is not a figure this build calibrates; calibrate again",
				ErrProfile, i, printable(fp.Key))
		}
		if j, dup := seen[fp.Key]; dup {
			return fmt.Errorf("%w: coefficients[%d].key: %q is given again (first at coefficients[%d]): a profile fits each figure once",
				ErrProfile, i, fp.Key, j)
		}
		seen[fp.Key] = i
		if !fp.Pinned {
			continue
		}
		pinned++
		if math.IsNaN(fp.Fitted) || fp.Fitted < pr.Lo || fp.Fitted > pr.Hi {
			return fmt.Errorf("%w: coefficients[%d] (%s): fitted %g %s is outside the sane range %g..%g "+
				"(built-in %g): check the measurements (throttling, another account) and calibrate again",
				ErrProfile, i, fp.Key, fp.Fitted, pr.Unit, pr.Lo, pr.Hi, pr.Value(Current))
		}
	}
	if p.Scale != nil && p.Scale.Date != "" {
		if _, err := time.Parse(time.DateOnly, p.Scale.Date); err != nil {
			return fmt.Errorf("%w: scale.date: %q is not a date (YYYY-MM-DD, as validate calibrate --scale writes it)", ErrProfile, printable(p.Scale.Date))
		}
	}
	ruled := map[string]int{}
	for i, r := range p.Rules {
		if err := checkChoice(r.Rule, r.Alternative); err != nil {
			return fmt.Errorf("%w: rules[%d]: %v; calibrate --scale again with this build", ErrProfile, i, err)
		}
		if j, dup := ruled[r.Rule]; dup {
			return fmt.Errorf("%w: rules[%d].rule: %q is decided again (first at rules[%d]): a profile decides each rule once",
				ErrProfile, i, r.Rule, j)
		}
		ruled[r.Rule] = i
	}
	for i, g := range p.Growth {
		for j, pt := range g.Points {
			if pt.Documents <= 0 || math.IsNaN(pt.RU) || math.IsInf(pt.RU, 0) || pt.RU <= 0 {
				return fmt.Errorf("%w: growth[%d].points[%d]: %d documents, %g RU: want documents and a charge above zero; calibrate --scale again",
					ErrProfile, i, j, pt.Documents, pt.RU)
			}
			if math.IsNaN(pt.Modeled) || math.IsInf(pt.Modeled, 0) || pt.Modeled < 0 {
				return fmt.Errorf("%w: growth[%d].points[%d].modeled: %g RU: want a charge not below zero; calibrate --scale again",
					ErrProfile, i, j, pt.Modeled)
			}
		}
	}
	// A growth fit is this build's figure plus the growth beyond the model's, and whether it pins
	// at all is measured against this build's figure: modeled charges priced with another card
	// would move it by what that card's figures differ by.
	if p.growthModeled() && p.RateCard != Current.Version {
		return fmt.Errorf("%w: rateCard: %q: growth[].points[].modeled were priced with that rate card, and this build's is %s: "+
			"the figures growth pins would be fitted against another model; calibrate --scale again with this build, "+
			"or delete growth[] to keep the rest of the profile", ErrProfile, printable(p.RateCard), Current.Version)
	}
	for _, gf := range p.GrowthFits() {
		pr := byKey[gf.Key]
		if !gf.Pinned {
			continue
		}
		pinned++
		if gf.Fitted < pr.Lo || gf.Fitted > pr.Hi {
			return fmt.Errorf("%w: growth[%d] (%s) pins %s at %g %s, outside its sane range %g..%g (built-in %g): "+
				"the charge grew %g → %g RU over %g → %g %s; check the measurements (throttling, another account, "+
				"a container that was not empty) and calibrate --scale again, or delete growth[%d] to keep the built-in figure",
				ErrProfile, gf.Growth, gf.Shape, gf.Key, gf.Fitted, pr.Unit, pr.Lo, pr.Hi, pr.Value(Current),
				gf.Small.RU, gf.Large.RU, gf.SmallCount, gf.LargeCount, gf.Counts, gf.Growth)
		}
	}
	if pinned == 0 && len(p.Rules) == 0 {
		return fmt.Errorf("%w: coefficients: no fitted figure (%d listed, none pinned) and no rule decided: every charge would be the built-in card's, "+
			"labelled calibrated; calibrate again, or run without --calibration", ErrProfile, len(p.Coefficients))
	}
	// The fitted points of a size table must still describe a charge that does not fall as an
	// item grows: a 1 MB read cheaper than a 512 KB one is a broken fit, not a measurement.
	card := p.Card()
	for _, tb := range []struct {
		key string
		t   SizeTable
	}{{"readBySize", card.ReadBySize}, {"writeBySize", card.WriteBySize}} {
		for j := 1; j < len(tb.t.Points); j++ {
			if a, b := tb.t.Points[j-1], tb.t.Points[j]; b.RU < a.RU {
				return fmt.Errorf("%w: %s: %g KB costs %g RU, less than %g KB's %g RU: a size table's charge cannot fall as items grow; "+
					"check the measurements and calibrate again", ErrProfile, tb.key, b.KB, b.RU, a.KB, a.RU)
			}
		}
	}
	return nil
}

// safeName keeps a file name to letters, digits and . - _ (anything else becomes _): it reaches a
// response header, a terminal and report headings.
func safeName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	if len(b) > 100 {
		b = b[:100]
	}
	return string(b)
}

// checkHost accepts an account's host as calibrate writes it (a DNS name or address, with a port):
// letters, digits and . - _ : [ ]. Anything else — a control character, an escape sequence, a
// newline, a bidi override — would reach a terminal or a report heading as it stands.
func checkHost(h string) error {
	if len(h) > 255 {
		return fmt.Errorf("%d characters: a host name has at most 255", len(h))
	}
	for i, r := range h {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune(".-_:[]", r):
		default:
			return fmt.Errorf("%q has %q at byte %d: want a host name (letters, digits, . - _ : [ ])", printable(h), r, i)
		}
	}
	return nil
}

// printable quotes nothing but keeps an error line one line of visible text: control and format
// characters become \u escapes (strconv.QuoteToGraphic without the quotes).
func printable(s string) string {
	q := strconv.QuoteToGraphic(s)
	return q[1 : len(q)-1]
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// maxProfileBytes bounds a profile file: a few hundred measurements take a few hundred KB.
const maxProfileBytes = 16 << 20

// LoadCalibration reads and checks a calibration profile (Profile.Check) and returns the rate card
// it gives (Profile.Card; nil, the built-in card, when it fits no figure) and the profile, whose
// Selection is the rules it decided. run, plan, advise and serve price with that card.
func LoadCalibration(path, sdkVersion string) (*RateCard, *Profile, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%w %s: %v", ErrProfile, path, err)
	}
	if !st.Mode().IsRegular() || st.Size() > maxProfileBytes {
		return nil, nil, fmt.Errorf("%w %s: not a regular file of at most %d bytes", ErrProfile, path, maxProfileBytes)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%w %s: %v", ErrProfile, path, err)
	}
	p, err := decodeProfile(b)
	if err != nil {
		return nil, nil, fmt.Errorf("%w %s: %v", ErrProfile, path, err)
	}
	if err := p.Check(sdkVersion); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if p.pinnedFigures() == 0 && p.growthPinned() == 0 {
		// A scale calibration's profile that decides rules (Selection) and pins no figure: the card
		// is the built-in one, not labelled calibrated.
		return nil, p, nil
	}
	return p.Card(), p, nil
}

// decodeProfile reads a profile as strictly as a design is read: one JSON object, no key given twice
// at any level, no field this build does not know, nothing after it.
func decodeProfile(b []byte) (*Profile, error) {
	if err := duplicateKeys(b); err != nil {
		return nil, err
	}
	var p Profile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("not a profile written by validate calibrate: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the profile's JSON object (at byte %d): a profile is one object", dec.InputOffset())
	}
	return &p, nil
}

// duplicateKeys returns an error naming the first object key given twice in the same object, with
// its path (encoding/json would keep the last silently).
func duplicateKeys(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	type frame struct {
		object bool
		keys   map[string]bool
		path   string
		index  int
		key    string // the key whose value comes next (objects)
		want   bool   // an object expects a key next
	}
	var stack []*frame
	child := func() string {
		if len(stack) == 0 {
			return "$"
		}
		f := stack[len(stack)-1]
		if f.object {
			return f.path + "." + f.key
		}
		return fmt.Sprintf("%s[%d]", f.path, f.index)
	}
	valueDone := func() {
		if len(stack) == 0 {
			return
		}
		if f := stack[len(stack)-1]; f.object {
			f.want = true
		} else {
			f.index++
		}
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return nil // the decoder proper says what is wrong with the syntax
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				stack = append(stack, &frame{object: t == '{', keys: map[string]bool{}, path: child(), want: t == '{'})
			case '}', ']':
				stack = stack[:len(stack)-1]
				valueDone()
			}
		default:
			if len(stack) > 0 {
				if f := stack[len(stack)-1]; f.object && f.want {
					k, _ := t.(string)
					if f.keys[k] {
						return fmt.Errorf("%s: key %q is given twice", f.path, printable(k))
					}
					f.keys[k], f.key, f.want = true, k, false
					continue
				}
			}
			valueDone()
		}
	}
}

// keysOfCard lists the JSON names of the card's Coefficient and SizeTable fields, sorted (tests).
func keysOfCard() []string {
	var out []string
	t := reflect.TypeOf(RateCard{})
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Type == reflect.TypeOf(Coefficient{}) || f.Type == reflect.TypeOf(SizeTable{}) {
			out = append(out, jsonName(f))
		}
	}
	sort.Strings(out)
	return out
}

// LoadRateCard reads a rate card from a JSON file in RateCard's format: the built-in card with the
// fields the file names replaced (`{"queryMin": {"value": 2.6}}` changes one figure; a size table
// is replaced whole). Every figure must be a finite number not below zero and a table's sizes must
// rise. `validate serve --rate-card` runs the engine with it.
func LoadRateCard(path string) (*RateCard, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("rate card %s: %v", path, err)
	}
	if !st.Mode().IsRegular() || st.Size() > maxProfileBytes {
		return nil, fmt.Errorf("rate card %s: not a regular file of at most %d bytes", path, maxProfileBytes)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("rate card %s: %v", path, err)
	}
	card := Current.Clone()
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(card); err != nil {
		return nil, fmt.Errorf("rate card %s: %v (the format is RateCard's JSON: {\"queryMin\": {\"value\": 2.6}, ...}; see docs/calibration.md)", path, err)
	}
	if err := card.check(); err != nil {
		return nil, fmt.Errorf("rate card %s: %w", path, err)
	}
	card.File = safeName(filepath.Base(path))
	return card, nil
}

// check requires finite, non-negative figures and rising table sizes.
func (c *RateCard) check() error {
	v := reflect.ValueOf(c).Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		switch x := v.Field(i).Interface().(type) {
		case Coefficient:
			if math.IsNaN(x.Value) || math.IsInf(x.Value, 0) || x.Value < 0 {
				return fmt.Errorf("%s.value: %g: want a finite number not below zero", jsonName(t.Field(i)), x.Value)
			}
		case SizeTable:
			if len(x.Points) == 0 {
				return fmt.Errorf("%s.points: empty", jsonName(t.Field(i)))
			}
			for j, p := range x.Points {
				if math.IsNaN(p.RU) || math.IsInf(p.RU, 0) || p.RU < 0 || !(p.KB > 0) || (j > 0 && p.KB <= x.Points[j-1].KB) {
					return fmt.Errorf("%s.points[%d]: {kb: %g, ru: %g}: want rising sizes and finite charges not below zero",
						jsonName(t.Field(i)), j, p.KB, p.RU)
				}
			}
		}
	}
	return nil
}
