package cost

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The facts a query's charge is priced from, by name: the one list the engine reports
// (the x-cdv-query-facts header), the estimator fills, and reports compare. Names follow the
// service's query-metrics vocabulary where it has one (retrievedDocumentCount is docsLoaded,
// outputDocumentCount docsOutput).

// FactsHeader is the response header the embedded engine reports a query page's facts in
// ("name=value;…", FactNames), beside the service's own x-ms-documentdb-query-metrics.
const FactsHeader = "x-cdv-query-facts"

// FactNames are the facts of a query, in report order.
var FactNames = []string{"indexEntriesRead", "indexScanValues", "docsLoaded", "bytesLoaded", "docsEvaluated",
	"docsOutput", "bytesOutput", "joinRows", "functionCalls", "sortedInMemory", "partitionsChecked"}

// Named is f's facts by name (FactNames).
func (f QueryFacts) Named() map[string]float64 {
	return map[string]float64{
		"indexEntriesRead":  float64(f.IndexEntriesRead),
		"indexScanValues":   float64(f.IndexScanValues),
		"docsLoaded":        float64(f.DocsLoaded),
		"bytesLoaded":       float64(f.BytesLoaded),
		"docsEvaluated":     float64(f.DocsEvaluated),
		"docsOutput":        float64(f.DocsOutput),
		"bytesOutput":       float64(f.BytesOutput),
		"joinRows":          float64(f.JoinRows),
		"functionCalls":     float64(f.FunctionCalls),
		"sortedInMemory":    float64(f.SortedInMemory),
		"partitionsChecked": float64(f.PartitionsChecked),
	}
}

// FactsText renders f as the FactsHeader value.
func FactsText(f QueryFacts) string {
	named := f.Named()
	parts := make([]string, 0, len(FactNames))
	for _, n := range FactNames {
		parts = append(parts, n+"="+strconv.FormatFloat(named[n], 'f', -1, 64))
	}
	return strings.Join(parts, ";")
}

// AddFactsText adds the facts of a FactsHeader value to acc: the pages of one query add up, the
// partitions checked too (each request of a cross-partition query checks its own). A malformed
// value is an error naming it.
func AddFactsText(acc map[string]float64, text string) error {
	for part := range strings.SplitSeq(text, ";") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		name, value, ok := strings.Cut(part, "=")
		if !ok {
			return fmt.Errorf("query facts: %q is not name=value", part)
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("query facts: %s=%q is not a count", name, value)
		}
		acc[name] += v
	}
	return nil
}
