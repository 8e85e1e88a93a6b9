package lint

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine/sql"
)

// The design review: mistakes that pass a run on seeded data and hurt in production. Each rule
// reports at the field it is about, with the numbers behind it and the YAML to paste.

// ReviewCodes are the codes of the design-review rules: the mistakes a run on seeded data passes
// and production pays for. Run repeats them (pipeline.DesignFindings): a pattern's make its verdict
// at least warn, a container's are warn findings of the run.
var ReviewCodes = []string{
	"ttl-ignored", "ttl-expires-all", "ttl-range", "ttl-change-feed",
	"partition-key-template", "partition-key-order", "partition-key-patch", "lost-partition-key", "expect-single-partition",
	"over-provisioned", "composite-duplicate", "index-unused", "hpk-order", "filter-unmatched",
	"hpk-level-skipped", "cross-partition-aggregate", "low-cardinality-key", "unbounded-array", "hpk-prefix-options",
}

// maxTTL is the largest time to live the service accepts, in seconds (articles/cosmos-db/
// time-to-live.md: the maximum TTL is 2,147,483,647 seconds, and an item's ttl must be a nonzero
// positive integer up to it, or -1 for never; null is not supported).
const maxTTL = math.MaxInt32

// ttlRules: an item's ttl is obeyed only when the container has TTL on (defaultTtl set); a positive
// defaultTtl expires every type that sets no ttl of its own; ttl values the service refuses; and a
// latest-version change feed that never sees an expired item go.
func (l *linter) ttlRules() {
	for ci := range l.d.Containers {
		c := &l.d.Containers[ci]
		cp := fmt.Sprintf("containers[%d]", ci)
		var with, without []string
		for ti := range c.Documents {
			dt := &c.Documents[ti]
			f, written := itemTTL(dt)
			if !written {
				without = append(without, dt.Type)
				continue
			}
			with = append(with, dt.Type)
			fp := fmt.Sprintf("%s.documents[%d].fields.ttl", cp, ti)
			if f != nil {
				l.ttlRange(fp, dt.Type, f)
			}
			if c.DefaultTTL == nil {
				l.add(fp, "ttl-ignored",
					"document type %s carries a ttl%s but container %s has no defaultTtl: the service ignores an item's ttl while TTL is off on its container, so %s documents never expire; turn TTL on without a default expiry: add to %s: defaultTtl: -1",
					dt.Type, ttlWords(f), c.Name, dt.Type, cp)
			}
		}
		if t := c.DefaultTTL; t != nil && *t > maxTTL {
			l.add(cp+".defaultTtl", "ttl-range", "defaultTtl %d is over the %d seconds the service accepts; give at most defaultTtl: %d", *t, maxTTL, maxTTL)
		}
		if t := c.DefaultTTL; t != nil && *t > 0 && len(c.Documents) > 1 && len(without) > 0 {
			l.add(cp+".defaultTtl", "ttl-expires-all",
				"defaultTtl %d expires every document of container %s %s after its last write, %s too, which set no ttl of their own; to expire only some types: defaultTtl: -1, and ttl: {const: %d} on each type that should expire (or, to keep this default, ttl: {const: -1} on each type that must never expire)",
				*t, c.Name, duration(*t), joinTypes(without), *t)
		}
		if c.DefaultTTL == nil {
			l.ttlPatches(ci, c)
		}
		expires := c.DefaultTTL != nil && (*c.DefaultTTL > 0 || len(with) > 0)
		if !expires {
			continue
		}
		for i := range l.d.AccessPatterns {
			ap := &l.d.AccessPatterns[i]
			if ap.Op != design.OpChangeFeed || ap.Container != c.Name {
				continue
			}
			what := fmt.Sprintf("defaultTtl %d", *c.DefaultTTL)
			if *c.DefaultTTL <= 0 {
				what = "the ttl of " + strings.Join(with, ", ")
			}
			l.add(fmt.Sprintf("accessPatterns[%d]", i), "ttl-change-feed",
				"%s reads the change feed of %s, where %s expires documents: an expiry is a delete, and the latest-version change feed has no deletes, so %s never sees a document go; mark it first (patch: [{op: set, path: /deleted, value: true}] then let its ttl expire it) or read the all-versions-and-deletes mode",
				ap.ID, c.Name, what, ap.ID)
		}
	}
}

// ttlPatches flags a patch (of a pattern or a batch) that sets an item's /ttl in a container with TTL
// off (no defaultTtl): the service ignores it.
func (l *linter) ttlPatches(ci int, c *design.Container) {
	for i := range l.d.AccessPatterns {
		ap := &l.d.AccessPatterns[i]
		if ap.Container != c.Name {
			continue
		}
		path := fmt.Sprintf("accessPatterns[%d]", i)
		check := func(pp string, ops []design.PatchOp) {
			for j, op := range ops {
				if op.Path == "/ttl" && op.Op != "remove" {
					l.add(fmt.Sprintf("%s[%d].path", pp, j), "ttl-ignored",
						"%s sets /ttl but container %s has no defaultTtl: the service ignores an item's ttl while TTL is off on its container, so the document never expires; turn TTL on without a default expiry: add to containers[%d]: defaultTtl: -1",
						ap.ID, c.Name, ci)
				}
			}
		}
		check(path+".patch", ap.Patch)
		for bi, b := range ap.Batch {
			check(fmt.Sprintf("%s.batch[%d].patch", path, bi), b.Patch)
		}
	}
}

// itemTTL is a type's generated ttl field (nil when the application writes it: appFields /ttl) and
// whether the type's documents carry one at all.
func itemTTL(dt *design.DocType) (*design.Field, bool) {
	if f, ok := dt.Fields.Lookup("ttl"); ok {
		return f, true
	}
	return nil, slices.Contains(dt.AppFields, "/ttl")
}

func ttlWords(f *design.Field) string {
	if f == nil {
		return " (written by the application)"
	}
	if v, ok := number(f.Const); ok {
		return fmt.Sprintf(" (%g s)", v)
	}
	return ""
}

// ttlRange reports ttl values the service refuses: 0, negatives other than -1, fractions and values
// over maxTTL.
func (l *linter) ttlRange(path, typ string, f *design.Field) {
	var bad []string
	check := func(v any) {
		x, ok := number(v)
		if !ok {
			bad = append(bad, fmt.Sprintf("%v (not a number)", v))
			return
		}
		if x != -1 && (x < 1 || x > maxTTL || x != math.Trunc(x)) {
			bad = append(bad, fmt.Sprintf("%g", x))
		}
	}
	switch {
	case f.Const != nil:
		check(f.Const)
	case len(f.OneOf) > 0:
		for _, v := range f.OneOf {
			check(v)
		}
	case f.Gen == "int" || f.Gen == "decimal":
		if f.Min != nil && *f.Min != -1 && *f.Min < 1 {
			bad = append(bad, fmt.Sprintf("%g (min)", *f.Min))
		}
		if f.Max != nil && *f.Max > maxTTL {
			bad = append(bad, fmt.Sprintf("%g (max)", *f.Max))
		}
		if f.Gen == "decimal" {
			bad = append(bad, "fractions (gen decimal)")
		}
	case f.Gen != "":
		bad = append(bad, "values of gen "+f.Gen)
	}
	if len(bad) > 0 {
		l.add(path, "ttl-range", "ttl of %s takes %s: the service accepts -1 (never expire) or a whole number of seconds from 1 to %d and refuses the write otherwise (400); e.g. ttl: {const: 600}",
			typ, strings.Join(bad, ", "), maxTTL)
	}
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// duration says a number of seconds in the largest unit that divides it.
func duration(s int) string {
	for _, u := range []struct {
		n    int
		name string
	}{{86400, "day"}, {3600, "hour"}, {60, "minute"}} {
		if s >= u.n && s%u.n == 0 {
			return design.Count(s/u.n, u.name)
		}
	}
	return design.Count(s, "second")
}

func joinTypes(ts []string) string {
	if len(ts) == 1 {
		return "documents of type " + ts[0]
	}
	return "the types " + strings.Join(ts[:len(ts)-1], ", ") + " and " + ts[len(ts)-1]
}

// source is where a field's values come from after following copies: a type and a path in it.
type source struct{ typ, path string }

// sourceOf follows copies from the field at path (dotted, from the document root; "parent.x" for
// the parent's) of dt to the field that generates the values. ok is false when the path names no
// field.
func sourceOf(c *design.Container, dt *design.DocType, path string) (source, bool) {
	for range 8 {
		if rest, ok := strings.CutPrefix(path, "parent."); ok {
			if dt.Parent == nil {
				return source{}, false
			}
			if dt = c.DocType(dt.Parent.Type); dt == nil {
				return source{}, false
			}
			path = rest
			continue
		}
		if path == "id" {
			return source{dt.Type, "id"}, true
		}
		f := fieldOf(dt, path)
		if f == nil {
			return source{}, false
		}
		if f.Copy == "" {
			return source{dt.Type, path}, true
		}
		path = f.Copy
	}
	return source{dt.Type, path}, true
}

// fieldOf is the field at a dotted path of dt, nil when none.
func fieldOf(dt *design.DocType, path string) *design.Field {
	fs, f := dt.Fields, (*design.Field)(nil)
	for seg := range strings.SplitSeq(path, ".") {
		g, ok := fs.Lookup(seg)
		if !ok {
			return nil
		}
		f, fs = g, g.Object
	}
	return f
}

// keyTemplateVerdict compares a value template (a partitionKey entry, a query parameter) with the
// key path it must match, for documents of dt: same when the template reads the key field (through
// copies), differ when it reads another field, and unknown when it cannot be told (several
// placeholders, a key field the type does not have).
func keyTemplateVerdict(c *design.Container, dt *design.DocType, tmpl string, key []string) (reads string, same, known bool) {
	keyDotted := strings.Join(key, ".")
	kf := fieldOf(dt, keyDotted)
	if kf == nil && keyDotted != "id" {
		return "", false, false
	}
	names := design.Placeholders(tmpl)
	if len(names) != 1 || tmpl != "{"+names[0]+"}" {
		return "", kf != nil && kf.Template == tmpl, kf != nil && kf.Template != ""
	}
	got, ok1 := sourceOf(c, dt, names[0])
	want, ok2 := sourceOf(c, dt, keyDotted)
	if !ok1 || !ok2 {
		return names[0], false, false
	}
	return names[0], got == want, true
}

// keyTemplates checks each pattern's partitionKey templates and the parameters its query compares
// with a key path against the container's key paths: the count and order of an HPK's levels and the
// field each template reads. A template that reads another field targets a logical partition that
// holds none of the documents meant: run returns nothing, and the pattern's charge is a miss's.
func (l *linter) keyTemplates() {
	for i := range l.d.AccessPatterns {
		ap := &l.d.AccessPatterns[i]
		c := l.d.Container(ap.Container)
		if c == nil {
			continue
		}
		dt := c.DocType(ap.Sample)
		if dt == nil {
			continue
		}
		keys := c.KeyPaths()
		path := fmt.Sprintf("accessPatterns[%d]", i)
		for k, tmpl := range ap.PartitionKey {
			if k >= len(keys) {
				break
			}
			reads, same, known := keyTemplateVerdict(c, dt, tmpl, keys[k])
			if !known || same {
				continue
			}
			for j := range keys {
				if _, s, kn := keyTemplateVerdict(c, dt, tmpl, keys[j]); j != k && kn && s {
					l.add(fmt.Sprintf("%s.partitionKey[%d]", path, k), "partition-key-order",
						"partitionKey[%d] gives %s, the value of level %d (%s), but level %d of container %s's key is %s: hierarchical key values go in the key's order; give partitionKey: [%s]",
						k, tmpl, j+1, c.PartitionKey[j], k+1, c.Name, c.PartitionKey[k], strings.Join(templatesFor(c), ", "))
					reads = ""
					break
				}
			}
			if reads == "" {
				continue
			}
			l.add(fmt.Sprintf("%s.partitionKey[%d]", path, k), "partition-key-template",
				"partitionKey[%d] reads {%s} of %s, but container %s's key%s is %s: the request goes to the logical partition of a %s value, which holds none of the %s documents (run finds nothing, or a point operation 404s); give partitionKey: [%s]",
				k, reads, dt.Type, c.Name, levelWords(c, k), c.PartitionKey[k], reads, dt.Type, strings.Join(templatesFor(c), ", "))
		}
		if ap.Op != design.OpQuery {
			continue
		}
		q, err := sql.Parse(ap.Query)
		if err != nil {
			continue
		}
		for _, f := range sql.Analyze(q, nil).Filters {
			if f.Kind != sql.FilterEqual || f.Param == "" {
				continue
			}
			k := slices.IndexFunc(keys, func(kp []string) bool { return slices.Equal(kp, f.Path) })
			tmpl, _ := ap.Params[f.Param].(string)
			if k < 0 || tmpl == "" {
				continue
			}
			reads, same, known := keyTemplateVerdict(c, dt, tmpl, keys[k])
			if !known || same || reads == "" {
				continue
			}
			l.add(fmt.Sprintf("%s.params[%q]", path, f.Param), "partition-key-template",
				"%s compares the key path %s with %s = {%s} of %s, another field: no %s document has its %s equal to its %s (run finds nothing); give %s: \"{%s}\"",
				f.Text, c.PartitionKey[k], f.Param, reads, dt.Type, dt.Type, strings.Join(keys[k], "."), reads, f.Param, strings.Join(keys[k], "."))
		}
	}
}

func levelWords(c *design.Container, k int) string {
	if c.IsHierarchical() {
		return fmt.Sprintf(" level %d", k+1)
	}
	return ""
}

// templatesFor is the partitionKey templates that read a container's key paths: "{tenantId}".
func templatesFor(c *design.Container) []string {
	out := make([]string, len(c.PartitionKey))
	for i, kp := range c.KeyPaths() {
		out[i] = fmt.Sprintf("%q", "{"+strings.Join(kp, ".")+"}")
	}
	return out
}

// keyPathPatches flags a patch (of a pattern or a batch) that sets, replaces, removes or moves a
// partition-key path: the key of an item cannot change in place, and the service refuses the patch
// (400).
func (l *linter) keyPathPatches() {
	for i := range l.d.AccessPatterns {
		ap := &l.d.AccessPatterns[i]
		c := l.d.Container(ap.Container)
		if c == nil {
			continue
		}
		check := func(path string, ops []design.PatchOp) {
			for j, op := range ops {
				for _, p := range []struct{ field, value string }{{"path", op.Path}, {"from", op.From}} {
					kp := keyPathUnder(c, p.value)
					if kp == "" {
						continue
					}
					l.add(fmt.Sprintf("%s[%d].%s", path, j, p.field), "partition-key-patch",
						"patch %s of %s changes the partition key %s: an item's key cannot change in place and the service refuses the patch (400); to move it to another logical partition, delete it and create it under the new key (a create and a delete pattern), or key the container by a path that does not change",
						op.Op, p.value, kp)
				}
			}
		}
		path := fmt.Sprintf("accessPatterns[%d]", i)
		check(path+".patch", ap.Patch)
		for bi, b := range ap.Batch {
			check(fmt.Sprintf("%s.batch[%d].patch", path, bi), b.Patch)
		}
	}
}

// keyPathUnder is the key path that p is, or lies above ("/address" above "/address/city"); "".
func keyPathUnder(c *design.Container, p string) string {
	ps := design.SplitPath(p)
	if len(ps) == 0 {
		return ""
	}
	for i, kp := range c.KeyPaths() {
		if len(ps) <= len(kp) && slices.Equal(ps, kp[:len(ps)]) {
			return c.PartitionKey[i]
		}
	}
	return ""
}

// singlePartition decides statically whether every execution of a pattern reads or writes one
// logical partition: a point operation or a batch always does; a query when it gives the full key or
// WHERE pins one (sql.Query.SingleKey, the rule the engine routes by); a change feed when it gives a
// key. ok is false for a query that cannot be parsed.
func singlePartition(c *design.Container, ap *design.AccessPattern) (single, ok bool) {
	switch ap.Op {
	case design.OpQuery:
		if len(ap.PartitionKey) == len(c.PartitionKey) {
			return true, true
		}
		q, err := sql.Parse(ap.Query)
		if err != nil {
			return false, false
		}
		_, single := q.SingleKey(c.KeyPaths(), scalarParams(c, ap))
		return single, true
	case design.OpChangeFeed:
		return len(ap.PartitionKey) > 0, true
	}
	return true, true
}

// fanOuts flags a query that reads no partition key — none in the request, none pinned or filtered
// in WHERE — in a container whose other queries all give theirs: most likely a key filter was lost,
// and each execution checks every physical partition at production (at least the query floor in
// each). A fan-out that is meant says so with expect: {singlePartition: false}. It also decides
// expect.singlePartition from the design, before anything runs.
func (l *linter) fanOuts() {
	for i := range l.d.AccessPatterns {
		ap := &l.d.AccessPatterns[i]
		c := l.d.Container(ap.Container)
		if c == nil {
			continue
		}
		single, ok := singlePartition(c, ap)
		if !ok {
			continue
		}
		path := fmt.Sprintf("accessPatterns[%d]", i)
		if e := ap.Expect; e != nil && e.SinglePartition != nil && *e.SinglePartition != single {
			if *e.SinglePartition {
				l.add(path+".expect.singlePartition", "expect-single-partition",
					"expects one partition, but the %s gives %s and its WHERE pins no full key: it reads across partitions and run will fail the expectation; give partitionKey: [%s] (or filter every key path by equality), or expect: {singlePartition: false}",
					ap.Op, keyWords(ap), strings.Join(templatesFor(c), ", "))
			} else {
				l.add(path+".expect.singlePartition", "expect-single-partition",
					"expects a fan-out, but the %s reads one logical partition (it gives the full key, or WHERE pins one); drop singlePartition: false, or expect: {singlePartition: true} to have run check it", ap.Op)
			}
			continue
		}
		if !single && ap.RPS.HotKeyShare > 0 {
			l.add(path+".rps.hotKeyShare", "hot-key-share-unused",
				"the %s reads across partitions (no full key), so its requests land on no one key value: plan spreads its load over every physical partition and ignores hotKeyShare; drop it, or give the full key", ap.Op)
			l.out[len(l.out)-1].Note = true
		}
		if ap.Op != design.OpQuery || single || len(ap.PartitionKey) > 0 || (ap.Expect != nil && ap.Expect.SinglePartition != nil) {
			continue
		}
		q, err := sql.Parse(ap.Query)
		if err != nil || slices.ContainsFunc(q.KeyEqualities(c.KeyPaths(), scalarParams(c, ap)), func(v []any) bool { return v != nil }) {
			continue
		}
		if sh := q.Shape(); (sh.GroupBy || sh.Aggregate) && l.d.SDKName() != design.SDKGo {
			continue // named for what it is: cross-partition-aggregate
		}
		keyed := l.othersKeyed(i, c)
		if len(keyed) == 0 {
			continue
		}
		parts := 0
		if l.plan != nil {
			for _, pc := range l.plan.Containers {
				if pc.Name == c.Name {
					parts = pc.Partitions
				}
			}
		}
		l.addWeighed(path+".query", ap.ID, "lost-partition-key", fmt.Sprintf(
			"query has no partition-key filter while the other queries of %s (%s) give %s: it fans out to every physical partition, %d at production (each pays at least the ~2.3 RU query floor, every execution); if the key was lost, give partitionKey: [%s] (or filter c.%s = @%s); if the fan-out is meant, say so: expect: {singlePartition: false}",
			c.Name, strings.Join(keyed, ", "), strings.Join(c.PartitionKey, ", "), max(parts, 1), strings.Join(templatesFor(c), ", "),
			strings.Join(c.KeyPaths()[0], "."), c.KeyPaths()[0][len(c.KeyPaths()[0])-1]))
	}
}

// othersKeyed is the IDs of the other queries of c when pattern i has some and every one of them
// gives a key (the full key, or a prefix): nil otherwise. A fan-out among keyed queries most likely
// lost its key. A fan-out that says it is meant (expect: {singlePartition: false}) or costs a
// negligible share of the load (a nightly report) is no evidence either way: it does not hide a
// lost key beside it.
func (l *linter) othersKeyed(i int, c *design.Container) []string {
	var keyed []string
	for j := range l.d.AccessPatterns {
		o := &l.d.AccessPatterns[j]
		if j == i || o.Container != c.Name || o.Op != design.OpQuery {
			continue
		}
		if e := o.Expect; e != nil && e.SinglePartition != nil && !*e.SinglePartition {
			continue
		}
		if s, ok := singlePartition(c, o); ok && !s && len(o.PartitionKey) == 0 && l.weigh(o.ID).negligible(l.negligibleShare()) {
			continue
		}
		if s, ok := singlePartition(c, o); ok && (s || len(o.PartitionKey) > 0) {
			keyed = append(keyed, o.ID)
		} else {
			return nil
		}
	}
	return keyed
}

func keyWords(ap *design.AccessPattern) string {
	if len(ap.PartitionKey) == 0 {
		return "no partitionKey"
	}
	return fmt.Sprintf("a key prefix (%d level(s))", len(ap.PartitionKey))
}

// compositeDuplicates flags a composite index listed twice, or listed with every order reversed:
// the service serves an ORDER BY from an index or its full reverse, so the second copy costs index
// terms on every write and serves nothing the first does not.
func (l *linter) compositeDuplicates() {
	for ci := range l.d.Containers {
		ix := l.d.Containers[ci].Indexing
		if ix == nil {
			continue
		}
		for j := range ix.Composite {
			for i := range j {
				same, rev := compositeSame(ix.Composite[i], ix.Composite[j])
				if !same && !rev {
					continue
				}
				how := "repeats"
				if rev {
					how = "is the full reverse of"
				}
				l.add(fmt.Sprintf("containers[%d].indexing.composite[%d]", ci, j), "composite-duplicate",
					"composite index %s %s composite[%d]: an ORDER BY is served by an index or its full reverse, so this one serves nothing more and adds index terms (~0.2 RU each) to every write; delete it",
					compositeYAML(ix.Composite[j]), how, i)
				break
			}
		}
	}
}

func compositeSame(a, b []design.CompositePath) (same, reversed bool) {
	if len(a) != len(b) {
		return false, false
	}
	same, reversed = true, true
	for i := range a {
		if a[i].Path != b[i].Path {
			return false, false
		}
		same = same && a[i].Order == b[i].Order
		reversed = reversed && a[i].Order != b[i].Order
	}
	return same, reversed
}

func compositeYAML(ps []design.CompositePath) string {
	var parts []string
	for _, p := range ps {
		parts = append(parts, fmt.Sprintf("{path: %s, order: %s}", p.Path, p.Order))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// unusedIncluded flags an included path that no query, patch condition, unique key or composite
// index of the container reads: every write pays its index terms with no reader. The root ("/*")
// is left alone: it is the default, and excluding what is not queried is the other way to say it.
func (l *linter) unusedIncluded() {
	for ci := range l.d.Containers {
		c := &l.d.Containers[ci]
		ix := c.Indexing
		if ix == nil {
			continue
		}
		var used [][]string
		for _, uk := range c.UniqueKeys {
			for _, p := range uk {
				used = append(used, splitPath(p))
			}
		}
		for _, ps := range ix.Composite {
			for _, p := range ps {
				used = append(used, splitPath(p.Path))
			}
		}
		unread := false // a query lint cannot read: say nothing about what the container's use
		for i := range l.d.AccessPatterns {
			ap := &l.d.AccessPatterns[i]
			if ap.Container != c.Name {
				continue
			}
			for _, text := range []string{ap.Query, conditionPrefix + ap.Condition} {
				if strings.TrimSpace(text) == "" || text == conditionPrefix {
					continue
				}
				q, err := sql.Parse(text)
				if err != nil {
					unread = true
					continue
				}
				for _, pp := range q.PropertyPaths() {
					used = append(used, pp.Path)
				}
			}
		}
		for i, inc := range ix.Included {
			if unread {
				break
			}
			p := strings.TrimSuffix(strings.TrimSuffix(inc, "/?"), "/*")
			segs := splitPath(p)
			if p == "" || strings.Contains(p, "*") || len(segs) == 0 {
				continue
			}
			if slices.ContainsFunc(used, func(u []string) bool { return overlaps(u, segs) }) {
				continue
			}
			l.add(fmt.Sprintf("containers[%d].indexing.included[%d]", ci, i), "index-unused",
				"included path %s is read by no query, patch condition, unique key or composite index of %s: every write pays its index terms (~0.2 RU each) for no reader; remove it from included (a query that needs it later will show as a scan in lint)",
				inc, c.Name)
		}
	}
}

// overlaps reports whether one path lies on the other (either is a prefix of the other).
func overlaps(a, b []string) bool {
	n := min(len(a), len(b))
	return slices.Equal(a[:n], b[:n])
}

// unmatchedFilters flags an equality a query's WHERE can never satisfy with the seeded or the
// production documents: a literal (or a literal parameter) that is none of the values the field's
// generator makes (const, oneOf) in any type that has the field, or a parameter drawn from a field
// of the sample whose values cannot be the filtered field's (disjoint value sets, different code
// prefixes). Run would find nothing, and measure the charge of a miss.
func (l *linter) unmatchedFilters() {
	for i := range l.d.AccessPatterns {
		ap := &l.d.AccessPatterns[i]
		c := l.d.Container(ap.Container)
		if c == nil || ap.Op != design.OpQuery {
			continue
		}
		q, err := sql.Parse(ap.Query)
		if err != nil {
			continue
		}
		path := fmt.Sprintf("accessPatterns[%d]", i)
		for _, f := range sql.Analyze(q, nil).Filters {
			if f.Kind != sql.FilterEqual || len(f.Path) == 0 || slices.Contains(f.Path, "[]") {
				continue
			}
			target, ok := valuesAt(c, f.Path)
			if !ok {
				continue
			}
			switch {
			case f.HasLiteral:
				if !target.admits(f.Literal) {
					l.add(path+".query", "filter-unmatched",
						"%s matches no document: %s is %s in every type that has it, so the query finds nothing and run measures a miss%s",
						f.Text, strings.Join(f.Path, "."), target, suggestValue(f.Literal, target))
				}
			case f.Param != "":
				v, has := ap.Params[f.Param]
				if !has {
					continue
				}
				s, isStr := v.(string)
				if !isStr || !strings.Contains(s, "{") {
					if !target.admits(v) {
						l.add(fmt.Sprintf("%s.params[%q]", path, f.Param), "filter-unmatched",
							"%s with %s = %v matches no document: %s is %s in every type that has it%s",
							f.Text, f.Param, v, strings.Join(f.Path, "."), target, suggestValue(v, target))
					}
					continue
				}
				names := design.Placeholders(s)
				dt := c.DocType(ap.Sample)
				if len(names) != 1 || s != "{"+names[0]+"}" || dt == nil {
					continue
				}
				src := fieldOfSource(c, dt, names[0])
				if src == nil {
					continue
				}
				from := valuesOf(src)
				if from.known() && target.known() && from.disjoint(target) {
					l.add(fmt.Sprintf("%s.params[%q]", path, f.Param), "filter-unmatched",
						"%s = {%s} of %s is %s, but %s is %s: no document matches (run finds nothing); draw %s from the field %s compares with, or sample the type that has it",
						f.Param, names[0], dt.Type, from, strings.Join(f.Path, "."), target, f.Param, f.Text)
				}
			}
		}
	}
}

// fieldOfSource is the generating field a placeholder of dt reads, after copies; nil when unknown.
func fieldOfSource(c *design.Container, dt *design.DocType, name string) *design.Field {
	src, ok := sourceOf(c, dt, name)
	if !ok || src.path == "id" {
		return nil
	}
	t := c.DocType(src.typ)
	if t == nil {
		return nil
	}
	return fieldOf(t, src.path)
}

// valueSet is what a generator can produce, as far as lint can tell: a finite set of values (const,
// oneOf), strings that start with a prefix (code or sku with prefix), or unknown.
type valueSet struct {
	finite []any
	prefix string
	isSet  bool
}

func (v valueSet) known() bool { return v.isSet || v.prefix != "" }

func (v valueSet) String() string {
	if v.isSet {
		var s []string
		for _, x := range v.finite {
			s = append(s, fmt.Sprint(x))
		}
		if len(s) == 1 {
			return "always " + s[0]
		}
		return "one of " + strings.Join(s, ", ")
	}
	return "a code starting with " + v.prefix
}

func (v valueSet) admits(x any) bool {
	switch {
	case v.isSet:
		return slices.ContainsFunc(v.finite, func(y any) bool { return sameScalar(x, y) })
	case v.prefix != "":
		s, ok := x.(string)
		return !ok || strings.HasPrefix(s, v.prefix)
	}
	return true
}

func (v valueSet) disjoint(w valueSet) bool {
	switch {
	case v.isSet:
		return !slices.ContainsFunc(v.finite, w.admits)
	case w.isSet:
		return w.disjoint(v)
	}
	return !strings.HasPrefix(v.prefix, w.prefix) && !strings.HasPrefix(w.prefix, v.prefix)
}

func sameScalar(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x == y
	}
	return a == b
}

func valuesOf(f *design.Field) valueSet {
	switch {
	case f == nil, f.Optional > 0:
		return valueSet{}
	case f.Const != nil:
		return valueSet{finite: []any{f.Const}, isSet: true}
	case len(f.OneOf) > 0:
		return valueSet{finite: f.OneOf, isSet: true}
	case (f.Gen == "code" || f.Gen == "sku") && f.Prefix != "":
		return valueSet{prefix: f.Prefix}
	}
	return valueSet{}
}

// valuesAt is what the field at path can hold across the container's types that have it; ok is
// false when some type's values are unknown or no type has the field.
func valuesAt(c *design.Container, path []string) (valueSet, bool) {
	var out valueSet
	found := false
	for ti := range c.Documents {
		dt := &c.Documents[ti]
		f := fieldOf(dt, strings.Join(path, "."))
		if f == nil {
			if slices.ContainsFunc(dt.AppFields, func(a string) bool { return overlaps(splitPath(a), path) }) {
				return valueSet{}, false
			}
			continue
		}
		if f.Copy != "" {
			f = fieldOfSource(c, dt, strings.Join(path, "."))
		}
		v := valuesOf(f)
		switch {
		case !v.known(), found && v.isSet != out.isSet, found && !v.isSet && v.prefix != out.prefix:
			return valueSet{}, false
		case !v.isSet:
			out.prefix = v.prefix
		}
		found = true
		out.isSet = v.isSet
		for _, x := range v.finite {
			if !slices.ContainsFunc(out.finite, func(y any) bool { return sameScalar(x, y) }) {
				out.finite = append(out.finite, x)
			}
		}
	}
	return out, found
}

func suggestValue(x any, v valueSet) string {
	s, ok := x.(string)
	if !ok || !v.isSet {
		return ""
	}
	var cands []string
	for _, y := range v.finite {
		if t, ok := y.(string); ok {
			cands = append(cands, t)
		}
	}
	if m := design.Suggest(s, cands); m != "" {
		return fmt.Sprintf("; did you mean '%s'?", m)
	}
	return ""
}
