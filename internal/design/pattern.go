package design

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// opFields says which pattern keys an operation takes: required ones and optional ones.
var opFields = map[string]struct{ required, optional []string }{
	OpRead:    {[]string{"sample", "itemId", "partitionKey"}, []string{"consistency"}},
	OpQuery:   {[]string{"query"}, []string{"sample", "params", "partitionKey", "consistency", "prefixIn"}},
	OpCreate:  {[]string{"document"}, []string{"sample", "partitionKey"}},
	OpUpsert:  {[]string{"document"}, []string{"sample", "partitionKey"}},
	OpReplace: {[]string{"sample", "itemId", "partitionKey", "document"}, nil},
	OpPatch:   {[]string{"sample", "itemId", "partitionKey", "patch"}, []string{"condition"}},
	OpDelete:  {[]string{"sample", "itemId", "partitionKey"}, nil},
	OpBatch:   {[]string{"sample", "partitionKey", "batch"}, nil},
	// A changeFeed with a partitionKey (templates filled from the sample) reads one logical partition.
	OpChangeFeed: {nil, []string{"sample", "partitionKey", "changeFeed"}},
}

// patternKeySet reports which op-dependent keys a pattern sets.
func patternKeySet(p *AccessPattern) map[string]bool {
	return map[string]bool{
		"sample":       p.Sample != "",
		"document":     p.Document != "",
		"itemId":       p.ItemID != "",
		"partitionKey": len(p.PartitionKey) > 0,
		"query":        strings.TrimSpace(p.Query) != "",
		"params":       len(p.Params) > 0,
		"patch":        len(p.Patch) > 0,
		"condition":    p.Condition != "",
		"batch":        len(p.Batch) > 0,
		"changeFeed":   p.ChangeFeed != nil,
		"consistency":  p.Consistency != "",
		"prefixIn":     p.PrefixIn != "",
	}
}

var patternKeys = []string{"sample", "document", "itemId", "partitionKey", "query", "params", "patch", "condition", "batch", "changeFeed", "consistency", "prefixIn"}

func (v *validator) checkPattern(path string, p *AccessPattern) {
	if strings.TrimSpace(p.ID) == "" {
		v.errf(path+".id", "must not be empty (e.g. AP1)")
	}
	if strings.TrimSpace(p.Name) == "" {
		v.errf(path+".name", "must not be empty: say what the application does")
	}
	if p.RPS.Avg < 0 {
		v.errf(path+".rps.avg", "must not be negative (got %g)", p.RPS.Avg)
	}
	if p.RPS.Peak < p.RPS.Avg {
		v.errf(path+".rps.peak", "must be at least avg (%g); got %g", p.RPS.Avg, p.RPS.Peak)
	}
	if p.RPS.HotKeyShare < 0 || p.RPS.HotKeyShare > 1 || (p.RPS.HotKeyShare == 0 && v.present(path+".rps.hotKeyShare")) {
		v.errf(path+".rps.hotKeyShare", "must be a share between 0 and 1 of the requests that land on the busiest key value (got %g), e.g. 0.9; omit it to follow the documents' key distribution", p.RPS.HotKeyShare)
	}
	v.checkShape(path+".rps", p.RPS.Shape, p.RPS.Hourly)
	v.checkPriorityBucket(path, p)
	if p.Estimate.RU <= 0 {
		v.errf(path+".estimate.ru", "must be greater than 0 (got %g): every request costs at least 1 RU", p.Estimate.RU)
	}
	if p.Estimate.Measured < 0 || math.IsInf(p.Estimate.Measured, 0) || math.IsNaN(p.Estimate.Measured) {
		v.errf(path+".estimate.measured", "must be a charge of at least 0 RU (got %g); omit it when nothing was measured", p.Estimate.Measured)
	}
	v.checkBand(path+".tolerance", p.Tolerance)
	v.checkBand(path+".regression", p.Regression)
	if p.Samples < 0 || p.Samples > MaxSamples {
		v.errf(path+".samples", "must be between 1 and %d (got %d); omit it for the default", MaxSamples, p.Samples)
	}
	if e := p.Expect; e != nil {
		if e.MinResults != nil && *e.MinResults < 0 {
			v.errf(path+".expect.minResults", "must not be negative")
		}
		if e.MaxResults != nil && *e.MaxResults < 0 {
			v.errf(path+".expect.maxResults", "must not be negative")
		}
		if e.MinResults != nil && e.MaxResults != nil && *e.MinResults > *e.MaxResults {
			v.errf(path+".expect", "minResults (%d) must not exceed maxResults (%d)", *e.MinResults, *e.MaxResults)
		}
		if e.Status != 0 && (e.Status < 100 || e.Status > 599) {
			v.errf(path+".expect.status", "must be an HTTP status code (got %d)", e.Status)
		}
	}
	if !v.checkEnum(path+".op", p.Op, Ops) {
		return
	}
	c := v.d.Container(p.Container)
	if c == nil {
		names := make([]string, len(v.d.Containers))
		for i, c := range v.d.Containers {
			names[i] = c.Name
		}
		v.errf(path+".container", "no container %q%s", p.Container, didYouMean(p.Container, names))
		return
	}
	spec := opFields[p.Op]
	set := patternKeySet(p)
	var missing []string
	for _, k := range patternKeys {
		switch {
		case slices.Contains(spec.required, k) && !set[k]:
			missing = append(missing, k)
		case set[k] && !slices.Contains(spec.required, k) && !slices.Contains(spec.optional, k):
			v.errf(path+"."+k, "does not apply to op %s", p.Op)
		}
	}
	// itemId, partitionKey (and a replace's document) default from the sample: without it they are
	// missing too, but the sample is the one thing to add.
	var defaulted []string
	if slices.Contains(missing, "sample") {
		missing = slices.DeleteFunc(missing, func(k string) bool {
			d := k == "itemId" || k == "partitionKey" || (k == "document" && p.Op == OpReplace)
			if d {
				defaulted = append(defaulted, k)
			}
			return d
		})
	}
	if len(missing) > 0 {
		msg := fmt.Sprintf("op %s needs %s", p.Op, joinAnd(missing))
		if len(defaulted) > 0 {
			verb := "default"
			if len(defaulted) == 1 {
				verb = "defaults"
			}
			msg += fmt.Sprintf(" (the document type it acts on; %s %s from it)", joinAnd(defaulted), verb)
		}
		v.errf(path, "%s", msg)
	}
	if p.Consistency != "" {
		v.checkEnum(path+".consistency", p.Consistency, ConsistencyLevels)
	}
	if p.PrefixIn != "" && v.checkEnum(path+".prefixIn", p.PrefixIn, PrefixForms) && !c.IsHierarchical() {
		v.errf(path+".prefixIn", "applies to a query on a hierarchical partition key; container %s has one level (%s)", c.Name, strings.Join(c.PartitionKey, ", "))
	}
	x := docCtx{c: c}
	typeRef := func(key, name string) *DocType {
		if name == "" {
			return nil
		}
		t := c.DocType(name)
		if t == nil && key == "sample" && sampleMayBeElsewhere(p) {
			// A query's parameters, or new children's parent, may come from a document of
			// another container: a child type kept in a container of its own is queried with its
			// parent's key and created under a parent sampled there.
			for i := range v.d.Containers {
				if t == nil {
					t = v.d.Containers[i].DocType(name)
				}
			}
		}
		if t == nil {
			v.errf(path+"."+key, "no document type %q in container %s%s", name, c.Name, didYouMean(name, typeNames(c)))
		}
		return t
	}
	sample := typeRef("sample", p.Sample)
	doc := typeRef("document", p.Document)
	switch {
	case sample != nil:
		x.t = sample
	case doc != nil && (p.Op == OpCreate || p.Op == OpUpsert):
		x.t = doc
	}
	if x.t != nil && x.t.Parent != nil {
		x.parent = c.DocType(x.t.Parent.Type)
	}
	if (p.Sample != "" && sample == nil) || (p.Document != "" && doc == nil) {
		return // placeholders cannot be checked against a type that does not exist
	}

	levels := len(c.PartitionKey)
	switch n := len(p.PartitionKey); {
	case n > levels:
		v.errf(path+".partitionKey", "has %d values but container %s's key has %d level(s) (%s)", n, c.Name, levels, strings.Join(c.PartitionKey, ", "))
	case n > 0 && n < levels && p.Op != OpQuery:
		v.errf(path+".partitionKey", "has %d of %d levels; only queries may give a hierarchical key prefix", n, levels)
	}
	_, written := v.pos[path+".partitionKey"]
	for i, t := range p.PartitionKey {
		if !written && v.badKey[c.Name] {
			break // derived from the container's key, which is reported already
		}
		v.checkTemplate(fmt.Sprintf("%s.partitionKey[%d]", path, i), t, x)
	}
	if p.ItemID != "" {
		v.checkTemplate(path+".itemId", p.ItemID, x)
	}
	if p.Op == OpQuery {
		v.checkQuery(path, p, x)
	}
	if len(p.Patch) > MaxPatchOps {
		v.errf(path+".patch", "has %d operations; the service allows at most %d in one patch", len(p.Patch), MaxPatchOps)
	}
	for i := range p.Patch {
		v.checkPatchOp(fmt.Sprintf("%s.patch[%d]", path, i), &p.Patch[i], x)
	}
	if p.Condition != "" && !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(p.Condition)), "FROM ") {
		v.errf(path+".condition", "must be a filter predicate starting with FROM, e.g. \"FROM c WHERE c.status = 'pending'\"")
	}
	if p.Op == OpBatch {
		v.checkBatch(path, p, c, x)
	}
	if p.Op == OpChangeFeed {
		v.checkChangeFeed(path, p)
	}
}

// ChangeFeedScopes lists the scopes of a changeFeed pattern.
var ChangeFeedScopes = []string{"container", "range"}

func (v *validator) checkChangeFeed(path string, p *AccessPattern) {
	if len(p.PartitionKey) > 0 && p.Sample == "" {
		v.errf(path+".sample", "a changeFeed with partitionKey needs sample: the document type whose key it reads")
	}
	cf := p.ChangeFeed
	if cf == nil {
		return
	}
	switch cf.From {
	case "", "beginning", "now":
	default:
		if _, err := time.Parse(time.RFC3339, cf.From); err != nil {
			v.errf(path+".changeFeed.from", "must be beginning, now or an RFC 3339 time such as 2024-05-01T00:00:00Z (got %q)", cf.From)
		}
	}
	if cf.Scope != "" {
		v.checkEnum(path+".changeFeed.scope", cf.Scope, ChangeFeedScopes)
	}
	if cf.Scope == "range" && len(p.PartitionKey) > 0 {
		v.errf(path+".changeFeed.scope", "range does not apply with partitionKey: the key's own range is read")
	}
	if cf.PageSize < 0 || cf.PageSize > MaxChangeFeedPage {
		v.errf(path+".changeFeed.pageSize", "must be between 1 and %d (got %d); omit it for 100", MaxChangeFeedPage, cf.PageSize)
	}
}

// MaxChangeFeedPage bounds a changeFeed pattern's page size.
const MaxChangeFeedPage = 10000

func (v *validator) checkQuery(path string, p *AccessPattern, x docCtx) {
	q := strings.TrimSpace(p.Query)
	if !strings.HasPrefix(strings.ToUpper(q), "SELECT") {
		v.errf(path+".query", "must be a SELECT query")
	}
	used := QueryParams(q)
	for _, name := range used {
		if _, ok := p.Params[name]; !ok {
			v.errf(path+".params", "the query uses %s but params does not define it", name)
		}
	}
	keys := make([]string, 0, len(p.Params))
	for k := range p.Params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		kp := joinPath(path+".params", k)
		switch {
		case !strings.HasPrefix(k, "@"):
			v.errf(kp, "parameter names start with \"@\" (got %q)", k)
		case !slices.Contains(used, k):
			v.errf(kp, "%s is not used in the query", k)
		}
		v.checkValueTemplates(kp, p.Params[k], x)
	}
}

// checkValueTemplates checks the placeholders in every string inside a literal value.
func (v *validator) checkValueTemplates(path string, val any, x docCtx) {
	switch t := val.(type) {
	case string:
		v.checkTemplate(path, t, x)
	case []any:
		for i, e := range t {
			v.checkValueTemplates(fmt.Sprintf("%s[%d]", path, i), e, x)
		}
	case map[string]any:
		for k, e := range t {
			v.checkValueTemplates(joinPath(path, k), e, x)
		}
	}
}

func (v *validator) checkPatchOp(path string, op *PatchOp, x docCtx) {
	if !v.checkEnum(path+".op", op.Op, PatchOps) {
		return
	}
	if !strings.HasPrefix(op.Path, "/") || op.Path == "/" {
		v.errf(path+".path", "must be a property path starting with \"/\" (got %q)", op.Path)
	}
	switch op.Path {
	case "/id", "/_ts", "/_etag", "/_rid", "/_self":
		v.errf(path+".path", "%s cannot be patched", op.Path)
	}
	hasValue := op.Value != nil || v.present(path+".value")
	switch op.Op {
	case "remove":
		if hasValue {
			v.errf(path+".value", "remove takes no value")
		}
	case "move":
		if !strings.HasPrefix(op.From, "/") {
			v.errf(path+".from", "move needs from: the source path, starting with \"/\"")
		}
		if hasValue {
			v.errf(path+".value", "move takes no value")
		}
	case "incr":
		switch op.Value.(type) {
		case int, float64:
		default:
			v.errf(path+".value", "incr needs a number (got %v)", op.Value)
		}
	default:
		if !hasValue {
			v.errf(path, "%s needs a value", op.Op)
		}
	}
	if op.From != "" && op.Op != "move" {
		v.errf(path+".from", "applies only to move")
	}
	v.checkValueTemplates(path+".value", op.Value, x)
}

func (v *validator) checkBatch(path string, p *AccessPattern, c *Container, x docCtx) {
	total := 0
	for i := range p.Batch {
		b := &p.Batch[i]
		bp := fmt.Sprintf("%s.batch[%d]", path, i)
		if b.Repeat < 1 || b.Repeat > MaxBatchOps {
			v.errf(bp+".repeat", "must be between 1 and %d (got %d)", MaxBatchOps, b.Repeat)
		}
		total += max(b.Repeat, 1)
		if !v.checkEnum(bp+".op", b.Op, BatchOps) {
			continue
		}
		needsDoc := b.Op == OpCreate || b.Op == OpUpsert || b.Op == OpReplace
		needsID := b.Op != OpCreate && b.Op != OpUpsert
		switch {
		case needsDoc && b.Document == "":
			v.errf(bp, "%s needs document: the type of the document to write", b.Op)
		case !needsDoc && b.Document != "":
			v.errf(bp+".document", "does not apply to %s", b.Op)
		case b.Document != "" && c.DocType(b.Document) == nil:
			v.errf(bp+".document", "no document type %q in container %s%s", b.Document, c.Name, didYouMean(b.Document, typeNames(c)))
		}
		switch {
		case needsID && b.ItemID == "":
			v.errf(bp, "%s needs itemId", b.Op)
		case !needsID && b.ItemID != "":
			v.errf(bp+".itemId", "does not apply to %s", b.Op)
		case b.ItemID != "":
			v.checkTemplate(bp+".itemId", b.ItemID, x)
		}
		switch {
		case b.Op == OpPatch && len(b.Patch) == 0:
			v.errf(bp, "patch needs patch: the operations")
		case b.Op != OpPatch && len(b.Patch) > 0:
			v.errf(bp+".patch", "applies only to patch")
		case len(b.Patch) > MaxPatchOps:
			v.errf(bp+".patch", "has %d operations; the service allows at most %d in one patch", len(b.Patch), MaxPatchOps)
		}
		for j := range b.Patch {
			v.checkPatchOp(fmt.Sprintf("%s.patch[%d]", bp, j), &b.Patch[j], x)
		}
	}
	if total > MaxBatchOps {
		v.errf(path+".batch", "holds %d operations (repeats counted); a transactional batch allows at most %d", total, MaxBatchOps)
	}
}

// joinAnd joins words as "a", "a and b", "a, b and c".
func joinAnd(words []string) string {
	if len(words) <= 1 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// sampleMayBeElsewhere reports whether a pattern's sample may be a type of another container: a
// query (its parameters) or writes that only create documents (the sample is their parent), never
// an operation on the sampled document itself.
func sampleMayBeElsewhere(p *AccessPattern) bool {
	switch p.Op {
	case OpQuery, OpCreate, OpUpsert:
		return true
	case OpBatch:
		for _, b := range p.Batch {
			if b.Op != OpCreate && b.Op != OpUpsert {
				return false
			}
		}
		return len(p.Batch) > 0
	}
	return false
}
