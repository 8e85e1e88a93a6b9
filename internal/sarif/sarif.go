// Package sarif writes findings as a SARIF 2.1.0 log (OASIS Static Analysis Results Interchange
// Format), the subset GitHub code scanning reads: one run whose tool.driver names validate and its
// rules, and per finding a result with ruleId, ruleIndex, level, message.text and a physical
// location — the design file, relative to the working directory (uriBaseId %SRCROOT%, which code
// scanning resolves to the repository root: run from there), with the line and column
// of the field the finding is about. A waived finding is kept with an accepted external suppression
// (its justification the waiver's reason), which code scanning shows as dismissed.
//
// The types are written here rather than taken from a SARIF library: the subset is a dozen fields
// that encoding/json writes as they are, and the module keeps its dependencies to what it runs on.
package sarif

import (
	"encoding/json"
	"io"
	"path/filepath"
	"sort"
	"strings"
)

// Version and Schema are the SARIF version this package writes and its JSON schema.
const (
	Version = "2.1.0"
	Schema  = "https://json.schemastore.org/sarif-2.1.0.json"
)

// Levels of a result (SARIF §3.27.10).
const (
	LevelError   = "error"
	LevelWarning = "warning"
	LevelNote    = "note"
)

// Finding is one result to write.
type Finding struct {
	// Rule is the finding's stable code (the rule id), e.g. "hpk-order".
	Rule string
	// Level is LevelError, LevelWarning or LevelNote.
	Level   string
	Message string
	// File is the design file as given on the command line; Line and Col (1-based, 0 = unknown)
	// the position of the field the finding is about.
	File      string
	Line, Col int
	// Path is the field path ("containers[0].partitionKey"), kept as a property.
	Path string
	// Waived is the waiver's justification when the finding is waived ("" otherwise).
	Waived string
}

// Log is a SARIF log.
type Log struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []Run  `json:"runs"`
}

// Run is one run of one tool.
type Run struct {
	Tool    Tool     `json:"tool"`
	Results []Result `json:"results"`
}

// Tool names the analysis tool.
type Tool struct {
	Driver Driver `json:"driver"`
}

// Driver is the tool component that produced the results.
type Driver struct {
	Name           string `json:"name"`
	Version        string `json:"version,omitempty"`
	InformationURI string `json:"informationUri,omitempty"`
	Rules          []Rule `json:"rules"`
}

// Rule describes one finding code.
type Rule struct {
	ID               string  `json:"id"`
	ShortDescription Message `json:"shortDescription"`
	HelpURI          string  `json:"helpUri,omitempty"`
}

// Message is a plain-text message.
type Message struct {
	Text string `json:"text"`
}

// Result is one finding.
type Result struct {
	RuleID       string         `json:"ruleId"`
	RuleIndex    int            `json:"ruleIndex"`
	Level        string         `json:"level"`
	Message      Message        `json:"message"`
	Locations    []Location     `json:"locations"`
	Suppressions []Suppression  `json:"suppressions,omitempty"`
	Properties   map[string]any `json:"properties,omitempty"`
}

// Location is where a result is.
type Location struct {
	PhysicalLocation PhysicalLocation `json:"physicalLocation"`
}

// PhysicalLocation is a file and a region in it.
type PhysicalLocation struct {
	ArtifactLocation ArtifactLocation `json:"artifactLocation"`
	Region           *Region          `json:"region,omitempty"`
}

// ArtifactLocation names a file by URI.
type ArtifactLocation struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

// Region is a line and column (1-based).
type Region struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

// Suppression says a result was judged and accepted (SARIF §3.35).
type Suppression struct {
	Kind          string `json:"kind"`
	Status        string `json:"status"`
	Justification string `json:"justification,omitempty"`
}

// Build makes the log of findings written by validate version; helpURI is the page that explains
// the rules. Rules are sorted by id and results keep the findings' order.
func Build(version, helpURI string, findings []Finding) *Log {
	ids := map[string]bool{}
	for _, f := range findings {
		ids[f.Rule] = true
	}
	var rules []Rule
	for id := range ids {
		rules = append(rules, Rule{ID: id, ShortDescription: Message{Text: id}, HelpURI: helpURI})
	}
	sort.Slice(rules, func(i, j int) bool { return rules[i].ID < rules[j].ID })
	index := map[string]int{}
	for i, r := range rules {
		index[r.ID] = i
	}
	run := Run{
		Tool:    Tool{Driver: Driver{Name: "validate", Version: version, InformationURI: "https://github.com/cosmosdv/validate", Rules: rules}},
		Results: []Result{},
	}
	if run.Tool.Driver.Rules == nil {
		run.Tool.Driver.Rules = []Rule{}
	}
	for _, f := range findings {
		res := Result{RuleID: f.Rule, RuleIndex: index[f.Rule], Level: f.Level, Message: Message{Text: f.Message},
			Locations: []Location{{PhysicalLocation: location(f)}}}
		if f.Path != "" {
			res.Properties = map[string]any{"fieldPath": f.Path}
		}
		if f.Waived != "" {
			res.Suppressions = []Suppression{{Kind: "external", Status: "accepted", Justification: f.Waived}}
		}
		run.Results = append(run.Results, res)
	}
	return &Log{Schema: Schema, Version: Version, Runs: []Run{run}}
}

func location(f Finding) PhysicalLocation {
	uri := filepath.ToSlash(f.File)
	loc := PhysicalLocation{ArtifactLocation: ArtifactLocation{URI: uri}}
	if !filepath.IsAbs(f.File) {
		loc.ArtifactLocation.URI = strings.TrimPrefix(uri, "./")
		loc.ArtifactLocation.URIBaseID = "%SRCROOT%"
	} else {
		loc.ArtifactLocation.URI = "file://" + uri
	}
	if f.Line > 0 {
		loc.Region = &Region{StartLine: f.Line}
		if f.Col > 0 {
			loc.Region.StartColumn = f.Col
		}
	}
	return loc
}

// Write writes the log as indented JSON.
func (l *Log) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(l)
}
