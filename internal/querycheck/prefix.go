package querycheck

import (
	"strings"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine/sql"
)

// PrefixForm is how pattern ap sends a hierarchical-key prefix (design.PrefixOptions, PrefixWhere,
// PrefixBoth), "" when it sends none (or the full key), and how many levels the prefix has. Stated
// by prefixIn; otherwise read from the pattern: the request's partitionKey and the leading levels
// WHERE pins by equality — except under app.sdk efcore, which lifts a prefix equality out of WHERE
// into the request (efcore #38598). Lint weighs the form (hpk-prefix-options), the estimator and
// the probe (which sends the prefix in the request for options and both) follow it.
func PrefixForm(d *design.Design, c *design.Container, ap *design.AccessPattern) (string, int) {
	if !c.IsHierarchical() || ap.Op != design.OpQuery || len(ap.PartitionKey) >= len(c.PartitionKey) {
		return "", 0
	}
	q, err := sql.Parse(ap.Query)
	if err != nil {
		return "", 0
	}
	eq := q.KeyEqualities(c.KeyPaths(), ScalarParams(c, ap))
	inWhere := 0
	for inWhere < len(eq) && len(eq[inWhere]) == 1 {
		inWhere++
	}
	if inWhere == len(c.PartitionKey) {
		return "", 0 // WHERE pins the full key: one logical partition
	}
	n := max(len(ap.PartitionKey), inWhere)
	if n == 0 {
		return "", 0
	}
	if ap.PrefixIn != "" {
		return ap.PrefixIn, n
	}
	switch {
	case d.SDKName() == design.SDKEFCore && inWhere > 0:
		return design.PrefixOptions, n
	case len(ap.PartitionKey) > 0 && inWhere >= len(ap.PartitionKey):
		return design.PrefixBoth, n
	case len(ap.PartitionKey) > 0:
		return design.PrefixOptions, n
	}
	return design.PrefixWhere, n
}

// ScalarParams is ap.Params with each "{field}" placeholder that names an array or object field of
// the sampled type replaced by an empty array: at run time it is not a scalar, so it pins no key
// (sql.Query.SingleKey), as the engine will find.
func ScalarParams(c *design.Container, ap *design.AccessPattern) map[string]any {
	dt := c.DocType(ap.Sample)
	if dt == nil || len(ap.Params) == 0 {
		return ap.Params
	}
	out := make(map[string]any, len(ap.Params))
	for k, v := range ap.Params {
		out[k] = v
		s, ok := v.(string)
		if !ok || !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") || strings.Count(s, "{") != 1 {
			continue
		}
		fs, f := dt.Fields, (*design.Field)(nil)
		for seg := range strings.SplitSeq(strings.Trim(s, "{}"), ".") {
			g, found := fs.Lookup(seg)
			if !found {
				f = nil
				break
			}
			f, fs = g, g.Object
		}
		if f != nil && (f.Array != nil || len(f.Object) > 0) {
			out[k] = []any{}
		}
	}
	return out
}
