package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/lint"
	"github.com/cosmosdv/validate/internal/pipeline"
	"github.com/cosmosdv/validate/internal/plan"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/report"
	"github.com/cosmosdv/validate/internal/target"
)

// runEmbedded is this package's one call into run orchestration: the embedded target, pipeline.Run,
// report.Build. Keep it the only place that knows how a run is put together, so that a move of the
// orchestration into internal/pipeline changes this function and nothing else.
func runEmbedded(ctx context.Context, d *design.Design, samples int, seed int64, version string) (*report.Report, *record.Run, error) {
	started := time.Now()
	parts := map[string]int{}
	if pl, err := plan.Build(d, plan.Options{Seed: seed}); err == nil {
		for _, c := range pl.Containers {
			parts[c.Name] = max(c.Partitions, 1)
		}
	}
	tgt, err := target.Open(ctx, target.Config{Kind: record.KindEmbedded, Engine: engine.Options{
		Partitions: func(_, container string, ru int) int {
			if n, ok := parts[container]; ok {
				return n
			}
			return cost.PhysicalPartitions(0, ru)
		},
	}})
	if err != nil {
		return nil, nil, fmt.Errorf("start the embedded engine: %s", target.Explain(err))
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = tgt.Close(cctx)
	}()
	run, err := pipeline.Run(ctx, d, tgt.Client, tgt.Info, pipeline.Options{Seed: seed, Samples: samples})
	if err != nil {
		return nil, run, err
	}
	rep := report.Build(pipeline.DesignFindings(d, seed).Input(report.Input{Design: d, Measured: run, Modeled: run,
		Started: started, Duration: time.Since(started), Version: version}))
	return rep, run, nil
}

// seededDocuments is the most documents d can seed (children counted at per.max).
func seededDocuments(d *design.Design) int {
	total := 0
	for _, c := range d.Containers {
		n := map[string]int{}
		var count func(t *design.DocType, depth int) int
		count = func(t *design.DocType, depth int) int {
			if v, ok := n[t.Type]; ok {
				return v
			}
			if t.Parent == nil || depth > 10 {
				n[t.Type] = t.Count
				return t.Count
			}
			p := c.DocType(t.Parent.Type)
			if p == nil {
				return 0
			}
			v := count(p, depth+1) * t.Parent.Per.Max
			n[t.Type] = v
			return v
		}
		for i := range c.Documents {
			total += count(&c.Documents[i], 0)
		}
	}
	return total
}

// seededBytes is the JSON d seeds with the given seed, as the plan estimates each document type
// (its seeded count times its expected size, targetBytes padding included); 0 when the design
// cannot be planned (the run then fails on its own).
func seededBytes(d *design.Design, seed int64) int64 {
	p, err := plan.Build(d, plan.Options{Seed: seed})
	if err != nil {
		return 0
	}
	var total float64
	for _, c := range p.Containers {
		for _, doc := range c.Documents {
			total += doc.Count * doc.Bytes
		}
	}
	return int64(total)
}

// runBounded checks the bounds, then runs d on the embedded engine within the time limit.
func (s *server) runBounded(ctx context.Context, d *design.Design, samples int, seed int64) (*report.Report, *record.Run, error) {
	if samples == 0 {
		samples = 10
	}
	if samples < 1 || samples > s.o.MaxSamples {
		return nil, nil, fmt.Errorf("samples: want 1..%d (got %d)", s.o.MaxSamples, samples)
	}
	for _, ap := range d.AccessPatterns {
		if ap.Samples > s.o.MaxSamples {
			return nil, nil, fmt.Errorf("%s: samples %d is above this server's limit of %d", ap.ID, ap.Samples, s.o.MaxSamples)
		}
	}
	if n := seededDocuments(d); n > s.o.MaxDocuments {
		return nil, nil, fmt.Errorf("%s seeds up to %d documents; runs through this server are limited to %d: lower the counts "+
			"(production size belongs in scale.storageGB), or use `validate run`", d.Name, n, s.o.MaxDocuments)
	}
	if b := seededBytes(d, seed); b > s.o.MaxSeedBytes {
		return nil, nil, fmt.Errorf("%s seeds about %d MB of documents; runs through this server are limited to %d MB: lower the counts "+
			"or targetBytes (production size belongs in scale.storageGB), or use `validate run`", d.Name, b>>20, s.o.MaxSeedBytes>>20)
	}
	rctx, cancel := context.WithTimeout(ctx, s.o.MaxRunTime)
	defer cancel()
	rep, run, err := runEmbedded(rctx, d, samples, seed, s.o.Version)
	if err != nil {
		if errors.Is(rctx.Err(), context.DeadlineExceeded) {
			return nil, nil, fmt.Errorf("%s: the run took longer than %s and was stopped; lower the counts or samples", d.Name, s.o.MaxRunTime)
		}
		if pipeline.IsInfrastructure(err) || target.IsInfrastructure(err) {
			return nil, nil, fmt.Errorf("%s: %s", d.Name, target.Explain(err))
		}
		return nil, nil, fmt.Errorf("%s: %w", d.Name, err)
	}
	return rep, run, nil
}

// ExplainInput names one pattern of a design.
type ExplainInput struct {
	DesignInput
	Pattern string `json:"pattern" jsonschema:"the access pattern id, e.g. AP3"`
	Samples int    `json:"samples,omitempty" jsonschema:"executions (default 10; the server caps it)"`
	Seed    int64  `json:"seed,omitempty" jsonschema:"generator seed (default 1)"`
}

// ExplainOutput is one pattern's execution facts and what to do about them.
type ExplainOutput struct {
	// Result is the pattern's verdict and charges, as in the JSON report.
	Result report.PatternResult `json:"result"`
	// Plan is the static estimate of the pattern (floor, model charge, query facts).
	Plan *plan.Pattern `json:"plan,omitempty"`
	// Executions are the first executions as the probe recorded them: charge, pages, partitions,
	// status, query and index metrics.
	Executions []record.Execution `json:"executions"`
	// Advice collects the verdict's reasons, the engine's index advice, and the lint and plan
	// findings about this pattern.
	Advice []string `json:"advice"`
}

func (s *server) explainTool(ctx context.Context, _ *mcp.CallToolRequest, in ExplainInput) (*mcp.CallToolResult, *ExplainOutput, error) {
	d, err := s.load(in.DesignInput)
	if err != nil {
		return nil, nil, err
	}
	idx := -1
	var ids []string
	for i, ap := range d.AccessPatterns {
		ids = append(ids, ap.ID)
		if strings.EqualFold(ap.ID, in.Pattern) {
			idx = i
		}
	}
	if idx < 0 {
		return nil, nil, fmt.Errorf("%s: no access pattern %q (have %s)", d.File, in.Pattern, strings.Join(ids, ", "))
	}
	out := &ExplainOutput{Executions: []record.Execution{}, Advice: []string{}}
	prefix := fmt.Sprintf("accessPatterns[%d]", idx)
	for _, f := range lint.Check(d) {
		if f.Path == prefix || strings.HasPrefix(f.Path, prefix+".") {
			out.Advice = append(out.Advice, fmt.Sprintf("lint: %s [%s]", f.Message, f.Code))
		}
	}
	id := d.AccessPatterns[idx].ID
	if pl, err := plan.Build(d, plan.Options{Seed: in.Seed}); err == nil {
		for i := range pl.Patterns {
			if pl.Patterns[i].ID == id {
				out.Plan = &pl.Patterns[i]
			}
		}
	}
	// Run only this pattern: the same documents are seeded, the other patterns are not executed.
	one := *d
	one.AccessPatterns = []design.AccessPattern{d.AccessPatterns[idx]}
	rep, run, err := s.runBounded(ctx, &one, in.Samples, in.Seed)
	if err != nil {
		return nil, nil, err
	}
	if len(rep.Patterns) > 0 {
		out.Result = rep.Patterns[0]
		for _, r := range rep.Patterns[0].Reasons {
			out.Advice = append(out.Advice, "verdict: "+r)
		}
		for _, a := range rep.Patterns[0].Advice {
			out.Advice = append(out.Advice, "engine: "+a)
		}
		for _, e := range rep.Patterns[0].Errors {
			if e.Explanation != "" {
				out.Advice = append(out.Advice, "error: "+e.Explanation)
			}
		}
	}
	if len(run.Patterns) > 0 {
		ex := run.Patterns[0].Executions
		out.Executions = append(out.Executions, ex[:min(len(ex), 5)]...)
	}
	return nil, out, nil
}
