package lint

import (
	"fmt"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine/sql"
)

// hpkGaps flags a query on a hierarchical key that filters a lower key level by equality without
// every level above it (in the request's prefix or in WHERE): the service routes by a key prefix
// from the first level only (hierarchical-partition-keys.md: queries that give the first level, or
// the first two, are routed to the partitions of that prefix; one that skips the first is a
// cross-partition query), so the lower level's filter narrows the result but not the partitions it
// reaches. The message names the levels to add. A meant fan-out says expect: {singlePartition: false}.
func (l *linter) hpkGaps() {
	for i := range l.d.AccessPatterns {
		ap := &l.d.AccessPatterns[i]
		c := l.d.Container(ap.Container)
		if c == nil || ap.Op != design.OpQuery || !c.IsHierarchical() || len(ap.PartitionKey) >= len(c.PartitionKey) {
			continue
		}
		if ap.Expect != nil && ap.Expect.SinglePartition != nil && !*ap.Expect.SinglePartition {
			continue
		}
		q, err := sql.Parse(ap.Query)
		if err != nil {
			continue
		}
		eq := q.KeyEqualities(c.KeyPaths(), scalarParams(c, ap))
		// prefix: the leading levels given (in the request, or pinned in WHERE).
		prefix := 0
		for prefix < len(c.PartitionKey) && (prefix < len(ap.PartitionKey) || eq[prefix] != nil) {
			prefix++
		}
		var below []string
		for k := prefix + 1; k < len(c.PartitionKey); k++ {
			if eq[k] != nil {
				below = append(below, c.PartitionKey[k])
			}
		}
		if len(below) == 0 {
			continue
		}
		var missing, filters []string
		for k := prefix; k < len(c.PartitionKey) && eq[k] == nil; k++ {
			missing = append(missing, c.PartitionKey[k])
			kp := c.KeyPaths()[k]
			filters = append(filters, fmt.Sprintf("c.%s = @%s", strings.Join(kp, "."), kp[len(kp)-1]))
		}
		templates := templatesFor(c)[:prefix+len(missing)]
		reach := "every physical partition of " + c.Name
		if prefix > 0 {
			reach = fmt.Sprintf("every physical partition of its %s prefix", strings.Join(c.PartitionKey[:prefix], ", "))
		}
		l.addWeighed(fmt.Sprintf("accessPatterns[%d].query", i), ap.ID, "hpk-level-skipped", fmt.Sprintf(
			"the query filters key level %s but not %s above it: a hierarchical key routes only by a prefix from the first level, so it fans out to %s and the lower level's filter narrows only the result; add %s to WHERE and give partitionKey: [%s]; if the fan-out is meant, say so: expect: {singlePartition: false}",
			strings.Join(below, ", "), strings.Join(missing, ", "), reach, strings.Join(filters, " AND "), strings.Join(templates, ", ")))
	}
}

// crossAggregates names a query with GROUP BY or an aggregate that reads across partitions for what
// it is: each physical partition computes a partial aggregate (its groups, or COUNT/SUM/MIN/MAX and
// SUM with COUNT for AVG) and the SDK's query engine merges them after fetching the query plan, so
// every execution pays at least one partition check per physical partition and drains every page
// (how-to-query-container.md; the SDKs' query pipelines). The aggregate is answered from the index
// only when the index answers it completely (index-overview.md, "Index utilization for scalar
// aggregate functions"); otherwise each partition loads the documents it aggregates — the plan's
// facts say which. It is named where a fan-out is a finding: among queries that give their key, or
// when one execution's burst is over the container's headroom. The Go SDK's gateway refuses these shapes across partitions, which
// cross-partition-shape reports; a meant fan-out says expect: {singlePartition: false}.
func (l *linter) crossAggregates() {
	for i := range l.d.AccessPatterns {
		ap := &l.d.AccessPatterns[i]
		c := l.d.Container(ap.Container)
		if c == nil || ap.Op != design.OpQuery || l.d.SDKName() == design.SDKGo {
			continue
		}
		if ap.Expect != nil && ap.Expect.SinglePartition != nil {
			continue // decided by expect-single-partition
		}
		single, ok := singlePartition(c, ap)
		if !ok || single || len(ap.PartitionKey) > 0 {
			continue
		}
		q, err := sql.Parse(ap.Query)
		if err != nil {
			continue
		}
		if eq := q.KeyEqualities(c.KeyPaths(), scalarParams(c, ap)); eq[0] != nil {
			continue // a key prefix (or key values) in WHERE: targeted, not a fan-out to every partition
		}
		sh := q.Shape()
		if !sh.GroupBy && !sh.Aggregate {
			continue
		}
		// Named where a fan-out would be a finding: among queries that all give their key (where
		// lost-partition-key would name it), or when one execution's burst is over the headroom
		// above the container's peak. A design whose queries all fan out is left alone otherwise.
		if len(l.othersKeyed(i, c)) == 0 && !l.weigh(ap.ID).burst {
			continue
		}
		what := "aggregates"
		if sh.GroupBy {
			what = "GROUP BY"
		}
		partial := "aggregate"
		if sh.GroupBy {
			partial = "aggregate of each of its groups"
		}
		index := ""
		if pp := l.planPattern(ap.ID); pp != nil {
			facts := pp.ProductionFacts
			if facts == nil {
				facts = pp.Facts
			}
			if facts != nil {
				if facts.DocsLoaded == 0 {
					index = "; the index answers it completely, so each partition reads index entries only"
				} else {
					index = fmt.Sprintf("; the index does not answer it completely, so the partitions load %d documents per execution (index-overview.md: an aggregate uses the index only when the index answers it alone) — filter or aggregate on indexed paths only to make it index-only", facts.DocsLoaded)
				}
			}
		}
		scope := "no partition key"
		l.addWeighed(fmt.Sprintf("accessPatterns[%d].query", i), ap.ID, "cross-partition-aggregate", fmt.Sprintf(
			"%s across partitions (%s): the .NET, Java and JavaScript SDKs (and Python, in the versions that support it: azure-sdk-for-python #25868) fetch the query plan, compute a partial %s in every physical partition (each at least the ~2.5 RU partition check) and merge the partials on the client, draining every page; the Go SDK's gateway refuses it (400)%s; to read it from one partition, give partitionKey: [%s], or keep the figure precomputed in one document (a change-feed-maintained counter); if the fan-out is meant, say so: expect: {singlePartition: false}",
			what, scope, partial, index, strings.Join(templatesFor(c), ", ")))
	}
}
