package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name       string          `xml:"name,attr"`
	Classname  string          `xml:"classname,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Failure    *junitProblem   `xml:"failure,omitempty"`
	Error      *junitProblem   `xml:"error,omitempty"`
	SystemOut  string          `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// renderJUnit writes JUnit XML: one testsuite per design, one testcase per pattern. fail verdicts are
// failures, error verdicts errors; warn reasons go to system-out. Charges and their sources are
// testcase properties.
func renderJUnit(w io.Writer, r *Report) error {
	suite := junitSuite{
		Name:     r.Design.Name,
		Tests:    len(r.Patterns),
		Failures: r.Summary.Fail,
		Errors:   r.Summary.Error,
		Time:     seconds(float64(r.DurationMs)),
		Properties: []junitProperty{
			{"target", string(r.Target.Kind)},
			{"engine", r.Target.Engine},
			{"chargeSource", string(r.Target.ChargeSource)},
			{"seed", strconv.FormatInt(r.Seed, 10)},
			{"samples", strconv.Itoa(r.Samples)},
			{"designFingerprint", r.Design.Fingerprint},
			{"toolVersion", r.Tool.Version},
		},
	}
	if r.ModelCard != "" {
		suite.Properties = append(suite.Properties, junitProperty{"modelCard", r.ModelCard})
	}
	if r.Incomplete != "" {
		suite.Properties = append(suite.Properties, junitProperty{"incomplete", r.Incomplete})
	}
	for _, p := range r.Patterns {
		tc := junitCase{
			Name:      p.ID + " " + p.Name,
			Classname: r.Design.Name,
			Time:      seconds(p.LatencyMs),
			Properties: []junitProperty{
				{"op", p.Op},
				{"container", p.Container},
				{"estimate.ru", fmtRU(p.Estimate)},
				{"tolerance.ru", fmtRU(p.Tolerance.RU)},
				{"tolerance.pct", fmtRU(p.Tolerance.Pct)},
			},
		}
		for _, c := range []struct {
			name string
			ch   *Charge
		}{{"modeled", p.Modeled}, {"measured", p.Measured}} {
			if c.ch == nil {
				continue
			}
			tc.Properties = append(tc.Properties,
				junitProperty{c.name + ".source", string(c.ch.Source)},
				junitProperty{c.name + ".median.ru", fmtRU(c.ch.Median)},
				junitProperty{c.name + ".p95.ru", fmtRU(c.ch.P95)},
				junitProperty{c.name + ".carriesVerdict", strconv.FormatBool(c.ch.CarriesVerdict)},
			)
		}
		text := strings.Join(p.Reasons, "\n")
		first := ""
		if len(p.Reasons) > 0 {
			first = p.Reasons[0]
		}
		switch p.Verdict {
		case Fail:
			tc.Failure = &junitProblem{Message: first, Type: "fail", Text: text}
		case Error:
			tc.Error = &junitProblem{Message: first, Type: "error", Text: text}
		case Warn:
			tc.SystemOut = "warn: " + strings.Join(p.Reasons, "\nwarn: ")
		}
		if pc := r.Baseline.Of(p.ID); pc != nil {
			junitBaseline(&tc, pc, r.Baseline.FailOnModelChange)
		}
		suite.Cases = append(suite.Cases, tc)
	}
	// A regression fails its test case, so the counts come from the cases.
	suite.Failures, suite.Errors = 0, 0
	for _, tc := range suite.Cases {
		if tc.Failure != nil {
			suite.Failures++
		}
		if tc.Error != nil {
			suite.Errors++
		}
	}
	if c := r.Baseline; c != nil {
		suite.Properties = append(suite.Properties,
			junitProperty{"baseline", baselineName(c)},
			junitProperty{"baseline.regressions", strconv.Itoa(c.Summary.Regressions)},
			junitProperty{"baseline.improvements", strconv.Itoa(c.Summary.Improvements)})
		if c.Model != nil {
			suite.Properties = append(suite.Properties, junitProperty{"baseline.model", c.Model.Note},
				junitProperty{"baseline.modelChanges", strconv.Itoa(c.Summary.ModelChanges)})
		}
		if line := c.CostLine(); line != "" {
			suite.Properties = append(suite.Properties, junitProperty{"baseline.monthlyCost", line})
		}
	}
	doc := junitSuites{Name: "validate", Tests: suite.Tests, Failures: suite.Failures, Errors: suite.Errors, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("render junit: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("render junit: %w", err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("render junit: %w", err)
	}
	return nil
}

// junitBaseline adds a pattern's baseline comparison to its test case: the drifts as properties, and
// for a regression a failure whose message gives the numbers (beside a failing verdict's reasons,
// or after an error's, which stays the error).
func junitBaseline(tc *junitCase, pc *PatternChange, cmpFailsOnModel bool) {
	tc.Properties = append(tc.Properties, junitProperty{"baseline.change", string(pc.Change)})
	for _, d := range []struct {
		name string
		d    *Drift
	}{{"modeled", pc.Modeled}, {"measured", pc.Measured}, {"production", pc.Production}} {
		if d.d == nil {
			continue
		}
		tc.Properties = append(tc.Properties,
			junitProperty{"baseline." + d.name + ".old.ru", fmtRU(d.d.Old)},
			junitProperty{"baseline." + d.name + ".new.ru", fmtRU(d.d.New)},
			junitProperty{"baseline." + d.name + ".pct", fmt.Sprintf("%+.0f", d.d.Pct)})
	}
	failing := pc.Change == Regression || pc.Change == ModelChanged && cmpFailsOnModel
	if !failing {
		return
	}
	msg := "regression since the baseline: " + strings.Join(pc.Reasons, "; ")
	if pc.Change == ModelChanged {
		msg = "moved with the model since the baseline (--fail-on-model-change): " + strings.Join(pc.Reasons, "; ")
	}
	switch {
	case tc.Error != nil:
		tc.Error.Text += "\n" + msg
	case tc.Failure != nil:
		tc.Failure.Message = msg + "; " + tc.Failure.Message
		tc.Failure.Text = msg + "\n" + tc.Failure.Text
		tc.Failure.Type = "regression"
	default:
		tc.Failure = &junitProblem{Message: msg, Type: "regression", Text: strings.Join(pc.Reasons, "\n")}
	}
}

// seconds formats milliseconds as JUnit's seconds with millisecond precision.
func seconds(ms float64) string { return strconv.FormatFloat(ms/1000, 'f', 3, 64) }
