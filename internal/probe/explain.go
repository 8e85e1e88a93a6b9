package probe

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/querycheck"
	"github.com/cosmosdv/validate/internal/sdk"
)

// explain says in plain words why an execution failed and what to do about it. A query's 400 is
// explained from the query as the engine's parser and planner read it (querycheck), in the words
// lint uses for the same problem, pointing into the design file.
func explain(d *design.Design, ap *design.AccessPattern, c *design.Container, status int, msg string) string {
	lower := strings.ToLower(msg)
	switch status {
	case 400:
		if ap.Op == design.OpQuery {
			ci := slices.IndexFunc(d.Containers, func(x design.Container) bool { return x.Name == c.Name })
			if ci < 0 {
				return "the service rejected the query"
			}
			r := querycheck.Check(d, ci, ap.Query)
			path := fmt.Sprintf("accessPatterns[%d].query", slices.IndexFunc(d.AccessPatterns, func(x design.AccessPattern) bool { return x.ID == ap.ID }))
			shape := querycheck.Clauses(r.Analysis.Shape)
			crossPartition := len(ap.PartitionKey) < len(c.PartitionKey)
			if crossPartition && len(shape) > 0 && !strings.Contains(lower, "composite index") {
				return fmt.Sprintf("this query uses %s across partitions. The Go SDK has no query engine: it runs queries through "+
					"the gateway, which serves only filters and projections across partitions. Give the full partition key (%s) "+
					"so one partition answers, denormalise so that it can, or run the query from an SDK with a query engine "+
					"(.NET, Java, Python, JavaScript)", strings.Join(shape, ", "), strings.Join(c.PartitionKey, ", "))
			}
			for _, p := range r.Problems {
				at := d.Positions[path]
				if p.Offset >= 0 {
					at = d.ValuePos(path, ap.Query, p.Offset)
				}
				where := d.File
				if at.Line > 0 {
					where += fmt.Sprintf(":%d:%d", at.Line, at.Col)
				}
				if where != "" {
					where += ": "
				}
				return fmt.Sprintf("%s%s: %s", where, path, p.Message)
			}
			if strings.Contains(lower, "partition key") {
				return "the partition key given does not fit the container's key definition: a query with a key must give every " +
					"level; a hierarchical prefix query passes no key and filters on the prefix in WHERE"
			}
			return "the service rejected the query; check its syntax and parameters"
		}
		if strings.Contains(lower, "partition key") {
			return "the document's partition-key values do not match the key sent with the request (" + strings.Join(c.PartitionKey, ", ") + ")"
		}
	case 404:
		return "no item with this id in this logical partition: check the pattern's itemId and partitionKey templates against the sampled type"
	case 409:
		if len(c.UniqueKeys) > 0 {
			return sdk.UniqueKeyHint(c.UniqueKeys)
		}
		return "conflict: an item with this id already exists in the logical partition"
	case 412:
		if ap.Condition != "" {
			return "precondition failed: the patch condition (" + ap.Condition + ") did not hold for the item"
		}
		return "precondition failed: the item changed since its ETag was read"
	case 413:
		return "the item is larger than the 2 MB item limit: split it or move large values out of the document"
	case 429:
		return "throttled: the physical partition ran out of request units for this second; a hot partition key or too little " +
			"throughput for the pattern's rate"
	case 408:
		return "the request timed out on the target"
	}
	return ""
}
