package plan

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
)

// TestBuild_ProductionCounts: production counts give the storage when no storageGB is stated, and
// a stated storageGB that disagrees with them by more than 2× is a warning.
func TestBuild_ProductionCounts(t *testing.T) {
	d := smallDesign()
	d.Containers[0].Documents[0].Production = 10_000_000 // ~2.2 KB each: about 22 GB
	p, err := Build(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := p.Containers[0]
	if c.StorageBasis != "production document counts" || c.StorageGB < 15 || c.StorageGB > 30 {
		t.Errorf("storage %.3g GB from %q, want about 22 GB from the production counts", c.StorageGB, c.StorageBasis)
	}
	if hasWarning(p, "scale-storage", "Users") {
		t.Error("consistent counts warned")
	}

	d.Containers[0].StorageGB = 500
	p, err = Build(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !hasWarning(p, "scale-storage", "Users") {
		t.Errorf("500 GB against ~22 GB of production documents: want a scale-storage warning, got %+v", p.Warnings)
	}
}

// shopDesign is testdata/designs/shop-production.yaml with AP3's estimate set to estimate.
func shopDesign(t *testing.T, estimate float64) *design.Design {
	t.Helper()
	d, err := design.Load("../../testdata/designs/shop-production.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d.AccessPatterns[2].Estimate.RU = estimate
	return d
}

func patternOf(t *testing.T, p *Plan, id string) Pattern {
	t.Helper()
	for _, pt := range p.Patterns {
		if pt.ID == id {
			return pt
		}
	}
	t.Fatalf("no pattern %s", id)
	return Pattern{}
}

// TestBuild_ScopeFollowsProductionChildrenPerParent: a query in one customer's partition sees the
// production orders per customer (50), not the seeded ones (about 5): its scope grows by about
// (1 + 50) / (1 + 5), and its projected charge with it.
func TestBuild_ScopeFollowsProductionChildrenPerParent(t *testing.T) {
	p, err := Build(shopDesign(t, 3), Options{})
	if err != nil {
		t.Fatal(err)
	}
	seeded := p.Containers[0].Documents[1].Count / p.Containers[0].Documents[0].Count
	want := 51 / (1 + seeded)
	ap1 := patternOf(t, p, "AP1")
	if math.Abs(ap1.ScopeGrowth-want) > 0.05*want {
		t.Errorf("scope growth %.3g, want (1+50)/(1+%.2f) = %.3g", ap1.ScopeGrowth, seeded, want)
	}
	// Each of the ~51 documents is loaded and returned: the charge grows with them.
	if ap1.JudgedOn != "projected" || ap1.ProductionRU < ap1.ModelRU+0.2 {
		t.Errorf("AP1 judged on %q: seeded %.2f RU, production %.2f RU; want projected, above the seeded charge", ap1.JudgedOn, ap1.ModelRU, ap1.ProductionRU)
	}
	if arith := strings.Join(ap1.Projection, "\n"); !strings.Contains(arith, "index entries, 5") { // the key's equality is a seek: ~51 documents loaded
		t.Errorf("AP1 projection arithmetic, want about 51 documents at production: %s", arith)
	}
	if ap2 := patternOf(t, p, "AP2"); ap2.JudgedOn != "seeded" || ap2.ProductionRU != 0 {
		t.Errorf("a point read is judged on %q with production %.2f RU; want seeded, none", ap2.JudgedOn, ap2.ProductionRU)
	}
}

// TestBuild_JudgesQueriesOnTheProjectedFigure: with a production scale, an estimate made for the
// seeded volume is off and says it was judged on the projected figure; one made for production
// passes.
func TestBuild_JudgesQueriesOnTheProjectedFigure(t *testing.T) {
	p, err := Build(shopDesign(t, 1), Options{})
	if err != nil {
		t.Fatal(err)
	}
	seeded := patternOf(t, p, "AP3").ModelRU
	if p, err = Build(shopDesign(t, seeded), Options{}); err != nil {
		t.Fatal(err)
	}
	ap3 := patternOf(t, p, "AP3")
	var msg string
	for _, w := range p.Warnings {
		if w.Code == "estimate-off" && w.Subject == "AP3" {
			msg = w.Message
		}
	}
	// 10 customers seeded, 1,000,000 in production: the count reads each eu customer's index entry
	// (about 500,000 at 0.0000648 RU: about 5× the seeded charge).
	if ap3.ProductionRU < 4*ap3.ModelRU || !strings.Contains(msg, "projected to production scale") {
		t.Errorf("estimate at the seeded %.2f RU, far from the projected %.2f RU: want an estimate-off judged on the projected figure, got %q",
			ap3.ModelRU, ap3.ProductionRU, msg)
	}
	p, err = Build(shopDesign(t, ap3.ProductionRU), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if hasWarning(p, "estimate-off", "AP3") {
		t.Errorf("an estimate made for production warned: %+v", p.Warnings)
	}
	var buf strings.Builder
	if err := Render(&buf, p, "text"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"PRODUCTION", "judged on the PRODUCTION figure", "Production scale (queries", "= seeded (point op)"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text plan lacks %q", want)
		}
	}
}

// TestBuild_HotPartitionAtProductionKeys: the busiest logical partition is sized with the
// production key values (a million customers), not the seeded ten scaled up.
func TestBuild_HotPartitionAtProductionKeys(t *testing.T) {
	p, err := Build(shopDesign(t, 3), Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := p.Containers[0]
	if c.Documents[1].ProductionKeyValues != 1_000_000 {
		t.Errorf("orders' key values at production %.0f, want 1,000,000", c.Documents[1].ProductionKeyValues)
	}
	// A million customers share the single-partition traffic: the busiest gets about 2 millionths
	// of it (ten seeded customers would give it about a fifth).
	if c.BusiestRUs > 0.05 || c.Documents[1].ProductionBusiestShare > 1e-5 {
		t.Errorf("busiest logical partition %.2f RU/s, orders' busiest share %.3g: want the production key values' share",
			c.BusiestRUs, c.Documents[1].ProductionBusiestShare)
	}
	// About 51 documents of ≤ 2.3 KB per customer, the busiest at most 9/5 of that.
	if c.BusiestGB > 0.001 || hasWarning(p, "hot-partition", "Orders") {
		t.Errorf("busiest logical partition %.3g GB (warnings %+v): want a customer's documents, under 1 MB", c.BusiestGB, p.Warnings)
	}
}

// TestBuild_ScaleSplitByProductionBytes: with every type's production count stated, the design's
// storageGB is split between containers by production bytes, so counts that agree with it raise no
// scale-storage finding even when the seeded volumes are in another proportion.
func TestBuild_ScaleSplitByProductionBytes(t *testing.T) {
	d := shopDesign(t, 3)
	small := d.Containers[0]
	small.Name = "Small"
	small.Documents = []design.DocType{d.Containers[0].Documents[0]}
	small.Documents[0].Type = "account"
	small.Documents[0].Count = 2000 // seeded: far more bytes than its share of production
	small.Documents[0].Production = 1000
	d.Containers = append(d.Containers, small)
	p0, err := Build(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, c := range p0.Containers {
		for _, dc := range c.Documents {
			total += dc.Production * dc.Bytes / 1e9
		}
	}
	d.Scale.StorageGB = total
	p, err := Build(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range p.Containers {
		if c.StorageBasis != "design scale split by production bytes" {
			t.Errorf("%s: storage basis %q", c.Name, c.StorageBasis)
		}
		if hasWarning(p, "scale-storage", c.Name) {
			t.Errorf("%s: production counts that agree with scale.storageGB warned: %+v", c.Name, p.Warnings)
		}
	}
}

// TestZipfH_Tail: the normaliser of a zipf over a production-sized number of values, summed for
// the first zipfExact values and integrated beyond, is within 0.1% of the plain sum.
func TestZipfH_Tail(t *testing.T) {
	for _, skew := range []float64{1.1, 1.3, 2} {
		exact := 0.0
		for k := 1.0; k <= 1e6; k++ {
			exact += 1 / math.Pow(k, skew)
		}
		if got := zipfH(1e6, skew); math.Abs(got-exact) > 0.001*exact {
			t.Errorf("skew %g: zipfH(1e6) = %.6f, the sum is %.6f", skew, got, exact)
		}
	}
}

// TestBuild_CapacityAtProductionScale: with a production scale the container's load, its
// throughput-short warning and its cost rest on each query's production charge (point operations
// keep theirs); the same design without one is sized on the seeded charges and fits its 400 RU/s.
func TestBuild_CapacityAtProductionScale(t *testing.T) {
	d := shopDesign(t, 3)
	d.AccessPatterns[2].RPS = design.RPS{Avg: 6, Peak: 12} // the every-partition count, six times a second
	p, err := Build(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := p.Containers[0]
	want, seeded := 0.0, 0.0
	for _, pt := range p.Patterns {
		judged, _ := pt.Judged()
		want += judged * pt.PeakRPS
		seeded += pt.ModelRU * pt.PeakRPS
	}
	if c.LoadBasis != LoadProduction || math.Abs(c.PeakRUs-want) > 0.01*want+0.05 {
		t.Errorf("peak load %.2f RU/s on %q, want the production charges' %.2f RU/s (seeded %.2f)", c.PeakRUs, c.LoadBasis, want, seeded)
	}
	if seeded >= 400 || want <= 400 {
		t.Fatalf("fixture: seeded peak %.0f RU/s, production %.0f RU/s; want them either side of 400", seeded, want)
	}
	var msg string
	for _, w := range p.Warnings {
		if w.Code == "throughput-short" && w.Subject == "Orders" {
			msg = w.Message
		}
	}
	if !strings.Contains(msg, "at production scale") {
		t.Errorf("throughput-short %q: want one that says it is at production scale", msg)
	}
	if c.Recommended.Mode != cost.Serverless && float64(c.Recommended.RU) < want {
		t.Errorf("recommended %+v at $%.2f: want a mode sized for the production peak of %.0f RU/s", c.Recommended, c.MonthlyUSD, want)
	}

	// Without a production scale, production is the seeded scale: the same design fits.
	for i := range d.Containers[0].Documents {
		d.Containers[0].Documents[i].Production = 0
	}
	if p, err = Build(d, Options{}); err != nil {
		t.Fatal(err)
	}
	if c := p.Containers[0]; c.LoadBasis != LoadSeeded || hasWarning(p, "throughput-short", "Orders") {
		t.Errorf("no production scale: load on %q, warnings %+v; want seeded, no throughput-short", c.LoadBasis, p.Warnings)
	}
}

// partialDesign is shop-production with a second container, Devices, whose one type states its
// production count while Orders' types state none, and scale.storageGB for both.
func partialDesign(t *testing.T, storageGB float64) *design.Design {
	t.Helper()
	d := shopDesign(t, 3)
	for i := range d.Containers[0].Documents {
		d.Containers[0].Documents[i].Production = 0
	}
	dev := design.Container{Name: "Devices", PartitionKey: []string{"/deviceId"}, Throughput: design.Throughput{Manual: 400},
		Documents: []design.DocType{{Type: "device", Count: 500, Production: 10_000, ID: "dev-{seq}",
			Fields: design.Fields{{Name: "deviceId", Field: design.Field{Copy: "id"}}}}}}
	d.Containers = append(d.Containers, dev)
	d.Scale.StorageGB = storageGB
	return d
}

// TestBuild_PartialProductionCounts: when only some types state a production count, the storage
// figure is filled by them first (count × size) and the rest goes to the other types by their
// seeded bytes. Split by seeded bytes alone, the 500 seeded devices would take a share of the
// 2 TB, and their 10,000 stated ones (a few MB) would be "wrong" by orders of magnitude.
func TestBuild_PartialProductionCounts(t *testing.T) {
	p, err := Build(partialDesign(t, 2048), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if hasWarning(p, "scale-storage", "Devices") || hasWarning(p, "scale-storage", "scale.storageGB") {
		t.Errorf("stated devices warned: %+v", p.Warnings)
	}
	orders, devices := p.Containers[0], p.Containers[1]
	devGB := 10_000 * devices.Documents[0].Bytes / 1e9
	if math.Abs(devices.StorageGB-devGB) > 0.001 || math.Abs(orders.StorageGB-(2048-devGB)) > 0.01 {
		t.Errorf("storage: Devices %.4g GB (want %.4g, its stated count), Orders %.4g GB (want the rest of 2048)", devices.StorageGB, devGB, orders.StorageGB)
	}
	if orders.StorageBasis != basisRemainder || devices.Documents[0].Production != 10_000 {
		t.Errorf("Orders basis %q, devices at production %.0f", orders.StorageBasis, devices.Documents[0].Production)
	}
	// The unstated types keep their seeded proportions, scaled to fill the rest.
	c, o := orders.Documents[0], orders.Documents[1]
	if r, want := o.Production/c.Production, o.Count/c.Count; math.Abs(r-want) > 0.01*want {
		t.Errorf("orders per customer at production %.3g, seeded %.3g: want the seeded proportion", r, want)
	}

	// A storage figure the stated types alone nearly fill leaves the others less than their seeded
	// documents: plan says which types to give a count, and keeps them at their seeded counts.
	if p, err = Build(partialDesign(t, devGB*1.0001), Options{}); err != nil {
		t.Fatal(err)
	}
	var msg string
	for _, w := range p.Warnings {
		if w.Code == "scale-storage" && w.Subject == "scale.storageGB" {
			msg = w.Message
		}
	}
	if !strings.Contains(msg, "State `production` for customer, order") {
		t.Errorf("scale-storage %q: want one that names the types to give a production count", msg)
	}
	if got := p.Containers[0].Documents[0]; got.Production != got.Count {
		t.Errorf("customers at production %.0f, want their seeded %.0f", got.Production, got.Count)
	}
}

// TestBuild_ScaleStorageDisagreement: with every count stated, a storage figure 20× the counts ×
// sizes is one finding at scale.storageGB (not one per container) that gives both figures, the
// document size each implies, and the figure to set if the counts are right.
func TestBuild_ScaleStorageDisagreement(t *testing.T) {
	d := partialDesign(t, 0)
	d.Containers[0].Documents[0].Production = 1_000_000
	d.Containers[0].Documents[1].Production = 50_000_000
	p, err := Build(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, c := range p.Containers {
		total += c.StorageGB
	}
	d.Scale.StorageGB = math.Round(20 * total)
	if p, err = Build(d, Options{}); err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, w := range p.Warnings {
		if w.Code == "scale-storage" {
			msgs = append(msgs, w.Subject+": "+w.Message)
		}
	}
	if len(msgs) != 1 || !strings.HasPrefix(msgs[0], "scale.storageGB: ") {
		t.Fatalf("scale-storage findings %q: want one, at scale.storageGB", msgs)
	}
	for _, want := range []string{"51 million documents", fmt.Sprintf("%.3g GB", total), fmt.Sprintf("the %.3g GB scale.storageGB states", d.Scale.StorageGB),
		"KB each; the designed fields make about", fmt.Sprintf("set scale.storageGB to about %.3g", total)} {
		if !strings.Contains(msgs[0], want) {
			t.Errorf("finding %q lacks %q", msgs[0], want)
		}
	}
}

// TestBuild_ScopeGrowsWithTheTypesTheIndexKeeps: a query whose index-served filter keeps only
// customers (c.region is a customer field) grows as the customers do (10 seeded, 1,000,000 in
// production: ×100,000), not as the container's documents do (orders are 50 per customer in
// production, about 5 seeded: ×850,000 or so).
func TestBuild_ScopeGrowsWithTheTypesTheIndexKeeps(t *testing.T) {
	p, err := Build(shopDesign(t, 3), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g := patternOf(t, p, "AP3").ScopeGrowth; math.Abs(g-1e5) > 1 {
		t.Errorf("AP3 scope growth ×%.6g, want ×100,000 (the customers')", g)
	}
	// A filter on the key only keeps every type: the customer and its orders.
	if g := patternOf(t, p, "AP1").ScopeGrowth; g < 5 {
		t.Errorf("AP1 scope growth ×%.3g, want the customer and its orders'", g)
	}
}
