// Package lint finds what a valid design gets wrong before anything runs: estimates below what a
// pattern can cost, query shapes the Go SDK cannot run, unique keys that documents cannot satisfy,
// prices in the wrong unit, hot partitions. A design that fails to parse never reaches it.
package lint

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine/sql"
	"github.com/cosmosdv/validate/internal/plan"
	"github.com/cosmosdv/validate/internal/querycheck"
)

// Finding is one problem in a design, pointing at the field it is about.
type Finding struct {
	File string
	Pos  design.Pos
	// Path is the field path, e.g. "accessPatterns[3].estimate".
	Path string
	// Code is stable for tooling.
	Code    string
	Message string
	// Note marks a remark that is not a mistake: printed, but lint still passes.
	Note bool
	// FromPlan marks a finding that is one of plan's warnings (plan reports it itself).
	FromPlan bool `json:"-"`
}

// String formats the finding as file:line:col: path: message [code].
func (f Finding) String() string {
	var b strings.Builder
	b.WriteString(f.File)
	if f.Pos.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", f.Pos.Line, max(f.Pos.Col, 1))
	}
	b.WriteString(": ")
	if f.Path != "" {
		b.WriteString(f.Path + ": ")
	}
	if f.Note {
		b.WriteString("note: ")
	}
	fmt.Fprintf(&b, "%s [%s]", f.Message, f.Code)
	return b.String()
}

// planCodes are the plan warnings that are design mistakes rather than rough static disagreement.
var planCodes = map[string]bool{
	"estimate-below-floor": true,
	"price-unit":           true,
	"price":                true,
	"month-length":         true,
	"throughput-short":     true,
	"hot-partition":        true,
	"query-scan":           true,
	"missing-key":          true,
	"serverless":           true,
	"scale-storage":        true,
	"over-provisioned":     true,
	"hpk-order":            true,
	"throttling":           true,
	"hot-key-no-mode":      true,
}

// Check returns the findings of d, sorted by position, with the default options.
func Check(d *design.Design) []Finding { return CheckWith(d, Options{}) }

// CheckWith returns the findings of d, sorted by position.
func CheckWith(d *design.Design, opts Options) []Finding {
	l := &linter{d: d, opts: opts}
	l.planWarnings()
	l.queryShapes()
	l.uniqueKeys()
	l.fieldPaths()
	l.queryProblems()
	l.ttlRules()
	l.keyTemplates()
	l.keyPathPatches()
	l.fanOuts()
	l.hpkGaps()
	l.crossAggregates()
	l.lowCardinality()
	l.unboundedArrays()
	l.prefixTrap()
	l.compositeDuplicates()
	l.unusedIncluded()
	l.unusedComposites()
	l.unmatchedFilters()
	l.importTODOs()
	sort.SliceStable(l.out, func(i, j int) bool {
		a, b := l.out[i].Pos, l.out[j].Pos
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return l.out
}

type linter struct {
	d    *design.Design
	opts Options
	out  []Finding
	// plan is the design's plan (nil when it cannot be planned): the rules that need the cost
	// model's figures (physical partitions at production) read them from it.
	plan *plan.Plan
}

func (l *linter) add(path, code, format string, args ...any) {
	l.addAt(path, design.Pos{}, code, format, args...)
}

// addAt records a finding at pos, or at path's position (or its nearest recorded parent's) when pos
// is zero.
func (l *linter) addAt(path string, pos design.Pos, code, format string, args ...any) {
	if pos.Line == 0 {
		pos = l.d.Positions[path]
	}
	// Fall back to the nearest recorded parent so that the finding still points into the file.
	for p := path; pos.Line == 0 && p != ""; {
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			break
		}
		p = p[:i]
		pos = l.d.Positions[p]
	}
	l.out = append(l.out, Finding{File: l.d.File, Pos: pos, Path: path, Code: code, Message: fmt.Sprintf(format, args...)})
}

func (l *linter) patternPath(id string) (string, bool) {
	for i := range l.d.AccessPatterns {
		if l.d.AccessPatterns[i].ID == id {
			return fmt.Sprintf("accessPatterns[%d]", i), true
		}
	}
	return "", false
}

func (l *linter) containerPath(name string) (string, bool) {
	for i := range l.d.Containers {
		if l.d.Containers[i].Name == name {
			return fmt.Sprintf("containers[%d]", i), true
		}
	}
	return "", false
}

func (l *linter) planWarnings() {
	p, err := plan.Build(l.d, l.opts.Plan)
	if err != nil {
		l.add("", "plan", "cannot plan the design: %v", err)
		return
	}
	l.plan = p
	for _, w := range p.Warnings {
		if !planCodes[w.Code] && !planNotes[w.Code] {
			continue
		}
		path := w.Subject
		if pp, ok := l.patternPath(w.Subject); ok {
			path = pp + ".estimate"
			if strings.HasPrefix(w.Code, "query-") {
				path = pp + ".query"
			}
		} else if cp, ok := l.containerPath(w.Subject); ok {
			path = cp
		}
		if w.Code == "query-scan" {
			l.addWeighed(path, w.Subject, w.Code, w.Message)
		} else {
			l.add(path, w.Code, "%s", w.Message)
		}
		l.out[len(l.out)-1].FromPlan = true
		if planNotes[w.Code] {
			l.out[len(l.out)-1].Note = true
		}
	}
}

// planNotes are plan warnings lint shows as notes (exit 0): facts of the design's own choosing.
var planNotes = map[string]bool{
	"bucket-cap": true, // throughput buckets refusing requests beyond the caps the design set
}

// queryShapes flags queries the Go SDK cannot run: without a full partition key — in the pattern,
// or pinned by WHERE to a single value per key path — the request is a cross-partition query for
// the gateway, which serves only filters and projections across partitions. The engine draws the
// same line (queryTargets in internal/engine/query.go), so lint and run agree. Only a design whose
// app.sdk is go gets the findings: the other SDKs run such queries with their query engine (run
// does too, through internal/probe/fanout). A design that names no SDK is judged as one of those,
// and gets one note saying so.
func (l *linter) queryShapes() {
	noted := false
	for i := range l.d.AccessPatterns {
		ap := &l.d.AccessPatterns[i]
		if ap.Op != design.OpQuery {
			continue
		}
		c := l.d.Container(ap.Container)
		if c == nil || len(ap.PartitionKey) == len(c.PartitionKey) {
			continue
		}
		q, err := sql.Parse(ap.Query)
		path := fmt.Sprintf("accessPatterns[%d].query", i)
		if err != nil {
			continue // reported by queryProblems
		}
		if _, single := q.SingleKey(c.KeyPaths(), scalarParams(c, ap)); single {
			continue
		}
		clauses := querycheck.Clauses(q.Shape())
		if len(clauses) == 0 {
			continue
		}
		scope := "no partition key"
		if len(ap.PartitionKey) > 0 {
			scope = "a partition-key prefix"
		}
		switch l.d.SDKName() {
		case design.SDKGo:
			l.add(path, "cross-partition-shape",
				"query with %s uses %s: the gateway the Go SDK talks to cannot serve that across partitions (400); give the full partition key, or keep the result precomputed in one document (run shows what it would cost from an SDK with a query engine)",
				scope, strings.Join(clauses, ", "))
		case "":
			if !noted {
				noted = true
				l.add(path, "app-sdk-unset",
					"query with %s uses %s across partitions: judged as run by an SDK with a query engine (.NET, Java, Python, JavaScript); if the application uses the Go SDK, set app: {sdk: go} and such queries become findings",
					scope, strings.Join(clauses, ", "))
				l.out[len(l.out)-1].Note = true
			}
		}
	}
}

// scalarParams is querycheck.ScalarParams.
func scalarParams(c *design.Container, ap *design.AccessPattern) map[string]any {
	return querycheck.ScalarParams(c, ap)
}

// uniqueKeys flags unique keys that some document type of the container does not generate: the
// service enforces uniqueness on missing values too, so only one such document per logical partition
// can exist (UniqueKey remarks in the Cosmos DB SDK reference documentation).
func (l *linter) uniqueKeys() {
	for ci := range l.d.Containers {
		c := &l.d.Containers[ci]
		for ui, uk := range c.UniqueKeys {
			for _, p := range uk {
				top := ""
				if segs := design.SplitPath(p); len(segs) > 0 {
					top = segs[0]
				}
				if !slices.ContainsFunc(c.Documents, func(dt design.DocType) bool { _, ok := dt.Fields.Lookup(top); return ok }) {
					continue // no type has it: an unknown field (fieldPaths)
				}
				for _, dt := range c.Documents {
					if f, ok := dt.Fields.Lookup(top); ok && f.Optional == 0 {
						continue
					}
					if top == "id" {
						continue
					}
					l.add(fmt.Sprintf("containers[%d].uniqueKeys[%d]", ci, ui), "unique-key-missing",
						"document type %q has no %s: the service treats a missing unique-key value as one value, so only one %s per logical partition can be stored; move the unique key to a container of its own type or give every type the property",
						dt.Type, p, dt.Type)
				}
			}
		}
	}
}

// importTODOs flags every "# TODO(import):" comment `validate import` left in a draft: each marks a
// value the markdown did not give or the importer inferred (with the markdown's file and line), which
// a person checks and then deletes. A draft is not finished while one is left.
func (l *linter) importTODOs() {
	for _, c := range l.d.MarkedComments("TODO(import):") {
		l.out = append(l.out, Finding{File: l.d.File, Pos: c.Pos, Path: c.Path, Code: "import-todo",
			Message: "left by validate import: " + c.Text + " (check it, set the value, then delete the comment)"})
	}
}
