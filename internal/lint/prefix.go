package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine/sql"
	"github.com/cosmosdv/validate/internal/plan"
	"github.com/cosmosdv/validate/internal/querycheck"
)

// prefixForm is querycheck.PrefixForm.
func prefixForm(d *design.Design, c *design.Container, ap *design.AccessPattern) (string, int) {
	return querycheck.PrefixForm(d, c, ap)
}

// prefixTrap flags the costly ways of sending a hierarchical-key prefix (the partial-key trap of
// the SDKs). The mechanism, as a maintainer explains it (azure-cosmos-dotnet-v3 #4248): the index
// is per physical partition and the effective-partition-key range a prefix in the request stands
// for is not an index term, so with the prefix in the request the engine re-checks the range on
// every document the index returns for the rest of the WHERE, and an aggregate can no longer be
// answered from the index alone. Published measurements, side by side: 73.16 RU with the prefix in
// the request options vs 4.63 RU in WHERE (dotnet #4767); about 1,400× (azure-sdk-for-java #48707);
// COUNT's index utilization from 100% to 10% with the prefix in both places (dotnet #3936). The
// docs' guidance since 2026: "explicitly include the partial prefix in the WHERE clause"
// (azure-databases-docs PR #363). Correctness reports with the prefix in the request: partial or
// empty first pages (dotnet #5404), empty results after a split (dotnet #5859, SDK 3.58.0).
// The estimator and the engine charge each form by that mechanism (plan.estimateQuery, the
// engine's requestPrefix), so the message sets the plan's figure for the form beside its figure
// with the prefix in WHERE (sideBySide) and the published ones. Assumed: the size of the effect
// depends on the data, the rest of the WHERE and the SDK version.
func (l *linter) prefixTrap() {
	for i := range l.d.AccessPatterns {
		ap := &l.d.AccessPatterns[i]
		c := l.d.Container(ap.Container)
		if c == nil || ap.Op != design.OpQuery {
			continue
		}
		form, n := prefixForm(l.d, c, ap)
		if form == "" || form == design.PrefixWhere {
			continue
		}
		keyPath := fmt.Sprintf("accessPatterns[%d].partitionKey", i)
		if slices.ContainsFunc(l.out, func(f Finding) bool { return strings.HasPrefix(f.Path, keyPath) }) {
			continue // the request's key is wrong already (partition-key-template, -order)
		}
		q, err := sql.Parse(ap.Query)
		if err != nil {
			continue
		}
		sh := q.Shape()
		var filters []string
		for _, kp := range c.KeyPaths()[:n] {
			filters = append(filters, fmt.Sprintf("c.%s = @%s", strings.Join(kp, "."), kp[len(kp)-1]))
		}
		prefix := strings.Join(c.PartitionKey[:n], ", ")
		why := "partitionKey gives it and WHERE does not"
		switch {
		case ap.PrefixIn != "":
			why = "prefixIn: " + ap.PrefixIn
		case l.d.SDKName() == design.SDKEFCore:
			why = "app.sdk efcore lifts the prefix equality out of WHERE into the request (efcore #38598)"
		case form == design.PrefixBoth:
			why = "partitionKey gives it and WHERE filters it"
		}
		path := fmt.Sprintf("accessPatterns[%d].query", i)
		const reports = "with the prefix in the request, partial or empty first pages are reported (azure-cosmos-dotnet-v3 #5404) and empty results after a partition split (#5859, SDK 3.58.0)"
		switch {
		case form == design.PrefixOptions:
			l.addWeighed(path, ap.ID, "hpk-prefix-options", fmt.Sprintf(
				"the key prefix %s goes in the request options only (%s): the index is per physical partition, so the engine re-checks the key range on every document the index returns for the rest of the WHERE (azure-cosmos-dotnet-v3 #4248) — published figures side by side: 73.16 RU in the options vs 4.63 RU in WHERE (#4767), about 1,400× (azure-sdk-for-java #48707); assumed to apply here, and it depends on the SDK version; %s; put the prefix in WHERE: %s (the docs' guidance: include the partial prefix in the WHERE clause)%s",
				prefix, why, reports, strings.Join(filters, " AND "), l.sideBySide(i)))
		case form == design.PrefixBoth && sh.Aggregate && !sh.GroupBy:
			l.addWeighed(path, ap.ID, "hpk-prefix-options", fmt.Sprintf(
				"the aggregate's key prefix %s goes in WHERE and in the request options (%s): with a prefix in the request the engine must load each document the index returns to re-check the key range, so the index no longer answers the aggregate alone — published: COUNT's index utilization falls from 100%% to 10%% (azure-cosmos-dotnet-v3 #3936), \"orders of magnitude\" on aggregates (#4248); assumed to apply here, and it depends on the SDK version; %s; keep the prefix in WHERE and send no partition key with the request (the SDK routes by the WHERE prefix), or prefixIn: where if the application already does%s",
				prefix, why, reports, l.sideBySide(i)))
		}
	}
}

// sideBySide is the plan's figure for pattern i as its prefix is sent beside the plan's figure with
// the prefix in WHERE only (the same design with prefixIn: where on the pattern), both the model's
// (assumed mechanism, not measured); "" without a plan.
func (l *linter) sideBySide(i int) string {
	ap := &l.d.AccessPatterns[i]
	pp := l.planPattern(ap.ID)
	if pp == nil {
		return ""
	}
	d := *l.d
	d.AccessPatterns = slices.Clone(l.d.AccessPatterns)
	d.AccessPatterns[i].PrefixIn = design.PrefixWhere
	wp, err := plan.Build(&d, l.opts.Plan)
	if err != nil {
		return ""
	}
	for j := range wp.Patterns {
		if wp.Patterns[j].ID != ap.ID {
			continue
		}
		ru, at := pp.Judged()
		wru, _ := wp.Patterns[j].Judged()
		if wru <= 0 {
			return ""
		}
		return fmt.Sprintf("; the model charges it %s RU per execution %s, against %s RU with the prefix in WHERE (%.1f×; modeled by that mechanism, assumed, not measured)", judgedWords(pp), at, judgedWords(&wp.Patterns[j]), ru/wru)
	}
	return ""
}
