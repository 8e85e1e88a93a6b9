package studio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"
	"sync"

	"github.com/cosmosdv/validate/internal/advise"
	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/lint"
	"github.com/cosmosdv/validate/internal/outfile"
	"github.com/cosmosdv/validate/internal/pipeline"
	"github.com/cosmosdv/validate/internal/plan"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/report"
	"github.com/cosmosdv/validate/internal/target"
)

// edit is what the page sends: the file it edits and the editor's text.
type edit struct {
	Name      string `json:"name"`
	Text      string `json:"text"`
	Overwrite bool   `json:"overwrite,omitempty"`
}

func readEdit(w http.ResponseWriter, r *http.Request) (edit, bool) {
	var e edit
	dec := json.NewDecoder(io.LimitReader(r.Body, maxDesignBytes+4096))
	if err := dec.Decode(&e); err != nil {
		writeError(w, http.StatusBadRequest, "the request is not {name, text}: "+err.Error())
		return e, false
	}
	return e, true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// files lists the design files of the folder.
func (s *Server) files(w http.ResponseWriter, r *http.Request) {
	names, err := s.names()
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"folder": s.dir, "files": names})
}

// file is one design file's text.
func (s *Server) file(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	data, err := s.read(name)
	if err != nil {
		writeError(w, http.StatusNotFound, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"name": name, "file": s.display(name), "text": string(data)})
}

// Analysis is what the page shows for the editor's text: lint's document (the one `validate lint
// --format json` prints), plan's (`validate plan --format json`) and the partitions plan sized.
type Analysis struct {
	Lint lint.Doc `json:"lint"`
	// Plan is nil when the design does not parse (Lint.Errors say why) or cannot be planned
	// (PlanError).
	Plan       *plan.Plan  `json:"plan"`
	PlanError  string      `json:"planError,omitempty"`
	Partitions []Partition `json:"partitions,omitempty"`
	// Limits are the rate card's partition limits the chart draws against.
	Limits Limits `json:"limits"`
}

// Limits are the service's partition limits, from the rate card (cost.RateCard).
type Limits struct {
	PhysicalRU float64 `json:"physicalRU"`
	PhysicalGB float64 `json:"physicalGB"`
	LogicalGB  float64 `json:"logicalGB"`
}

// Partition is one container's partitions as plan sized them, and how each of its patterns reaches
// them. Every figure is plan's (plan.Container, plan.Pattern), passed on.
type Partition struct {
	Container    string   `json:"container"`
	PartitionKey []string `json:"partitionKey"`
	// Physical is plan's physical partition count at production (its creation and split rules).
	Physical  int     `json:"physical"`
	StorageGB float64 `json:"storageGB"`
	PeakRUs   float64 `json:"peakRUs"`
	// PeakBand is PeakRUs at the two ends of plan's load band (plan.LoadBand.Peak), when it has one.
	PeakBand *record.Range `json:"peakBand,omitempty"`
	// Hot is plan's judgement of the busiest logical partition: each physical partition's share of
	// the throughput (CapacityRU), its use and risk.
	Hot          cost.Hot `json:"hot"`
	BusiestRUs   float64  `json:"busiestRUs"`
	BusiestGB    float64  `json:"busiestGB"`
	BusiestBasis string   `json:"busiestBasis"`
	Patterns     []Reach  `json:"patterns"`
}

// Reach is which partitions one access pattern reaches.
type Reach struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Op   string `json:"op"`
	// Kind is single (one logical partition), prefix (a hierarchical key's leading levels: the
	// logical partitions under it) or fan-out (every physical partition).
	Kind string `json:"kind"`
	// PartitionsChecked is the physical partitions plan's estimator consulted for a query (at
	// production when the design states a scale), 0 when it did not say.
	PartitionsChecked int `json:"partitionsChecked,omitempty"`
}

func (s *Server) card() *cost.RateCard {
	if s.opts.RateCard != nil {
		return s.opts.RateCard
	}
	return cost.Current
}

// parse reads the editor's text as the design file name would be read.
func (s *Server) parse(e edit) (*design.Design, error) {
	if err := s.checkName(e.Name); err != nil {
		return nil, err
	}
	return design.Parse([]byte(e.Text), s.display(e.Name))
}

func (s *Server) analyze(w http.ResponseWriter, r *http.Request) {
	e, ok := readEdit(w, r)
	if !ok {
		return
	}
	if err := s.checkName(e.Name); err != nil {
		writeError(w, http.StatusForbidden, err.Error())
		return
	}
	d, err := s.parse(e)
	card := s.card()
	// The lint panel's figures are those of the plan beside it: the same seed, card and rules.
	popts := plan.Options{Seed: s.opts.Seed, RateCard: s.opts.RateCard, Rules: s.opts.Rules}
	lopts := s.opts.Lint
	lopts.Plan = popts
	a := Analysis{
		Lint:   lint.Document(s.display(e.Name), d, err, lopts),
		Limits: Limits{PhysicalRU: card.PartitionMaxRU.Value, PhysicalGB: card.PartitionMaxGB.Value, LogicalGB: card.LogicalMaxGB.Value},
	}
	if err == nil {
		p, perr := pipeline.PlanWith(d, popts, s.opts.Lint)
		if perr != nil {
			a.PlanError = perr.Error()
		} else {
			a.Plan = p
			a.Partitions = partitions(d, p)
		}
	}
	writeJSON(w, http.StatusOK, a)
}

// partitions passes on plan's partition figures per container, with each pattern's reach.
func partitions(d *design.Design, p *plan.Plan) []Partition {
	levels := map[string]int{}
	for _, c := range d.Containers {
		levels[c.Name] = len(c.PartitionKey)
	}
	keys := map[string]int{}
	for _, ap := range d.AccessPatterns {
		keys[ap.ID] = len(ap.PartitionKey)
	}
	var out []Partition
	for _, c := range p.Containers {
		pt := Partition{Container: c.Name, PartitionKey: c.PartitionKey, Physical: c.Partitions, StorageGB: c.StorageGB,
			PeakRUs: c.PeakRUs, PeakBand: c.LoadBand.Peak(), Hot: c.Hot, BusiestRUs: c.BusiestRUs, BusiestGB: c.BusiestGB, BusiestBasis: c.BusiestBasis, Patterns: []Reach{}}
		for _, pp := range p.Patterns {
			if pp.Container != c.Name {
				continue
			}
			rc := Reach{ID: pp.ID, Name: pp.Name, Op: pp.Op}
			switch k := keys[pp.ID]; {
			case pp.SinglePartition:
				rc.Kind = "single"
			case k > 0 && k < levels[c.Name]:
				rc.Kind = "prefix"
			default:
				rc.Kind = "fan-out"
			}
			switch {
			case pp.ProductionFacts != nil:
				rc.PartitionsChecked = pp.ProductionFacts.PartitionsChecked
			case pp.Facts != nil:
				rc.PartitionsChecked = pp.Facts.PartitionsChecked
			}
			pt.Patterns = append(pt.Patterns, rc)
		}
		out = append(out, pt)
	}
	return out
}

// AdviceView is advise's document (`validate advise --format json`) and each recommended variant
// as the design file `validate advise --write-variants` writes.
type AdviceView struct {
	Advice   *advise.Advice    `json:"advice"`
	Variants map[string]string `json:"variants"`
	Error    string            `json:"error,omitempty"`
}

func (s *Server) advise(w http.ResponseWriter, r *http.Request) {
	e, ok := readEdit(w, r)
	if !ok {
		return
	}
	d, err := s.parse(e)
	if err != nil {
		writeJSON(w, http.StatusOK, AdviceView{Error: "advise needs a valid design: " + firstLine(err.Error())})
		return
	}
	adv, err := advise.Advise(d, advise.Options{Seed: s.opts.Seed, RateCard: s.opts.RateCard, Rules: s.opts.Rules})
	if err != nil {
		writeJSON(w, http.StatusOK, AdviceView{Error: err.Error()})
		return
	}
	variants, err := s.variantTexts(adv)
	if err != nil {
		writeJSON(w, http.StatusOK, AdviceView{Advice: adv, Error: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, AdviceView{Advice: adv, Variants: variants})
}

// variantTexts are the variants as `validate advise --write-variants` would write them into the
// design's folder (advise.VariantFile), by variant name; nothing is written.
func (s *Server) variantTexts(adv *advise.Advice) (map[string]string, error) {
	out := map[string]string{}
	for _, v := range adv.Recommended {
		if v.Design == nil {
			continue
		}
		_, data, err := advise.VariantFile(s.dir, adv, v)
		if err != nil {
			return nil, err
		}
		out[v.Name] = string(data)
	}
	return out, nil
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// save writes the editor's text to its file in the folder. An existing file is overwritten only
// when the request says so (the page asks first); a design that does not parse is saved too (it
// is the user's text), and the answer says so.
func (s *Server) save(w http.ResponseWriter, r *http.Request) {
	e, ok := readEdit(w, r)
	if !ok {
		return
	}
	if err := s.checkName(e.Name); err != nil {
		writeError(w, http.StatusForbidden, err.Error())
		return
	}
	// Lstat: a link (dangling or not) at the name is something there too.
	if _, err := s.root.Lstat(e.Name); err == nil && !e.Overwrite {
		writeError(w, http.StatusConflict, s.display(e.Name)+" exists: confirm to overwrite it")
		return
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	// checkName allows only a file name directly in the folder; outfile writes beside it and renames
	// over it, so a link at the name is replaced, never written through (the rule of every file
	// validate writes for a user).
	if err := outfile.Replace(filepath.Join(s.dir, e.Name), []byte(e.Text), 0o644); err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"saved": s.display(e.Name)})
}

// stream writes NDJSON events ({"progress": …}, then {"result": …} or {"error": …}) and flushes
// each, so the page shows a run's progress as it happens.
type stream struct {
	mu sync.Mutex
	w  http.ResponseWriter
	f  http.Flusher
}

func newStream(w http.ResponseWriter) *stream {
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &stream{w: w, f: f}
}

func (st *stream) send(v any) {
	st.mu.Lock()
	defer st.mu.Unlock()
	_ = json.NewEncoder(st.w).Encode(v)
	if st.f != nil {
		st.f.Flush()
	}
}

// Write makes the stream the run's progress writer: one event per line of progress.
func (st *stream) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimSpace(string(p)), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			st.send(map[string]string{"progress": line})
		}
	}
	return len(p), nil
}

// RunView is a run's report (`validate run --format json`) and its text rendering.
type RunView struct {
	Report *report.Report `json:"report"`
	Text   string         `json:"text"`
}

// runDesign runs d on the embedded engine as `validate run` does, with progress to st.
func (s *Server) runDesign(ctx context.Context, d *design.Design, st *stream) (*report.Report, error) {
	out, err := pipeline.Validate(ctx, []*design.Design{d}, pipeline.Config{
		Target:   target.Config{Kind: record.KindEmbedded},
		RateCard: s.opts.RateCard,
		Rules:    s.opts.Rules,
		Seed:     s.opts.Seed,
		Samples:  20,
		Version:  s.opts.Version,
		Progress: st,
		Stdout:   io.Discard,
		Stderr:   st,
	})
	if err != nil {
		return nil, err
	}
	return out.Reports[0], nil
}

func (s *Server) run(w http.ResponseWriter, r *http.Request) {
	e, ok := readEdit(w, r)
	if !ok {
		return
	}
	d, err := s.parse(e)
	if err != nil {
		writeError(w, http.StatusUnprocessableEntity, "the design does not parse; lint says where: "+firstLine(err.Error()))
		return
	}
	st := newStream(w)
	rep, err := s.runDesign(r.Context(), d, st)
	if err != nil {
		st.send(map[string]string{"error": err.Error()})
		return
	}
	var b bytes.Buffer
	if err := report.Render(&b, rep, "text"); err != nil {
		st.send(map[string]string{"error": err.Error()})
		return
	}
	st.send(map[string]any{"result": RunView{Report: rep, Text: b.String()}})
}

// CompareView is `validate compare SAVED EDITED` on the two designs: what changed in the design
// and the comparison of their runs, as compare prints them (JSON and text).
type CompareView struct {
	// Diff is the saved file against the edited text, line by line.
	Diff       []string           `json:"diff"`
	Changes    []string           `json:"changes"`
	Comparison *report.Comparison `json:"comparison"`
	Text       string             `json:"text"`
}

func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	e, ok := readEdit(w, r)
	if !ok {
		return
	}
	edited, err := s.parse(e)
	if err != nil {
		writeError(w, http.StatusUnprocessableEntity, "the edited design does not parse; lint says where: "+firstLine(err.Error()))
		return
	}
	data, err := s.read(e.Name)
	if err != nil {
		writeError(w, http.StatusNotFound, "no saved file to compare with: "+err.Error())
		return
	}
	saved, err := design.Parse(data, s.display(e.Name))
	if err != nil {
		writeError(w, http.StatusUnprocessableEntity, "the saved file does not parse: "+firstLine(err.Error()))
		return
	}
	st := newStream(w)
	diff := lineDiff(strings.Split(string(data), "\n"), strings.Split(e.Text, "\n"))
	st.send(map[string]any{"diff": diff})
	var sides [2]*report.Report
	for i, d := range []*design.Design{saved, edited} {
		st.send(map[string]string{"progress": fmt.Sprintf("running the %s design on the embedded engine", []string{"saved", "edited"}[i])})
		if sides[i], err = s.runDesign(r.Context(), d, st); err != nil {
			st.send(map[string]string{"error": err.Error()})
			return
		}
	}
	// compare's default thresholds (--regression-pct 10, --regression-ru 1); a renamed design is
	// still the same file.
	cmp, err := report.Compare(sides[0], sides[1], report.CompareOptions{Pct: report.DefaultRegression.Pct, RU: report.DefaultRegression.RU, Force: saved.Name != edited.Name})
	if err != nil {
		st.send(map[string]string{"error": err.Error()})
		return
	}
	cmp.Old.File, cmp.New.File = s.display(e.Name)+" (saved)", s.display(e.Name)+" (edited)"
	var b bytes.Buffer
	if err := report.RenderComparison(&b, cmp, "text"); err != nil {
		st.send(map[string]string{"error": err.Error()})
		return
	}
	changes := design.Diff(saved, edited)
	st.send(map[string]any{"result": CompareView{Diff: diff, Changes: changes, Comparison: cmp, Text: b.String()}})
}
