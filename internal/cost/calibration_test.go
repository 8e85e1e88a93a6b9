package cost

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCalibrated_CoversTheCard: every figure of the card is either fitted by a calibration or
// named as not pinned by any charge; a figure added to RateCard must be placed.
func TestCalibrated_CoversTheCard(t *testing.T) {
	for _, k := range keysOfCard() {
		_, fit := calibrated[k]
		_, why := notCalibrated[k]
		other := slices.Contains(notCalibratedGroups, k)
		if n := btoi(fit) + btoi(why) + btoi(other); n != 1 {
			t.Errorf("%s: in %d of the calibration tables (calibrated, notCalibrated, notCalibratedGroups); want exactly 1", k, n)
		}
	}
	for k := range calibrated {
		if !slices.Contains(keysOfCard(), k) {
			t.Errorf("calibrated names %q, which RateCard has not", k)
		}
	}
	if got := len(Params()); got != len(calibrated)-2+len(Current.ReadBySize.Points)+len(Current.WriteBySize.Points) {
		t.Errorf("Params() = %d figures", got)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestFit_RecoversAPerturbedCard: charges priced with a changed card are fitted back to it.
func TestFit_RecoversAPerturbedCard(t *testing.T) {
	want := Current.Clone()
	want.QueryDocLoaded.Value *= 1.4
	want.IndexTerm.Value *= 0.8
	want.ReadBySize.Points[3].RU *= 1.2
	ms := []Measurement{
		{Point: []PointOp{{Kind: Read, SizeBytes: 8 * 1024}}},
		{Point: []PointOp{{Kind: Read, SizeBytes: 500}}},
		{Point: []PointOp{{Kind: Create, SizeBytes: 500, IndexedTerms: 5}}},
		{Point: []PointOp{{Kind: Create, SizeBytes: 500, IndexedTerms: 200}}},
		{Query: []QueryFacts{{PartitionsChecked: 1, DocsLoaded: 1000, BytesLoaded: 100000, BytesOutput: 100000}}},
		{Query: []QueryFacts{{PartitionsChecked: 1, DocsLoaded: 1000, BytesLoaded: 100000, BytesOutput: 2000}}},
		{Query: []QueryFacts{{PartitionsChecked: 1, DocsLoaded: 10, BytesLoaded: 500000, BytesOutput: 2000}}},
		{Query: []QueryFacts{{PartitionsChecked: 1}}},
	}
	for i := range ms {
		ms[i].Measured = want.Model(ms[i])
	}
	got, params := Fit(Current, ms)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"queryDocLoaded", got.QueryDocLoaded.Value, want.QueryDocLoaded.Value},
		{"indexTerm", got.IndexTerm.Value, want.IndexTerm.Value},
		{"readBySize@8", got.ReadBySize.Points[3].RU, want.ReadBySize.Points[3].RU},
	} {
		if d := c.got/c.want - 1; d > 1e-3 || d < -1e-3 {
			t.Errorf("%s = %g, want %g", c.name, c.got, c.want)
		}
	}
	for _, p := range params {
		if p.Key == "querySortDoc" && (p.Pinned || p.Fitted != Current.QuerySortDoc.Value) {
			t.Errorf("querySortDoc: no measurement depends on it, yet %+v", p)
		}
	}
}

func writeJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "f.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadCalibration(t *testing.T) {
	good := Profile{SchemaVersion: 1, Account: "acct.documents.azure.com", Date: "2026-11-26", SDKVersion: "v1.5.0",
		Coefficients: []FittedParam{{Key: "queryMin", Fitted: 2.6, Pinned: true}, {Key: "readBySize@4", Fitted: 1.2, Pinned: true}}}
	card, _, err := LoadCalibration(writeJSON(t, good), "v1.5.0")
	if err != nil {
		t.Fatal(err)
	}
	if card.QueryMin.Value != 2.6 || card.ReadBySize.Points[2].RU != 1.2 || Current.QueryMin.Value == 2.6 {
		t.Errorf("card not calibrated (or Current changed): %v %v", card.QueryMin.Value, card.ReadBySize.Points[2].RU)
	}
	if got := card.Label(); got != "model (calibrated: acct.documents.azure.com, 2026-11-26)" {
		t.Errorf("Label() = %q", got)
	}
	if Current.Label() != "model" {
		t.Errorf("built-in label = %q", Current.Label())
	}
	for name, c := range map[string]struct {
		mutate func(*Profile)
		want   string
	}{
		"sdk":     {func(p *Profile) { p.SDKVersion = "v1.4.0" }, "measured through azcosmos v1.4.0, this build talks through v1.5.0"},
		"range":   {func(p *Profile) { p.Coefficients[0].Fitted = 40 }, "coefficients[0] (queryMin): fitted 40 RU is outside the sane range"},
		"unknown": {func(p *Profile) { p.Coefficients[0].Key = "queryNope" }, `"queryNope" is not a figure this build calibrates`},
		"schema":  {func(p *Profile) { p.SchemaVersion = 9 }, "schemaVersion 9"},
	} {
		t.Run(name, func(t *testing.T) {
			p := good
			p.Coefficients = slices.Clone(good.Coefficients)
			c.mutate(&p)
			_, _, err := LoadCalibration(writeJSON(t, p), "v1.5.0")
			if !errors.Is(err, ErrProfile) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want ErrProfile with %q", err, c.want)
			}
		})
	}
}

func TestLoadRateCard(t *testing.T) {
	path := filepath.Join(t.TempDir(), "card.json")
	if err := os.WriteFile(path, []byte(`{"queryMin": {"value": 2.6}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	card, err := LoadRateCard(path)
	if err != nil {
		t.Fatal(err)
	}
	if card.QueryMin.Value != 2.6 || card.QueryMin.Source != Current.QueryMin.Source || card.IndexTerm.Value != Current.IndexTerm.Value {
		t.Errorf("card = %+v", card.QueryMin)
	}
	for body, want := range map[string]string{
		`{"queryMin": {"value": -1}}`:                                          "queryMin.value: -1",
		`{"queryMinn": {"value": 1}}`:                                          `unknown field "queryMinn"`,
		`{"readBySize": {"points": [{"kb": 2, "ru": 1}, {"kb": 1, "ru": 2}]}}`: "readBySize.points[1]",
	} {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadRateCard(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", body, err, want)
		}
	}
}

// TestLoadCalibration_Hostile: each fault of issue 41 is refused with one line that says what is
// wrong, and a printable account and an RFC 3339 date are accepted.
func TestLoadCalibration_Hostile(t *testing.T) {
	const good = `{"schemaVersion": 1, "account": "acct.documents.azure.com:443", "date": "2026-11-26", "sdkVersion": "v1.5.0",
 "coefficients": [{"key": "queryMin", "fitted": 2.6, "pinned": true}], "measurements": []}`
	if _, _, err := LoadCalibration(writeText(t, good), "v1.5.0"); err != nil {
		t.Fatalf("a good profile is refused: %v", err)
	}
	rfc := strings.Replace(good, `"2026-11-26"`, `"2026-11-26T10:00:00Z"`, 1)
	if _, _, err := LoadCalibration(writeText(t, rfc), "v1.5.0"); err != nil {
		t.Errorf("an RFC 3339 date-time is refused: %v", err)
	}
	// A size table made to fall: the 512 KB read fitted above the 1 MB read's fit, each within its
	// sane range (as a fit on throttled or mixed measurements could leave them).
	var p512, p1024 Param
	for _, pr := range Params() {
		switch pr.Key {
		case "readBySize@512":
			p512 = pr
		case "readBySize@1024":
			p1024 = pr
		}
	}
	if p512.Key == "" || p1024.Key == "" || p512.Hi <= p1024.Lo {
		t.Fatalf("no fit within the sane ranges makes 512 KB dearer than 1 MB: %+v %+v", p512, p1024)
	}
	mid := (p512.Hi + p1024.Lo) / 2
	nonMonotonic := strings.Replace(good, `{"key": "queryMin", "fitted": 2.6, "pinned": true}`,
		fmt.Sprintf(`{"key": "readBySize@512", "fitted": %g, "pinned": true}, {"key": "readBySize@1024", "fitted": %g, "pinned": true}`,
			min(mid*1.01, p512.Hi), max(mid*0.99, p1024.Lo)), 1)
	for name, tc := range map[string]struct{ text, want string }{
		"empty coefficients": {strings.Replace(good, `[{"key": "queryMin", "fitted": 2.6, "pinned": true}]`, `[]`, 1), "no fitted figure"},
		"none pinned":        {strings.Replace(good, `"pinned": true`, `"pinned": false`, 1), "no fitted figure"},
		"duplicate coefficient": {strings.Replace(good, `"pinned": true}]`, `"pinned": true}, {"key": "queryMin", "fitted": 2.7, "pinned": true}]`, 1),
			`"queryMin" is given again`},
		"duplicate object key": {strings.Replace(good, `"date": "2026-11-26",`, `"date": "2026-11-26", "date": "2026-11-27",`, 1), `key "date" is given twice`},
		"unknown field":        {strings.Replace(good, `"date"`, `"colour": "red", "date"`, 1), `unknown field "colour"`},
		"trailing data":        {good + ` {"schemaVersion": 1}`, "data after the profile's JSON object"},
		"free-text date":       {strings.Replace(good, `"2026-11-26"`, `"last Tuesday"`, 1), "not an RFC 3339 date"},
		"escape in account":    {strings.Replace(good, `acct.documents.azure.com:443`, `acct\u001b[2J`, 1), "want a host name"},
		"newline in account":   {strings.Replace(good, `acct.documents.azure.com:443`, `acct\n# Heading`, 1), "want a host name"},
		"bidi in account":      {strings.Replace(good, `acct.documents.azure.com:443`, `acct\u202emoc`, 1), "want a host name"},
		"non-monotonic table":  {nonMonotonic, "cannot fall as items grow"},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := LoadCalibration(writeText(t, tc.text), "v1.5.0")
			if !errors.Is(err, ErrProfile) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrProfile with %q", err, tc.want)
			}
			if msg := err.Error(); strings.ContainsAny(msg, "\n\r\x1b\u202e") {
				t.Errorf("the error is not one line of visible text: %q", msg)
			}
		})
	}
}

func writeText(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "profile.json")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLoadCalibration_ScaleRules: a scale calibration's profile decides rules and fits no figure:
// it loads with the built-in card (nil, not labelled calibrated) and a selection that pins each
// decided rule with the profile's label; a rule or alternative this build does not know, a rule
// decided twice and a growth point without a charge are refused, one line each.
func TestLoadCalibration_ScaleRules(t *testing.T) {
	const good = `{"schemaVersion": 1, "account": "127.0.0.1:8081", "date": "2026-11-28", "sdkVersion": "v1.5.0",
 "coefficients": [], "measurements": [],
 "scale": {"documents": [50, 200], "documentBytes": 200, "capacityMode": "provisioned"},
 "rules": [{"rule": "order-top-unserved-filter", "alternative": "scans", "query": "q", "documents": 50,
   "metric": "retrievedDocumentCount", "measured": 50, "alternatives": {"scans": 50, "stops": 10}}],
 "growth": [{"shape": "range", "query": "q", "points": [{"documents": 50, "ru": 2.8, "retrieved": 0, "output": 1, "indexLookupMs": 0},
   {"documents": 200, "ru": 3.1, "retrieved": 0, "indexLookupMs": 0}], "exponent": 0.07}]}`
	card, p, err := LoadCalibration(writeText(t, good), "v1.5.0")
	if err != nil {
		t.Fatal(err)
	}
	if card != nil {
		t.Errorf("a profile that fits no figure gave a card labelled %q", card.Label())
	}
	sel := p.Selection()
	if !sel.Is(RuleTopUnservedFilter, AltScans) || !sel.Is(RuleAggregateNoFilter, AltLoads) {
		t.Errorf("selection %v", sel)
	}
	if by, ok := sel.PinnedBy(RuleTopUnservedFilter); !ok || by != "calibrated: 127.0.0.1:8081, 2026-11-28" {
		t.Errorf("pinned by %q %v", by, ok)
	}
	if _, ok := sel.PinnedBy(RuleAggregateNoFilter); ok {
		t.Error("a rule the profile did not decide is pinned")
	}
	for name, tc := range map[string]struct{ text, want string }{
		"unknown rule":        {strings.Replace(good, `"rule": "order-top-unserved-filter"`, `"rule": "nope"`, 1), `rules[0]: rule "nope": no such rule`},
		"unknown alternative": {strings.Replace(good, `"alternative": "scans"`, `"alternative": "maybe"`, 1), `no alternative "maybe"`},
		"decided twice": {strings.Replace(good, `"alternatives": {"scans": 50, "stops": 10}}]`,
			`"alternatives": {"scans": 50, "stops": 10}}, {"rule": "order-top-unserved-filter", "alternative": "stops"}]`, 1), "is decided again"},
		"growth without charge": {strings.Replace(good, `"ru": 2.8`, `"ru": 0`, 1), "growth[0].points[0]"},
		"nothing decided": {strings.Replace(good, `"rules": [{"rule": "order-top-unserved-filter", "alternative": "scans", "query": "q", "documents": 50,
   "metric": "retrievedDocumentCount", "measured": 50, "alternatives": {"scans": 50, "stops": 10}}],`, ``, 1), "no rule decided"},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := LoadCalibration(writeText(t, tc.text), "v1.5.0")
			if !errors.Is(err, ErrProfile) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %v, want ErrProfile with %q on one line", err, tc.want)
			}
		})
	}
}

// TestProfile_Keep: a scale calibration written over the account's fitted profile keeps its
// figures and their date, a calibration written over its scale profile keeps the rules and theirs;
// another account's profile keeps nothing.
func TestProfile_Keep(t *testing.T) {
	fit := &Profile{Account: "a.example", Date: "2026-01-02", Consistency: "Session", Method: "fit",
		Coefficients: []FittedParam{{Key: "queryMin", Fitted: 2.6, Pinned: true}}}
	scale := &Profile{Account: "a.example", Date: "2026-03-04", Scale: &ScaleProbe{Date: "2026-03-04"},
		Rules: []RuleDecision{{Rule: RuleTopUnservedFilter, Alternative: AltScans}}}
	s := *scale
	if kept := s.Keep(fit); kept != "the 1 figure fitted on 2026-01-02" || s.Date != "2026-01-02" ||
		len(s.Coefficients) != 1 || s.Label() != "calibrated: a.example, 2026-03-04" {
		t.Errorf("scale over fit: kept %q, date %s, %d figures, label %q", kept, s.Date, len(s.Coefficients), s.Label())
	}
	f := *fit
	f.Date = "2026-05-06"
	if kept := f.Keep(scale); kept != "the 1 rule decided on 2026-03-04" || len(f.Rules) != 1 ||
		f.Label() != "calibrated: a.example, 2026-03-04" || f.Date != "2026-05-06" {
		t.Errorf("fit over scale: kept %q, %d rules, label %q, date %s", kept, len(f.Rules), f.Label(), f.Date)
	}
	other := *scale
	other.Account = "b.example"
	if kept := (&Profile{Account: "a.example", Scale: &ScaleProbe{}}).Keep(&other); kept != "" {
		t.Errorf("another account's profile kept %q", kept)
	}
}

// growthProfile is a scale profile whose range shape grew from 3.00 to 3.60 RU measured while the
// built-in model grew from 2.86 to 3.06 RU over 1,000 → 4,000 index entries, and whose equality
// shape stayed at 2.80 RU.
func growthProfile() *Profile {
	pt := func(docs int, ru, modeled, entries float64) GrowthPoint {
		return GrowthPoint{Documents: docs, RU: ru, Modeled: modeled, Facts: map[string]float64{"indexEntriesRead": entries}}
	}
	return &Profile{SchemaVersion: ProfileSchemaVersion, Account: "a.example", Date: "2026-03-04", SDKVersion: "v1.5.0",
		RateCard: Current.Version, Scale: &ScaleProbe{Documents: []int{1000, 4000}, Date: "2026-03-04"},
		Rules: []RuleDecision{{Rule: RuleTopUnservedFilter, Alternative: AltScans}},
		Growth: []Growth{
			{Shape: "equality", Query: "q1", Points: []GrowthPoint{pt(1000, 2.8, 2.8, 0), pt(4000, 2.8, 2.8, 0)}},
			{Shape: "range", Query: "q2", Points: []GrowthPoint{pt(1000, 3.00, 2.86, 1000), pt(4000, 3.60, 3.06, 4000)}},
		}}
}

// withContains adds to p the growth of a full index scan over every document's distinct value.
func withContains(p *Profile) *Profile {
	scan := func(docs int, ru, modeled, values float64) GrowthPoint {
		return GrowthPoint{Documents: docs, RU: ru, Modeled: modeled,
			Facts: map[string]float64{"indexEntriesRead": values, "indexScanValues": values}}
	}
	p.Growth = append(p.Growth, Growth{Shape: "contains", Query: "q3",
		Points: []GrowthPoint{scan(1000, 4, 3.5, 10_000), scan(4000, 9, 7, 40_000)}})
	return p
}

// TestProfile_GrowthFits: the range shape pins queryIndexEntry at the built-in value plus the
// measured growth beyond the modeled growth per entry, and the contains shape queryScanValue per
// distinct value; the card charges them, in place of the same figures fitted from single charges,
// and is labelled calibrated; equality pins nothing.
func TestProfile_GrowthFits(t *testing.T) {
	p := withContains(growthProfile())
	p.Coefficients = []FittedParam{{Key: "queryIndexEntry", Published: Current.QueryEntry.Value, Fitted: 0.0001, Pinned: true}}
	fits := p.GrowthFits()
	if len(fits) != 2 {
		t.Fatalf("fits %+v, want two", fits)
	}
	if s := fits[1]; s.Key != "queryScanValue" || s.Shape != "contains" || s.Counts != "distinct values" || s.LargeCount != 40_000 ||
		math.Abs(s.Fitted-(Current.QueryScanValue.Value+((9-4)-(7-3.5))/30_000.0)) > 1e-15 || !s.Pinned {
		t.Errorf("contains: %+v, want queryScanValue %g", s, Current.QueryScanValue.Value+((9-4)-(7-3.5))/30_000.0)
	}
	if c := p.Card(); c.QueryScanValue.Value != fits[1].Fitted {
		t.Errorf("card charges %g a distinct value, want %g", c.QueryScanValue.Value, fits[1].Fitted)
	}
	f := fits[0]
	// The part that does not grow: the line through the two points at no entries.
	if math.Abs(f.Fixed-2.8) > 1e-9 || math.Abs(f.ModeledFixed-2.7933) > 1e-9 {
		t.Errorf("fixed part %g measured, %g modeled; want 2.8 and 2.7933", f.Fixed, f.ModeledFixed)
	}
	want := 0.0000648 + ((3.60-3.00)-(3.06-2.86))/3000
	if f.Key != "queryIndexEntry" || f.Shape != "range" || f.Growth != 1 || f.Published != 0.0000648 ||
		math.Abs(f.Fitted-want) > 1e-15 || !f.Pinned || math.Abs(f.Resolution-0.01/3000) > 1e-18 {
		t.Errorf("fit %+v, want queryIndexEntry %g from growth[1] (range)", f, want)
	}
	card := p.Card()
	if card.QueryEntry.Value != f.Fitted || card.Label() != "model (calibrated: a.example, 2026-03-04)" {
		t.Errorf("card charges %g an entry (want %g), labelled %q", card.QueryEntry.Value, f.Fitted, card.Label())
	}
	if err := p.Check("v1.5.0"); err != nil {
		t.Error(err)
	}
	if w := p.GrowthWarnings(); len(w) != 0 {
		t.Errorf("a flat equality warned: %v", w)
	}
}

// TestProfile_GrowthFitsDegenerate: growth that cannot pin a figure pins nothing, without a panic.
func TestProfile_GrowthFitsDegenerate(t *testing.T) {
	for name, edit := range map[string]func(g *Growth){
		"equal entries":   func(g *Growth) { g.Points[1].Facts["indexEntriesRead"] = 1000 },
		"fewer entries":   func(g *Growth) { g.Points[1].Facts["indexEntriesRead"] = 10 },
		"no facts":        func(g *Growth) { g.Points[0].Facts, g.Points[1].Facts = nil, nil },
		"one point":       func(g *Growth) { g.Points = g.Points[:1] },
		"no points":       func(g *Growth) { g.Points = nil },
		"zero charge":     func(g *Growth) { g.Points[0].RU = 0 },
		"not modeled":     func(g *Growth) { g.Points[0].Modeled, g.Points[1].Modeled = 0, 0 },
		"same size":       func(g *Growth) { g.Points[1].Documents = 1000 },
		"infinite charge": func(g *Growth) { g.Points[1].RU = math.Inf(1) },
		"another shape":   func(g *Growth) { g.Shape = "lookup" },
	} {
		t.Run(name, func(t *testing.T) {
			p := growthProfile()
			edit(&p.Growth[1])
			if fits := p.GrowthFits(); len(fits) != 0 {
				t.Errorf("pinned %+v", fits)
			}
			if p.Card().QueryEntry.Value != Current.QueryEntry.Value {
				t.Error("the card's queryIndexEntry moved")
			}
		})
	}
	if fits := (*Profile)(nil).GrowthFits(); fits != nil {
		t.Errorf("nil profile: %v", fits)
	}
}

// TestProfile_GrowthFitOutOfRange: a fitted figure outside its sane range is refused, naming the
// growth, the figure and what to do.
func TestProfile_GrowthFitOutOfRange(t *testing.T) {
	for name, ru := range map[string]float64{"too high": 3.06 + 3000*Current.QueryEntry.Value*60, "below zero": 2.9} {
		t.Run(name, func(t *testing.T) {
			p := growthProfile()
			p.Growth[1].Points[1].RU = ru
			err := p.Check("v1.5.0")
			if !errors.Is(err, ErrProfile) || !strings.Contains(err.Error(), "growth[1] (range) pins queryIndexEntry") ||
				!strings.Contains(err.Error(), "sane range") || !strings.Contains(err.Error(), "calibrate --scale again") {
				t.Errorf("err = %v", err)
			}
		})
	}
}

// TestProfile_GrowthWarnings: an equality whose charge grew by more than 10% beyond the model's
// growth warns that the seek did not stay constant; 5% does not.
func TestProfile_GrowthWarnings(t *testing.T) {
	p := growthProfile()
	p.Growth[0].Points[1].RU = 2.8 * 1.05
	if w := p.GrowthWarnings(); len(w) != 0 {
		t.Errorf("5%%: %v", w)
	}
	p.Growth[0].Points[1].RU = 2.8 * 1.2
	if w := p.GrowthWarnings(); len(w) != 1 || !strings.Contains(w[0], "growth[0] (equality)") || !strings.Contains(w[0], "seek did not stay constant") {
		t.Errorf("20%%: %v", w)
	}
}

// TestProfile_GrowthUses: every figure a growth shape pins is one a calibration fits.
func TestProfile_GrowthUses(t *testing.T) {
	keys := map[string]bool{}
	for _, p := range Params() {
		keys[p.Key] = true
	}
	for shape, u := range growthUses {
		if (u.pins == "") == (u.flat == 0) {
			t.Errorf("%s: want either a figure it pins or a share it may grow by", shape)
		}
		if u.pins != "" && (u.count == nil || u.counts == "") {
			t.Errorf("%s pins %q but counts nothing to divide by", shape, u.pins)
		}
		if u.pins != "" && !keys[u.pins] {
			t.Errorf("%s pins %q, which Params does not fit", shape, u.pins)
		}
	}
}

// TestProfile_KeepGrowth: the figures growth pinned survive either order of calibrations into one
// file, and a profile of growth alone loads as a calibrated card.
func TestProfile_KeepGrowth(t *testing.T) {
	fit := &Profile{SchemaVersion: ProfileSchemaVersion, Account: "a.example", Date: "2026-01-02", SDKVersion: "v1.5.0",
		Coefficients: []FittedParam{{Key: "queryMin", Published: Current.QueryMin.Value, Fitted: 2.6, Pinned: true}}}
	want := growthProfile().GrowthFits()[0].Fitted

	f := *fit
	if kept := f.Keep(growthProfile()); kept != "the 1 rule decided on 2026-03-04 and the 1 figure its growth pinned" {
		t.Errorf("fit over scale: kept %q", kept)
	}
	// Growth kept without rules: only what was kept is named.
	g := growthProfile()
	g.Rules = nil
	f2 := *fit
	if kept := f2.Keep(g); kept != "the 1 figure pinned by the growth measured on 2026-03-04" {
		t.Errorf("fit over growth alone: kept %q", kept)
	}
	g.Growth = g.Growth[:1] // the equality: a check, pins nothing
	f3 := *fit
	if kept := f3.Keep(g); kept != "the growth measured on 2026-03-04 (it pins no figure)" {
		t.Errorf("fit over growth that pins nothing: kept %q", kept)
	}
	if c := f.Card(); c.QueryEntry.Value != want || c.QueryMin.Value != 2.6 {
		t.Errorf("fit over scale: card %g an entry, queryMin %g", c.QueryEntry.Value, c.QueryMin.Value)
	}
	s := growthProfile()
	if kept := s.Keep(fit); kept != "the 1 figure fitted on 2026-01-02" {
		t.Errorf("scale over fit: kept %q", kept)
	}
	if c := s.Card(); c.QueryEntry.Value != want || c.QueryMin.Value != 2.6 {
		t.Errorf("scale over fit: card %g an entry, queryMin %g", c.QueryEntry.Value, c.QueryMin.Value)
	}

	b, _ := json.Marshal(growthProfile())
	card, _, err := LoadCalibration(writeText(t, string(b)), "v1.5.0")
	if err != nil || card == nil || card.QueryEntry.Value != want || card.Label() != "model (calibrated: a.example, 2026-03-04)" {
		t.Errorf("growth alone: card %v, err %v", card, err)
	}
}

// TestProfile_GrowthFitUnresolved: probe containers too small for the charges' two decimals to
// resolve a 10% move of the figure list it unpinned, with the documents that would, and the card
// keeps the built-in value.
func TestProfile_GrowthFitUnresolved(t *testing.T) {
	p := growthProfile()
	g := &p.Growth[1]
	g.Points[0].Documents, g.Points[0].Facts["indexEntriesRead"] = 50, 50
	g.Points[1].Documents, g.Points[1].Facts["indexEntriesRead"] = 200, 200
	g.Points[1].RU = 3.08
	fits := p.GrowthFits()
	// 0.01 RU over 150 entries is 6.7e-5 RU an entry; 10% of 6.48e-5 needs 1,543 entries more: 515 documents.
	if len(fits) != 1 || fits[0].Pinned || fits[0].Fitted != Current.QueryEntry.Value || fits[0].NeedDocuments != 515 {
		t.Fatalf("fits %+v, want one unpinned at the built-in value needing 515 documents", fits)
	}
	if p.Card().QueryEntry.Value != Current.QueryEntry.Value {
		t.Error("an unpinned fit moved the card")
	}
	if err := p.Check("v1.5.0"); err != nil {
		t.Error(err)
	}
}

// TestProfile_GrowthFitOutOfRangeCounts: the refusal of an out-of-range fit gives the counts the
// fit divided by, in the shape's own terms: distinct values for the CONTAINS shape.
func TestProfile_GrowthFitOutOfRangeCounts(t *testing.T) {
	p := withContains(growthProfile())
	p.Growth[2].Points[1].RU = 7 + 30_000*Current.QueryScanValue.Value*60
	err := p.Check("v1.5.0")
	if !errors.Is(err, ErrProfile) || !strings.Contains(err.Error(), "growth[2] (contains) pins queryScanValue") ||
		!strings.Contains(err.Error(), "over 10000 → 40000 distinct values") {
		t.Errorf("err = %v", err)
	}
}

// TestProfile_GrowthOfAnotherCard: growth whose modeled charges were priced with another rate card
// than this build's pins nothing: the profile is refused, naming rateCard, the growth and what to
// do; the same profile without its growth loads.
func TestProfile_GrowthOfAnotherCard(t *testing.T) {
	p := growthProfile()
	p.RateCard = "2025.01-1"
	err := p.Check("v1.5.0")
	if !errors.Is(err, ErrProfile) || !strings.Contains(err.Error(), `rateCard: "2025.01-1"`) || !strings.Contains(err.Error(), "growth[].points[].modeled") ||
		!strings.Contains(err.Error(), Current.Version) || !strings.Contains(err.Error(), "calibrate --scale again") || !strings.Contains(err.Error(), "delete growth[]") {
		t.Errorf("err = %v", err)
	}
	p.Growth = nil
	if err := p.Check("v1.5.0"); err != nil {
		t.Errorf("without growth: %v", err)
	}
}
