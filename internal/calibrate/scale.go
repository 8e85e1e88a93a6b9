package calibrate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/probe"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/sdk"
	"github.com/cosmosdv/validate/internal/target"
)

// This file is `validate calibrate --scale`: it seeds two probe containers of known documents on
// the target, runs the shapes that decide each rule with alternatives (cost.Rules) and the shapes
// whose charge shows how index work grows with the documents, and reads the query metrics the
// target returns with every page (x-ms-documentdb-query-metrics: retrievedDocumentCount,
// indexLookupTimeInMs, output counts; azcosmos v1.5.0 asks for them on every query). Each rule is
// decided by comparing the measured metric with what each of its alternatives gives on the
// embedded engine over the same documents: the nearest alternative wins. The growth shapes run on
// the embedded engine too, under the decided rules, so that each growth point holds the built-in
// model's charge and facts beside the measured charge. The decisions and the growth go into the
// profile (cost.Profile.Rules, Growth), and `--calibration` then pins them: the rules, and the
// figures the growth pins (cost.Profile.GrowthFits).

// ScaleConfig is one scale calibration.
type ScaleConfig struct {
	// Target is the account or endpoint to measure.
	Target target.Config
	// Yes confirms the cost on an account; without it Scale prints the preview and returns ErrNeedsYes.
	Yes bool
	// Serverless says the account bills per request (containers without throughput).
	Serverless bool
	// Documents is the smaller probe container's documents (the larger holds scaleFactor ×); 0 = 1,000.
	Documents int
	// RunID, Status, Now, RequestTimeout and CleanupWithin are as in Config.
	RunID          string
	Status         io.Writer
	Now            func() time.Time
	RequestTimeout time.Duration
	CleanupWithin  time.Duration
}

// Probe containers: the smaller decides the rules; both measure growth.
const (
	scaleFactor       = 4
	scaleThroughput   = 1000 // RU/s of each probe container on provisioned throughput
	scaleKey          = "probe"
	scaleDefaultDocs  = 1500 // the least at which the CONTAINS growth pins queryScanValue to 10% (cost.Profile.GrowthFits)
	scaleSeedParallel = 8
	// serverlessMaxRUs is what one serverless container serves at most (serverless.md: "up to
	// 5,000 RU/s" per container).
	serverlessMaxRUs = 5000
)

// scalePolicy indexes everything but /u (the filter no index serves) and holds the composite
// (pk, s) the partition-key ORDER BY rule asks about.
func scalePolicy() *azcosmos.IndexingPolicy {
	return &azcosmos.IndexingPolicy{
		Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
		IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}},
		ExcludedPaths: []azcosmos.ExcludedPath{{Path: "/u/?"}, {Path: `/"_etag"/?`}},
		CompositeIndexes: [][]azcosmos.CompositeIndex{{
			{Path: "/pk", Order: azcosmos.CompositeIndexAscending},
			{Path: "/s", Order: azcosmos.CompositeIndexAscending},
		}},
	}
}

// scaleDoc is probe document i of a container of n: one logical partition (every probe query is
// single-partition), s a permutation of 0..n-1 (the ORDER BY key, not in write order), one in five
// with u = "x" (the unserved filter), t one of 50 words, name a string for CONTAINS.
func scaleDoc(i, n int) map[string]any {
	u := "y"
	if i%5 == 0 {
		u = "x"
	}
	return map[string]any{
		"id": fmt.Sprintf("d%06d", i), "pk": scaleKey, "s": (i * 7919) % n, "u": u,
		"t": fmt.Sprintf("w%02d", i%50), "name": fmt.Sprintf("item %d of the probe", i),
		"pad": strings.Repeat("p", 64),
	}
}

// scaleDocBytes is about what a probe document takes as JSON (system properties not counted).
const scaleDocBytes = 200

// ruleProbe is the shape that decides one rule: its query over the smaller container and the query
// metric that tells the alternatives apart (a query-metrics name, or metricCharge for the request
// charge). A growth probe runs on both containers and is decided by how the metric grew from the
// smaller to the larger one (a rule about work that grows with the documents, where no count in the
// query metrics tells the alternatives apart).
type ruleProbe struct {
	rule, query, metric string
	growth              bool
	// minDocs is the least --scale-docs at which the alternatives differ enough to be told apart
	// (0 = ScaleMinDocs); with fewer the rule is left undecided, and calibrate says so.
	minDocs int
}

// ScaleMinDocs is the least --scale-docs: what every probe without a minDocs of its own decides at.
const ScaleMinDocs = 50

// need is the least documents rp decides at.
func (rp ruleProbe) need() int { return max(rp.minDocs, ScaleMinDocs) }

// metricCharge names the request charge as a probe's metric.
const metricCharge = "requestCharge"

// value is a probe's metric in a result.
func (q queryResult) value(metric string) float64 {
	if metric == metricCharge {
		return q.ru
	}
	return q.metrics[metric]
}

// decides is what decides rp: its metric on the smaller container, or, for a growth probe, the
// metric's ratio from the smaller container to the larger one.
func (rp ruleProbe) decides(small, large queryResult) float64 {
	if !rp.growth {
		return small.value(rp.metric)
	}
	if s := small.value(rp.metric); s > 0 {
		return large.value(rp.metric) / s
	}
	return 0
}

// ruleProbes has one shape per rule with alternatives; TestScale_CoversTheRules holds them to the
// registry.
var ruleProbes = []ruleProbe{
	{cost.RuleTopUnservedFilter, "SELECT TOP 2 * FROM c WHERE c.u = 'x' ORDER BY c.s", "retrievedDocumentCount", false, 0},
	{cost.RulePKOrderComposite, "SELECT TOP 10 * FROM c WHERE c.pk = '" + scaleKey + "' ORDER BY c.s", "retrievedDocumentCount", false, 0},
	{cost.RuleAggregateNoFilter, "SELECT VALUE COUNT(1) FROM c", "retrievedDocumentCount", false, 0},
	// Two equalities every document of the partition matches, counted from the index: the charge
	// grows with the documents when the seeks read their postings, and stays flat when they do not
	// (no count of the query metrics tells them apart: nothing is retrieved either way).
	{cost.RuleAggregateSeekPostings, "SELECT VALUE COUNT(1) FROM c WHERE c.pk = '" + scaleKey + "' AND c.pad = '" + strings.Repeat("p", 64) + "'",
		metricCharge, true, 500},
}

// growthProbes are the shapes whose charge, at each container size, shows how index work grows:
// an equality that finds one document (a seek: constant), a range over every document (a precise
// scan: the entries it covers) and a CONTAINS (a full index scan: the path's distinct values). What
// each pins, or checks, is cost's table of growth uses, by shape.
var growthProbes = []struct{ shape, query string }{
	{"equality", "SELECT * FROM c WHERE c.s = 3"},
	{"range", "SELECT VALUE COUNT(1) FROM c WHERE c.s >= 0"},
	// A CONTAINS no name holds: the scan reads every distinct /name and loads nothing, so its growth
	// is the scan's alone (one that matched would load documents too, and a fit would take their
	// charge for the scan's).
	{"contains", "SELECT VALUE COUNT(1) FROM c WHERE CONTAINS(c.name, 'held by no probe')"},
}

// scaleContainers are the probe containers' names and documents.
func scaleContainers(n int) []struct {
	name string
	docs int
} {
	return []struct {
		name string
		docs int
	}{{"probe-small", n}, {"probe-large", n * scaleFactor}}
}

// queryResult is one probe query's charge and metrics, summed over its pages; on the embedded
// engine also the facts it priced each page from.
type queryResult struct {
	ru         float64
	metrics    map[string]float64
	activities []string          // each page's x-ms-activity-id
	facts      []cost.QueryFacts // each page's facts (embeddedProbes)
}

// named is the facts of every page, by name (cost.FactNames), summed.
func (q queryResult) named() map[string]float64 {
	out := map[string]float64{}
	for _, f := range q.facts {
		for k, v := range f.Named() {
			out[k] += v
		}
	}
	return out
}

// Scale runs a scale calibration: the probes on the embedded engine under each rule's alternatives
// (the predictions, and the preview), then on the target through target.Open, then the decisions.
// It deletes the database it created on every exit path, Ctrl-C included.
func Scale(ctx context.Context, cfg ScaleConfig) (*cost.Profile, error) {
	status := cfg.Status
	if status == nil {
		status = io.Discard
	}
	now := time.Now
	if cfg.Now != nil {
		now = cfg.Now
	}
	if cfg.Target.Kind != record.KindAccount && cfg.Target.Kind != record.KindEndpoint {
		return nil, fmt.Errorf("%w: calibrate --scale measures an account or an endpoint (got --target %s)", target.ErrConfig, orAuto(cfg.Target.Kind))
	}
	n := cfg.Documents
	if n <= 0 {
		n = scaleDefaultDocs
	}
	// The predictions: every probe on the embedded engine under each alternative of each rule
	// (the defaults' run also prices the preview: seeding and probes).
	predict := map[string]map[string]float64{}
	var seedRU, probeRU float64
	for _, rp := range ruleProbes {
		if n < rp.need() {
			continue
		}
		r, _ := cost.LookupRule(rp.rule)
		predict[rp.rule] = map[string]float64{}
		for _, alt := range r.AlternativeNames() {
			var large []string
			if rp.growth {
				large = []string{rp.query}
			}
			res, err := embeddedProbes(ctx, n, (*cost.Selection)(nil).With(rp.rule, alt), []string{rp.query}, large)
			if err != nil {
				return nil, err
			}
			var l queryResult
			if rp.growth {
				l = res.large[0]
			}
			predict[rp.rule][alt] = rp.decides(res.small[0], l)
		}
	}
	small, large := probeQueries()
	base, err := embeddedProbes(ctx, n, nil, small, large)
	if err != nil {
		return nil, err
	}
	seedRU = base.seedRU
	for _, q := range append(slices.Clone(base.small), base.large...) {
		probeRU += q.ru
	}
	total := seedRU + probeRU
	docs := n + n*scaleFactor
	fmt.Fprintf(status, "calibrate --scale: 2 probe containers of %d and %d documents (~%d bytes each, one logical partition), %d documents to seed: ~%.0f RU to seed, ~%.0f RU of probe queries (modeled)\n",
		n, n*scaleFactor, scaleDocBytes, docs, seedRU, probeRU)
	if cfg.Serverless {
		secs := seedRU / serverlessMaxRUs
		fmt.Fprintf(status, "calibrate --scale: serverless (the account's capacity mode): billed per RU, $%.4f at $%g per million RU; a serverless container tops out at %d RU/s, so seeding takes at least %.0f s\n",
			total/1e6*cost.Current.ServerlessPrice.Value, cost.Current.ServerlessPrice.Value, serverlessMaxRUs, secs)
	} else {
		// The containers are seeded one after the other, each at its own throughput.
		fmt.Fprintf(status, "calibrate --scale: provisioned throughput (the account's capacity mode): 2 containers × %d RU/s, each billed for at least one hour even when deleted at once: $%.2f at $%g per 100 RU/s-hour (the RU above are inside that throughput); seeding takes at least %.0f s at %d RU/s\n",
			scaleThroughput, 2*scaleThroughput/100.0*cost.Current.ManualPrice.Value, cost.Current.ManualPrice.Value, seedRU/scaleThroughput, scaleThroughput)
	}
	tgt, dbName, b, err := openSession(ctx, cfg.Target, cfg.Yes, cfg.RunID, "cdv-calibrate-scale-", cfg.RequestTimeout, cfg.CleanupWithin, status)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tgt.Close(context.WithoutCancel(ctx)) }()
	if !cfg.Serverless {
		b.billed = fmt.Sprintf("; its 2 containers' %d RU/s each are billed by the hour while it stays", scaleThroughput)
	}
	m, err := measureScale(ctx, tgt.Client, dbName, n, small, large, !cfg.Serverless, status, b)
	if err != nil {
		return nil, err
	}

	p := &cost.Profile{
		SchemaVersion: cost.ProfileSchemaVersion,
		Account:       hostOf(tgt.Info.Endpoint),
		Date:          now().UTC().Format("2006-01-02"),
		SDKVersion:    target.SDKVersion,
		Consistency:   string(cost.Session),
		RateCard:      modelCard().Version,
		Method: "scale: each rule with alternatives decided by the alternative whose embedded-engine query metric over the same " +
			"documents is nearest (in ratio) to the one the target returned; growth from the charges at two container sizes",
		Coefficients: []cost.FittedParam{},
		Measurements: []cost.Measurement{},
		Scale: &cost.ScaleProbe{Documents: []int{n, n * scaleFactor}, DocumentBytes: scaleDocBytes,
			CapacityMode: capacityMode(cfg.Serverless), Date: now().UTC().Format("2006-01-02")},
	}
	for i, rp := range ruleProbes {
		if n < rp.need() {
			fmt.Fprintf(status, "calibrate --scale: rule %s: its alternatives differ enough to be told apart from --scale-docs %d: not decided\n", rp.rule, rp.need())
			continue
		}
		var l queryResult
		if j := largeIndex(rp.query, large); j >= 0 {
			l = m.large[j]
		}
		measured := rp.decides(m.small[i], l)
		alt, ok := nearest(measured, predict[rp.rule], rp.growth)
		if !ok {
			fmt.Fprintf(status, "calibrate --scale: rule %s: its alternatives give the same %s (%v) on these documents: not decided\n", rp.rule, rp.metric, predict[rp.rule])
			continue
		}
		metric := rp.metric
		if rp.growth {
			metric += fmt.Sprintf(" growth (%d documents ÷ %d)", n*scaleFactor, n)
		}
		p.Rules = append(p.Rules, cost.RuleDecision{Rule: rp.rule, Alternative: alt, Query: rp.query, Documents: n,
			Metric: metric, Measured: round4(measured), Alternatives: roundAll(predict[rp.rule]), QueryMetrics: roundAll(m.small[i].metrics)})
		fmt.Fprintf(status, "calibrate --scale: rule %s=%s (%s %.4g; the alternatives give %s)\n", rp.rule, alt, metric, measured, altWords(predict[rp.rule]))
	}
	// What the built-in model says for the growth shapes over the same documents, under the rules
	// just decided (the rules --calibration prices with beside the pinned figures).
	var shapes []string
	for _, g := range growthProbes {
		shapes = append(shapes, g.query)
	}
	model, err := embeddedProbes(ctx, n, p.Selection(), shapes, shapes)
	if err != nil {
		return nil, err
	}
	for j, g := range growthProbes {
		s, l := m.small[len(ruleProbes)+j], m.large[largeIndex(g.query, large)]
		gr := cost.Growth{Shape: g.shape, Query: g.query, Points: []cost.GrowthPoint{
			growthPoint(n, s, model.small[j]), growthPoint(n*scaleFactor, l, model.large[j]),
		}}
		if s.ru > 0 && l.ru > 0 {
			gr.Exponent = math.Round(math.Log(l.ru/s.ru)/math.Log(scaleFactor)*1000) / 1000
		}
		p.Growth = append(p.Growth, gr)
	}
	if len(p.Rules) == 0 {
		return nil, fmt.Errorf("%w: no rule decided", ErrNotMeasured)
	}
	return p, nil
}

// growthPoint is a growth shape's point at a container of docs documents: the charge and query
// metrics the target reported (measured) beside the embedded engine's facts (modeled) and their
// charge on the card the engine ran with (modelCard), page by page and unrounded: the response's
// charge has two decimals, and a growth fit's Resolution counts the reported side's alone.
func growthPoint(docs int, measured, modeled queryResult) cost.GrowthPoint {
	var charge float64
	for _, f := range modeled.facts {
		charge += modelCard().Query(f)
	}
	return cost.GrowthPoint{Documents: docs, RU: round4(measured.ru), Retrieved: measured.metrics["retrievedDocumentCount"],
		Output: measured.metrics["outputDocumentCount"], IndexLookupMs: measured.metrics["indexLookupTimeInMs"],
		Modeled: charge, Facts: modeled.named()}
}

// modelCard is the card the probes' embedded engine charges with (embeddedProbes): the built-in
// one, whose version the profile's rateCard names.
func modelCard() *cost.RateCard { return cost.Current }

// probeQueries are the queries run on the smaller container (every rule probe, then the growth
// shapes) and on the larger one (the growth rule probes, then the growth shapes).
func probeQueries() (small, large []string) {
	for _, rp := range ruleProbes {
		small = append(small, rp.query)
		if rp.growth {
			large = append(large, rp.query)
		}
	}
	for _, g := range growthProbes {
		small = append(small, g.query)
		large = append(large, g.query)
	}
	return small, large
}

// largeIndex is query's place among the larger container's queries, -1 if it is not one.
func largeIndex(query string, large []string) int { return slices.Index(large, query) }

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

func roundAll(m map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = round4(v)
	}
	return out
}

func capacityMode(serverless bool) string {
	if serverless {
		return "serverless"
	}
	return "provisioned"
}

// nearest is the alternative whose prediction is nearest to measured in ratio (counts plus one, so
// that 0 compares; a growth ratio as it is); ok is false when the alternatives predict nearly the
// same: counts within half of the larger, growth ratios within 5% of each other.
func nearest(measured float64, preds map[string]float64, growth bool) (string, bool) {
	shift := 1.0
	if growth {
		shift = 0
	}
	names := make([]string, 0, len(preds))
	for a := range preds {
		names = append(names, a)
	}
	sort.Strings(names)
	best, bestD := "", math.Inf(1)
	distinct := map[float64]bool{}
	for _, a := range names {
		distinct[preds[a]] = true
		if d := math.Abs(math.Log((measured + shift) / (preds[a] + shift))); d < bestD {
			best, bestD = a, d
		}
	}
	// The alternatives must differ by at least half of the larger: otherwise the probe container is
	// too small to tell them apart.
	lo, hi := math.Inf(1), math.Inf(-1)
	for v := range distinct {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if growth {
		return best, lo > 0 && hi/lo >= 1.05
	}
	return best, hi-lo >= hi/2
}

func altWords(preds map[string]float64) string {
	names := make([]string, 0, len(preds))
	for a := range preds {
		names = append(names, a)
	}
	sort.Strings(names)
	var parts []string
	for _, a := range names {
		parts = append(parts, fmt.Sprintf("%s %.4g", a, preds[a]))
	}
	return strings.Join(parts, ", ")
}

// embeddedResult is what the probes gave on the embedded engine.
type embeddedResult struct {
	small, large []queryResult // on each container, in the order asked
	seedRU       float64       // seeding the containers
}

// embeddedProbes seeds the probe containers on an embedded engine running under rules and runs
// small on the smaller one and large on the larger one (seeded only when there is one), with the
// facts the engine priced each page from (Options.Observe).
func embeddedProbes(ctx context.Context, n int, rules *cost.Selection, small, large []string) (embeddedResult, error) {
	var out embeddedResult
	obs := &observations{by: map[string]engine.Observation{}}
	tgt, err := target.Open(ctx, target.Config{Kind: record.KindEmbedded, Engine: engine.Options{
		RateCard: modelCard(), Rules: rules, Observe: obs.add,
		Partitions: func(_, _ string, _ int) int { return 1 },
	}})
	if err != nil {
		return out, err
	}
	defer func() { _ = tgt.Close(context.WithoutCancel(ctx)) }()
	db, cs, err := provisionScale(ctx, tgt.Client, "scale-facts", n, len(large) > 0, false, 0)
	if err != nil {
		return out, fmt.Errorf("embedded engine: %w", err)
	}
	_ = db
	for _, c := range scaleContainers(n) {
		cc, ok := cs[c.name]
		if !ok {
			continue
		}
		ru, err := seedScale(ctx, cc, c.docs, 0)
		if err != nil {
			return out, fmt.Errorf("embedded engine: seed %s: %w", c.name, err)
		}
		out.seedRU += ru
	}
	for i, qs := range [][]string{small, large} {
		cc := cs[scaleContainers(n)[i].name]
		for _, q := range qs {
			r, err := runProbe(ctx, cc, q, 0)
			if err != nil {
				return out, fmt.Errorf("embedded engine: %s: %w", q, err)
			}
			for _, a := range r.activities {
				ob, ok := obs.get(a)
				if !ok {
					return out, fmt.Errorf("embedded engine: %s: no facts recorded for activity %s", q, a)
				}
				r.facts = append(r.facts, ob.Query...)
			}
			if i == 0 {
				out.small = append(out.small, r)
			} else {
				out.large = append(out.large, r)
			}
		}
	}
	return out, nil
}

// provisionScale creates database name and the probe containers (the larger only with large); on
// an account (throughput true) each with scaleThroughput RU/s.
func provisionScale(ctx context.Context, cl *azcosmos.Client, name string, n int, large, throughput bool, timeout time.Duration) (*azcosmos.DatabaseClient, map[string]*azcosmos.ContainerClient, error) {
	var ps []probeSpec
	for i, c := range scaleContainers(n) {
		if i > 0 && !large {
			break
		}
		p := probeSpec{name: c.name, policy: scalePolicy()}
		if throughput {
			p.ru = scaleThroughput
		}
		ps = append(ps, p)
	}
	return createProbes(ctx, cl, name, ps, timeout)
}

// seedScale writes a probe container's n documents, scaleSeedParallel at a time, each write within
// timeout, and returns the charges.
func seedScale(ctx context.Context, cc *azcosmos.ContainerClient, n int, timeout time.Duration) (float64, error) {
	var (
		mu    sync.Mutex
		total float64
		first error
		wg    sync.WaitGroup
	)
	next := make(chan int)
	pk := azcosmos.NewPartitionKeyString(scaleKey)
	for w := 0; w < scaleSeedParallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				body, _ := json.Marshal(scaleDoc(i, n))
				wctx, cancel := withTimeout(ctx, timeout)
				resp, err := cc.UpsertItem(wctx, pk, body, nil)
				cancel()
				mu.Lock()
				if err != nil && first == nil {
					first = fmt.Errorf("write document %d: %w", i, err)
				}
				if err == nil {
					total += sdk.Charge(resp.RequestCharge)
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < n; i++ {
		mu.Lock()
		stop := first != nil
		mu.Unlock()
		if stop || ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		first = ctx.Err()
	}
	return total, first
}

// runProbe runs query in the probe partition and sums its pages' charges and query metrics.
func runProbe(ctx context.Context, cc *azcosmos.ContainerClient, query string, timeout time.Duration) (queryResult, error) {
	ctx, cancel := withTimeout(ctx, timeout)
	defer cancel()
	res := queryResult{metrics: map[string]float64{}}
	pager := cc.NewQueryItemsPager(query, azcosmos.NewPartitionKeyString(scaleKey), &azcosmos.QueryOptions{})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return res, err
		}
		res.ru += sdk.Charge(page.RequestCharge)
		res.activities = append(res.activities, page.ActivityID)
		if page.QueryMetrics != nil {
			probe.AddQueryMetrics(res.metrics, *page.QueryMetrics)
		}
	}
	if _, ok := res.metrics["retrievedDocumentCount"]; !ok {
		return res, errors.New("the target returned no query metrics (x-ms-documentdb-query-metrics): the rules cannot be decided from it")
	}
	return res, nil
}

// scaleMeasured is what the probes measured on the target (probeQueries' order).
type scaleMeasured struct {
	small []queryResult // the rule probes then the growth shapes, on the smaller container
	large []queryResult // the growth rule probes then the growth shapes, on the larger container
}

// measureScale provisions and seeds the probe containers on the target, runs the probes, and
// deletes the database on every exit path (deleteDatabase: Ctrl-C, errors and throttling too).
func measureScale(ctx context.Context, cl *azcosmos.Client, name string, n int, queries, largeQueries []string, throughput bool, status io.Writer, b bounds) (m scaleMeasured, err error) {
	db, cs, err := provisionScale(ctx, cl, name, n, true, throughput, b.request)
	if db != nil {
		defer func() {
			if derr := deleteDatabase(ctx, db, name, status, b); derr != nil {
				err = errors.Join(err, derr)
			}
		}()
	}
	if err != nil {
		return m, err
	}
	start := time.Now()
	var seeded float64
	for _, c := range scaleContainers(n) {
		fmt.Fprintf(status, "calibrate --scale: created %s/%s; seeding %d documents\n", name, c.name, c.docs)
		ru, err := seedScale(ctx, cs[c.name], c.docs, b.request)
		seeded += ru
		if err != nil {
			return m, fmt.Errorf("seed %s: %w", c.name, late(ctx, err, b.request))
		}
	}
	fmt.Fprintf(status, "calibrate --scale: seeded in %s, %.0f RU measured\n", time.Since(start).Round(100*time.Millisecond), seeded)
	small, large := cs[scaleContainers(n)[0].name], cs[scaleContainers(n)[1].name]
	for _, q := range queries {
		r, err := runProbe(ctx, small, q, b.request)
		if err != nil {
			return m, fmt.Errorf("%s: %w", q, late(ctx, err, b.request))
		}
		if err := chargeOK(q, r.ru); err != nil {
			return m, err
		}
		m.small = append(m.small, r)
	}
	for _, q := range largeQueries {
		r, err := runProbe(ctx, large, q, b.request)
		if err != nil {
			return m, fmt.Errorf("%s: %w", q, late(ctx, err, b.request))
		}
		if err := chargeOK(q, r.ru); err != nil {
			return m, err
		}
		m.large = append(m.large, r)
	}
	return m, nil
}

// chargeOK refuses a charge no account reports (ErrFaultyCharges).
func chargeOK(op string, ru float64) error {
	if math.IsNaN(ru) || math.IsInf(ru, 0) || ru <= 0 {
		return faultyCharge(op, ru)
	}
	return nil
}
