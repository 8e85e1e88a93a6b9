package pipeline

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/plan"
)

// TestPrefixForms_PlanAndRunAgree: the box office's tenant prefix sent three ways (testdata/review)
// — in WHERE only, in the request options only, in both for an aggregate — is charged by one model
// in the estimator and the engine: plan's static figure is within ±25% of the run's median on
// each, and the forms are charged apart in the direction the published figures give: the options
// form dearer than the WHERE form (azure-cosmos-dotnet-v3 #4767: 73.16 vs 4.63 RU), the aggregate
// with the prefix in the request dearer than with the prefix in WHERE alone (#3936: COUNT's index
// utilization 100% → 10%). The container holds 20 tenants in one physical partition, so the
// options form reads about 20 times the documents; the published ratios come from containers whose
// tenants per partition, documents and SDK versions are unknown, so no magnitude is fitted here.
func TestPrefixForms_PlanAndRunAgree(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("runs four designs on the engine: not under -short or the race detector")
	}
	load := func(file string, edit func(string) string) (*design.Design, *plan.Plan) {
		t.Helper()
		b, err := os.ReadFile("../../testdata/review/" + file)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if edit != nil {
			text = edit(text)
		}
		d, err := design.Parse([]byte(text), file)
		if err != nil {
			t.Fatal(err)
		}
		pl, err := plan.Build(d, plan.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return d, pl
	}
	figures := map[string][2]float64{} // form: plan, run
	for form, src := range map[string]struct {
		file string
		edit func(string) string
	}{
		"where":          {"hpk-prefix-where.yaml", nil},
		"options":        {"hpk-prefix-options.yaml", nil},
		"aggregate-both": {"hpk-prefix-aggregate.yaml", nil},
		"aggregate-where": {"hpk-prefix-aggregate.yaml", func(s string) string {
			return strings.Replace(s, "    partitionKey: [\"{tenantId}\"]\n    rps: {avg: 5, peak: 20}", "    partitionKey: [\"{tenantId}\"]\n    prefixIn: where\n    rps: {avg: 5, peak: 20}", 1)
		}},
	} {
		d, pl := load(src.file, src.edit)
		med, _ := exampleMedians(t, d, pl, 1)
		var planned float64
		for _, pp := range pl.Patterns {
			if pp.ID == "AP6" {
				planned = pp.ModelRU
			}
		}
		run, ok := med["AP6"]
		if !ok || planned == 0 {
			t.Fatalf("%s: AP6 planned %.2f RU, run %v", form, planned, med)
		}
		if math.Abs(planned-run) > 0.25*run {
			t.Errorf("%s: plan %.2f RU, run median %.2f RU: more than ±25%% apart", form, planned, run)
		}
		figures[form] = [2]float64{planned, run}
	}
	for i, who := range []string{"plan", "run"} {
		if w, o := figures["where"][i], figures["options"][i]; o < 2*w {
			t.Errorf("%s: the prefix in the request options %.2f RU, in WHERE %.2f RU: the options form must read the physical partition's 20 tenants, not 1", who, o, w)
		}
		if w, b := figures["aggregate-where"][i], figures["aggregate-both"][i]; b <= w {
			t.Errorf("%s: the aggregate with the prefix in the request too %.2f RU, in WHERE only %.2f RU: the request's prefix must load the documents", who, b, w)
		}
	}
	t.Logf("AP6 plan/run RU: %v", figures)
}
