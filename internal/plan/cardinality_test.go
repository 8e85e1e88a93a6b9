package plan

import (
	"math"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

// tenantDesign: 300 users over 25 tenants seeded, 30,000,000 users at production, and a query
// for one tenant's users; productionCardinality is pc (0: not stated).
func tenantDesign(t *testing.T, pc string) *design.Design {
	t.Helper()
	stated := ""
	if pc != "" {
		stated = ", productionCardinality: " + pc
	}
	y := `version: 1
name: t
containers:
  - name: Users
    partitionKey: [/tenantId]
    throughput: {manual: 400}
    documents:
      - type: user
        count: 300
        production: 30000000
        fields:
          tenantId: {gen: code, cardinality: 25` + stated + `}
          name: {gen: fullName}
accessPatterns:
  - id: AP1
    name: users of a tenant
    container: Users
    op: query
    sample: user
    query: SELECT TOP 10 c.name FROM c WHERE c.tenantId = @t
    params: {"@t": "{tenantId}"}
    partitionKey: ["{tenantId}"]
    rps: {avg: 1}
    estimate: {ru: 3}
`
	d, err := design.Parse([]byte(y), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestBuild_ProductionCardinality: a cardinality without a stated production number grows with
// the documents (a tenant keeps its 12 users), a stated one divides the production documents (25
// tenants of 1,200,000 users), and the projection's arithmetic says which it used.
func TestBuild_ProductionCardinality(t *testing.T) {
	for _, c := range []struct {
		pc     string
		growth float64
		says   string
	}{
		{"", 1, "assumed to grow with documents: 25 → 2.5e+06"},
		{"25", 100_000, "stated production values: 25"},
	} {
		p, err := Build(tenantDesign(t, c.pc), Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		ap := patternOf(t, p, "AP1")
		if math.Abs(ap.ScopeGrowth-c.growth) > 0.01*c.growth {
			t.Errorf("productionCardinality %q: scope growth %g, want %g", c.pc, ap.ScopeGrowth, c.growth)
		}
		if !strings.Contains(strings.Join(ap.Projection, "\n"), c.says) {
			t.Errorf("productionCardinality %q: the arithmetic does not say %q:\n%s", c.pc, c.says, strings.Join(ap.Projection, "\n"))
		}
	}
}

// TestParse_ProductionCardinalityBounded: productionCardinality needs a cardinality, a whole number
// of at least 1, and no more values than the type's production documents.
func TestParse_ProductionCardinalityBounded(t *testing.T) {
	for pc, want := range map[string]string{
		"0.5":      "at least 1",
		"40000000": "type user states production: 3e+07",
	} {
		_, err := design.Parse([]byte(strings.Replace(tenantYAML(t), "cardinality: 25", "cardinality: 25, productionCardinality: "+pc, 1)), "t.yaml")
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "productionCardinality") {
			t.Errorf("productionCardinality %s: error %v, want one at .productionCardinality saying %q", pc, err, want)
		}
	}
	_, err := design.Parse([]byte(strings.Replace(tenantYAML(t), "name: {gen: fullName}", "name: {gen: fullName, productionCardinality: 5}", 1)), "t.yaml")
	if err == nil || !strings.Contains(err.Error(), "generators with a cardinality") {
		t.Errorf("productionCardinality without a cardinality: %v", err)
	}
}

func tenantYAML(t *testing.T) string {
	t.Helper()
	return `version: 1
name: t
containers:
  - name: Users
    partitionKey: [/tenantId]
    throughput: {manual: 400}
    documents:
      - type: user
        count: 300
        production: 30000000
        fields:
          tenantId: {gen: code, cardinality: 25}
          name: {gen: fullName}
accessPatterns:
  - {id: AP1, name: r, container: Users, op: read, sample: user, rps: {avg: 1}, estimate: {ru: 1}}
`
}
