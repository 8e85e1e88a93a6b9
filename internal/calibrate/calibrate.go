// Package calibrate is `validate calibrate`: it runs a fixed workload on an account (or any
// endpoint) and, operation for operation, on the embedded engine, which records the facts each
// charge follows from; it fits the rate card's figures (cost.Params) to the measured charges
// (cost.Fit) and returns a profile (cost.Profile) that run, plan and serve can price with.
package calibrate

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/sdk"
	"github.com/cosmosdv/validate/internal/target"
)

// Config is one calibration.
type Config struct {
	// Target is the account or endpoint to measure (Kind record.KindAccount or record.KindEndpoint).
	Target target.Config
	// Yes confirms the cost of a calibration on an account; without it Run prints the preview and
	// returns ErrNeedsYes before creating anything.
	Yes bool
	// Serverless says the account bills per request: containers are created without throughput
	// (one physical partition each) and the preview prices the request units.
	Serverless bool
	// RunID is the suffix of the run-scoped database (default: random).
	RunID string
	// Status receives the preview and progress, one line each; nil discards them.
	Status io.Writer
	// Now is the clock of the profile's date; nil = time.Now.
	Now func() time.Time
	// RequestTimeout bounds each operation of the workload on the target (a query's pages
	// together) and each request that creates or reads back what it measures; 0 = 60 s.
	RequestTimeout time.Duration
	// CleanupWithin bounds the deletion of what the calibration created, retried with back-off
	// while the target throttles or fails; 0 = 2 minutes. What is still there then is named
	// (LeftBehindError) with how to delete it.
	CleanupWithin time.Duration
}

// Defaults of Config's bounds.
const (
	defaultRequestTimeout = time.Minute
	defaultCleanupWithin  = 2 * time.Minute
)

// LeftBehindError is what a calibration could not delete: the database it created on the target,
// with its containers. Its message says what is left and how to delete it; calibrate prints it on
// standard error as it happens, so it reaches the terminal whatever becomes of the error.
type LeftBehindError struct {
	Database, Account string
	// Billed says what keeps being billed while it stays (provisioned throughput by the hour).
	Billed string
	Err    error
}

func (e *LeftBehindError) Error() string {
	return fmt.Sprintf("database %s on %s was NOT deleted (%v)%s: delete it by hand — "+
		"az cosmosdb sql database delete --account-name <account> --resource-group <group> --name %s "+
		"(or Data Explorer in the portal)", e.Database, e.Account, firstLine(e.Err), e.Billed, e.Database)
}

func (e *LeftBehindError) Unwrap() error { return e.Err }

// ErrFaultyCharges marks a target whose successful data operations report a request charge that no
// account reports: zero or less, NaN or infinite. No profile is written from it.
var ErrFaultyCharges = errors.New("the target reported impossible request charges")

// ErrNeedsYes is returned when a calibration on an account was not confirmed with --yes.
var ErrNeedsYes = errors.New("a calibration on an account costs request units and throughput: run it again with --yes to go ahead")

// ErrNotMeasured is returned when the target's charges cannot calibrate anything: every charge
// identical (the vNext emulator's placeholder) or none at all.
var ErrNotMeasured = errors.New("the target's charges are placeholders, not measurements: calibrate against an Azure Cosmos DB account")

// Preview is what a calibration will cost, from the built-in card's charges of its workload.
type Preview struct {
	// RU is the request units the workload is modeled to consume.
	RU float64
	// Dollars at the account's pricing: serverless, RU × the serverless price; provisioned, the
	// containers' throughput for the one billed hour they exist (at least one hour is billed).
	Dollars float64
	// ThroughputRUs is the RU/s the containers are created with (0 on serverless).
	ThroughputRUs int
}

// Run calibrates: the workload on the embedded engine (the facts, and the preview), then on the
// target through target.Open (the same code for an account and an endpoint), then the fit. It
// deletes the database it created on every exit path, Ctrl-C (ctx cancelled) included.
func Run(ctx context.Context, cfg Config) (*cost.Profile, error) {
	status := cfg.Status
	if status == nil {
		status = io.Discard
	}
	now := time.Now
	if cfg.Now != nil {
		now = cfg.Now
	}
	if cfg.Target.Kind != record.KindAccount && cfg.Target.Kind != record.KindEndpoint {
		return nil, fmt.Errorf("%w: calibrate measures an account or an endpoint (got --target %s)", target.ErrConfig, orAuto(cfg.Target.Kind))
	}
	ops := workload()
	parts := map[string]int{}
	for _, c := range containers {
		parts[c.name] = c.partitions
		if cfg.Serverless {
			parts[c.name] = 1
		}
	}
	facts, err := runFacts(ctx, ops, parts)
	if err != nil {
		return nil, err
	}
	pv := preview(facts, cfg.Serverless)
	fmt.Fprintf(status, "calibrate: %d operations, %.0f RU modeled", len(ops), pv.RU)
	if cfg.Serverless {
		fmt.Fprintf(status, "; serverless: $%.4f at $%g per million RU\n", pv.Dollars, cost.Current.ServerlessPrice.Value)
	} else {
		fmt.Fprintf(status, "; provisioned: %d RU/s for about an hour, $%.2f at $%g per 100 RU/s-hour (plus the RU above, inside that throughput)\n",
			pv.ThroughputRUs, pv.Dollars, cost.Current.ManualPrice.Value)
	}
	tgt, dbName, bounds, err := openSession(ctx, cfg.Target, cfg.Yes, cfg.RunID, "cdv-calibrate-", cfg.RequestTimeout, cfg.CleanupWithin, status)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tgt.Close(context.WithoutCancel(ctx)) }()
	if !cfg.Serverless {
		bounds.billed = fmt.Sprintf("; its containers' %d RU/s are billed by the hour while it stays", pv.ThroughputRUs)
	}
	measured, skipped, actual, err := measure(ctx, tgt.Client, dbName, ops, cfg.Serverless, status, bounds)
	if err != nil {
		return nil, err
	}
	// The facts must come from containers of the same physical partitions as the target's.
	for name, n := range actual {
		if n != parts[name] {
			fmt.Fprintf(status, "calibrate: container %s has %d physical partitions on the target (%d expected); recording the facts again\n", name, n, parts[name])
			if facts, err = runFacts(ctx, ops, actual); err != nil {
				return nil, err
			}
			break
		}
	}
	var ms []cost.Measurement
	distinct := map[float64]bool{}
	for i, op := range ops {
		if !op.measured || skipped[i] {
			continue
		}
		m := facts[i]
		m.Measured = round2(measured[i]) // the SDK reads the header into a float32
		distinct[m.Measured] = true
		ms = append(ms, m)
	}
	if len(distinct) <= 1 {
		return nil, ErrNotMeasured
	}
	card, params := cost.Fit(cost.Current, ms)
	for i := range ms {
		ms[i].Published = round2(cost.Current.Model(ms[i]))
		ms[i].Fitted = round2(card.Model(ms[i]))
	}
	strongMeasured := true
	for i, op := range ops {
		if op.optional && skipped[i] {
			strongMeasured = false
		}
	}
	return &cost.Profile{
		SchemaVersion:  cost.ProfileSchemaVersion,
		Account:        hostOf(tgt.Info.Endpoint),
		Date:           now().UTC().Format("2006-01-02"),
		SDKVersion:     target.SDKVersion,
		Consistency:    string(cost.Session),
		StrongMeasured: strongMeasured,
		RateCard:       cost.Current.Version,
		Method: "weighted least squares: each figure solved for as a multiple of its built-in value, " +
			"each measurement weighted by the inverse of its charge (relative residuals); Gauss-Newton " +
			"iterations, the model being linear in every figure but the Strong factor",
		Coefficients: params,
		Measurements: ms,
	}, nil
}

func orAuto(k record.Kind) string {
	if k == "" {
		return "auto"
	}
	return string(k)
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// hostOf is the account's name in the profile and the labels: the host, with the port unless it is
// HTTPS's default.
func hostOf(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return endpoint
	}
	if u.Port() == "443" {
		return u.Hostname()
	}
	return u.Host
}

// preview prices the workload from the facts run's charges.
func preview(facts []cost.Measurement, serverless bool) Preview {
	var p Preview
	for _, m := range facts {
		p.RU += m.Published
	}
	rc := cost.Current
	if serverless {
		p.Dollars = p.RU / 1e6 * rc.ServerlessPrice.Value
		return p
	}
	for _, c := range containers {
		p.ThroughputRUs += int(c.throughput())
	}
	p.Dollars = float64(p.ThroughputRUs) / 100 * rc.ManualPrice.Value
	return p
}

// observations collects the engine's facts by activity id.
type observations struct {
	mu sync.Mutex
	by map[string]engine.Observation
}

func (o *observations) add(ob engine.Observation) {
	o.mu.Lock()
	o.by[ob.ActivityID] = ob
	o.mu.Unlock()
}

func (o *observations) get(id string) (engine.Observation, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	ob, ok := o.by[id]
	return ob, ok
}

// runFacts runs the workload on an embedded engine with parts physical partitions per container and
// returns, per operation, the facts the engine recorded and its charge on the built-in card.
func runFacts(ctx context.Context, ops []operation, parts map[string]int) ([]cost.Measurement, error) {
	obs := &observations{by: map[string]engine.Observation{}}
	tgt, err := target.Open(ctx, target.Config{Kind: record.KindEmbedded, Engine: engine.Options{
		RateCard: cost.Current,
		Observe:  obs.add,
		Partitions: func(_, container string, _ int) int {
			return max(parts[container], 1)
		},
	}})
	if err != nil {
		return nil, err
	}
	defer func() { _ = tgt.Close(context.WithoutCancel(ctx)) }()
	db, cs, err := provision(ctx, tgt.Client, "facts", false, 0)
	if err != nil {
		return nil, err
	}
	_ = db
	out := make([]cost.Measurement, len(ops))
	for i, op := range ops {
		rs, err := op.run(ctx, cs[op.container])
		if err != nil {
			return nil, fmt.Errorf("embedded engine: %s: %w", op.name, err)
		}
		m := cost.Measurement{Name: op.name}
		for _, r := range rs {
			ob, ok := obs.get(r.activity)
			if !ok {
				return nil, fmt.Errorf("embedded engine: %s: no facts recorded for activity %s", op.name, r.activity)
			}
			m.Point = append(m.Point, ob.Point...)
			m.Query = append(m.Query, ob.Query...)
			m.Published += r.charge
		}
		out[i] = m
	}
	return out, nil
}

// probeSpec is one container a calibration creates: its name, indexing policy (nil: the default) and,
// on an account, its manual throughput (0: none, serverless or the embedded engine).
type probeSpec struct {
	name   string
	policy *azcosmos.IndexingPolicy
	ru     int32
}

// provision creates database name and the workload's containers; on an account (throughput true)
// each with its throughput.
func provision(ctx context.Context, cl *azcosmos.Client, name string, throughput bool, timeout time.Duration) (*azcosmos.DatabaseClient, map[string]*azcosmos.ContainerClient, error) {
	var ps []probeSpec
	for _, c := range containers {
		p := probeSpec{name: c.name, policy: c.policy}
		if throughput {
			p.ru = c.throughput()
		}
		ps = append(ps, p)
	}
	return createProbes(ctx, cl, name, ps, timeout)
}

// createProbes creates database name and the probe containers, all keyed by /pk, within timeout.
func createProbes(ctx context.Context, cl *azcosmos.Client, name string, ps []probeSpec, timeout time.Duration) (*azcosmos.DatabaseClient, map[string]*azcosmos.ContainerClient, error) {
	ctx, cancel := withTimeout(ctx, timeout)
	defer cancel()
	if _, err := cl.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: name}, nil); err != nil {
		if sdk.StatusOf(err) == 409 {
			return nil, nil, fmt.Errorf("database %s already exists: give another --run-id", name)
		}
		return nil, nil, fmt.Errorf("create database %s: %w", name, err)
	}
	db, err := cl.NewDatabase(name)
	if err != nil {
		return nil, nil, err
	}
	cs := map[string]*azcosmos.ContainerClient{}
	for _, p := range ps {
		props := azcosmos.ContainerProperties{ID: p.name, IndexingPolicy: p.policy,
			PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}
		var opts *azcosmos.CreateContainerOptions
		if p.ru > 0 {
			tp := azcosmos.NewManualThroughputProperties(p.ru)
			opts = &azcosmos.CreateContainerOptions{ThroughputProperties: &tp}
		}
		if _, err := db.CreateContainer(ctx, props, opts); err != nil {
			return db, nil, fmt.Errorf("create container %s/%s: %w", name, p.name, err)
		}
		cc, err := db.NewContainer(p.name)
		if err != nil {
			return db, nil, err
		}
		cs[p.name] = cc
	}
	return db, cs, nil
}

// openSession is what every calibration does before it creates anything: on an account it needs
// --yes (the cost was printed); it opens the target, names the run-scoped database (prefix and
// the run id, random when none is given) and sets the per-request and cleanup bounds. The caller
// closes the target.
func openSession(ctx context.Context, tc target.Config, yes bool, runID, prefix string, request, cleanup time.Duration, status io.Writer) (*target.Target, string, bounds, error) {
	if tc.Kind == record.KindAccount && !yes {
		return nil, "", bounds{}, ErrNeedsYes
	}
	tc.Status = status
	tgt, err := target.Open(ctx, tc)
	if err != nil {
		return nil, "", bounds{}, err
	}
	if runID == "" {
		var b [4]byte
		_, _ = rand.Read(b[:])
		runID = hex.EncodeToString(b[:])
	}
	b := bounds{request: request, cleanup: cleanup, account: hostOf(tgt.Info.Endpoint)}
	if b.request <= 0 {
		b.request = defaultRequestTimeout
	}
	if b.cleanup <= 0 {
		b.cleanup = defaultCleanupWithin
	}
	return tgt, prefix + runID, b, nil
}

// bounds are a calibration's deadlines and what its cleanup reports.
type bounds struct {
	request, cleanup time.Duration
	account, billed  string
}

// withTimeout bounds ctx by d; d <= 0 leaves it as it is.
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// measure runs the workload on the target in database name, deleting it afterwards (also when ctx
// is cancelled, and when the target throttles: deleteDatabase). It returns each operation's
// measured charge, the optional operations the target refused, and each container's physical
// partitions. Every operation has a deadline (b.request), and a successful operation whose charge
// no account would report fails the calibration before anything is fitted (ErrFaultyCharges).
func measure(ctx context.Context, cl *azcosmos.Client, name string, ops []operation, serverless bool, status io.Writer, b bounds) (charges []float64, skipped map[int]bool, parts map[string]int, err error) {
	db, cs, err := provision(ctx, cl, name, !serverless, b.request)
	if db != nil {
		defer func() {
			if derr := deleteDatabase(ctx, db, name, status, b); derr != nil {
				err = errors.Join(err, derr)
			}
		}()
	}
	if err != nil {
		return nil, nil, nil, err
	}
	fmt.Fprintf(status, "calibrate: created database %s; running %d operations\n", name, len(ops))
	parts = map[string]int{}
	for n, c := range cs {
		rctx, cancel := withTimeout(ctx, b.request)
		fr, err := c.ReadFeedRanges(rctx, nil)
		cancel()
		if err != nil {
			return nil, nil, nil, fmt.Errorf("read the partitions of %s: %w", n, late(ctx, err, b.request))
		}
		parts[n] = len(fr)
	}
	charges = make([]float64, len(ops))
	skipped = map[int]bool{}
	nonZero, zeroAt := false, "" // a charge above zero seen; the first operation charged zero
	for i, op := range ops {
		if err := ctx.Err(); err != nil {
			return nil, nil, nil, err
		}
		octx, cancel := withTimeout(ctx, b.request)
		rs, err := op.run(octx, cs[op.container])
		cancel()
		if err != nil {
			if op.optional && sdk.StatusOf(err) == 400 {
				skipped[i] = true
				continue
			}
			return nil, nil, nil, fmt.Errorf("%s: %w", op.name, late(ctx, err, b.request))
		}
		for _, r := range rs {
			// Negative, NaN or infinite: no account charges so. Zero: a placeholder when every
			// charge is zero (Run says so), faulty beside real charges.
			if math.IsNaN(r.charge) || math.IsInf(r.charge, 0) || r.charge < 0 || r.charge == 0 && nonZero {
				return nil, nil, nil, faultyCharge(op.name, r.charge)
			}
			if r.charge == 0 && zeroAt == "" {
				zeroAt = op.name
			}
			if r.charge > 0 {
				if zeroAt != "" {
					return nil, nil, nil, faultyCharge(zeroAt, 0)
				}
				nonZero = true
			}
			charges[i] += r.charge
		}
	}
	return charges, skipped, parts, nil
}

// faultyCharge is the error of an operation that succeeded with a charge no account reports.
func faultyCharge(op string, charge float64) error {
	return fmt.Errorf("%w: %s succeeded with a request charge of %g RU (an account charges every successful operation a positive, finite amount): no profile is written from this target",
		ErrFaultyCharges, op, charge)
}

// late names the request deadline when it is what ended err (and not Ctrl-C, which ends ctx).
func late(ctx context.Context, err error, d time.Duration) error {
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return fmt.Errorf("no answer within %s (the request deadline): the target is too slow or not answering: %w", d, err)
	}
	return err
}

// deleteDatabase deletes what the calibration created, retrying with back-off (0.5 s doubling to
// 8 s) while the target throttles or fails, for at most b.cleanup; Ctrl-C does not stop it, since
// leaving billed containers behind is worse than a few seconds more. What it cannot delete is
// printed on status as it happens and returned as a LeftBehindError.
func deleteDatabase(ctx context.Context, db *azcosmos.DatabaseClient, name string, status io.Writer, b bounds) error {
	ctx = context.WithoutCancel(ctx)
	deadline := time.Now().Add(b.cleanup)
	wait := 500 * time.Millisecond
	for attempt := 1; ; attempt++ {
		dctx, cancel := context.WithDeadline(ctx, deadline)
		_, err := db.Delete(dctx, nil)
		cancel()
		switch st := sdk.StatusOf(err); {
		case err == nil, st == 404:
			fmt.Fprintf(status, "calibrate: deleted database %s\n", name)
			return nil
		case st == 401 || st == 403 || st == 400, time.Now().Add(wait).After(deadline):
			left := &LeftBehindError{Database: name, Account: b.account, Billed: b.billed, Err: err}
			fmt.Fprintf(status, "calibrate: %v (after %d attempts in %s)\n", left, attempt, b.cleanup)
			return left
		}
		fmt.Fprintf(status, "calibrate: deleting database %s: %s; trying again in %s\n", name, firstLine(err), wait)
		time.Sleep(wait)
		wait = min(2*wait, 8*time.Second)
	}
}

// firstLine is the first line of err's message (the SDK's are multi-line dumps).
func firstLine(err error) string {
	if err == nil {
		return ""
	}
	line, _, _ := strings.Cut(err.Error(), "\n")
	if st := sdk.StatusOf(err); st != 0 {
		return fmt.Sprintf("HTTP %d", st)
	}
	return strings.TrimSpace(line)
}
