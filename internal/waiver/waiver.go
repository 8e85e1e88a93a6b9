// Package waiver reads a waivers file: findings a team has judged and accepts for a while, each with
// a reason, an owner and an expiry. A waived finding is still reported (marked waived, with the
// reason) but no longer fails; an expired waiver waives nothing and is itself a failing finding,
// pointing at its line in the waivers file, so that every acceptance is revisited.
//
//	# validate.waivers.yaml
//	waivers:
//	  - code: hpk-order                 # the finding's code (required)
//	    design: payments                # the design's name (optional: every design)
//	    pattern: AP3                    # an access pattern's id (optional)
//	    path: containers[0].partitionKey  # a field path the finding's path starts with (optional)
//	    reason: merchantId has 50,000 values and month 3; the order is deliberate
//	    owner: "@payments-platform"
//	    expires: 2027-03-31             # YYYY-MM-DD; the waiver holds through that day (UTC)
package waiver

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Waiver is one accepted finding.
type Waiver struct {
	Code    string `yaml:"code"`
	Design  string `yaml:"design"`
	Pattern string `yaml:"pattern"`
	Path    string `yaml:"path"`
	Reason  string `yaml:"reason"`
	Owner   string `yaml:"owner"`
	Expires string `yaml:"expires"`

	// File, Line and Col are where the waiver stands in its file.
	File      string `yaml:"-"`
	Line, Col int    `yaml:"-"`
	until     time.Time
	used      bool
}

// Set is a waivers file.
type Set struct {
	File    string
	Waivers []*Waiver
}

// Load reads a waivers file strictly: unknown keys, a missing code, reason, owner or expiry, and a
// date that is not YYYY-MM-DD are errors that name file:line:col and the field.
func Load(path string) (*Set, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var root yaml.Node
	if err := yaml.Unmarshal(raw, &root); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var doc struct {
		Waivers []yaml.Node `yaml:"waivers"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %v (want a list under waivers:, each with code, reason, owner and expires)", path, err)
	}
	s := &Set{File: path}
	for i, n := range doc.Waivers {
		w := &Waiver{File: path, Line: n.Line, Col: n.Column}
		if err := n.Decode(w); err != nil {
			return nil, fmt.Errorf("%s:%d:%d: waivers[%d]: %v", path, n.Line, n.Column, i, err)
		}
		if err := knownKeys(&n); err != nil {
			return nil, fmt.Errorf("%s:%d:%d: waivers[%d]: %v", path, n.Line, n.Column, i, err)
		}
		for _, f := range []struct{ name, v string }{{"code", w.Code}, {"reason", w.Reason}, {"owner", w.Owner}, {"expires", w.Expires}} {
			if strings.TrimSpace(f.v) == "" {
				return nil, fmt.Errorf("%s:%d:%d: waivers[%d].%s: missing; a waiver names the finding's code, why it is accepted, who owns that and when it expires (YYYY-MM-DD)",
					path, n.Line, n.Column, i, f.name)
			}
		}
		t, err := time.Parse(time.DateOnly, w.Expires)
		if err != nil {
			return nil, fmt.Errorf("%s:%d:%d: waivers[%d].expires: %q is not a date YYYY-MM-DD", path, n.Line, n.Column, i, w.Expires)
		}
		w.until = t.AddDate(0, 0, 1) // through the whole day, UTC
		s.Waivers = append(s.Waivers, w)
	}
	return s, nil
}

var fields = map[string]bool{"code": true, "design": true, "pattern": true, "path": true, "reason": true, "owner": true, "expires": true}

func knownKeys(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("want a mapping with code, reason, owner and expires")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; !fields[k.Value] {
			return fmt.Errorf("unknown field %q at line %d (want code, design, pattern, path, reason, owner, expires)", k.Value, k.Line)
		}
	}
	return nil
}

// New makes a waiver written elsewhere than a waivers file (a design's waive: entries), with its
// position; an empty Expires never expires.
func New(w Waiver) (*Waiver, error) {
	if w.Expires == "" {
		w.until = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
		return &w, nil
	}
	t, err := time.Parse(time.DateOnly, w.Expires)
	if err != nil {
		return nil, fmt.Errorf("%s: expires %q is not a date YYYY-MM-DD", w.Where(), w.Expires)
	}
	w.until = t.AddDate(0, 0, 1)
	return &w, nil
}

// With is the set and more waivers, for one design (the set's own waivers are shared, so what one
// design uses counts for the set).
func (s *Set) With(more []*Waiver) *Set {
	if len(more) == 0 {
		return s
	}
	out := &Set{}
	if s != nil {
		out.File = s.File
		out.Waivers = append(out.Waivers, s.Waivers...)
	}
	out.Waivers = append(out.Waivers, more...)
	return out
}

// Marked is how a waived finding's text ends: " — waived: <reason> (owner …, until …; file:line:col)".
func (w *Waiver) Marked() string {
	until := w.Expires
	if until == "" {
		until = "no expiry"
	}
	return fmt.Sprintf(" — waived: %s (owner %s, until %s; %s)", w.Reason, w.Owner, until, w.Where())
}

// Expired reports whether the waiver has expired at now.
func (w *Waiver) Expired(now time.Time) bool { return !now.Before(w.until) }

// Where is the waiver's position, file:line:col.
func (w *Waiver) Where() string { return fmt.Sprintf("%s:%d:%d", w.File, w.Line, w.Col) }

// Subject is what a finding is about, for matching.
type Subject struct {
	Design string
	Code   string
	// Path is the finding's field path; Pattern the id of the access pattern it is about ("" none).
	Path    string
	Pattern string
}

// Match returns the first waiver that names the subject, nil when none does. It marks the waiver
// used.
func (s *Set) Match(sub Subject) *Waiver {
	if s == nil {
		return nil
	}
	for _, w := range s.Waivers {
		if w.Code != sub.Code || w.Design != "" && w.Design != sub.Design || w.Pattern != "" && w.Pattern != sub.Pattern ||
			w.Path != "" && !pathUnder(sub.Path, w.Path) {
			continue
		}
		w.used = true
		return w
	}
	return nil
}

// pathUnder reports whether path is prefix or lies under it ("a.b[0]" is under "a.b" and "a").
func pathUnder(path, prefix string) bool {
	if !strings.HasPrefix(path, prefix) {
		return false
	}
	rest := path[len(prefix):]
	return rest == "" || rest[0] == '.' || rest[0] == '['
}

// Unused returns the waivers that matched nothing.
func (s *Set) Unused() []*Waiver {
	if s == nil {
		return nil
	}
	var out []*Waiver
	for _, w := range s.Waivers {
		if !w.used {
			out = append(out, w)
		}
	}
	return out
}
