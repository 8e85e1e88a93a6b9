package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/record"
)

// BaselineKind marks a baseline file, so ReadBaseline can tell it from a full report.
const BaselineKind = "validate-baseline"

// baselineDoc is the baseline file: only what a comparison uses, without timestamps, latencies or
// endpoints, so that two runs of the same design and seed write the same bytes.
type baselineDoc struct {
	Kind          string `json:"kind"`
	SchemaVersion int    `json:"schemaVersion"`
	// Tool is the model that wrote the baseline: validate's version and the rate card's.
	Tool     *baselineTool     `json:"tool,omitempty"`
	Design   DesignSummary     `json:"design"`
	Target   baselineTarget    `json:"target"`
	Seed     int64             `json:"seed"`
	Samples  int               `json:"samples"`
	Patterns []baselinePattern `json:"patterns"`
	// Cost is the run's monthly cost at production, when it was priced.
	Cost *MonthlyCost `json:"monthlyCost,omitempty"`
}

type baselineTool struct {
	Version  string `json:"version"`
	RateCard string `json:"rateCard"`
}

type baselineTarget struct {
	Kind         record.Kind         `json:"kind"`
	Engine       string              `json:"engine,omitempty"`
	ChargeSource record.ChargeSource `json:"chargeSource"`
}

type baselinePattern struct {
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Container    string          `json:"container"`
	Op           string          `json:"op"`
	Query        string          `json:"query,omitempty"`
	PartitionKey []string        `json:"partitionKey,omitempty"`
	Estimate     float64         `json:"estimate"`
	Regression   *design.Band    `json:"regression,omitempty"`
	Verdict      Verdict         `json:"verdict"`
	Modeled      *baselineCharge `json:"modeled,omitempty"`
	Measured     *baselineCharge `json:"measured,omitempty"`
	// Projection says how the charges carry to production: what ProductionFigure reads besides
	// each charge's projected figure.
	Projection *baselineProjection `json:"projection,omitempty"`
}

type baselineCharge struct {
	Source record.ChargeSource `json:"source"`
	Median float64             `json:"median"`
	P95    float64             `json:"p95"`
	// Projected is the median at production scale and VerdictOn the figure the verdict judged.
	Projected float64 `json:"projected,omitempty"`
	VerdictOn string  `json:"verdictOn,omitempty"`
}

type baselineProjection struct {
	Production  bool `json:"production"`
	Point       bool `json:"point,omitempty"`
	Unprojected bool `json:"unprojected,omitempty"`
}

func toBaselineCharge(c *Charge) *baselineCharge {
	if c == nil {
		return nil
	}
	return &baselineCharge{Source: c.Source, Median: round2(c.Median), P95: round2(c.P95), Projected: round2(c.Projected), VerdictOn: c.VerdictOn}
}

func fromBaselineCharge(c *baselineCharge) *Charge {
	if c == nil {
		return nil
	}
	return &Charge{Source: c.Source, Median: c.Median, P95: c.P95, Projected: c.Projected, VerdictOn: c.VerdictOn,
		CarriesVerdict: CarriesVerdict(c.Source)}
}

// roundCost rounds a monthly cost to cents and its loads to 0.01, as a baseline holds it. A
// baseline holds the figures, not their bands (as it holds a projection without its band): the
// bands follow from the figures' rules, which the model's version names.
func roundCost(m *MonthlyCost) *MonthlyCost {
	if m == nil {
		return nil
	}
	out := *m
	out.DesignedUSD, out.RequiredUSD = round2(m.DesignedUSD), round2(m.RequiredUSD)
	out.DesignedBand, out.RequiredBand = nil, nil
	out.Containers = make([]ContainerCost, len(m.Containers))
	for i, c := range m.Containers {
		c.AvgRUs, c.PeakRUs, c.StorageGB = round2(c.AvgRUs), round2(c.PeakRUs), math.Round(c.StorageGB*1e4)/1e4
		c.DesignedUSD, c.RequiredUSD = round2(c.DesignedUSD), round2(c.RequiredUSD)
		c.DesignedBand, c.RequiredBand = nil, nil
		out.Containers[i] = c
	}
	return &out
}

// WriteBaseline writes the baseline of r: small, stable JSON with sorted keys and rounded charges,
// meant to be committed and reviewed in a diff.
func WriteBaseline(w io.Writer, r *Report) error {
	if r == nil {
		return fmt.Errorf("write baseline: no report")
	}
	doc := baselineDoc{
		Kind:          BaselineKind,
		SchemaVersion: r.SchemaVersion,
		Tool:          &baselineTool{Version: r.Tool.Version, RateCard: r.Tool.RateCard},
		Design: DesignSummary{Name: r.Design.Name, VariantOf: r.Design.VariantOf, Fingerprint: r.Design.Fingerprint, Containers: r.Design.Containers,
			StorageGB: r.Design.StorageGB},
		Target:   baselineTarget{Kind: r.Target.Kind, Engine: r.Target.Engine, ChargeSource: r.Target.ChargeSource},
		Seed:     r.Seed,
		Samples:  r.Samples,
		Patterns: []baselinePattern{},
		Cost:     roundCost(r.Cost),
	}
	for _, p := range r.Patterns {
		bp := baselinePattern{ID: p.ID, Name: p.Name, Container: p.Container, Op: p.Op, Query: p.Query,
			PartitionKey: p.PartitionKey, Estimate: round2(p.Estimate), Regression: p.Regression, Verdict: p.Verdict}
		bp.Modeled, bp.Measured = toBaselineCharge(p.Modeled), toBaselineCharge(p.Measured)
		if pj := p.Projection; pj != nil {
			bp.Projection = &baselineProjection{Production: pj.Production, Point: pj.Point, Unprojected: pj.Unprojected}
		}
		doc.Patterns = append(doc.Patterns, bp)
	}
	b, err := sortedJSON(doc)
	if err != nil {
		return fmt.Errorf("write baseline: %w", err)
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("write baseline: %w", err)
	}
	return nil
}

// sortedJSON marshals v with every object's keys in sorted order, indented, ending in a newline.
func sortedJSON(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(generic); err != nil { // maps encode with sorted keys
		return nil, err
	}
	return buf.Bytes(), nil
}

// MaxReportBytes bounds what ReadBaseline reads: a JSON report of a large design with every
// execution is a few megabytes; 64 MB leaves an order of magnitude beyond that.
const MaxReportBytes = 64 << 20

// ReadBaseline reads either a baseline file or a full JSON report and returns it as a Report, so
// that Compare takes either on either side. A baseline yields a Report without latencies, reasons or
// timestamps.
func ReadBaseline(rd io.Reader) (*Report, error) {
	// Read at most one byte past the bound: /dev/zero or a runaway file must not fill memory.
	data, err := io.ReadAll(io.LimitReader(rd, MaxReportBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read baseline: %w", err)
	}
	if len(data) > MaxReportBytes {
		return nil, fmt.Errorf("larger than %d bytes: not a baseline or a JSON report", MaxReportBytes)
	}
	var head struct {
		Kind          string `json:"kind"`
		SchemaVersion int    `json:"schemaVersion"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("not a JSON report or baseline (%v): give a baseline file or a report written with --format json", err)
	}
	if err := checkControls(data); err != nil {
		return nil, err
	}
	if head.SchemaVersion == 0 {
		return nil, fmt.Errorf("not a report or baseline (no schemaVersion): give a baseline file or a report written with --format json")
	}
	if head.Kind != BaselineKind {
		var r Report
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("read baseline: report: %w", err)
		}
		return &r, nil
	}
	var doc baselineDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("read baseline: %w", err)
	}
	r := &Report{
		SchemaVersion: doc.SchemaVersion,
		Design:        doc.Design,
		Target:        record.TargetInfo{Kind: doc.Target.Kind, Engine: doc.Target.Engine, ChargeSource: doc.Target.ChargeSource},
		Seed:          doc.Seed,
		Samples:       doc.Samples,
		Patterns:      []PatternResult{},
		Cost:          doc.Cost,
	}
	if doc.Tool != nil {
		r.Tool = Tool{Name: "validate", Version: doc.Tool.Version, RateCard: doc.Tool.RateCard}
	}
	for _, bp := range doc.Patterns {
		p := PatternResult{ID: bp.ID, Name: bp.Name, Container: bp.Container, Op: bp.Op, Query: bp.Query,
			PartitionKey: bp.PartitionKey, Estimate: bp.Estimate, Regression: bp.Regression, Verdict: bp.Verdict}
		p.Modeled, p.Measured = fromBaselineCharge(bp.Modeled), fromBaselineCharge(bp.Measured)
		if bp.Projection != nil {
			p.Projection = &record.Projection{ID: bp.ID, Production: bp.Projection.Production, Point: bp.Projection.Point,
				Unprojected: bp.Projection.Unprojected}
		}
		r.Patterns = append(r.Patterns, p)
	}
	r.Summary = summarize(r.Patterns, false, false, "")
	r.Summary.Basis = "baseline file"
	return r, nil
}
