package main

import (
	"cmp"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/lint"
	"github.com/cosmosdv/validate/internal/plan"
	"github.com/cosmosdv/validate/internal/sarif"
	"github.com/cosmosdv/validate/internal/waiver"
)

// now is the clock waivers expire by (tests keep to dates far from it).
var now = func() time.Time { return time.Now().UTC() }

// judged is a lint finding with the waiver that accepts it (nil: not waived).
type judged struct {
	lint.Finding
	Waiver *waiver.Waiver
}

var patternIndex = regexp.MustCompile(`^accessPatterns\[(\d+)\]`)

// patternOf is the id of the access pattern a field path is about ("" when none).
func patternOf(d *design.Design, path string) string {
	m := patternIndex.FindStringSubmatch(path)
	if m == nil {
		return ""
	}
	i, _ := strconv.Atoi(m[1])
	if d == nil || i >= len(d.AccessPatterns) {
		return ""
	}
	return d.AccessPatterns[i].ID
}

// withDesign is ws and the waivers the design writes next to what they are about
// (lint.DesignWaivers).
func withDesign(ws *waiver.Set, d *design.Design) *waiver.Set { return ws.With(lint.DesignWaivers(d)) }

// judge applies the waivers to a design's findings. A finding a live waiver names is waived; one an
// expired waiver names is not, and the expired waiver is reported once as a failing finding at its
// own line (expired, keyed by the waiver, collects them across designs).
func judge(ws *waiver.Set, d *design.Design, fs []lint.Finding, expired map[*waiver.Waiver]lint.Finding) []judged {
	ws = withDesign(ws, d)
	out := make([]judged, 0, len(fs))
	for _, f := range fs {
		j := judged{Finding: f}
		if w := ws.Match(waiver.Subject{Design: d.Name, Code: f.Code, Path: f.Path, Pattern: patternOf(d, f.Path)}); w != nil {
			if w.Expired(now()) {
				if _, seen := expired[w]; !seen {
					expired[w] = lint.Finding{File: w.File, Pos: design.Pos{Line: w.Line, Col: w.Col}, Code: "waiver-expired",
						Message: fmt.Sprintf("the waiver of [%s] (owner %s, reason: %s) expired on %s: the finding fails again; fix the design, or renew the waiver with a new date and reason",
							w.Code, w.Owner, w.Reason, w.Expires)}
				}
			} else {
				j.Waiver = w
			}
		}
		out = append(out, j)
	}
	return out
}

// level is a finding's severity: notes are remarks, the rest design mistakes.
func level(f lint.Finding) string {
	if f.Note {
		return sarif.LevelNote
	}
	return sarif.LevelError
}

// fails reports whether a finding of this level fails under --fail-on.
func fails(lvl, failOn string) bool {
	switch failOn {
	case "none":
		return false
	case "note":
		return true
	}
	return lvl == sarif.LevelError
}

func checkFailOn(v string) error {
	switch v {
	case "error", "note", "none":
		return nil
	}
	return usageErr("--fail-on: want error, note or none (got %q)", v)
}

// waivedText is how text output marks a waived finding.
func waivedText(w *waiver.Waiver) string {
	return w.Marked()
}

// waivePlan applies the waivers to a plan's warnings: a warning a live waiver names (its code, the
// design, the pattern or container its subject names) is marked waived in its message and not
// counted; one an expired waiver names stays, and the waiver is collected in expired. It returns
// the waived warnings' indexes with their waivers' justification.
func waivePlan(ws *waiver.Set, d *design.Design, p *plan.Plan, expired map[*waiver.Waiver]lint.Finding) map[int]string {
	ws = withDesign(ws, d)
	waived := map[int]string{}
	for i := range p.Warnings {
		w := &p.Warnings[i]
		sub := waiver.Subject{Design: d.Name, Code: w.Code}
		if d.Pattern(w.Subject) != nil {
			sub.Pattern = w.Subject
			for j := range d.AccessPatterns {
				if d.AccessPatterns[j].ID == w.Subject {
					sub.Path = fmt.Sprintf("accessPatterns[%d]", j)
				}
			}
		}
		for j := range d.Containers {
			if d.Containers[j].Name == w.Subject {
				sub.Path = fmt.Sprintf("containers[%d]", j)
			}
		}
		// A lint finding carried into the plan names its place as "file:line:col: path".
		if _, path, ok := strings.Cut(w.Subject, ": "); ok && sub.Path == "" {
			sub.Path, sub.Pattern = path, patternOf(d, path)
		}
		wv := ws.Match(sub)
		switch {
		case wv == nil:
		case wv.Expired(now()):
			judge(ws, d, []lint.Finding{{Code: w.Code, Path: sub.Path}}, expired)
		default:
			w.Message += waivedText(wv)
			waived[i] = fmt.Sprintf("%s (owner %s, until %s; %s)", wv.Reason, wv.Owner, cmp.Or(wv.Expires, "no expiry"), wv.Where())
		}
	}
	return waived
}
