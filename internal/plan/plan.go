// Package plan is the `validate plan` stage: from a design alone, with no database, it estimates what
// every access pattern costs under the rate card, what throughput each container needs, how many
// physical partitions it gets, whether a logical partition runs hot, and what it all costs per month.
package plan

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/indexpolicy"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/seed"
)

// SchemaVersion is the version of the JSON form of a Plan. Changes are additive only.
const SchemaVersion = 1

// DefaultSeed is the generator seed whose document counts the plan uses: `validate run`'s default.
const DefaultSeed = 1

// Options tune Build.
type Options struct {
	// RateCard is the card to price with (nil = cost.Current).
	RateCard *cost.RateCard
	// Rules chooses the alternative of each rule with alternatives (cost.Rules) the estimator
	// follows; nil = each rule's default. A calibration profile's decisions arrive here.
	Rules *cost.Selection
	// Seed is the generator seed whose seeded document counts the plan uses; 0 = DefaultSeed.
	Seed int64
	// Headroom is the share of a logical partition's limits its busiest one may use before
	// hot-partition says so (cost.HotInput.Headroom; 0 = cost.DefaultKeyHeadroom).
	Headroom float64
}

// Plan is the static plan of one design.
type Plan struct {
	SchemaVersion int         `json:"schemaVersion"`
	Design        string      `json:"design"`
	File          string      `json:"file,omitempty"`
	RateCard      RateCardRef `json:"rateCard"`
	Account       Account     `json:"account"`
	// Assumptions are the premises every figure rests on, in words.
	Assumptions []string    `json:"assumptions"`
	Patterns    []Pattern   `json:"patterns"`
	Containers  []Container `json:"containers"`
	// MonthlyUSD is the sum of each container's cost in its cheapest feasible mode.
	MonthlyUSD float64 `json:"monthlyUSD"`
	// DesignedMonthlyUSD is the sum at the throughput the design states.
	DesignedMonthlyUSD float64 `json:"designedMonthlyUSD"`
	// MonthlyBand and DesignedMonthlyBand are MonthlyUSD and DesignedMonthlyUSD with every
	// container at the low and at the high end of its LoadBand (a container without one at its
	// figure); nil when no container's cost rests on an unpinned rule.
	MonthlyBand         *record.Range `json:"monthlyBand,omitempty"`
	DesignedMonthlyBand *record.Range `json:"designedMonthlyBand,omitempty"`
	Warnings            []Warning     `json:"warnings"`
}

// RateCardRef identifies the rate card a plan was priced with.
type RateCardRef struct {
	Version  string `json:"version"`
	Date     string `json:"date"`
	Currency string `json:"currency"`
	// Unvalidated names the card's coefficients no independent published figure checks
	// (cost.RateCard.Unvalidated; docs/fidelity.md).
	Unvalidated []string `json:"unvalidated,omitempty"`
	// Label is how the plan's charges are labelled: "model (calibrated: <account>, <date>)" for a
	// calibrated card (cost.RateCard.Label), absent for the built-in one.
	Label string `json:"label,omitempty"`
}

// Account is the account-wide setting the plan priced.
type Account struct {
	Regions           int    `json:"regions"`
	MultiRegionWrites bool   `json:"multiRegionWrites"`
	Consistency       string `json:"consistency"`
}

// Pattern is one access pattern's static estimate.
type Pattern struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Container string `json:"container"`
	Op        string `json:"op"`
	// ModelRU is the model's static charge per execution.
	ModelRU float64 `json:"modelRU"`
	// Basis is "static" for point operations and batches, "static, rough" for queries.
	Basis string `json:"basis"`
	// Detail says what the estimate assumed (size, terms, partitions, …).
	Detail string `json:"detail"`
	// ProductionRU is the query's charge at the design's production scale, when the design states
	// one (0 otherwise): the one estimator's facts over the production documents and key values,
	// priced by the rate card. `validate run` reports this same figure. Projection spells it out;
	// ProductionFacts are the facts it prices.
	ProductionRU    float64          `json:"productionRU,omitempty"`
	Projection      []string         `json:"projection,omitempty"`
	ProductionFacts *cost.QueryFacts `json:"productionFacts,omitempty"`
	ProductionPages int              `json:"productionPages,omitempty"`
	// ProductionBand is ProductionRU under each alternative of the rules no published figure and
	// no calibration pins that move it (record.Band); nil when none does. ProductionPinned names
	// the rules a calibration profile decided that move it: the figure is theirs, with no band.
	ProductionBand   *record.Band        `json:"productionBand,omitempty"`
	ProductionPinned []record.PinnedRule `json:"productionPinned,omitempty"`
	// Scope and ProductionScope are the documents one execution has in scope at the seeded scale
	// and at production.
	Scope           float64 `json:"scope,omitempty"`
	ProductionScope float64 `json:"productionScope,omitempty"`
	// Unestimated names what of a query the estimator cannot estimate (a query that does not parse,
	// a clause it does not model); its figures then rest on assumptions the detail states, and a
	// run shows the executed figure instead.
	Unestimated string `json:"unestimated,omitempty"`
	// ScopeGrowth is the documents one execution of a query has in scope at production over those
	// at the seeded scale (1 without a production scale): the figure run's projection uses too.
	ScopeGrowth float64 `json:"scopeGrowth,omitempty"`
	// ScopeBasis says, for each partition-key value the query's scope follows that a generator
	// with a cardinality sets, how many values production has and whether the design states it.
	ScopeBasis []string `json:"scopeBasis,omitempty"`
	// JudgedOn is the figure the estimate is judged against: "projected" (ProductionRU, a query
	// when the design states a production scale) or "seeded" (ModelRU). DiffRU and DiffPct are
	// against it.
	JudgedOn string `json:"judgedOn"`
	// FloorRU is the least the pattern can cost: a charge below it is impossible.
	FloorRU float64 `json:"floorRU"`
	// EstimateRU is the designer's figure; DiffRU = EstimateRU − ModelRU.
	EstimateRU float64 `json:"estimateRU"`
	DiffRU     float64 `json:"diffRU"`
	DiffPct    float64 `json:"diffPct"`
	AvgRPS     float64 `json:"avgRPS"`
	PeakRPS    float64 `json:"peakRPS"`
	AvgRUs     float64 `json:"avgRUs"`
	PeakRUs    float64 `json:"peakRUs"`
	// SinglePartition is true when the pattern targets one logical partition.
	SinglePartition bool `json:"singlePartition"`
	// Facts are the estimator's query facts at the seeded scale (queries only), what a run's
	// execution checks, and Pages the result pages they take.
	Facts *cost.QueryFacts `json:"facts,omitempty"`
	Pages int              `json:"pages,omitempty"`
}

// Container is one container's capacity, partitions, hot-partition risk and cost.
type Container struct {
	Name         string   `json:"name"`
	PartitionKey []string `json:"partitionKey"`
	StorageGB    float64  `json:"storageGB"`
	// StorageBasis says where StorageGB came from.
	StorageBasis string `json:"storageBasis"`
	// ProductionScale is true when the design states a production scale for this container
	// (production counts or a storage figure): queries are judged projected to it.
	ProductionScale bool       `json:"productionScale"`
	Documents       []Document `json:"documents"`
	AvgRUs          float64    `json:"avgRUs"`
	PeakRUs         float64    `json:"peakRUs"`
	// LoadBasis says which charges AvgRUs and PeakRUs (and so the recommended mode, the cost and
	// the capacity warnings) rest on: LoadProduction or LoadSeeded.
	LoadBasis    string       `json:"loadBasis"`
	Designed     Throughput   `json:"designed"`
	DesignedCost cost.Monthly `json:"designedCost"`
	// Options prices every mode sized for the peak; Recommended is the cheapest feasible one.
	Options     []cost.Monthly `json:"options"`
	Recommended Throughput     `json:"recommended"`
	// RecommendedNote says why the recommended mode costs more than the designed throughput, when
	// it does: the designed one cannot serve the modeled peak or hold the storage.
	RecommendedNote string   `json:"recommendedNote,omitempty"`
	MonthlyUSD      float64  `json:"monthlyUSD"`
	Partitions      int      `json:"partitions"`
	Hot             cost.Hot `json:"hot"`
	BusiestRUs      float64  `json:"busiestLogicalPartitionRUs"`
	BusiestGB       float64  `json:"busiestLogicalPartitionGB"`
	// BusiestBasis says what BusiestRUs rests on: the traffic skew the design states (rps.hotKeyShare,
	// by pattern) and, for the other patterns, the data skew (the documents' key spread).
	// BusiestGB always rests on the data skew.
	BusiestBasis string `json:"busiestBasis"`
	// PeakLoad is the load at peak split the way physical partitions see it (the busiest logical
	// partition's, every single-partition pattern's, the cross-partition ones'): what the busiest
	// physical partition asks at any partition count (cost.PartLoad.Hottest).
	PeakLoad cost.PartLoad `json:"peakLoad"`
	// Traffic is the month hour by hour when the design states its traffic's shape (design
	// traffic): the designed throughput billed and judged each hour, every mode at the least setting
	// that serves every hour, and the hours that throttle. Recommended, MonthlyUSD and DesignedCost
	// then follow it; Options keep the flat-rate figures for comparison.
	Traffic *Traffic `json:"traffic,omitempty"`
	// LoadBand is the load and what follows from it (the throughput the cheapest mode sizes, every
	// mode's monthly cost, the designed throughput's, the capacity verdicts) with every pattern
	// whose production figure has a band (Pattern.ProductionBand) at the low end of it, and at the
	// high end; nil when no pattern of the container has one (then nothing here rests on an
	// unpinned rule), or when both ends give the figures.
	LoadBand *LoadBand `json:"loadBand,omitempty"`
}

// LoadBand is a container's capacity under the two ends of its patterns' bands. A rule's
// alternative is chosen independently of every other rule's, so with several rules the low end
// takes every pattern's LowRU and the high end every pattern's HighRU (record.Range).
type LoadBand struct {
	// Rules names the unpinned rules the load rests on, each once.
	Rules []string `json:"rules"`
	Low   BandEnd  `json:"low"`
	High  BandEnd  `json:"high"`
}

// BandEnd is a container's capacity with every banded pattern at one end of its band: the plan's
// own pricing, hot-partition and hour-by-hour steps run over that load (builder.loadBand).
type BandEnd struct {
	AvgRUs  float64 `json:"avgRUs"`
	PeakRUs float64 `json:"peakRUs"`
	// DesignedUSD is the designed throughput's monthly cost (Container.DesignedCost.Total).
	DesignedUSD float64 `json:"designedUSD"`
	// Options are Container.Options' monthly costs at this end, in their order.
	Options     []BandOption `json:"options"`
	Recommended Throughput   `json:"recommended"`
	MonthlyUSD  float64      `json:"monthlyUSD"`
	// Utilization and Risk are the busiest physical partition's (Container.Hot), and PeakLoad the
	// peak split the way partitions see it (Container.PeakLoad).
	Utilization float64       `json:"utilization"`
	Risk        cost.Risk     `json:"risk"`
	PeakLoad    cost.PartLoad `json:"peakLoad"`
	// Warnings are the capacity findings that hold at this end and not at the figure: verdicts
	// that rest on an unpinned rule.
	Warnings []Warning `json:"warnings,omitempty"`
}

// BandOption is one throughput mode's monthly cost at one end of a band.
type BandOption struct {
	Mode     cost.Mode `json:"mode"`
	USD      float64   `json:"usd"`
	Feasible bool      `json:"feasible"`
}

// Avg, Peak, Designed and Monthly are the container's average and peak load, designed cost and
// cheapest cost as ranges over the band's two ends (nil without a band, or when the ends agree).
func (lb *LoadBand) Avg() *record.Range {
	if lb == nil {
		return nil
	}
	return record.NewLoadRange(lb.Low.AvgRUs, lb.High.AvgRUs, lb.Rules)
}

func (lb *LoadBand) Peak() *record.Range {
	if lb == nil {
		return nil
	}
	return record.NewLoadRange(lb.Low.PeakRUs, lb.High.PeakRUs, lb.Rules)
}

func (lb *LoadBand) Designed() *record.Range {
	return lb.rangeOf(func(e BandEnd) float64 { return e.DesignedUSD }, usd)
}

func (lb *LoadBand) Monthly() *record.Range {
	return lb.rangeOf(func(e BandEnd) float64 { return e.MonthlyUSD }, usd)
}

// Option is mode i's monthly cost over the band (Container.Options' order).
func (lb *LoadBand) Option(i int) *record.Range {
	return lb.rangeOf(func(e BandEnd) float64 {
		if i >= len(e.Options) || !e.Options[i].Feasible {
			return math.NaN()
		}
		return e.Options[i].USD
	}, usd)
}

func (lb *LoadBand) rangeOf(f func(BandEnd) float64, format func(float64) string) *record.Range {
	if lb == nil {
		return nil
	}
	lo, hi := f(lb.Low), f(lb.High)
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return nil
	}
	return record.NewRange(lo, hi, lb.Rules, format)
}

// The charges a container's load rests on (Container.LoadBasis).
const (
	// LoadProduction: the design states a production scale; queries are charged as projected to
	// it, point operations and change feeds at their seeded charge (which does not change with
	// scale).
	LoadProduction = "production"
	// LoadSeeded: no production scale is stated, so production scale is the seeded one.
	LoadSeeded = "seeded"
)

// Throughput is a mode and its RU/s (manual RU/s or autoscale max; 0 for serverless).
type Throughput struct {
	Mode cost.Mode `json:"mode"`
	RU   int       `json:"ru,omitempty"`
}

// Document is the static picture of one document type.
type Document struct {
	Type      string  `json:"type"`
	Count     float64 `json:"count"`
	Bytes     float64 `json:"bytes"`
	Terms     float64 `json:"indexedTerms"`
	KeyValues float64 `json:"keyValues"`
	// BusiestShare is the share of the type's documents (and traffic) on its commonest key value.
	BusiestShare float64 `json:"busiestShare"`
	// Production is the type's documents at production (the seeded count without a production
	// scale); ProductionKeyValues and ProductionBusiestShare are KeyValues and BusiestShare at that
	// count, when the design states a production scale (hot partitions are judged on them then).
	Production             float64 `json:"production"`
	ProductionKeyValues    float64 `json:"productionKeyValues,omitempty"`
	ProductionBusiestShare float64 `json:"productionBusiestShare,omitempty"`
}

// Warning is one finding of the plan.
type Warning struct {
	// Code is stable for tooling: estimate-below-floor, estimate-off, price-unit, price, month-length,
	// throughput-short, hot-partition, hot-key-no-mode, throttling, missing-key, serverless, indexing-policy, query-syntax,
	// query-order-by, query-scan, seed-plan.
	Code    string `json:"code"`
	Subject string `json:"subject,omitempty"`
	Message string `json:"message"`
}

// Build computes the plan of d. It fails only when the design cannot be planned at all (no
// containers, or a pattern naming a container that does not exist).
func Build(d *design.Design, opts Options) (*Plan, error) {
	if d == nil {
		return nil, errors.New("plan: no design")
	}
	if len(d.Containers) == 0 {
		return nil, errors.New("plan: design has no containers")
	}
	// Serverless is an account-level capacity mode (cost.Account.Capacity): the cheapest mode is
	// chosen per container within the account's mode. A provisioned account (any container set to
	// manual or autoscale) stays provisioned; an all-serverless account stays serverless unless a
	// container cannot be served so or provisioned throughput for the whole account costs less
	// (serverless → provisioned is a supported change, how-to-change-capacity-mode).
	var modes []cost.Mode
	for i := range d.Containers {
		m, _ := designedThroughput(&d.Containers[i])
		modes = append(modes, m)
	}
	capacity := cost.CapacityOf(modes)
	p, err := build(d, opts, capacity)
	if err != nil || capacity == cost.ProvisionedAccount {
		return p, err
	}
	prov, err := build(d, opts, cost.ProvisionedAccount)
	if err != nil {
		return p, nil
	}
	served := true
	for _, c := range p.Containers {
		served = served && c.Recommended.Mode != ""
	}
	if !served || prov.MonthlyUSD < p.MonthlyUSD {
		return prov, nil
	}
	return p, nil
}

func build(d *design.Design, opts Options, capacity cost.Capacity) (*Plan, error) {
	rc := opts.RateCard
	if rc == nil {
		rc = cost.Current
	}
	acct := cost.Account{Regions: max(d.Regions, 1), MultiRegionWrites: d.MultiRegionWrites, Capacity: capacity}
	if d.Traffic != nil {
		acct.ReadShares = d.Traffic.ReadShares
	}
	p := &Plan{
		SchemaVersion: SchemaVersion,
		Design:        d.Name,
		File:          d.File,
		RateCard:      RateCardRef{Version: rc.Version, Date: rc.Date, Currency: rc.Currency, Unvalidated: rc.Unvalidated(), Label: calibratedLabel(rc)},
		Account:       Account{Regions: acct.Regions, MultiRegionWrites: acct.MultiRegionWrites, Consistency: consistencyOf(d, nil)},
		Warnings:      []Warning{},
	}
	seedN := cmp.Or(opts.Seed, DefaultSeed)
	p.Assumptions = assumptions(rc, acct, seedN)
	if d.Traffic != nil {
		p.Assumptions = append(p.Assumptions, TrafficBilling)
	}

	b := &builder{d: d, rc: rc, rules: opts.Rules, acct: acct, p: p, states: map[string]*cstate{}, seedN: seedN, headroom: opts.Headroom}
	// Document counts: the ones `run` seeds with the same seed, so that plan and run agree.
	if sp, err := seed.Compile(d, seedN); err == nil {
		b.seeded = sp.Counts()
	} else {
		p.Warnings = append(p.Warnings, Warning{Code: "seed-plan", Subject: d.Name,
			Message: fmt.Sprintf("the documents cannot be generated (%v): counts are averages of the designed ranges", err)})
	}
	if err := b.sizeContainers(); err != nil {
		return nil, err
	}
	b.scaleContainers()
	if err := b.addPatterns(); err != nil {
		return nil, err
	}
	// Containers: sizing, cost, hot partitions.
	var low, high, designedLow, designedHigh float64
	var bandRules []string
	for _, st := range b.order {
		from := len(p.Warnings)
		b.capacity(st)
		b.loadBand(st, from)
		cp := st.plan
		cp.StorageGB = round(cp.StorageGB, 3)
		p.Containers = append(p.Containers, *cp)
		lo, hi, dlo, dhi := cp.MonthlyUSD, cp.MonthlyUSD, cp.DesignedCost.Total, cp.DesignedCost.Total
		if lb := cp.LoadBand; lb != nil {
			lo, hi, dlo, dhi = lb.Low.MonthlyUSD, lb.High.MonthlyUSD, lb.Low.DesignedUSD, lb.High.DesignedUSD
			bandRules = record.AddRules(bandRules, lb.Rules...)
		}
		low, high, designedLow, designedHigh = low+lo, high+hi, designedLow+dlo, designedHigh+dhi
	}
	p.MonthlyUSD = round(p.MonthlyUSD, 2)
	p.DesignedMonthlyUSD = round(p.DesignedMonthlyUSD, 2)
	p.MonthlyBand = record.NewRange(round(low, 2), round(high, 2), bandRules, usd)
	p.DesignedMonthlyBand = record.NewRange(round(designedLow, 2), round(designedHigh, 2), bandRules, usd)
	p.Warnings = append(p.Warnings, pricingWarnings(rc, d.Pricing)...)
	return p, nil
}

// builder is the state of one Build: the plan being filled and each container's state, in design
// order.
type builder struct {
	d      *design.Design
	rc     *cost.RateCard
	rules  *cost.Selection
	acct   cost.Account
	p      *Plan
	seeded map[string]int // document counts per type at the run's seed; nil = averages of the ranges
	states map[string]*cstate
	order  []*cstate
	seedN  int64
	// headroom is Options.Headroom.
	headroom float64
}

// cstate is one container's sizers, document estimates and seeded bytes, and the traffic its
// patterns add up to.
type cstate struct {
	s      *sizer
	ests   map[string]docEstimate
	seeded float64 // bytes at seed counts
	plan   *Container
	// stated: the design states a production scale for this container (production counts or a
	// storage figure); prod is then its documents per type at production and ps a sizer over them.
	stated bool
	prod   map[string]float64
	ps     *sizer
	// unstatedScale is the factor from the seeded to the production count of the types that state
	// no production count (scaleContainers).
	unstatedScale float64
	// loadSums is the container's load at its patterns' figures; ends the same with every pattern
	// whose figure has a band at the low (0) and at the high (1) end of it, and bandRules the rules
	// those bands rest on (none: no end is priced).
	loadSums
	ends      [2]loadSums
	bandRules []string
	// trafficSkew lists the single-partition patterns whose busiest key share is the design's
	// rps.hotKeyShare ("AP3 0.9"), in design order; the others follow the documents' key spread.
	trafficSkew    []string
	singlePatterns int // how many single-partition patterns
	// noMode: no throughput mode serves the busiest logical partition at any setting.
	noMode bool
}

// loadSums is a container's load summed over its patterns.
type loadSums struct {
	avg, peak   float64 // RU/s at the average and the peak rate
	single      float64 // peak RU/s of single-partition patterns × their busiest share
	singleTotal float64 // peak RU/s of single-partition patterns
	cross       float64 // peak RU/s of cross-partition patterns
	// avgLoads is each pattern's load at its average rate, split the way partitions see it, for the
	// hour-by-hour traffic (traffic.go).
	avgLoads []patternLoad
}

// add adds one pattern's load: avg and peak RU/s; share is the busiest key's share of a
// single-partition pattern's traffic (single says whether it is one).
func (l *loadSums) add(ap *design.AccessPattern, rps, avg, peak float64, single bool, share float64) {
	l.avg += avg
	l.peak += peak
	if single {
		l.single += peak * share
		l.singleTotal += peak
		l.avgLoads = append(l.avgLoads, patternLoad{ap: ap, rps: rps, load: cost.PartLoad{Busiest: avg * share, KeyScoped: avg}})
		return
	}
	l.cross += peak
	l.avgLoads = append(l.avgLoads, patternLoad{ap: ap, rps: rps, load: cost.PartLoad{Cross: avg}})
}

// peakLoad is the container's load at peak, split the way partitions see it: the busiest logical
// partition's, every single-partition pattern's and the cross-partition ones'.
func (st *cstate) peakLoad() cost.PartLoad {
	return cost.PartLoad{Busiest: st.single, KeyScoped: st.singleTotal, Cross: st.cross}
}

// patternLoad is one pattern's load at rps.avg.
type patternLoad struct {
	ap   *design.AccessPattern
	load cost.PartLoad
	rps  float64
}

// sizeContainers estimates every document type of every container: size, index terms, count at
// the run's seed, and how its partition-key values spread.
func (b *builder) sizeContainers() error {
	d, p, seeded := b.d, b.p, b.seeded
	for i := range d.Containers {
		c := &d.Containers[i]
		if len(c.Documents) == 0 {
			return fmt.Errorf("plan: container %s has no document types", c.Name)
		}
		pol, err := indexpolicy.Compile(c.Indexing)
		if err != nil {
			// The service would refuse the container; plan it as if everything were indexed.
			p.Warnings = append(p.Warnings, Warning{Code: "indexing-policy", Subject: c.Name,
				Message: fmt.Sprintf("%v: planned as if every path were indexed", err)})
		}
		st := &cstate{s: &sizer{d: d, c: c, pol: pol, seeded: seeded, rules: b.rules}, ests: map[string]docEstimate{}}
		cp := &Container{Name: c.Name, PartitionKey: c.PartitionKey, LoadBasis: LoadSeeded}
		for j := range c.Documents {
			dt := &c.Documents[j]
			e := st.s.estimate(dt)
			st.ests[dt.Type] = e
			n := st.s.count(dt, 0)
			st.seeded += n * e.Bytes
			full, _ := st.s.partitionDist(dt)
			cp.Documents = append(cp.Documents, Document{Type: dt.Type, Count: n, Bytes: round(e.Bytes, 0),
				Terms: round(e.Terms, 1), KeyValues: full.Card, BusiestShare: full.Share})
			if !full.Known {
				p.Warnings = append(p.Warnings, Warning{Code: "missing-key", Subject: c.Name,
					Message: fmt.Sprintf("documents of type %s have no %s: they all share one logical partition", dt.Type, strings.Join(c.PartitionKey, ", "))})
			}
		}
		st.plan = cp
		b.states[c.Name] = st
		b.order = append(b.order, st)
	}
	return nil
}

// project sets a pattern's scope growth and, when the design states a production scale, its
// production charge and the figure its estimate is judged on. The production charge is the one
// estimator's (estimateQuery) run over the production sizer: the same statistics, the documents and
// key values production holds, priced by the cost model. Nothing is fitted or carried by a ratio:
// the seeded figure and the production figure are two evaluations of one estimate, and `validate
// run` shows this figure too (it checks the seeded evaluation against the engine's execution).
func (b *builder) project(st *cstate, ap *design.AccessPattern, pp *Pattern) {
	pp.JudgedOn = "seeded"
	if ap.Op != design.OpQuery {
		return
	}
	growth := st.scopeGrowth(ap)
	pp.ScopeGrowth = round(growth, 6)
	pp.ScopeBasis = st.scopeBasis(ap)
	if !st.stated {
		return
	}
	seeded := st.s.estimateQuery(ap, st.ests, st.plan.Partitions)
	if seeded.Unestimated != "" {
		// A query the estimator cannot read has no production figure: its figures assume a scan,
		// which at production would fill every capacity finding with noise.
		return
	}
	prod := st.ps.estimateQuery(ap, st.ests, st.plan.Partitions)
	pf := prod.Facts
	pp.ProductionFacts = &pf
	pp.ProductionPages = prod.Pages
	pp.ProductionScope = prod.Scope
	pp.ProductionRU = round(b.rc.QueryPages(pf, prod.Pages), 2)
	pp.Projection = productionArithmetic(b.rc, seeded, prod, pp.ScopeBasis, st.plan.StorageBasis)
	pp.ProductionBand, pp.ProductionPinned = b.band(st, ap, pp.ProductionRU)
	pp.JudgedOn = "projected"
	pp.DiffRU = round(pp.EstimateRU-pp.ProductionRU, 2)
	pp.DiffPct = 0
	if pp.ProductionRU > 0 {
		pp.DiffPct = round(100*pp.DiffRU/pp.ProductionRU, 1)
	}
}

// band is the production figure of query ap under each alternative of every rule with
// alternatives that no published figure decides (cost.Rule.Assumed): the one estimator run over the
// production sizer with that one rule changed, the others at their chosen alternative, priced by
// the same card. A rule whose alternatives all give the figure does not concern the query and is
// left out; a rule a calibration pinned (Selection.PinnedBy) gives no band, and is named instead.
// This is the one place a band is computed: run, the reports and MCP carry it as it is.
func (b *builder) band(st *cstate, ap *design.AccessPattern, figure float64) (*record.Band, []record.PinnedRule) {
	band := &record.Band{LowRU: figure, HighRU: figure}
	var pinned []record.PinnedRule
	for _, r := range cost.Rules() {
		if !r.Assumed() {
			continue
		}
		chosen := b.rules.Alt(r.Name)
		var alts []record.BandRule
		moves := false
		for _, alt := range r.AlternativeNames() {
			ru := figure
			if alt != chosen {
				s := *st.ps
				s.rules = b.rules.With(r.Name, alt)
				e := s.estimateQuery(ap, st.ests, st.plan.Partitions)
				if e.Unestimated != "" {
					continue
				}
				ru = round(b.rc.QueryPages(e.Facts, e.Pages), 2)
				moves = moves || ru != figure
			}
			alts = append(alts, record.BandRule{Name: r.Name, Alternative: alt, RU: ru})
		}
		if !moves {
			continue
		}
		if by, ok := b.rules.PinnedBy(r.Name); ok {
			pinned = append(pinned, record.PinnedRule{Name: r.Name, Alternative: chosen, By: by})
			continue
		}
		for _, a := range alts {
			band.LowRU, band.HighRU = math.Min(band.LowRU, a.RU), math.Max(band.HighRU, a.RU)
		}
		band.Rules = append(band.Rules, alts...)
	}
	if len(band.Rules) == 0 {
		band = nil
	}
	return band, pinned
}

// scopeGrowth is how many times more documents one execution of ap has in scope at production than
// at the seeded scale. Without a partition key the scope is the container: the growth of all its
// documents. With a key or a prefix it is one key value's documents, summed over the types that
// hold the key: each type's documents over its key values, at production and seeded. A key that is
// a document's id stays at one document; a copy of a parent's id follows the production children
// per parent; values from a fixed set (oneOf, const, bool, int range) carry every production
// document; a cardinality grows with the documents (each value keeps its share). When the index
// serves a filter that keeps only some types (c.type = 'user'), the scope grows as those types do:
// the facts of such a query follow the documents the index hands over, and a production mix can
// differ from the seeded one (200,000 users beside 30 million events).
func (st *cstate) scopeGrowth(ap *design.AccessPattern) float64 {
	ps := st.keySizer()
	k := len(ap.PartitionKey)
	kept := st.keptTypes(ap)
	var seeded, prod float64
	for i := range st.s.c.Documents {
		dt := &st.s.c.Documents[i]
		if kept != nil && !kept[dt.Type] {
			continue
		}
		n, np := st.s.count(dt, 0), ps.count(dt, 0)
		if k > 0 {
			ds, dp := st.s.prefixDist(dt, k), ps.prefixDist(dt, k)
			if !ds.Known {
				continue
			}
			n, np = n/math.Max(ds.Card, 1), np/math.Max(dp.Card, 1)
		}
		seeded += n
		prod += np
	}
	if seeded <= 0 {
		return 1
	}
	return prod / seeded
}

// keptTypes is the document types a query's index-served filters can match, nil when they keep
// every type (or none is served, and the query loads every document in scope).
func (st *cstate) keptTypes(ap *design.AccessPattern) map[string]bool {
	defer st.s.pinLevels(ap)()
	a, err := st.s.analyze(ap.Query)
	if err != nil || !a.Narrowing {
		return nil
	}
	filters := boundFilters(ap, a.Filters)
	kept := map[string]bool{}
	for i := range st.s.c.Documents {
		dt := &st.s.c.Documents[i]
		if st.s.matching(dt, 1, filters, true) > 0 {
			kept[dt.Type] = true
		}
	}
	if len(kept) == 0 || len(kept) == len(st.s.c.Documents) {
		return nil
	}
	return kept
}

// keySizer is the sizer whose key distribution the container's traffic and sizes follow: the
// production one when the design states a production scale.
func (st *cstate) keySizer() *sizer {
	if st.ps != nil {
		return st.ps
	}
	return st.s
}

// addPatterns estimates every access pattern and adds its traffic to its container's.
func (b *builder) addPatterns() error {
	d, rc, p := b.d, b.rc, b.p
	for i := range d.AccessPatterns {
		ap := &d.AccessPatterns[i]
		st, ok := b.states[ap.Container]
		if !ok {
			return fmt.Errorf("plan: pattern %s: no container %q", ap.ID, ap.Container)
		}
		// Queries are estimated at the seeded volume, which is what a run measures; partitions and
		// storage are at production scale, as the engine simulates them.
		pp, qw := estimatePattern(rc, st.s, st.ests, ap, st.plan.Partitions)
		b.project(st, ap, &pp)
		// The load is production's when the design states it: a query's projected charge (point
		// operations do not change with scale), so that throughput, hot partitions and cost are
		// sized for the documents the container will hold, not the few thousand seeded.
		if pp.JudgedOn == "projected" {
			pp.AvgRUs = round(cost.RUPerSecond(pp.ProductionRU, pp.AvgRPS), 2)
			pp.PeakRUs = round(cost.RUPerSecond(pp.ProductionRU, pp.PeakRPS), 2)
		}
		p.Patterns = append(p.Patterns, pp)
		share := 1.0
		if pp.SinglePartition {
			data := 1.0
			if dt := st.s.trafficType(ap); dt != nil {
				full, _ := st.keySizer().partitionDist(dt)
				data = full.Share
			}
			var traffic bool
			share, traffic = ap.BusiestKeyShare(data)
			if traffic {
				st.trafficSkew = append(st.trafficSkew, fmt.Sprintf("%s %g", ap.ID, share))
			}
			st.singlePatterns++
		}
		st.add(ap, pp.AvgRPS, pp.AvgRUs, pp.PeakRUs, pp.SinglePartition, share)
		// The load band's ends: this pattern's share of the load at the low and at the high end
		// of its band (record.Band.Ends, which run's load sums too).
		for i := range st.ends {
			avg, peak := pp.AvgRUs, pp.PeakRUs
			if bd := pp.ProductionBand; bd != nil {
				ru := bd.Ends(pp.ProductionRU)[i]
				avg, peak = round(cost.RUPerSecond(ru, pp.AvgRPS), 2), round(cost.RUPerSecond(ru, pp.PeakRPS), 2)
			}
			st.ends[i].add(ap, pp.AvgRPS, avg, peak, pp.SinglePartition, share)
		}
		st.bandRules = record.AddRules(st.bandRules, pp.ProductionBand.RuleNames()...)
		p.Warnings = append(p.Warnings, qw...)
		p.Warnings = append(p.Warnings, patternWarnings(pp)...)
	}
	return nil
}

// capacity sizes, prices and judges a container's load: the cheapest mode and the designed one's
// cost, hot partitions, and the month hour by hour when the design states a traffic shape.
func (b *builder) capacity(st *cstate) {
	b.price(st)
	b.hotPartitions(st)
	b.traffic(st)
}

// loadBand runs capacity over each end of the container's load band (cstate.ends): the same steps
// on a copy of the container with that load, its warnings kept apart. It fills Container.LoadBand,
// and marks each capacity warning of the figure (b.p.Warnings[from:]) that does not hold at an end:
// that verdict rests on an unpinned rule. Each pattern's band has one home, the estimator here
// (Pattern.ProductionBand); this is the one place plan's load band is computed from them, and lint,
// MCP and the studio carry it as it is. A run's load is its own figure (its median charges), so
// run sums its own load band from the same pattern bands (report's buildLoads, with
// record.Band.Ends as here).
func (b *builder) loadBand(st *cstate, from int) {
	if len(st.bandRules) == 0 {
		return
	}
	cp := st.plan
	lb := &LoadBand{Rules: st.bandRules}
	figure := b.p.Warnings[from:]
	flipped := false
	for i, sums := range st.ends {
		e := *st
		e.loadSums, e.noMode = sums, false
		ec := *cp
		ec.Options, ec.Recommended, ec.RecommendedNote, ec.MonthlyUSD, ec.Hot, ec.Traffic = nil, Throughput{}, "", 0, cost.Hot{}, nil
		e.plan = &ec
		eb := *b
		eb.p = &Plan{}
		eb.capacity(&e)
		end := BandEnd{AvgRUs: ec.AvgRUs, PeakRUs: ec.PeakRUs, DesignedUSD: round(ec.DesignedCost.Total, 2),
			Recommended: ec.Recommended, MonthlyUSD: round(ec.MonthlyUSD, 2), Utilization: round(ec.Hot.Utilization, 4), Risk: ec.Hot.Risk, PeakLoad: ec.PeakLoad}
		for _, o := range ec.Options {
			end.Options = append(end.Options, BandOption{Mode: o.Mode, USD: round(o.Total, 2), Feasible: o.Feasible})
		}
		which := []string{"low", "high"}[i]
		for _, w := range eb.p.Warnings {
			if !slices.ContainsFunc(figure, func(f Warning) bool { return f.Code == w.Code }) {
				end.Warnings = append(end.Warnings, w)
			}
		}
		for j := range figure {
			if !slices.ContainsFunc(eb.p.Warnings, func(w Warning) bool { return w.Code == figure[j].Code }) {
				flipped = true
				figure[j].Message += fmt.Sprintf("; this rests on %s: at the %s end of its band (%s RU/s peak) it does not hold", record.RuleWords(st.bandRules), which, num(ec.PeakRUs))
			}
		}
		if i == 0 {
			lb.Low = end
		} else {
			lb.High = end
		}
	}
	if !flipped && !lb.matters(cp) {
		return
	}
	cp.LoadBand = lb
}

// matters reports whether a reader of container cp would act differently at an end of its load
// band (docs/cost-model.md, "Bands"): a monthly cost differs (designed, cheapest or any mode's, to
// the cent), or the cheapest mode and its throughput, a mode's feasibility, the busiest partition's
// risk or a verdict only one end has; or the load itself moves by more than its three significant
// figures (Avg, Peak). Without any of these the band is noise and plan shows none.
func (lb *LoadBand) matters(cp *Container) bool {
	if lb.Avg() != nil || lb.Peak() != nil || lb.Designed() != nil || lb.Monthly() != nil {
		return true
	}
	for _, e := range []BandEnd{lb.Low, lb.High} {
		if e.Recommended != cp.Recommended || e.Risk != cp.Hot.Risk || len(e.Warnings) > 0 || len(e.Options) != len(cp.Options) {
			return true
		}
		for i, o := range e.Options {
			if o.Feasible != cp.Options[i].Feasible || lb.Option(i) != nil {
				return true
			}
		}
	}
	return false
}

// price chooses the cheapest throughput mode for a container's modeled load, prices the designed
// one, and warns when the design cannot carry its peak.
func (b *builder) price(st *cstate) {
	rc, acct, p := b.rc, b.acct, b.p
	cp := st.plan
	c := st.s.c
	cp.AvgRUs, cp.PeakRUs = round(st.avg, 2), round(st.peak, 2)
	// The cheapest mode that serves the busiest physical partition, not only the container's peak
	// (#38: a mode whose per-partition share is below the busiest partition's need is not
	// recommended).
	opts, best := rc.CheapestServing(cp.AvgRUs, st.peakLoad(), cp.StorageGB, acct)
	if best < 0 {
		// No mode serves the busiest key at any setting: recommend what carries the container's
		// peak, and say the key must change (hotKeyNoMode).
		opts, best = rc.Cheapest(cp.AvgRUs, cp.PeakRUs, cp.StorageGB, acct)
		st.noMode = true
	}
	cp.Options = opts
	if best >= 0 {
		cp.Recommended = Throughput{Mode: opts[best].Mode, RU: opts[best].Provisioned}
		cp.MonthlyUSD = opts[best].Total
	}
	cp.DesignedCost = rc.MonthlyCost(cost.Usage{Mode: cp.Designed.Mode, Provisioned: cp.Designed.RU,
		AvgRU: cp.AvgRUs, PeakRU: cp.PeakRUs, StorageGB: cp.StorageGB}, acct)
	if best >= 0 && cp.MonthlyUSD > cp.DesignedCost.Total+0.005 {
		cp.RecommendedNote = costlierNote(rc, cp, opts[best])
	}
	if best >= 0 && opts[best].Sizing != "" {
		cp.RecommendedNote = strings.TrimPrefix(cp.RecommendedNote+"; ", "; ") + "sized for the busiest partition: " + opts[best].Sizing
	}
	p.MonthlyUSD += cp.MonthlyUSD
	p.DesignedMonthlyUSD += cp.DesignedCost.Total
	if !cp.DesignedCost.Feasible {
		p.Warnings = append(p.Warnings, Warning{Code: "serverless", Subject: c.Name, Message: cp.DesignedCost.Reason})
	}
	if cp.Designed.Mode != cost.Serverless && float64(cp.Designed.RU) < cp.PeakRUs {
		p.Warnings = append(p.Warnings, Warning{Code: "throughput-short", Subject: c.Name,
			Message: fmt.Sprintf("designed %s %d RU/s is below the modeled peak of %.0f RU/s %s", cp.Designed.Mode, cp.Designed.RU, cp.PeakRUs, loadWords(cp))})
	}
	if w, ok := overProvisioned(rc, c, cp, opts); ok {
		p.Warnings = append(p.Warnings, w)
	}

}

// overFactor is how far above what its peak needs a container's designed throughput may be before
// plan calls it over-provisioned (assumed: headroom for growth and bursts up to about three times the
// modeled peak is a design choice; beyond it the idle capacity is the larger part of the bill).
const overFactor = 3

// overProvisioned warns when the designed manual or autoscale throughput is more than overFactor
// times what the same mode needs for the modeled peak and the storage (opts, sized by
// RateCard.Cheapest), and the excess costs money each month: the idle capacity's monthly cost, the
// setting sized for the peak and the YAML to paste.
func overProvisioned(rc *cost.RateCard, c *design.Container, cp *Container, opts []cost.Monthly) (Warning, bool) {
	if cp.Designed.Mode == cost.Serverless || cp.PeakRUs <= 0 {
		return Warning{}, false
	}
	var same *cost.Monthly
	for i := range opts {
		if opts[i].Mode == cp.Designed.Mode && opts[i].Feasible {
			same = &opts[i]
		}
	}
	if same == nil {
		return Warning{}, false
	}
	need := int(same.BilledRU)
	key := "manual"
	if cp.Designed.Mode == cost.Autoscale {
		need, key = rc.AutoscaleFor(cp.PeakRUs, cp.StorageGB), "autoscaleMax"
	}
	idle := cp.DesignedCost.Total - same.Total
	if need <= 0 || float64(cp.Designed.RU) <= overFactor*math.Max(float64(need), cp.PeakRUs) || idle < 0.005 {
		return Warning{}, false
	}
	msg := fmt.Sprintf("designed %s %d RU/s is %.0f× the modeled peak of %.0f RU/s %s: %s/month of the %s/month it costs pays for idle capacity; %s %d RU/s serves the peak for %s/month: throughput: {%s: %d}",
		cp.Designed.Mode, cp.Designed.RU, float64(cp.Designed.RU)/cp.PeakRUs, cp.PeakRUs, loadWords(cp), usd(idle), usd(cp.DesignedCost.Total),
		cp.Designed.Mode, need, usd(same.Total), key, need)
	if cp.Recommended.Mode != cp.Designed.Mode && cp.MonthlyUSD < same.Total-0.005 {
		msg += fmt.Sprintf(" (cheapest of all: %s at %s/month)", throughput(cp.Recommended), usd(cp.MonthlyUSD))
	}
	return Warning{Code: "over-provisioned", Subject: c.Name, Message: msg}, true
}

// loadWords says which figures a container's capacity warnings rest on.
func loadWords(cp *Container) string {
	if cp.LoadBasis == LoadProduction {
		return "(at production scale: queries' projected charges and production document counts; point operations do not change with scale)"
	}
	return "(at the seeded scale: the design states no production scale)"
}

// costlierNote explains why the cheapest mode that serves the container costs more than its designed
// throughput: the designed one cannot serve the modeled peak, is below the least the service allows
// for the storage, or is a serverless container beyond serverless limits.
func costlierNote(rc *cost.RateCard, cp *Container, best cost.Monthly) string {
	cheapest := fmt.Sprintf("the cheapest mode that can, %s, costs %s/month", throughput(cp.Recommended), usd(best.Total))
	designed := throughput(cp.Designed)
	switch {
	case !cp.DesignedCost.Feasible:
		return fmt.Sprintf("the designed %s is not possible (%s); %s", designed, cp.DesignedCost.Reason, cheapest)
	case cp.Designed.Mode != cost.Serverless && float64(cp.Designed.RU) < cp.PeakRUs:
		return fmt.Sprintf("the designed %s cannot serve the modeled peak of %.0f RU/s; %s", designed, cp.PeakRUs, cheapest)
	case cp.Designed.Mode == cost.Manual && cp.Designed.RU < rc.ManualFor(0, cp.StorageGB):
		return fmt.Sprintf("the designed %s is below the least the service allows for %.3g GB (%d RU/s); %s",
			designed, cp.StorageGB, rc.ManualFor(0, cp.StorageGB), cheapest)
	case cp.Designed.Mode == cost.Autoscale && cp.Designed.RU < rc.AutoscaleFor(0, cp.StorageGB):
		return fmt.Sprintf("the designed %s is below the least the service allows for %.3g GB (max %d RU/s); %s",
			designed, cp.StorageGB, rc.AutoscaleFor(0, cp.StorageGB), cheapest)
	}
	return fmt.Sprintf("the designed %s costs less than every mode sized for the modeled load; %s", designed, cheapest)
}

// hotPartitions finds the busiest logical partition's traffic and size and what the rate card says
// about it.
func (b *builder) hotPartitions(st *cstate) {
	rc, p := b.rc, b.p
	cp, c := st.plan, st.s.c
	var busiestGB, prefixGB, topGB float64
	var top *design.DocType
	// At production when the design states it: production counts and their key values.
	ks := st.keySizer()
	for j := range c.Documents {
		dt := &c.Documents[j]
		full, prefix := ks.partitionDist(dt)
		bytes := ks.count(dt, 0) * st.ests[dt.Type].Bytes / 1e9
		busiestGB += bytes * full.Share
		prefixGB += bytes * prefix.Share
		if bytes*full.Share > topGB {
			top, topGB = dt, bytes*full.Share
		}
	}
	skew := ks.skewNote(c, top)
	cp.BusiestGB = sig(busiestGB, 3)
	cp.BusiestRUs = sig(st.single, 3)
	cp.BusiestBasis = busiestBasis(st)
	cp.PeakLoad = st.peakLoad()
	physical := st.peakLoad().Hottest(cp.Partitions)
	prov := float64(cp.Designed.RU)
	// The throughput the peak needs may need more physical partitions, which spread the shared load
	// thinner: cost.HotPartition does not call a container that is merely short of throughput hot.
	peakParts := max(cp.Partitions, rc.PartitionsFor(cp.Designed.Mode, cp.StorageGB, cost.CeilInt(cp.PeakRUs)))
	cp.Hot = rc.HotPartition(cost.HotInput{ProvisionedRU: prov, Partitions: cp.Partitions,
		BusiestRU: st.single, PartitionRU: physical, BusiestGB: busiestGB, PrefixGB: prefixGB,
		Hierarchical: c.IsHierarchical(), Serverless: cp.Designed.Mode == cost.Serverless, Headroom: b.headroom,
		PeakRU: cp.PeakRUs, PeakPartitions: peakParts, PeakPartitionRU: st.peakLoad().Hottest(peakParts)})
	// Only key-scoped load makes one partition hotter than the others: a cross-partition query's
	// load spreads over every physical partition (st.cross/np on each) and so does key-scoped load
	// spread evenly; cost.HotPartition judges it (the one rule, which advise's key ranking reads).
	for _, f := range cp.Hot.Findings {
		if f == cp.Hot.HeadroomRU {
			// Said by hot-key-no-mode, which follows the same verdict (noRobustMode).
			continue
		}
		msg := f + " " + loadWords(cp)
		if !strings.HasPrefix(f, "largest logical partition") {
			msg += "; " + cp.BusiestBasis
		}
		if skew != "" {
			msg += "; " + skew
		}
		p.Warnings = append(p.Warnings, Warning{Code: "hot-partition", Subject: c.Name, Message: msg})
	}
	if w, ok := noRobustMode(rc, st, c); ok {
		p.Warnings = append(p.Warnings, w)
	}
	if w, ok := hpkOrder(ks, c, busiestGB, rc.LogicalMaxGB.Value); ok {
		p.Warnings = append(p.Warnings, w)
	}
	// The risk follows the utilisation plan prints: a physical partition asked for more than it
	// serves is a high risk even when it is the only one (its shortfall is throughput-short).
	if cp.Hot.Utilization > 1 && cp.Hot.Risk != cost.RiskHigh {
		cp.Hot.Risk = cost.RiskHigh
	}
}

// noRobustMode warns when the busiest logical partition needs more than the headroom share (default
// half: "most of") of what a logical partition can ever have — cost.HotPartition's verdict, the one
// rule advise's key ranking reads too (Hot.HeadroomRU) — or more than any mode's physical partition
// gets at any setting: no throughput setting fixes it, the key must change (assumed: above half, an
// intra-hour spike or a year's growth takes the key past what any setting can give it).
func noRobustMode(rc *cost.RateCard, st *cstate, c *design.Container) (Warning, bool) {
	limit := rc.PartitionMaxRU.Value
	hot := st.plan.Hot
	if !st.noMode && hot.HeadroomRU == "" {
		return Warning{}, false
	}
	what := fmt.Sprintf("most (over %.0f%%) of the %.0f RU/s a logical partition can ever have", hot.HeadroomShare*100, limit)
	if st.noMode {
		what = "more than a physical partition gets in any throughput mode at any setting"
	}
	return Warning{Code: "hot-key-no-mode", Subject: c.Name, Message: fmt.Sprintf(
		"the busiest logical partition needs %.0f RU/s at peak, %s: no throughput setting serves it robustly (more throughput adds partitions, not capacity for one key; %s); change the partition key so that this traffic spreads over many values (a key with more distinct values, a hierarchical key, or a synthetic suffix)",
		st.single, what, busiestBasis(st))}, true
}

// hpkLowFirstLevel is the fewest distinct values a hierarchical key's first level may have before
// hpk-order calls it low cardinality (assumed: the documentation asks for high cardinality at every
// level, starting with the first, and gives no number; below 10 a first level is a handful of values
// — the months of a quarter, regions, statuses — while a first level of tenants or customers, as
// in the review corpus's clean design (20 tenants), is left alone).
const hpkLowFirstLevel = 10

// hpkOrder checks a hierarchical key against hierarchical-partition-keys.md ("each level of the full
// path, starting with the first level, should have a high cardinality") and
// hierarchical-partition-keys-unlimited-scale.md (a key whose logical partitions may outgrow the
// 20 GB limit ends with a unique level such as /id). Two findings, code hpk-order:
//   - a first level with fewer than hpkLowFirstLevel distinct values (at production when stated)
//     under a later level with more: every document sits under one of a handful of prefixes, so
//     the writes that share it (the current month) go under one prefix; the advice puts the
//     highest-cardinality level first, never a low-cardinality one;
//   - a largest logical partition (full key, busiestGB: hot-partition's figure) over half the limit
//     when the last level is not unique: the advice ends the key with /id.
func hpkOrder(ks *sizer, c *design.Container, busiestGB, maxGB float64) (Warning, bool) {
	if !c.IsHierarchical() {
		return Warning{}, false
	}
	card := make([]float64, len(c.PartitionKey))
	for i, path := range c.PartitionKey {
		for j := range c.Documents {
			if l := ks.keyLevel(&c.Documents[j], path, 0); l.Known {
				card[i] = math.Max(card[i], l.Card)
			}
		}
	}
	top := 0
	for i := range card {
		if card[i] > card[top] {
			top = i
		}
	}
	if card[0] > 0 && card[0] < hpkLowFirstLevel && top > 0 && card[top] > card[0] {
		order := append([]string{c.PartitionKey[top]}, slices.Delete(slices.Clone(c.PartitionKey), top, top+1)...)
		return Warning{Code: "hpk-order", Subject: c.Name, Message: fmt.Sprintf(
			"hierarchical key's first level %s has %.0f distinct values: every document sits under one of %.0f prefixes, so the writes that share one (the current month, a region) all go under it; each level, starting with the first, should have high cardinality (hierarchical-partition-keys.md): put a high-cardinality level first, partitionKey: [%s] (%s has %.0f values; a query that gives only %s then reads across partitions), or give %s more values",
			c.PartitionKey[0], card[0], card[0], strings.Join(order, ", "), c.PartitionKey[top], card[top], c.PartitionKey[0], c.PartitionKey[0])}, true
	}
	last := c.PartitionKey[len(c.PartitionKey)-1]
	docs := 0.0
	for j := range c.Documents {
		docs += ks.count(&c.Documents[j], 0)
	}
	unique := last == "/id" || card[len(card)-1] >= docs
	if busiestGB > maxGB/2 && !unique {
		advice := "partitionKey: [" + strings.Join(append(slices.Clone(c.PartitionKey), "/id"), ", ") + "]"
		if len(c.PartitionKey) == 3 {
			advice = "partitionKey: [" + strings.Join(append(slices.Clone(c.PartitionKey[:2]), "/id"), ", ") + "] (three levels at most)"
		}
		return Warning{Code: "hpk-order", Subject: c.Name, Message: fmt.Sprintf(
			"the largest logical partition (a full key value) holds %.1f GB of the %.0f GB limit and the last level %s is not unique: end the key with a unique level so that its prefixes can grow past %.0f GB (hierarchical-partition-keys-unlimited-scale.md): %s",
			busiestGB, maxGB, last, maxGB, advice)}, true
	}
	return Warning{}, false
}

// busiestBasis says which skew sized a container's busiest logical partition's traffic: the traffic
// skew the design states (rps.hotKeyShare) for the patterns that state it, the data skew (requests
// follow the documents' commonest key value) for the others.
func busiestBasis(st *cstate) string {
	const data = "the documents' key spread (data skew)"
	switch {
	case st.singleTotal == 0:
		return "no single-partition traffic: the busiest logical partition gets none of its own"
	case len(st.trafficSkew) == 0:
		return "busiest key's traffic from " + data + "; no pattern states rps.hotKeyShare"
	case len(st.trafficSkew) == st.singlePatterns:
		return "busiest key's traffic from rps.hotKeyShare (traffic skew: " + strings.Join(st.trafficSkew, ", ") + ")"
	}
	return "busiest key's traffic from rps.hotKeyShare (traffic skew: " + strings.Join(st.trafficSkew, ", ") + "), the other patterns' from " + data
}

// AutoscaleBilling is how autoscale is billed and what plan assumes about it, in the one wording
// docs/cost-model.md uses too (a test holds them together). The service bills each hour for the
// highest RU/s the container scaled to in that hour, never less than 10% of its maximum
// (articles/cosmos-db/autoscale-faq.md, "How does pricing work with autoscale?").
const AutoscaleBilling = "autoscale bills each hour for the highest RU/s it scaled to in that hour, at least 10% of max; " +
	"with no hourly profile known, plan takes the average RU/s as every hour's highest (a lower bound when the rate varies within the hour)"

// TrafficBilling is what plan assumes when the design states its traffic's shape.
const TrafficBilling = "with a traffic shape (design traffic), every hour of the 730-hour billed month is priced and judged on its own: each pattern's average load × its hourly factor × any event's factor, its highest second × intraHourPeak; " +
	"autoscale bills each hour's highest RU/s at least 10% of max, by default scaling every partition and region with the hottest one (hottest partition × partitions × regions), with dynamic scaling each on its own (autoscale-per-partition-region.md); " +
	"every region carries the whole load unless traffic.readShares splits the reads (writes replicate to every region; assumed); a physical partition gets the throughput split evenly (at most 10,000 RU/s; serverless 5,000) and throttles beyond it; burst capacity is a cushion, never capacity; partitions are those a container created at the setting has (RU/s ÷ 6,000 manual, ÷ 10,000 autoscale), and never merge back"

func assumptions(rc *cost.RateCard, a cost.Account, seedN int64) []string {
	price := rc.ManualPrice
	if a.MultiRegionWrites {
		price = rc.ManualMRWPrice
	}
	return []string{
		fmt.Sprintf("rate card %s dated %s, US list prices in %s", rc.Version, rc.Date, rc.Currency),
		fmt.Sprintf("%.0f billed hours per month (%s)", rc.HoursPerMonth.Value, rc.HoursPerMonth.Source),
		fmt.Sprintf("%d region(s), multi-region writes %v: throughput and storage are billed in every region", a.Regions, a.MultiRegionWrites),
		fmt.Sprintf("manual $%g per 100 RU/s per hour; autoscale $%g; serverless $%g per million RU; storage $%g per GB-month",
			price.Value, pick(a.MultiRegionWrites, rc.AutoscaleMRWPrice.Value, rc.AutoscalePrice.Value), rc.ServerlessPrice.Value, rc.StoragePrice.Value),
		AutoscaleBilling,
		"serverless bills the average RU/s over the whole month",
		"document sizes and indexed terms come from the design's generators, plus about 180 bytes of system properties",
		fmt.Sprintf("query figures are static and rough: document counts are the ones `run --seed %d` seeds and selectivity comes from the generators (cardinalities, oneOf weights, the ranges of numeric and time generators; each query's detail says what it assumed where they tell nothing), not from executing the query; physical partitions are at production scale", seedN),
		"with a production scale (documents[].production, storageGB), query figures are also estimated at it, as run shows them: the same estimator run again over the production documents (production counts and key values; the same statistics, nothing fitted or scaled by a ratio) and priced by the same card; estimates of queries are judged on that figure, and the container load (RU/s, throughput-short, hot partitions, the cheapest mode, monthly cost) rests on it too; point operations keep their charge, which does not change with scale",
	}
}

func pick(cond bool, a, b float64) float64 {
	if cond {
		return a
	}
	return b
}

func designedThroughput(c *design.Container) (cost.Mode, int) {
	switch {
	case c.Throughput.Serverless:
		return cost.Serverless, 0
	case c.Throughput.AutoscaleMax > 0:
		return cost.Autoscale, c.Throughput.AutoscaleMax
	case c.Throughput.Manual > 0:
		return cost.Manual, c.Throughput.Manual
	}
	return cost.Manual, design.DefaultManualThroughput
}

func consistencyOf(d *design.Design, ap *design.AccessPattern) string {
	if ap != nil && ap.Consistency != "" {
		return ap.Consistency
	}
	if d.Consistency != "" {
		return d.Consistency
	}
	return string(cost.Session)
}

func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}

// trafficType is the document type whose key values a pattern's requests follow.
func (s *sizer) trafficType(ap *design.AccessPattern) *design.DocType {
	if dt := s.docType(ap.Sample); dt != nil {
		return dt
	}
	return s.docType(ap.Document)
}

// Judged is the figure the pattern's estimate is judged on and where it stands, in words.
func (pp Pattern) Judged() (float64, string) {
	if pp.JudgedOn == "projected" {
		return pp.ProductionRU, "projected to production scale"
	}
	return pp.ModelRU, "at the seeded scale"
}

// estimateOffPct is how far (percent) a designer's estimate may stand from the model's figure before
// plan says so (assumed: run's query tolerance, --tolerance-query, is 50% too; within it the
// difference is the model's own uncertainty, not the designer's mistake).
const estimateOffPct = 50

func patternWarnings(pp Pattern) []Warning {
	var ws []Warning
	if pp.EstimateRU > 0 && pp.EstimateRU < pp.FloorRU*0.95 { // 5% slack for rounding
		ws = append(ws, Warning{Code: "estimate-below-floor", Subject: pp.ID,
			Message: fmt.Sprintf("estimate %.2f RU is below the least a %s can cost here (%.2f RU)", pp.EstimateRU, pp.Op, pp.FloorRU)})
	} else if judged, at := pp.Judged(); pp.EstimateRU > 0 && judged > 0 && math.Abs(pp.DiffPct) > estimateOffPct {
		msg := fmt.Sprintf("estimate %.2f RU differs from the model's %.2f RU %s by %s", pp.EstimateRU, judged, at, signedPct(pp.DiffPct))
		if b := pp.ProductionBand; pp.JudgedOn == "projected" && b.Contains(pp.EstimateRU) {
			msg += fmt.Sprintf(", but lies inside its band (%s–%s RU, %s): which alternative holds decides it", num(b.LowRU), num(b.HighRU), strings.TrimPrefix(b.Words(num), num(b.LowRU)+"–"+num(b.HighRU)+": "))
		}
		ws = append(ws, Warning{Code: "estimate-off", Subject: pp.ID, Message: msg})
	}
	return ws
}

// pricingWarnings checks the designer's stated prices against the rate card.
func pricingWarnings(rc *cost.RateCard, pr *design.Pricing) []Warning {
	if pr == nil {
		return nil
	}
	var ws []Warning
	list := rc.ManualPrice.Value
	if pr.ManualPerRUHour > 0 {
		ratio := pr.ManualPerRUHour / (list / 100)
		ws = append(ws, Warning{Code: "price-unit", Subject: "pricing.manualPerRUHour",
			Message: fmt.Sprintf("$%g per RU/s per hour is %.0f× the list price: the service bills $%g per 100 RU/s per hour ($%g per RU/s)",
				pr.ManualPerRUHour, ratio, list, list/100)})
	}
	if v := pr.ManualPer100RUsHour; v > 0 && (v > list*1.5 || v < list/1.5) {
		ws = append(ws, Warning{Code: "price", Subject: "pricing.manualPer100RUsHour",
			Message: fmt.Sprintf("$%g per 100 RU/s per hour differs from the list price $%g (rate card %s)", v, list, rc.Date)})
	}
	if v := pr.StoragePerGBMonth; v > 0 && (v > rc.StoragePrice.Value*1.5 || v < rc.StoragePrice.Value/1.5) {
		ws = append(ws, Warning{Code: "price", Subject: "pricing.storagePerGBMonth",
			Message: fmt.Sprintf("$%g per GB-month differs from the list price $%g", v, rc.StoragePrice.Value)})
	}
	if v := pr.SecondsPerMonth; v > 0 && math.Abs(v-rc.SecondsPerMonthFor.Value) > 1 {
		ws = append(ws, Warning{Code: "month-length", Subject: "pricing.secondsPerMonth",
			Message: fmt.Sprintf("%.0f s per month (%.1f days) is not the billed month of %.0f h (%.0f s): figures are off by %+.1f%%",
				v, v/86400, rc.HoursPerMonth.Value, rc.SecondsPerMonthFor.Value, 100*(v-rc.SecondsPerMonthFor.Value)/rc.SecondsPerMonthFor.Value)})
	}
	return ws
}

// calibratedLabel is rc's label when a calibration fitted it, "" for the built-in card.
func calibratedLabel(rc *cost.RateCard) string {
	if rc.Calibration == nil {
		return ""
	}
	return rc.Label()
}
