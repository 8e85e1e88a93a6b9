package plan

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

// prefixFormsPlan is testdata/review's box office (a tenant's open orders, tenant and customer the
// hierarchical key) at production with tenants tenants holding orders orders in all, the prefix
// sent as file says.
func prefixFormsPlan(t *testing.T, file string, orders, tenants int, edits ...string) *Plan {
	t.Helper()
	b, err := os.ReadFile("../../testdata/review/" + file)
	if err != nil {
		t.Fatal(err)
	}
	src := strings.NewReplacer(edits...).Replace(string(b))
	src = strings.NewReplacer(
		"        count: 2000\n", "        count: 2000\n        production: "+strconv.Itoa(orders)+"\n",
		"cardinality: 20}", "cardinality: 20, productionCardinality: "+strconv.Itoa(tenants)+"}",
	).Replace(src)
	d, err := design.Parse([]byte(src), file)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPrefixForms_OptionsDearerWithTenantsPerPartition: the prefix sent in the request options
// only is charged the index reads and loads of the whole physical partition, re-checked document
// by document (azure-cosmos-dotnet-v3 #4248), so at production, where one physical partition holds
// many tenants, it costs more than the prefix in WHERE, and the more tenants the partition holds
// the larger the ratio. Published figures, for direction and order of magnitude only (their
// containers' tenants per partition, documents, indexes and SDK versions are not given): 73.16 vs
// 4.63 RU, about 16× (#4767); about 1,400× (azure-sdk-for-java #48707). The band checked here,
// 5× to 10,000×, is wide on purpose: nothing is fitted to them.
func TestPrefixForms_OptionsDearerWithTenantsPerPartition(t *testing.T) {
	ratio := func(tenants int) float64 {
		where := patternOf(t, prefixFormsPlan(t, "hpk-prefix-where.yaml", 2_000_000, tenants), "AP6")
		opts := patternOf(t, prefixFormsPlan(t, "hpk-prefix-options.yaml", 2_000_000, tenants), "AP6")
		if where.ProductionRU <= 0 || opts.ProductionRU <= 0 {
			t.Fatalf("%d tenants: no production figure (where %v, options %v)", tenants, where.ProductionRU, opts.ProductionRU)
		}
		t.Logf("%d tenants: options %.2f RU, where %.2f RU: %.0f×", tenants, opts.ProductionRU, where.ProductionRU, opts.ProductionRU/where.ProductionRU)
		return opts.ProductionRU / where.ProductionRU
	}
	few, many := ratio(50), ratio(1000)
	if few <= 1 || many <= few {
		t.Errorf("options/where ratio %.1f× at 50 tenants, %.1f× at 1,000: the options form must cost more, and more so with more tenants per partition", few, many)
	}
	if many < 5 || many > 10_000 {
		t.Errorf("options/where ratio %.0f× at 1,000 tenants in a partition: outside the published figures' order of magnitude (16× to about 1,400×; band 5× to 10,000×)", many)
	}
}

// TestPrefixForms_AggregateBothLoadsDocuments: an aggregate with the prefix in WHERE and in the
// request options loads its documents to re-check the key range, so the index no longer answers it
// alone (#3936: COUNT's index utilization 100% → 10%): dearer than with the prefix in WHERE only.
func TestPrefixForms_AggregateBothLoadsDocuments(t *testing.T) {
	both := patternOf(t, prefixFormsPlan(t, "hpk-prefix-aggregate.yaml", 2_000_000, 1000), "AP6")
	where := patternOf(t, prefixFormsPlan(t, "hpk-prefix-aggregate.yaml", 2_000_000, 1000,
		"    partitionKey: [\"{tenantId}\"]\n    rps: {avg: 5, peak: 20}", "    partitionKey: [\"{tenantId}\"]\n    prefixIn: where\n    rps: {avg: 5, peak: 20}"), "AP6")
	t.Logf("COUNT of a tenant's open orders: prefix in both %.2f RU (%s), in WHERE only %.2f RU (%s)", both.ProductionRU, both.Detail, where.ProductionRU, where.Detail)
	if both.ProductionRU <= where.ProductionRU {
		t.Errorf("the aggregate with the prefix in the request too %.2f RU, in WHERE only %.2f RU: the request's prefix must load the documents", both.ProductionRU, where.ProductionRU)
	}
	if !strings.Contains(both.Detail, "does not answer the aggregate alone") {
		t.Errorf("detail %q: want the re-check named", both.Detail)
	}
}
