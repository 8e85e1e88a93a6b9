package cost

import (
	"strings"
	"testing"
)

// TestRules_Registry: every rule has a unique name, a description, at least two alternatives with
// descriptions and distinct names, a default among them, a source (or "assumed") with a note, and
// says what pins it.
func TestRules_Registry(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules() {
		if r.Name == "" || seen[r.Name] {
			t.Errorf("rule %q: empty or duplicate name", r.Name)
		}
		seen[r.Name] = true
		if r.Description == "" || r.Note == "" || r.Source == "" || r.Pins == "" {
			t.Errorf("rule %s: description, note, source and pins are required", r.Name)
		}
		if len(r.Alt) < 2 {
			t.Errorf("rule %s: %d alternatives, want at least 2", r.Name, len(r.Alt))
		}
		alts := map[string]bool{}
		for _, a := range r.Alt {
			if a.Name == "" || a.Description == "" || alts[a.Name] || strings.ContainsAny(a.Name, "=, ") {
				t.Errorf("rule %s: alternative %q: empty, duplicate or not a plain name, or no description", r.Name, a.Name)
			}
			alts[a.Name] = true
		}
		if !r.HasAlternative(r.Default) {
			t.Errorf("rule %s: default %q is not one of its alternatives", r.Name, r.Default)
		}
		if strings.ContainsAny(r.Name, "=, ") {
			t.Errorf("rule %s: not a plain name", r.Name)
		}
	}
	for _, name := range []string{RuleTopUnservedFilter, RulePKOrderComposite, RuleAggregateNoFilter, RuleAggregateSeekPostings} {
		if _, ok := LookupRule(name); !ok {
			t.Errorf("rule constant %s is not registered", name)
		}
	}
}

func TestSelection_DefaultsAndChoices(t *testing.T) {
	var none *Selection
	if got := none.Alt(RuleTopUnservedFilter); got != AltStops {
		t.Errorf("nil selection: %s, want the default %s", got, AltStops)
	}
	s, err := ParseSelection([]string{RuleTopUnservedFilter + "=" + AltScans, " " + RuleAggregateNoFilter + "=" + AltLoads + " "})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Is(RuleTopUnservedFilter, AltScans) || !s.Is(RuleAggregateNoFilter, AltLoads) || !s.Is(RulePKOrderComposite, AltSorts) {
		t.Errorf("parsed selection %+v", s.Alternatives)
	}
	if got, want := s.String(), RuleTopUnservedFilter+"="+AltScans; got != want {
		t.Errorf("String: %q, want %q (defaults left out)", got, want)
	}
	w := s.With(RulePKOrderComposite, AltStreams)
	if !w.Is(RulePKOrderComposite, AltStreams) || s.Is(RulePKOrderComposite, AltStreams) {
		t.Error("With must copy, not change the selection")
	}
	if err := w.Check(); err != nil {
		t.Error(err)
	}
}

func TestSelection_BadSettings(t *testing.T) {
	for _, in := range []string{"nosuch=stops", RuleTopUnservedFilter + "=maybe", RuleTopUnservedFilter,
		RuleTopUnservedFilter + "=stops," + RuleTopUnservedFilter + "=scans"} {
		if _, err := ParseSelection([]string{in}); err == nil {
			t.Errorf("%q: no error", in)
		} else if !strings.Contains(err.Error(), "rule") {
			t.Errorf("%q: %v does not say which rule", in, err)
		}
	}
	bad := &Selection{Alternatives: map[string]string{RuleAggregateNoFilter: "sometimes"}}
	if bad.Check() == nil {
		t.Error("Check accepted an alternative the rule does not have")
	}
}
