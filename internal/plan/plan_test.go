package plan

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/indexpolicy"
	"github.com/cosmosdv/validate/internal/seed"
)

// smallDesign is one container of users with a fixed shape, so sizes can be checked by hand.
func smallDesign() *design.Design {
	return &design.Design{
		Version: 1, Name: "small", Regions: 1,
		Containers: []design.Container{{
			Name:         "Users",
			PartitionKey: []string{"/userId"},
			Throughput:   design.Throughput{Manual: 400},
			Indexing:     &design.Indexing{Included: []string{"/userId/?", "/status/?"}, Excluded: []string{"/*"}},
			Documents: []design.DocType{{
				Type: "user", Count: 1000, ID: "user-{seq}",
				Fields: design.Fields{
					{Name: "userId", Field: design.Field{Copy: "id"}},
					{Name: "status", Field: design.Field{OneOf: []any{"active", "closed"}}},
					{Name: "bio", Field: design.Field{Gen: "text", Bytes: 2000}},
				},
			}},
		}},
		AccessPatterns: []design.AccessPattern{
			{ID: "AP1", Name: "read", Container: "Users", Op: design.OpRead, Sample: "user",
				RPS: design.RPS{Avg: 100, Peak: 300}, Estimate: design.Estimate{RU: 1}},
			{ID: "AP2", Name: "create", Container: "Users", Op: design.OpCreate, Document: "user",
				RPS: design.RPS{Avg: 10}, Estimate: design.Estimate{RU: 2}},
			{ID: "AP3", Name: "scan", Container: "Users", Op: design.OpQuery, Sample: "user",
				Query:    "SELECT * FROM c WHERE c.status = @s",
				Params:   map[string]any{"@s": "{status}"},
				RPS:      design.RPS{Avg: 1, Peak: 2},
				Estimate: design.Estimate{RU: 3}},
		},
	}
}

func TestBuild_PointEstimatesByHand(t *testing.T) {
	p, err := Build(smallDesign(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The document: {"userId":"user-12345","status":"active","bio":"<2000>"} plus "id" and system
	// properties. bio 2002 + key 6; userId 12 + key 9; status ~8 + key 9; braces 2; id 17; system 180.
	doc := p.Containers[0].Documents[0]
	if doc.Bytes < 2200 || doc.Bytes > 2300 {
		t.Errorf("document bytes = %v, want about 2,243", doc.Bytes)
	}
	// Indexed: userId and status (included). bio, id and the system properties (_rid, _ts, ...) fall
	// under the excluded root, as the engine counts terms over the stored body.
	if doc.Terms != 2 {
		t.Errorf("terms = %v, want 2", doc.Terms)
	}
	byID := map[string]Pattern{}
	for _, pt := range p.Patterns {
		byID[pt.ID] = pt
	}
	// Expected charges from the published table (understand-request-unit-consumption.md, 2026;
	// shared/docs/RU-MODEL.md), written here rather than read from the rate card under test: a
	// point read costs 1.04 RU at 2 KB and 1.14 RU at 4 KB; the size part of a write 6.29 and
	// 6.67 RU; each indexed term written 0.2 RU. Between sizes, a straight line.
	kb := doc.Bytes / 1024
	between := func(at2, at4 float64) float64 { return at2 + (kb-2)/2*(at4-at2) }
	wantRead := between(1.04, 1.14)
	if math.Abs(byID["AP1"].ModelRU-round(wantRead, 2)) > 0.011 {
		t.Errorf("read = %v, want %v", byID["AP1"].ModelRU, wantRead)
	}
	wantCreate := between(6.29, 6.67) + 0.2*2
	if math.Abs(byID["AP2"].ModelRU-wantCreate) > 0.02 {
		t.Errorf("create = %v, want %v", byID["AP2"].ModelRU, wantCreate)
	}
	if got := byID["AP1"].PeakRUs; math.Abs(got-300*byID["AP1"].ModelRU) > 0.01 {
		t.Errorf("peak RU/s = %v", got)
	}
	// No peak given: the average is used.
	if got := byID["AP2"].PeakRPS; got != 10 {
		t.Errorf("peak RPS without a peak = %v, want 10", got)
	}
	// A create estimated at 2 RU is below what any write costs.
	if !hasWarning(p, "estimate-below-floor", "AP2") {
		t.Errorf("no estimate-below-floor warning for AP2: %+v", p.Warnings)
	}
	if hasWarning(p, "estimate-below-floor", "AP1") {
		t.Errorf("AP1 (1 RU read of a 2 KB item) wrongly flagged")
	}
	if p.SchemaVersion != SchemaVersion || p.RateCard.Date == "" {
		t.Errorf("plan lacks schema version or rate-card date")
	}
}

func TestBuild_QueryEffects(t *testing.T) {
	indexed := smallDesign()
	p1, err := Build(indexed, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Excluding /status makes the same query a scan of the container.
	excluded := smallDesign()
	excluded.Containers[0].Indexing = &design.Indexing{Included: []string{"/*"}, Excluded: []string{"/status/?"}}
	p2, err := Build(excluded, Options{})
	if err != nil {
		t.Fatal(err)
	}
	q1, q2 := p1.Patterns[2], p2.Patterns[2]
	if q1.Basis != "static, rough" {
		t.Errorf("query basis %q", q1.Basis)
	}
	if q1.Facts.PartitionsChecked != 1 || q2.Facts.FullScan != true || q1.Facts.FullScan {
		t.Errorf("facts: indexed %+v, excluded %+v", q1.Facts, q2.Facts)
	}
	if q2.ModelRU <= q1.ModelRU {
		t.Errorf("scan %.2f not dearer than indexed %.2f", q2.ModelRU, q1.ModelRU)
	}
	// Cross-partition: 400 GB over 50 GB partitions = 8; the floor is one request minimum each, 8 × 2.3
	// (a query that checks their indexes pays 2.5 each).
	big := smallDesign()
	big.Scale.StorageGB = 400
	p3, err := Build(big, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p3.Containers[0].Partitions != 8 {
		t.Errorf("partitions = %d, want 8", p3.Containers[0].Partitions)
	}
	if got := p3.Patterns[2].FloorRU; math.Abs(got-8*2.3) > 1e-9 {
		t.Errorf("cross-partition floor = %v, want 18.4", got)
	}
}

func TestBuild_HotPartition(t *testing.T) {
	d := smallDesign()
	d.Containers[0].PartitionKey = []string{"/tenantId"}
	d.Containers[0].Documents[0].Fields = append(d.Containers[0].Documents[0].Fields,
		design.NamedField{Name: "tenantId", Field: design.Field{Gen: "code", Cardinality: 20, Dist: "hot", HotShare: 0.5}})
	// 200 GB: four physical partitions sharing 4,000 RU/s, 1,000 each.
	d.Scale.StorageGB = 200
	d.Containers[0].Throughput = design.Throughput{Manual: 4000}
	d.AccessPatterns[0].RPS = design.RPS{Avg: 1000, Peak: 3000}
	p, err := Build(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := p.Containers[0]
	// Share of the hot tenant: 0.5 + 0.5/20 = 0.525 of 3,000 reads/s, about 1,670 RU/s.
	if share := c.Documents[0].BusiestShare; math.Abs(share-0.525) > 1e-9 {
		t.Errorf("busiest share = %v, want 0.525", share)
	}
	if c.Hot.Risk != cost.RiskHigh || !hasWarning(p, "hot-partition", "Users") {
		t.Errorf("hot tenant not flagged: %+v", c.Hot)
	}
	// The same load spread over user ids is not hot. AP3, a query returning half of the 200 GB
	// twice a second, is left out: at production scale it alone needs over a million RU/s.
	d2 := smallDesign()
	d2.Scale.StorageGB = 200
	d2.Containers[0].Throughput = design.Throughput{Manual: 4000}
	d2.AccessPatterns[0].RPS = design.RPS{Avg: 1000, Peak: 3000}
	d2.AccessPatterns = d2.AccessPatterns[:2]
	p2, err := Build(d2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p2.Containers[0].Hot.Risk != cost.RiskNone {
		t.Errorf("uniform key flagged: %+v", p2.Containers[0].Hot)
	}
}

func TestBuild_PricingWarnings(t *testing.T) {
	d := smallDesign()
	// The seed prompt's figures: "$0.008 per RU per hour" and a 30-day month.
	d.Pricing = &design.Pricing{ManualPerRUHour: 0.008, SecondsPerMonth: 2_592_000, StoragePerGBMonth: 0.25}
	p, err := Build(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !hasWarning(p, "price-unit", "pricing.manualPerRUHour") {
		t.Errorf("no price-unit warning: %+v", p.Warnings)
	}
	if !hasWarning(p, "month-length", "pricing.secondsPerMonth") {
		t.Errorf("no month-length warning: %+v", p.Warnings)
	}
	if hasWarning(p, "price", "pricing.storagePerGBMonth") {
		t.Errorf("correct storage price flagged")
	}
	for _, w := range p.Warnings {
		if w.Code == "price-unit" && !strings.Contains(w.Message, "100×") {
			t.Errorf("price-unit message does not say 100×: %s", w.Message)
		}
	}
}

func TestBuild_Money(t *testing.T) {
	d := smallDesign()
	d.Regions = 2
	p, err := Build(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := p.Containers[0]
	// Designed manual 400 RU/s in 2 regions: 4 × $0.008 × 730 × 2 = $46.72 plus storage.
	wantTP := 4 * 0.008 * 730 * 2.0
	if math.Abs(c.DesignedCost.Throughput-wantTP) > 1e-9 {
		t.Errorf("designed throughput cost = %v, want %v", c.DesignedCost.Throughput, wantTP)
	}
	// Serverless cannot serve two regions.
	for _, o := range c.Options {
		if o.Mode == cost.Serverless && o.Feasible {
			t.Errorf("serverless feasible with 2 regions")
		}
	}
	if c.Recommended.Mode == cost.Serverless {
		t.Errorf("recommended serverless for 2 regions")
	}
}

func TestBuild_Errors(t *testing.T) {
	if _, err := Build(nil, Options{}); err == nil {
		t.Error("nil design: no error")
	}
	if _, err := Build(&design.Design{Name: "x"}, Options{}); err == nil {
		t.Error("no containers: no error")
	}
	d := smallDesign()
	d.AccessPatterns[0].Container = "Nope"
	if _, err := Build(d, Options{}); err == nil || !strings.Contains(err.Error(), "Nope") {
		t.Errorf("unknown container: %v", err)
	}
}

func TestRender(t *testing.T) {
	d := smallDesign()
	d.Pricing = &design.Pricing{ManualPerRUHour: 0.008}
	p, err := Build(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var txt bytes.Buffer
	if err := Render(&txt, p, ""); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Plan for small", "rate card " + cost.Current.Version, "730 billed hours",
		"static, rough", "AP3", "Users", "Warnings", "[price-unit]", "$0.008 per 100 RU/s per hour"} {
		if !strings.Contains(strings.ToLower(txt.String()), strings.ToLower(want)) {
			t.Errorf("text output lacks %q:\n%s", want, txt.String())
		}
	}
	var js bytes.Buffer
	if err := Render(&js, p, "json"); err != nil {
		t.Fatal(err)
	}
	var back struct {
		SchemaVersion int       `json:"schemaVersion"`
		Patterns      []Pattern `json:"patterns"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.SchemaVersion != 1 || len(back.Patterns) != 3 {
		t.Errorf("json: %+v", back)
	}
	if err := Render(&js, p, "yaml"); err == nil {
		t.Error("unknown format: no error")
	}
}

// The plan reads a design's indexing policy through provision's azcosmos policy and the engine's
// compiler: these are the design-level cases that conversion must keep.
func TestCompilePolicy_Indexed(t *testing.T) {
	tests := []struct {
		name string
		ix   *design.Indexing
		path string
		want bool
	}{
		{"default indexes all", nil, "a.b", true},
		{"root excluded, leaf included", &design.Indexing{Included: []string{"/a/?"}, Excluded: []string{"/*"}}, "a", true},
		{"root excluded, other leaf", &design.Indexing{Included: []string{"/a/?"}, Excluded: []string{"/*"}}, "b", false},
		{"exact ? does not cover children", &design.Indexing{Included: []string{"/a/?"}, Excluded: []string{"/*"}}, "a.b", false},
		{"subtree excluded", &design.Indexing{Included: []string{"/*"}, Excluded: []string{"/payload/*"}}, "payload.page", false},
		{"subtree excluded, sibling indexed", &design.Indexing{Included: []string{"/*"}, Excluded: []string{"/payload/*"}}, "kind", true},
		{"more precise include wins", &design.Indexing{Included: []string{"/*", "/payload/page/?"}, Excluded: []string{"/payload/*"}}, "payload.page", true},
		{"array elements", &design.Indexing{Included: []string{"/tags/[]/?"}, Excluded: []string{"/*"}}, "tags.[]", true},
		{"mode none", &design.Indexing{Mode: "none"}, "a", false},
		{"only exclusions", &design.Indexing{Excluded: []string{"/big/*"}}, "small", true},
		{"quoted label", &design.Indexing{Included: []string{"/*"}, Excluded: []string{`/"odd key"/?`}}, "odd key", false},
		{"_etag is not indexed by default", nil, "_etag", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pol, err := indexpolicy.Compile(tt.ix)
			if err != nil {
				t.Fatal(err)
			}
			if got := pol.Indexed(strings.Split(tt.path, ".")); got != tt.want {
				t.Errorf("indexed(%s) = %v, want %v", tt.path, got, tt.want)
			}
		})
	}
}

func TestCompilePolicy_Invalid(t *testing.T) {
	d := smallDesign()
	d.Containers[0].Indexing = &design.Indexing{Included: []string{"/status/?", "/status/?"}, Excluded: []string{"/*"}}
	p, err := Build(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !hasWarning(p, "indexing-policy", "Users") {
		t.Errorf("duplicate path not reported: %+v", p.Warnings)
	}
}

func hasWarning(p *Plan, code, subject string) bool {
	for _, w := range p.Warnings {
		if w.Code == code && w.Subject == subject {
			return true
		}
	}
	return false
}

// The plan's query facts follow the engine's parser and planner (sql.Analyze).
func TestBuild_QuerySemantics(t *testing.T) {
	allIndexed := &design.Indexing{Included: []string{"/*"}}
	statusBio := &design.Indexing{Included: []string{"/*"},
		Composite: [][]design.CompositePath{{{Path: "/status", Order: "asc"}, {Path: "/bio", Order: "asc"}}}}
	tests := []struct {
		name      string
		query     string
		ix        *design.Indexing
		wantWarn  string // warning code on AP3, "" for none
		check     func(f *cost.QueryFacts) bool
		wantFacts string
	}{
		{name: "syntax error is a warning, figures assume a scan", query: "SELEC * FROM c", ix: allIndexed,
			wantWarn: "query-syntax", check: func(f *cost.QueryFacts) bool { return f.FullScan && f.DocsLoaded == 1000 }, wantFacts: "full scan of 1000"},
		{name: "unresolved alias is a query-syntax warning", query: "SELECT * FROM c WHERE x.status = 'a'", ix: allIndexed,
			wantWarn: "query-syntax", check: func(f *cost.QueryFacts) bool { return f.FullScan }, wantFacts: "full scan"},
		{name: "UPPER cannot use the index", query: "SELECT * FROM c WHERE UPPER(c.status) = 'ACTIVE'", ix: allIndexed,
			check: func(f *cost.QueryFacts) bool { return f.FullScan && f.FunctionCalls == 1000 && f.DocsLoaded == 1000 }, wantFacts: "scan, 1000 calls"},
		{name: "served equality narrows", query: "SELECT * FROM c WHERE c.status = @s", ix: allIndexed,
			check: func(f *cost.QueryFacts) bool { return !f.FullScan && f.DocsLoaded == 500 && f.IndexLookups == 1 }, wantFacts: "500 loaded, 1 lookup"},
		{name: "two ORDER BY items without a composite index get the 400", query: "SELECT * FROM c ORDER BY c.status, c.bio", ix: allIndexed,
			wantWarn: "query-order-by", check: func(f *cost.QueryFacts) bool { return f.SortedInMemory == 1000 }, wantFacts: "1000 sorted"},
		{name: "composite index serves the ORDER BY", query: "SELECT TOP 5 * FROM c ORDER BY c.status, c.bio", ix: statusBio,
			check: func(f *cost.QueryFacts) bool { return f.SortedInMemory == 0 && f.DocsLoaded == 5 && f.DocsOutput == 5 }, wantFacts: "streamed, 5 loaded"},
		{name: "filter and ORDER BY without a composite index sort in memory", query: "SELECT * FROM c WHERE c.status = @s ORDER BY c.bio", ix: allIndexed,
			check: func(f *cost.QueryFacts) bool { return f.SortedInMemory == 500 && f.DocsLoaded == 500 }, wantFacts: "500 sorted"},
		// index-policy.md, "Queries with a filter and ORDER BY": the composite (status, bio) serves
		// ORDER BY c.status, c.bio, not ORDER BY c.bio ("Query using range index").
		{name: "filter on a path the ORDER BY does not name sorts with the composite index too", query: "SELECT TOP 5 * FROM c WHERE c.status = @s ORDER BY c.bio", ix: statusBio,
			check: func(f *cost.QueryFacts) bool { return f.SortedInMemory == 500 && f.DocsLoaded == 500 }, wantFacts: "500 sorted"},
		{name: "the filtered path first in the ORDER BY streams from the composite index", query: "SELECT TOP 5 * FROM c WHERE c.status = @s ORDER BY c.status, c.bio", ix: statusBio,
			check: func(f *cost.QueryFacts) bool { return f.SortedInMemory == 0 && f.DocsLoaded == 5 }, wantFacts: "streamed, 5 loaded"},
		{name: "aggregate answered from the index", query: "SELECT VALUE COUNT(1) FROM c WHERE c.status = @s", ix: allIndexed,
			check: func(f *cost.QueryFacts) bool {
				return f.DocsOutput == 1 && f.DocsLoaded == 0 && f.IndexEntriesRead == 500
			}, wantFacts: "1 output, 0 loaded, 500 entries"},
		{name: "aggregate with a residual filter loads", query: "SELECT VALUE COUNT(1) FROM c WHERE c.status = @s AND UPPER(c.bio) = 'X'", ix: allIndexed,
			check: func(f *cost.QueryFacts) bool { return f.DocsOutput == 1 && f.DocsLoaded == 500 }, wantFacts: "1 output, 500 loaded"},
		{name: "TOP without ORDER BY stops early", query: "SELECT TOP 10 c.status FROM c", ix: allIndexed,
			check: func(f *cost.QueryFacts) bool {
				return f.DocsLoaded == 10 && f.DocsOutput == 10 && f.BytesOutput < 10*100
			}, wantFacts: "10 loaded, small output"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := smallDesign()
			d.Containers[0].Indexing = tt.ix
			d.AccessPatterns[2].Query = tt.query
			d.AccessPatterns[2].Params = nil
			p, err := Build(d, Options{})
			if err != nil {
				t.Fatal(err)
			}
			pt := p.Patterns[2]
			if pt.Facts == nil || !tt.check(pt.Facts) {
				t.Errorf("facts %+v, want %s", pt.Facts, tt.wantFacts)
			}
			if pt.ModelRU <= 0 {
				t.Errorf("model RU %v", pt.ModelRU)
			}
			for _, code := range []string{"query-syntax", "query-order-by"} {
				if got := hasWarning(p, code, "AP3"); got != (code == tt.wantWarn) {
					t.Errorf("warning %s = %v, want %v: %+v", code, got, !got, p.Warnings)
				}
			}
		})
	}
}

// TestBuild_CountsAreTheSeededOnes: children per parent drawn from a skewed distribution average
// well below (min+max)/2; the plan counts what `run` seeds, not the midpoint.
func TestBuild_CountsAreTheSeededOnes(t *testing.T) {
	d := smallDesign()
	d.Containers[0].Documents = append(d.Containers[0].Documents, design.DocType{
		Type: "note", Parent: &design.Parent{Type: "user", Per: design.Per{Min: 0, Max: 8, Dist: "zipf"}},
		ID: "note-{seq}",
		Fields: design.Fields{
			{Name: "userId", Field: design.Field{Copy: "parent.userId"}},
			{Name: "text", Field: design.Field{Gen: "text", Bytes: 100}},
		},
	})
	sp, err := seed.Compile(d, DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	want := sp.Counts()["note"]
	p, err := Build(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, dt := range p.Containers[0].Documents {
		if dt.Type == "note" && int(dt.Count) != want {
			t.Errorf("plan counts %v notes, run seeds %d", dt.Count, want)
		}
	}
	if want >= 4000 {
		t.Errorf("zipf children: %d seeded, expected well under the midpoint's 4000", want)
	}
}

// TestAutoscaleBilling_OneWording: plan's assumption about autoscale billing is the sentence
// docs/cost-model.md states, word for word.
func TestAutoscaleBilling_OneWording(t *testing.T) {
	doc, err := os.ReadFile("../../docs/cost-model.md")
	if err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(string(doc)), " ")
	if !strings.Contains(flat, AutoscaleBilling) {
		t.Errorf("docs/cost-model.md does not state plan's autoscale assumption %q", AutoscaleBilling)
	}
	if !strings.Contains(AutoscaleBilling, "highest RU/s") {
		t.Errorf("the autoscale wording must name the billed quantity, the hour's highest RU/s: %q", AutoscaleBilling)
	}
}
