package probe

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/sdk"
)

// explain says in plain words why an execution failed and what to do about it.
func explain(ap *design.AccessPattern, c *design.Container, status int, msg string) string {
	lower := strings.ToLower(msg)
	switch status {
	case 400:
		if ap.Op == design.OpQuery {
			shape := queryShape(ap.Query)
			crossPartition := len(ap.PartitionKey) < len(c.PartitionKey)
			if crossPartition && len(shape) > 0 && !strings.Contains(lower, "composite index") {
				return fmt.Sprintf("this query uses %s across partitions. The Go SDK has no query engine: it runs queries through "+
					"the gateway, which serves only filters and projections across partitions. Give the full partition key (%s) "+
					"so one partition answers, denormalise so that it can, or run the query from an SDK with a query engine "+
					"(.NET, Java, Python, JavaScript)", strings.Join(shape, ", "), strings.Join(c.PartitionKey, ", "))
			}
			if items := orderByItems(ap.Query); len(items) > 0 &&
				(strings.Contains(lower, "composite index") || strings.Contains(lower, "order by") || strings.Contains(lower, "order-by")) {
				if len(items) == 1 {
					return fmt.Sprintf("ORDER BY %s needs a range index on %s: include the path %s/? in container %s's indexing policy",
						items[0].path, items[0].path, items[0].path, c.Name)
				}
				return fmt.Sprintf("ORDER BY on %d properties needs a composite index with the same paths and orders (or all "+
					"reversed): add %s to container %s's indexing policy", len(items), compositeText(items), c.Name)
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

type orderItem struct {
	path string
	desc bool
}

func compositeText(items []orderItem) string {
	parts := make([]string, len(items))
	for i, it := range items {
		order := "ascending"
		if it.desc {
			order = "descending"
		}
		parts[i] = fmt.Sprintf(`{"path": "%s", "order": "%s"}`, it.path, order)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

var (
	stringLitRe = regexp.MustCompile(`'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"`)
	fromRe      = regexp.MustCompile(`(?i)\bFROM\s+([A-Za-z_][A-Za-z0-9_]*)(?:\s+(?:AS\s+)?([A-Za-z_][A-Za-z0-9_]*))?`)
	orderByRe   = regexp.MustCompile(`(?i)\bORDER\s+BY\b`)
	tailRe      = regexp.MustCompile(`(?i)\b(OFFSET|LIMIT)\b`)
	topRe       = regexp.MustCompile(`(?i)\bSELECT\s+(DISTINCT\s+)?(VALUE\s+)?TOP\b`)
	distinctRe  = regexp.MustCompile(`(?i)\bSELECT\s+DISTINCT\b`)
	groupByRe   = regexp.MustCompile(`(?i)\bGROUP\s+BY\b`)
	offsetRe    = regexp.MustCompile(`(?i)\bOFFSET\b[^;]*\bLIMIT\b`)
	aggRe       = regexp.MustCompile(`(?i)\b(COUNT|SUM|AVG|MIN|MAX)\s*\(`)
)

func stripLiterals(q string) string { return stringLitRe.ReplaceAllString(q, "''") }

// queryShape lists the clauses of q that the gateway cannot serve across partitions for the Go SDK.
func queryShape(q string) []string {
	q = stripLiterals(q)
	var out []string
	if orderByRe.MatchString(q) {
		out = append(out, "ORDER BY")
	}
	if topRe.MatchString(q) {
		out = append(out, "TOP")
	}
	if offsetRe.MatchString(q) {
		out = append(out, "OFFSET/LIMIT")
	}
	if distinctRe.MatchString(q) {
		out = append(out, "DISTINCT")
	}
	if groupByRe.MatchString(q) {
		out = append(out, "GROUP BY")
	}
	if aggRe.MatchString(q) {
		out = append(out, "an aggregate")
	}
	return out
}

// queryAlias is the alias the query's FROM clause gives the container ("c" in FROM c, "o" in FROM
// Orders o).
func queryAlias(q string) string {
	m := fromRe.FindStringSubmatch(stripLiterals(q))
	if m == nil {
		return "c"
	}
	if m[2] != "" && !isKeyword(m[2]) {
		return m[2]
	}
	return m[1]
}

func isKeyword(s string) bool {
	switch strings.ToUpper(s) {
	case "WHERE", "ORDER", "GROUP", "JOIN", "OFFSET", "LIMIT", "IN":
		return true
	}
	return false
}

// orderByItems parses the ORDER BY items of q into document paths ("/userId") with their direction.
func orderByItems(q string) []orderItem {
	s := stripLiterals(bracketRe.ReplaceAllString(q, ".$1"))
	loc := orderByRe.FindStringIndex(s)
	if loc == nil {
		return nil
	}
	s = s[loc[1]:]
	if t := tailRe.FindStringIndex(s); t != nil {
		s = s[:t[0]]
	}
	alias := queryAlias(q)
	var out []orderItem
	for _, raw := range strings.Split(s, ",") {
		f := strings.Fields(strings.TrimSpace(raw))
		if len(f) == 0 {
			continue
		}
		it := orderItem{path: exprPath(f[0], alias)}
		if len(f) > 1 && strings.EqualFold(f[1], "DESC") {
			it.desc = true
		}
		out = append(out, it)
	}
	return out
}

var bracketRe = regexp.MustCompile(`\[\s*['"]([^'"]+)['"]\s*\]`)

// exprPath turns c.a.b or c["a"].b into /a/b.
func exprPath(expr, alias string) string {
	expr = bracketRe.ReplaceAllString(expr, ".$1")
	expr = strings.TrimPrefix(expr, alias)
	return "/" + strings.ReplaceAll(strings.TrimPrefix(expr, "."), ".", "/")
}

// filtersOn reports whether q's text mentions the property at path (e.g. /tenantId as c.tenantId or
// c["tenantId"]) after WHERE.
func filtersOn(q, alias, path string) bool {
	s := stripLiterals(bracketRe.ReplaceAllString(q, ".$1"))
	w := regexp.MustCompile(`(?i)\bWHERE\b`).FindStringIndex(s)
	if w == nil {
		return false
	}
	s = s[w[1]:]
	segs := design.SplitPath(path)
	dotted := alias + "." + strings.Join(segs, ".")
	return regexp.MustCompile(`\b` + regexp.QuoteMeta(dotted) + `\b`).MatchString(s)
}
