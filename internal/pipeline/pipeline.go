// Package pipeline runs the stages that talk to a target, in order: provision, seed, probe, and
// teardown of what the run created. The CLI calls Run; every stage goes through the azcosmos SDK.
package pipeline

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/probe"
	"github.com/cosmosdv/validate/internal/provision"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/sdk"
	"github.com/cosmosdv/validate/internal/seed"
)

// Options tune Run. The zero value runs with the defaults.
type Options struct {
	// Seed is the generator seed. Default 1.
	Seed int64
	// Samples is the number of executions per pattern (a pattern may override). Default 20.
	Samples int
	// Database is the database to create; "" = the design's database name. The CLI derives
	// run-scoped names on shared accounts.
	Database string
	// ReuseDatabase accepts an existing database; otherwise Run refuses to touch it.
	ReuseDatabase bool
	// WriteIntoExisting lets a run seed into containers that existed before it (with ReuseDatabase);
	// otherwise Run refuses (ErrExistingContainers), since teardown leaves their documents alone.
	WriteIntoExisting bool
	// Keep leaves the database (or the containers this run created) in place.
	Keep bool
	// Concurrency bounds seeding requests in flight. Default 16.
	Concurrency int
	// Throughput decides each container's throughput; nil = as designed.
	Throughput func(c *design.Container) azcosmos.ThroughputProperties
	// Progress receives progress output; nil = none.
	Progress io.Writer
	// TTY draws a progress bar (true) or plain progress lines (false).
	TTY bool
	// RateCard prices the estimator's figures (Estimates); nil = cost.Current. The driver passes
	// the calibrated card when there is one, so the production figure carries its label too.
	RateCard *cost.RateCard
	// Rules chooses the alternative of each rule with alternatives (cost.Rules) the estimator
	// follows, a calibration profile's decisions pinned (cost.Profile.Selection); nil = defaults.
	Rules *cost.Selection
	// Drive, when set, replaces the probe stage: it is given the provisioned containers and the
	// seeded samples, and what it returns is Run's error (a load replay, internal/replay). Teardown
	// follows it as it follows the probe.
	Drive func(ctx context.Context, containers map[string]*azcosmos.ContainerClient, docs record.Documents) error
}

// IsInfrastructure reports whether err is a failure of the target (unreachable, refused credentials,
// dying) rather than of the design or a pattern. The CLI maps it to its own exit code.
func IsInfrastructure(err error) bool { return sdk.IsInfrastructure(err) }

// ErrDatabaseExists is returned when the database exists and ReuseDatabase is false.
var ErrDatabaseExists = provision.ErrDatabaseExists

// Run provisions d on the target behind client, seeds it, runs every access pattern and tears down
// what it created unless o.Keep. Teardown also runs when ctx is cancelled (Ctrl-C), with a fresh
// bounded context. Pattern failures are recorded in the returned run and never abort it; a target
// failure returns an error for which IsInfrastructure is true. On error the returned run holds what
// was observed so far (it may be nil when nothing was).
func Run(ctx context.Context, d *design.Design, client *azcosmos.Client, info record.TargetInfo, o Options) (run *record.Run, err error) {
	if d == nil || client == nil {
		return nil, errors.New("pipeline: design and client are required")
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Samples <= 0 {
		o.Samples = 20
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 16
	}
	plan, err := seed.Compile(d, o.Seed)
	if err != nil {
		return nil, fmt.Errorf("seed plan: %w", err)
	}
	out := &record.Run{Target: info, Seed: o.Seed, Samples: o.Samples, Database: o.Database}
	if out.Database == "" {
		out.Database = d.Database
		if out.Database == "" {
			out.Database = d.Name
		}
	}
	say := progressFunc(o.Progress)

	say("provision: database %s (%s)", out.Database, design.Count(len(d.Containers), "container"))
	prov, err := provision.Provision(ctx, client, d, provision.Options{Database: out.Database, Reuse: o.ReuseDatabase, Throughput: o.Throughput})
	defer func() {
		if o.Keep || prov == nil {
			if prov != nil && o.Keep {
				say("keep: database %s left in place", prov.Database)
			}
			return
		}
		tctx := ctx
		if ctx.Err() != nil {
			// The run was cancelled: tear down anyway, within a bound of its own.
			var cancel context.CancelFunc
			tctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), provision.TeardownTimeout)
			defer cancel()
		}
		if terr := prov.Teardown(tctx); terr != nil {
			err = errors.Join(err, &TeardownError{Database: prov.Database, Err: terr})
		} else {
			say("teardown: removed what this run created in %s", prov.Database)
		}
	}()
	if prov != nil {
		out.Findings = append(out.Findings, prov.Findings...)
	}
	if err != nil {
		return out, err
	}

	reused := map[string]bool{}
	for _, name := range prov.Reused {
		reused[name] = true
	}
	if err := checkExisting(prov.Reused, prov.Database, o.WriteIntoExisting); err != nil {
		return out, err
	}
	out.Partitions = readPartitions(ctx, prov.Containers, &out.Findings)
	tag, err := runTag()
	if err != nil {
		return out, err
	}
	res, err := seed.Load(ctx, plan, prov.Containers, seed.Options{
		Concurrency: o.Concurrency, Reused: reused, FreshTag: tag, Progress: o.Progress, TTY: o.TTY,
		Reservoir: max(probe.ParamReservoir, o.Samples),
	})
	if err != nil {
		return out, fmt.Errorf("seed: %w", err)
	}
	out.Seeding = res.Stats
	out.Findings = append(out.Findings, res.Findings...)

	if o.Drive != nil {
		return out, o.Drive(ctx, prov.Containers, res.Samples)
	}
	bar := newProbeProgress(o.Progress, o.TTY, say)
	patterns, findings, err := probe.RunPatterns(ctx, d, prov.Containers, res.Samples, probe.Options{
		Samples: o.Samples, Seed: o.Seed, Progress: bar.line, Tick: bar.tick,
		DefaultConsistency: designConsistency(d, info),
	})
	bar.stop()
	out.Patterns = patterns
	out.Findings = append(out.Findings, findings...)
	if err != nil {
		return out, fmt.Errorf("probe: %w", err)
	}
	if out.Projections, err = Estimates(d, o.Seed, o.RateCard, o.Rules); err != nil {
		out.Findings = append(out.Findings, record.Finding{Stage: "probe", Level: "warn", Subject: "projection", Message: err.Error()})
	}
	return out, nil
}

// readPartitions reads each container's partition key ranges through the SDK
// (ContainerClient.ReadFeedRanges): the physical partitions the target gave it. A container whose
// ranges cannot be read gets a warning and no count.
func readPartitions(ctx context.Context, containers map[string]*azcosmos.ContainerClient, findings *[]record.Finding) map[string]int {
	out := map[string]int{}
	for _, name := range slices.Sorted(maps.Keys(containers)) {
		ranges, err := containers[name].ReadFeedRanges(ctx, nil)
		if err != nil || len(ranges) == 0 {
			msg := "the target answered no partition key ranges"
			if err != nil {
				msg = "partition key ranges could not be read: " + sdk.ServiceMessage(err)
			}
			*findings = append(*findings, record.Finding{Stage: "provision", Level: "warn", Subject: "container " + name,
				Message: msg + "; the modeled figures use the design's partitions"})
			continue
		}
		out[name] = len(ranges)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// runTag is a short random tag that keeps probe-time documents of this run apart from any other
// run's on a reused database. It does not influence seeded documents.
func runTag() (string, error) {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("run tag: %w", err)
	}
	return "r" + hex.EncodeToString(b[:]), nil
}

func progressFunc(w io.Writer) func(format string, args ...any) {
	if w == nil {
		return func(string, ...any) {}
	}
	var mu sync.Mutex
	return func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, format+"\n", args...)
	}
}

// designConsistency is the design's account default consistency where the run can apply it: on the
// embedded engine, whose charges model the design. An account or emulator is measured at its own
// default.
func designConsistency(d *design.Design, info record.TargetInfo) string {
	if info.Kind != record.KindEmbedded {
		return ""
	}
	return d.Consistency
}
