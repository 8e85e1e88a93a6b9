package lint

import (
	"fmt"
	"math"
	"strings"

	"github.com/cosmosdv/validate/internal/cost"
)

// lowCardPerPartition is how many distinct key values per physical partition a key needs before
// lint stops calling it low-cardinality (assumed: the service hashes key values onto partitions, and
// with fewer than about ten values per partition the hash leaves some partitions with two or three
// times their share and others empty; no published figure — the guidance asks for "a wide range of
// values", partitioning-overview.md).
const lowCardPerPartition = 10

// lowCardinality names a key with few distinct values for what it is, with its distinct count (at
// production when stated) and the busiest value's share of the documents and of the peak: each
// value is one logical partition, which never spreads over more than one physical partition (at
// most 10,000 RU/s and 20 GB, partitioning-overview.md), so the key caps the container whatever
// throughput it is given. It is named only where it costs: the plan finds a hot partition in the
// container, or the key has fewer values than the container has physical partitions (some get
// nothing of the throughput paid for). The figures are the plan's.
func (l *linter) lowCardinality() {
	if l.plan == nil {
		return
	}
	hot := map[string]bool{}
	for _, w := range l.plan.Warnings {
		if w.Code == "hot-partition" {
			hot[w.Subject] = true
		}
	}
	for _, pc := range l.plan.Containers {
		cp, ok := l.containerPath(pc.Name)
		if !ok {
			continue
		}
		values, busiest, busiestType := 0.0, 0.0, ""
		for _, doc := range pc.Documents {
			k, share := doc.KeyValues, doc.BusiestShare
			if doc.ProductionKeyValues > 0 {
				k, share = doc.ProductionKeyValues, doc.ProductionBusiestShare
			}
			values = math.Max(values, k)
			if share > busiest {
				busiest, busiestType = share, doc.Type
			}
		}
		parts := max(pc.Partitions, 1)
		if values <= 0 || values >= float64(lowCardPerPartition*parts) || (!hot[pc.Name] && values >= float64(parts)) {
			continue
		}
		at := "at the seeded scale"
		if pc.ProductionScale {
			at = "at production"
		}
		peakShare := ""
		if pc.PeakRUs > 0 && pc.BusiestRUs > 0 {
			peakShare = fmt.Sprintf(" and %s of the peak (%.0f of %s RU/s)", pct(pc.BusiestRUs/pc.PeakRUs), pc.BusiestRUs,
				pc.LoadBand.Peak().After(fmt.Sprintf("%.0f", pc.PeakRUs), func(x float64) string { return fmt.Sprintf("%.0f", x) }))
		}
		l.add(cp+".partitionKey", "low-cardinality-key",
			"partition key %s has %.0f distinct value(s) %s over %d physical partition(s): the busiest value holds %s of the %s documents%s; each value is one logical partition, which lives in one physical partition (at most %.0f RU/s and %.0f GB), so this key caps %s at about %.0f RU/s and %.0f GB whatever throughput it is given; key it by a property with many more values (thousands at least: a user, an order, an item id), or add one below it as a hierarchical level: partitionKey: [%s, /id]",
			strings.Join(pc.PartitionKey, ", "), values, at, parts, pct(busiest), busiestType, peakShare,
			cost.Current.PartitionMaxRU.Value, cost.Current.LogicalMaxGB.Value,
			pc.Name, values*cost.Current.PartitionMaxRU.Value, values*cost.Current.LogicalMaxGB.Value, strings.Join(pc.PartitionKey, ", "))
	}
}
