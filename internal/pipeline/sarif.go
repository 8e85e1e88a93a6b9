package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/plan"
	"github.com/cosmosdv/validate/internal/report"
	"github.com/cosmosdv/validate/internal/sarif"
)

// sarifHelpURI is the page that explains a run's findings.
const sarifHelpURI = "https://github.com/cosmosdv/validate/blob/main/docs/report-format.md"

// RunFindings are a run's findings as SARIF results, each at the design file's line and column of
// what it is about: a pattern that failed or erred (error) or warned (warning) at its estimate, a
// regression since the baseline (error) and a pattern that moved with the model (note, or error
// under --fail-on-model-change) at the pattern, a monthly cost beyond --regression-usd (file level),
// and the stages' warn and error findings at the container they name.
func RunFindings(d *design.Design, rep *report.Report) []sarif.Finding {
	var out []sarif.Finding
	patternAt := map[string]int{}
	for i, ap := range d.AccessPatterns {
		patternAt[ap.ID] = i
	}
	at := func(paths ...string) (int, int) {
		for _, p := range paths {
			if pos, ok := d.Positions[p]; ok && pos.Line > 0 {
				return pos.Line, pos.Col
			}
		}
		return 0, 0
	}
	patternPos := func(id string) (string, int, int) {
		i, ok := patternAt[id]
		if !ok {
			return "", 0, 0
		}
		base := fmt.Sprintf("accessPatterns[%d]", i)
		l, c := at(base+".estimate", base+".id", base)
		return base, l, c
	}
	for _, p := range rep.Patterns {
		var lvl string
		switch p.Verdict {
		case report.Fail, report.Error:
			lvl = sarif.LevelError
		case report.Warn:
			lvl = sarif.LevelWarning
		default:
			continue
		}
		path, l, c := patternPos(p.ID)
		out = append(out, sarif.Finding{Rule: "pattern-" + string(p.Verdict), Level: lvl, File: d.File, Line: l, Col: c, Path: path,
			Message: fmt.Sprintf("%s %s: %s: %s", p.ID, p.Name, p.Verdict, strings.Join(p.Reasons, "; "))})
	}
	if b := rep.Baseline; b != nil {
		for _, pc := range b.Ordered() {
			rule, lvl := "", ""
			switch {
			case pc.Change == report.Regression:
				rule, lvl = "regression", sarif.LevelError
			case pc.Change == report.ModelChanged && b.FailOnModelChange:
				rule, lvl = "model-changed", sarif.LevelError
			case pc.Change == report.ModelChanged:
				rule, lvl = "model-changed", sarif.LevelNote
			default:
				continue
			}
			path, l, c := patternPos(pc.ID)
			out = append(out, sarif.Finding{Rule: rule, Level: lvl, File: d.File, Line: l, Col: c, Path: path,
				Message: fmt.Sprintf("%s %s: %s since the baseline: %s", pc.ID, pc.Name, pc.Change, strings.Join(pc.Reasons, "; "))})
		}
		if b.Cost != nil && b.Cost.Change == report.Regression {
			out = append(out, sarif.Finding{Rule: "cost-regression", Level: sarif.LevelError, File: d.File, Message: b.CostLine()})
		}
	}
	containerAt := map[string]int{}
	for i, ct := range d.Containers {
		containerAt[ct.Name] = i
	}
	for _, f := range rep.StageFindings {
		lvl := map[string]string{"warn": sarif.LevelWarning, "error": sarif.LevelError}[f.Level]
		if lvl == "" {
			continue
		}
		var path string
		var l, c int
		if i, ok := containerAt[strings.TrimPrefix(f.Subject, "container ")]; ok {
			path = fmt.Sprintf("containers[%d]", i)
			l, c = at(path+".name", path)
		}
		if m := lintAt.FindStringSubmatch(f.Message); m != nil && m[1] == d.File {
			// A review finding repeats lint's line, which names the field's own position.
			l, _ = strconv.Atoi(m[2])
			c, _ = strconv.Atoi(m[3])
		}
		out = append(out, sarif.Finding{Rule: "stage-" + f.Stage, Level: lvl, File: d.File, Line: l, Col: c, Path: path,
			Message: strings.TrimSpace(f.Subject + ": " + f.Message)})
	}
	return out
}

// PlanFindings are a plan's warnings as SARIF results (warning level), each at the design file's
// position of its subject: a pattern's estimate, a container's name, else the file. waived maps a
// warning's index to the justification of the waiver that accepts it (an accepted suppression).
func PlanFindings(d *design.Design, p *plan.Plan, waived map[int]string) []sarif.Finding {
	var out []sarif.Finding
	for i, w := range p.Warnings {
		path, l, c := subjectPos(d, w.Subject)
		out = append(out, sarif.Finding{Rule: w.Code, Level: sarif.LevelWarning, Message: strings.TrimSpace(w.Subject + ": " + w.Message),
			File: d.File, Line: l, Col: c, Path: path, Waived: waived[i]})
	}
	return out
}

// subjectPos is the field path and position of a plan warning's subject: an access pattern (at its
// estimate) or a container (at its name); none for the design as a whole.
func subjectPos(d *design.Design, subject string) (string, int, int) {
	at := func(paths ...string) (int, int) {
		for _, p := range paths {
			if pos, ok := d.Positions[p]; ok && pos.Line > 0 {
				return pos.Line, pos.Col
			}
		}
		return 0, 0
	}
	for i, ap := range d.AccessPatterns {
		if ap.ID == subject {
			base := fmt.Sprintf("accessPatterns[%d]", i)
			l, c := at(base+".estimate", base+".id", base)
			return base, l, c
		}
	}
	for i, ct := range d.Containers {
		if ct.Name == subject {
			base := fmt.Sprintf("containers[%d]", i)
			l, c := at(base+".name", base)
			return base, l, c
		}
	}
	return "", 0, 0
}

// lintAt finds the file:line:col a finding repeated from lint starts with.
var lintAt = regexp.MustCompile(`lint: (.+?):(\d+):(\d+): `)

// writeSARIF writes the run's findings of d as <out>/<design>.sarif.
func writeSARIF(out, version string, d *design.Design, rep *report.Report) (string, error) {
	file := filepath.Join(out, report.FileStem(d.Name)+".sarif")
	f, err := os.Create(file)
	if err != nil {
		return "", err
	}
	if err := sarif.Build(version, sarifHelpURI, RunFindings(d, rep)).Write(f); err != nil {
		f.Close()
		return "", err
	}
	return file, f.Close()
}
