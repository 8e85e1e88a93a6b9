package design

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Bounds of what a design may ask for. They keep a run small enough for one machine and reject
// designs the service itself would refuse.
const (
	// MaxSeedDocuments caps the documents a design may seed, all types together, at their maximum.
	MaxSeedDocuments = 2_000_000
	// MaxProductionDocuments caps a type's production count: 10^12 documents is petabytes even at
	// 1 KB each, beyond any design this tool can reason about.
	MaxProductionDocuments = 1_000_000_000_000
	// MaxStorageGB caps a storage figure (scale.storageGB, a container's storageGB): the most
	// MaxProductionDocuments documents of MaxDocumentBytes can hold, about 2.1 billion GB. Past it
	// the figures derived from storage (partitions, throughput, the projection's growth) leave the
	// range the arithmetic holds.
	MaxStorageGB = MaxProductionDocuments * MaxDocumentBytes / 1e9
	// MaxDocumentBytes is the service's item size limit, 2 MB (source: learn.microsoft.com,
	// "Azure Cosmos DB service quotas", per-item limits).
	MaxDocumentBytes = 2 << 20
	// MaxArrayLen caps a generated array's length.
	MaxArrayLen = 10_000
	// MaxSamples caps the executions of one pattern.
	MaxSamples = 10_000
	// MaxPatchOps is the service's limit of operations in one patch (source: learn.microsoft.com,
	// "Partial document update FAQ").
	MaxPatchOps = 10
	// MaxBatchOps is the service's limit of operations in one transactional batch (source:
	// learn.microsoft.com, "Transactional batch operations in Azure Cosmos DB").
	MaxBatchOps = 100
	// MaxKeyLevels is the number of paths a hierarchical partition key may have (source:
	// learn.microsoft.com, "Hierarchical partition keys in Azure Cosmos DB").
	MaxKeyLevels = 3
	// maxCardinality caps a generator's distinct values.
	maxCardinality = 10_000_000
)

// Known names of the format.
var (
	// Generators lists the gen names the seeder implements.
	Generators = []string{"fullName", "firstName", "lastName", "email", "word", "text", "code", "uuid",
		"int", "decimal", "money", "bool", "isoTime", "epoch", "city", "country", "phone", "sku", "vector"}
	// Ops lists the access-pattern operations.
	Ops = []string{OpRead, OpQuery, OpCreate, OpUpsert, OpReplace, OpPatch, OpDelete, OpBatch, OpChangeFeed}
	// PatchOps lists the patch operation names.
	PatchOps = []string{"set", "add", "replace", "remove", "incr", "move"}
	// BatchOps lists the operations a transactional batch may hold.
	BatchOps = []string{OpCreate, OpUpsert, OpReplace, OpRead, OpDelete, OpPatch}
	// ConsistencyLevels lists the consistency levels of the service, strongest first.
	ConsistencyLevels = []string{"Strong", "BoundedStaleness", "Session", "ConsistentPrefix", "Eventual"}
	// Dists lists the value distributions.
	Dists = []string{"uniform", "zipf", "hot"}
	// IndexingModes lists the indexing modes.
	IndexingModes = []string{"consistent", "none"}
	// SortOrders lists composite index orders.
	SortOrders = []string{"asc", "desc"}
)

// Which generator options apply to which generators.
var (
	rangeGens    = []string{"int", "decimal", "money"}
	decimalsGens = []string{"decimal", "money"}
	timeGens     = []string{"isoTime", "epoch"}
	prefixGens   = []string{"code", "sku", "uuid", "word"}
)

// Validate checks a design that was built in Go rather than parsed (Parse validates already). It
// does not apply defaults; errors carry paths but no positions unless d.Positions is set.
func (d *Design) Validate() error {
	v := &validator{d: d, file: d.File, pos: d.Positions, badKey: map[string]bool{}}
	v.run()
	if len(v.errs) > 0 {
		sortErrors(v.errs)
		return v.errs
	}
	return nil
}

type validator struct {
	d    *Design
	file string
	pos  map[string]Pos
	errs Errors
	// badKey names containers whose partition key no document type generates (reported at the
	// key); the access patterns' default keys, derived from it, are not reported again.
	badKey map[string]bool
}

// errf records a problem at path, placed at the nearest position known for it or an ancestor.
func (v *validator) errf(path, format string, args ...any) {
	e := &Error{File: v.file, Path: path, Msg: fmt.Sprintf(format, args...)}
	for p := path; ; p = parentPath(p) {
		if pos, ok := v.pos[p]; ok {
			e.Line, e.Col = pos.Line, pos.Col
			break
		}
		if p == "" {
			break
		}
	}
	v.errs = append(v.errs, e)
}

// present reports whether path was written in the file (when positions are known).
func (v *validator) present(path string) bool {
	_, ok := v.pos[path]
	return ok
}

var resourceNameRe = regexp.MustCompile(`^[^/\\?#]+$`)

func (v *validator) run() {
	d := v.d
	v.checkControls()
	v.checkWaives("waive", d.Waive)
	for i := range d.Containers {
		v.checkWaives(fmt.Sprintf("containers[%d].waive", i), d.Containers[i].Waive)
	}
	for i := range d.AccessPatterns {
		v.checkWaives(fmt.Sprintf("accessPatterns[%d].waive", i), d.AccessPatterns[i].Waive)
	}
	if strings.TrimSpace(d.Name) == "" {
		v.errf("name", "must not be empty")
	}
	if d.VariantOf != "" && d.VariantOf == d.Name {
		v.errf("variantOf", "names the design itself (%q); name the design this one was derived from, or remove it", d.Name)
	}
	v.checkResourceName("database", d.Database)
	if d.Regions < 1 || d.Regions > 100 {
		v.errf("regions", "must be between 1 and 100 (got %d)", d.Regions)
	}
	if d.MultiRegionWrites && d.Regions < 2 {
		v.errf("multiRegionWrites", "needs regions of 2 or more")
	}
	v.checkEnum("consistency", d.Consistency, ConsistencyLevels)
	if d.App != nil {
		v.checkEnum("app.sdk", d.App.SDK, SDKs)
	}
	if d.Scale.StorageGB < 0 {
		v.errf("scale.storageGB", "must not be negative")
	} else if d.Scale.StorageGB > MaxStorageGB {
		v.errf("scale.storageGB", "must be at most %.4g GB (%g documents of 2 MB; got %g)", float64(MaxStorageGB), float64(MaxProductionDocuments), d.Scale.StorageGB)
	}
	if p := d.Pricing; p != nil {
		for name, x := range map[string]float64{"manualPer100RUsHour": p.ManualPer100RUsHour,
			"manualPerRUHour": p.ManualPerRUHour, "storagePerGBMonth": p.StoragePerGBMonth,
			"secondsPerMonth": p.SecondsPerMonth} {
			if x < 0 {
				v.errf("pricing."+name, "must not be negative")
			}
		}
	}
	if t := d.Tolerance; t != nil {
		v.checkBand("tolerance.point", t.Point)
		v.checkBand("tolerance.query", t.Query)
	}
	if len(d.Containers) == 0 {
		v.errf("containers", "at least one container is required")
	}
	names := map[string]int{}
	for i := range d.Containers {
		c := &d.Containers[i]
		path := fmt.Sprintf("containers[%d]", i)
		if j, dup := names[c.Name]; dup && c.Name != "" {
			v.errf(path+".name", "duplicate container name %q (also containers[%d])", c.Name, j)
		}
		names[c.Name] = i
		v.checkContainer(path, c)
	}
	v.checkTypesAcrossContainers(d)
	v.checkSeedTotal()
	v.checkTraffic()
	if len(d.AccessPatterns) == 0 {
		v.errf("accessPatterns", "at least one access pattern is required")
	}
	ids := map[string]int{}
	for i := range d.AccessPatterns {
		p := &d.AccessPatterns[i]
		path := fmt.Sprintf("accessPatterns[%d]", i)
		if j, dup := ids[p.ID]; dup && p.ID != "" {
			v.errf(path+".id", "duplicate pattern id %q (also accessPatterns[%d])", p.ID, j)
		}
		ids[p.ID] = i
		v.checkPattern(path, p)
	}
}

func (v *validator) checkEnum(path, got string, allowed []string) bool {
	if slices.Contains(allowed, got) {
		return true
	}
	msg := fmt.Sprintf("must be one of %s (got %q)", strings.Join(allowed, ", "), got)
	if s := Suggest(got, allowed); s != "" && got != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	v.errf(path, "%s", msg)
	return false
}

func (v *validator) checkBand(path string, b *Band) {
	if b == nil {
		return
	}
	if b.Pct < 0 {
		v.errf(path+".pct", "must not be negative")
	}
	if b.RU < 0 {
		v.errf(path+".ru", "must not be negative")
	}
	if b.Pct == 0 && b.RU == 0 {
		v.errf(path, "set pct or ru (or both)")
	}
}

func (v *validator) checkResourceName(path, name string) {
	switch {
	case strings.TrimSpace(name) == "":
		v.errf(path, "must not be empty")
	case len(name) > 255:
		v.errf(path, "must be at most 255 characters")
	case !resourceNameRe.MatchString(name) || strings.HasSuffix(name, " "):
		v.errf(path, "must not contain /, \\, ? or # nor end with a space (got %q)", name)
	}
}

// checkKeyPath checks a partition-key path such as "/tenantId" or "/address/zip".
func (v *validator) checkKeyPath(path, p string) {
	switch {
	case !strings.HasPrefix(p, "/"):
		v.errf(path, "must start with \"/\" (got %q)", p)
	case p == "/" || strings.HasSuffix(p, "/"):
		v.errf(path, "must not end with \"/\" (got %q)", p)
	case strings.Contains(p, "[]") || strings.Contains(p, "*") || strings.Contains(p, "?"):
		v.errf(path, "must be a plain property path without [], * or ? (got %q)", p)
	case strings.Contains(p, "//"):
		v.errf(path, "has an empty segment (got %q)", p)
	}
}

func validKeyPath(p string) bool {
	v := &validator{}
	v.checkKeyPath("", p)
	return len(v.errs) == 0
}

// checkIndexPath checks an included or excluded path: "/*", or "/a/b/?", "/a/*", "/a/[]/?".
func (v *validator) checkIndexPath(path, p string) {
	switch {
	case p == "/*":
	case !strings.HasPrefix(p, "/"):
		v.errf(path, "must start with \"/\" (got %q)", p)
	case !strings.HasSuffix(p, "/?") && !strings.HasSuffix(p, "/*"):
		v.errf(path, "must end with \"/?\" (a scalar value) or \"/*\" (everything below) (got %q); e.g. %q", p, strings.TrimSuffix(p, "/")+"/?")
	case strings.Contains(p[:len(p)-2], "*") || strings.Contains(p[:len(p)-2], "?") || strings.Contains(p, "//"):
		v.errf(path, "is not a well-formed path (got %q)", p)
	}
}

func (v *validator) checkContainer(path string, c *Container) {
	v.checkResourceName(path+".name", c.Name)
	v.checkBuckets(path, c)
	switch n := len(c.PartitionKey); {
	case n == 0:
		v.errf(path+".partitionKey", "must list 1 to %d paths, e.g. [/tenantId]", MaxKeyLevels)
	case n > MaxKeyLevels:
		v.errf(path+".partitionKey", "has %d paths; a hierarchical key has at most %d", n, MaxKeyLevels)
	}
	seen := map[string]bool{}
	for i, p := range c.PartitionKey {
		pp := fmt.Sprintf("%s.partitionKey[%d]", path, i)
		v.checkKeyPath(pp, p)
		if seen[p] {
			v.errf(pp, "repeats %q", p)
		}
		seen[p] = true
	}
	v.checkThroughput(path+".throughput", c.Throughput)
	if c.DefaultTTL != nil && *c.DefaultTTL != -1 && *c.DefaultTTL <= 0 {
		v.errf(path+".defaultTtl", "must be -1 (on, no default expiry) or a positive number of seconds (got %d); omit it to turn TTL off", *c.DefaultTTL)
	}
	for i, uk := range c.UniqueKeys {
		up := fmt.Sprintf("%s.uniqueKeys[%d]", path, i)
		if len(uk) == 0 {
			v.errf(up, "must list at least one path")
		}
		for j, p := range uk {
			v.checkKeyPath(fmt.Sprintf("%s[%d]", up, j), p)
		}
	}
	if c.Indexing != nil {
		v.checkIndexing(path+".indexing", c.Indexing)
	}
	v.checkSearch(path, c)
	if c.Partitions < 0 || c.Partitions > 10_000 {
		v.errf(path+".partitions", "must be between 1 and 10000 (got %d); omit it to derive it", c.Partitions)
	}
	if c.StorageGB < 0 {
		v.errf(path+".storageGB", "must not be negative")
	} else if c.StorageGB > MaxStorageGB {
		v.errf(path+".storageGB", "must be at most %.4g GB (%g documents of 2 MB; got %g)", float64(MaxStorageGB), float64(MaxProductionDocuments), c.StorageGB)
	}
	if len(c.Documents) == 0 {
		v.errf(path+".documents", "must list at least one document type")
	}
	types := map[string]int{}
	for i := range c.Documents {
		t := &c.Documents[i]
		tp := fmt.Sprintf("%s.documents[%d]", path, i)
		if t.Type == "" {
			v.errf(tp+".type", "must not be empty")
		} else if j, dup := types[t.Type]; dup {
			v.errf(tp+".type", "duplicate document type %q (also documents[%d])", t.Type, j)
		}
		types[t.Type] = i
	}
	for i := range c.Documents {
		v.checkDocType(fmt.Sprintf("%s.documents[%d]", path, i), c, &c.Documents[i])
	}
	v.checkKeyGenerated(path, c)
	v.checkParentCycles(path, c)
}

// checkTypesAcrossContainers requires a document type's name to be unique in the whole design, not
// only in its container: the seeder, the samples patterns draw and the plan's sizes know documents by
// their type name alone. (Duplicates inside one container are reported by checkContainer.)
func (v *validator) checkTypesAcrossContainers(d *Design) {
	type at struct{ c, t int }
	first := map[string]at{}
	for ci := range d.Containers {
		for ti := range d.Containers[ci].Documents {
			name := d.Containers[ci].Documents[ti].Type
			if name == "" {
				continue
			}
			f, dup := first[name]
			if !dup {
				first[name] = at{ci, ti}
				continue
			}
			if f.c != ci {
				v.errf(fmt.Sprintf("containers[%d].documents[%d].type", ci, ti),
					"document type %q is also defined in container %s (containers[%d].documents[%d]); type names are unique in the design: rename one (e.g. %q) and the patterns' sample or document that mean it",
					name, d.Containers[f.c].Name, f.c, f.t, strings.ToLower(d.Containers[ci].Name)+strings.ToUpper(name[:1])+name[1:])
			}
		}
	}
}

// checkKeyGenerated requires every partition-key path to be generated by every document type, or
// documents land in the "undefined" partition. A path no type generates is most likely a typo in the
// key: it is reported once, at the key, with the field name meant; a path some types lack is
// reported at each of those types.
func (v *validator) checkKeyGenerated(path string, c *Container) {
	for i, kp := range c.PartitionKey {
		if kp == "/id" || !validKeyPath(kp) || len(c.Documents) == 0 {
			continue
		}
		var lacking []int
		var names []string
		for ti := range c.Documents {
			t := &c.Documents[ti]
			names = append(names, fieldPaths("", t.Fields, 0)...)
			f := lookupPath(t.Fields, kp)
			switch {
			case f == nil:
				lacking = append(lacking, ti)
			case f.Optional > 0:
				v.errf(fmt.Sprintf("%s.documents[%d].fields", path, ti), "partition key field %s must not be optional", kp)
			}
		}
		if len(lacking) == len(c.Documents) {
			hint := fmt.Sprintf("; add a field %q to the document types, or key on a field they have", strings.TrimPrefix(kp, "/"))
			if m := Suggest(kp, names); m != "" {
				hint = fmt.Sprintf("; did you mean %q?", m)
			}
			v.errf(fmt.Sprintf("%s.partitionKey[%d]", path, i), "%s is not a field of any document type of %s%s", kp, c.Name, hint)
			v.badKey[c.Name] = true
			continue
		}
		for _, ti := range lacking {
			v.errf(fmt.Sprintf("%s.documents[%d].fields", path, ti), "partition key %s (partitionKey[%d]) is not generated; add a field %q", kp, i, strings.TrimPrefix(kp, "/"))
		}
	}
}

func (v *validator) checkThroughput(path string, t Throughput) {
	set := 0
	if t.Manual != 0 {
		set++
	}
	if t.AutoscaleMax != 0 {
		set++
	}
	if t.Serverless {
		set++
	}
	if set > 1 {
		v.errf(path, "set exactly one of manual, autoscaleMax or serverless")
		return
	}
	// Minimums and steps: manual ≥ 400 RU/s in steps of 100; autoscale max ≥ 1000 RU/s in steps of
	// 1000 (source: learn.microsoft.com, "Azure Cosmos DB service quotas" and "Autoscale FAQ").
	switch {
	case t.Manual != 0 && (t.Manual < 400 || t.Manual%100 != 0):
		v.errf(path+".manual", "must be at least 400 and a multiple of 100 (got %d)", t.Manual)
	case t.AutoscaleMax != 0 && (t.AutoscaleMax < 1000 || t.AutoscaleMax%1000 != 0):
		v.errf(path+".autoscaleMax", "must be at least 1000 and a multiple of 1000 (got %d)", t.AutoscaleMax)
	}
	if t.Manual > 1_000_000 || t.AutoscaleMax > 1_000_000 {
		v.errf(path, "must be at most 1000000 RU/s (the default service quota)")
	}
}

func (v *validator) checkIndexing(path string, ix *Indexing) {
	if !v.checkEnum(path+".mode", ix.Mode, IndexingModes) {
		return
	}
	if ix.Mode == "none" {
		if len(ix.Included) > 0 || len(ix.Composite) > 0 {
			v.errf(path, "mode none indexes nothing: remove included and composite paths")
		}
		return
	}
	all := map[string]string{}
	for _, l := range []struct {
		name  string
		paths []string
	}{{"included", ix.Included}, {"excluded", ix.Excluded}} {
		for i, p := range l.paths {
			pp := fmt.Sprintf("%s.%s[%d]", path, l.name, i)
			v.checkIndexPath(pp, p)
			if other, dup := all[p]; dup {
				v.errf(pp, "%q is already listed in %s", p, other)
			}
			all[p] = l.name
		}
	}
	for i, ci := range ix.Composite {
		cp := fmt.Sprintf("%s.composite[%d]", path, i)
		if len(ci) < 2 {
			v.errf(cp, "a composite index needs at least 2 paths (got %d)", len(ci))
		}
		for j, p := range ci {
			pp := fmt.Sprintf("%s[%d]", cp, j)
			if strings.HasSuffix(p.Path, "/?") || strings.HasSuffix(p.Path, "/*") {
				v.errf(pp+".path", "composite paths name a property without \"/?\" or \"/*\" (got %q)", p.Path)
			} else {
				v.checkKeyPath(pp+".path", p.Path)
			}
			v.checkEnum(pp+".order", p.Order, SortOrders)
		}
	}
}

// docCtx is what a document type's templates may refer to.
type docCtx struct {
	c      *Container
	t      *DocType
	parent *DocType
	// parentMissing: the type names a parent that does not exist (reported once, elsewhere).
	parentMissing bool
}

// resolvable reports whether placeholder name can be filled for documents of this type.
func (x docCtx) resolvable(name string) bool {
	if isBuiltin(name) || name == "id" {
		return true
	}
	if rest, ok := strings.CutPrefix(name, "parent."); ok {
		if x.parentMissing {
			return true
		}
		if x.parent == nil {
			return false
		}
		if rest == "id" {
			return true
		}
		return lookupDotted(x.parent.Fields, rest) != nil
	}
	if x.t == nil {
		return false
	}
	return lookupDotted(x.t.Fields, name) != nil
}

// lookupDotted finds the field a placeholder names: "city", or "address.city" inside an object.
func lookupDotted(fs Fields, name string) *Field {
	var f *Field
	for seg := range strings.SplitSeq(name, ".") {
		g, ok := fs.Lookup(seg)
		if !ok {
			return nil
		}
		f, fs = g, g.Object
	}
	return f
}

func (v *validator) checkDocType(path string, c *Container, t *DocType) {
	x := docCtx{c: c, t: t}
	switch {
	case t.Parent != nil && t.Count != 0:
		v.errf(path+".count", "a child type's count follows from parent.per; remove count")
	case t.Parent == nil && t.Count <= 0:
		v.errf(path+".count", "must be at least 1 for a root type (got %d), or give a parent", t.Count)
	case t.Count > MaxSeedDocuments:
		v.errf(path+".count", "must be at most %d (got %d)", MaxSeedDocuments, t.Count)
	}
	switch {
	case t.Production < 0 || t.Production != math.Trunc(t.Production):
		v.errf(path+".production", "must be a whole number of documents, at least 0 (got %g)", t.Production)
	case t.Production > MaxProductionDocuments:
		v.errf(path+".production", "must be at most %g (got %g)", float64(MaxProductionDocuments), t.Production)
	}
	if p := t.Parent; p != nil {
		// The parent is usually in the same container (a customer's orders beside the customer);
		// one in another container is how a design keeps the children apart (a container of their
		// own, keyed as the parent's): the seeder places each child in its own type's container.
		x.parent = c.DocType(p.Type)
		for i := range v.d.Containers {
			if x.parent == nil {
				x.parent = v.d.Containers[i].DocType(p.Type)
			}
		}
		x.parentMissing = x.parent == nil
		switch {
		case p.Type == t.Type:
			v.errf(path+".parent.type", "a type cannot be its own parent")
		case x.parent == nil:
			v.errf(path+".parent.type", "no document type %q in this design%s", p.Type, didYouMean(p.Type, typeNames(c)))
		}
		if p.Per.Min < 0 || p.Per.Max < p.Per.Min {
			v.errf(path+".parent.per", "needs 0 <= min <= max (got min %d, max %d)", p.Per.Min, p.Per.Max)
		}
		if p.Per.Max > MaxSeedDocuments {
			v.errf(path+".parent.per.max", "must be at most %d", MaxSeedDocuments)
		}
		v.checkEnum(path+".parent.per.dist", p.Per.Dist, Dists)
	}
	v.checkTemplate(path+".id", t.ID, x)
	if t.TargetBytes < 0 || t.TargetBytes > MaxDocumentBytes {
		v.errf(path+".targetBytes", "must be between 0 and %d (the service's 2 MB item limit)", MaxDocumentBytes)
	}
	if len(t.Fields) == 0 && !v.present(path+".fields") {
		v.errf(path+".fields", "list the document's fields")
	}
	seen := make(map[string]bool, len(t.Fields))
	for i, f := range t.Fields {
		fp := joinPath(path+".fields", f.Name)
		switch {
		case f.Name == "":
			v.errf(fp, "field names must not be empty")
		case f.Name == "id":
			v.errf(fp, "the id comes from the type's id template; remove this field and set id: instead")
		case strings.HasPrefix(f.Name, "_"):
			v.errf(fp, "names starting with \"_\" are reserved for system properties")
		}
		if seen[f.Name] {
			v.errf(fp, "duplicate field %q", f.Name)
		}
		seen[f.Name] = true
		v.checkField(fp, &t.Fields[i].Field, x, 0)
	}
	for i, p := range t.AppFields {
		ap := fmt.Sprintf("%s.appFields[%d]", path, i)
		v.checkKeyPath(ap, p)
		if p == "/id" || lookupPath(t.Fields, p) != nil {
			v.errf(ap, "%s is generated by the seeder already; list only paths the application writes", p)
		}
	}
	v.checkFieldCycles(path, t)
	if size := t.maxBytes(); size > MaxDocumentBytes {
		v.errf(path, "documents of this type may reach %.0f bytes; the service's item limit is %d (2 MB)", size, MaxDocumentBytes)
	}
}

// lookupPath finds the field generating a property path such as "/address/zip".
func lookupPath(fs Fields, p string) *Field {
	parts := SplitPath(p)
	for i, name := range parts {
		f, ok := fs.Lookup(name)
		if !ok {
			return nil
		}
		if i == len(parts)-1 {
			return f
		}
		fs = f.Object
	}
	return nil
}

func typeNames(c *Container) []string {
	out := make([]string, len(c.Documents))
	for i, t := range c.Documents {
		out[i] = t.Type
	}
	return out
}

func didYouMean(s string, names []string) string {
	if m := Suggest(s, names); m != "" {
		return fmt.Sprintf("; did you mean %q?", m)
	}
	if len(names) > 0 && len(names) <= 8 {
		return fmt.Sprintf(" (have: %s)", strings.Join(names, ", "))
	}
	return ""
}

// checkTemplate checks that every placeholder of a template is well formed and resolvable.
func (v *validator) checkTemplate(path, tmpl string, x docCtx) {
	if strings.Count(tmpl, "{") != strings.Count(tmpl, "}") {
		v.errf(path, "unbalanced braces in template %q", tmpl)
		return
	}
	for _, name := range Placeholders(tmpl) {
		if !placeholderNameRe.MatchString(name) {
			v.errf(path, "{%s} is not a valid placeholder; use {field}, {object.field}, {parent.field} or a built-in ({seq}, {uuid}, {now}, {type})", name)
			continue
		}
		if x.resolvable(name) {
			continue
		}
		switch {
		case strings.HasPrefix(name, "parent.") && x.parent == nil:
			v.errf(path, "{%s}: only child types (with parent:) may use {parent.*}", name)
		case x.t == nil:
			v.errf(path, "{%s} cannot be resolved: set sample: to draw values from a seeded document", name)
		default:
			owner, fs := x.t.Type, x.t.Fields
			if strings.HasPrefix(name, "parent.") {
				owner, fs = x.parent.Type, x.parent.Fields
			}
			v.errf(path, "{%s} is not a field of type %s%s", name, owner, didYouMean(strings.TrimPrefix(name, "parent."), fieldNames(fs)))
		}
	}
}

// fieldPaths lists the key paths of fields ("/tenantId", "/address/city"), objects included, to
// suggest the path meant by a mistyped key.
func fieldPaths(prefix string, fs Fields, depth int) []string {
	var out []string
	for _, f := range fs {
		p := prefix + "/" + f.Name
		out = append(out, p)
		if depth < 3 {
			out = append(out, fieldPaths(p, f.Field.Object, depth+1)...)
		}
	}
	return out
}

func fieldNames(fs Fields) []string {
	out := make([]string, 0, len(fs)+1)
	out = append(out, "id")
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}

func parseDate(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// checkField checks one generator. depth counts nesting through of/object.
func (v *validator) checkField(path string, f *Field, x docCtx, depth int) {
	kinds := []string{}
	add := func(set bool, name string) {
		if set || v.present(path+"."+name) {
			kinds = append(kinds, name)
		}
	}
	add(f.Const != nil, "const")
	add(f.Copy != "", "copy")
	add(f.Template != "", "template")
	add(f.Gen != "", "gen")
	add(f.OneOf != nil, "oneOf")
	add(f.Array != nil, "array")
	add(f.Object != nil, "object")
	switch len(kinds) {
	case 0:
		v.errf(path, "say how to generate the value: one of const, copy, template, gen, oneOf, array or object")
		return
	case 1:
	default:
		v.errf(path, "set only one of %s", strings.Join(kinds, ", "))
		return
	}
	kind := kinds[0]
	opt := func(name string, set bool, ok bool, what string) {
		if set && !ok {
			v.errf(path+"."+name, "%s applies only to %s", name, what)
		}
	}
	isGen := func(names []string) bool { return kind == "gen" && slices.Contains(names, f.Gen) }
	opt("min", f.Min != nil, isGen(rangeGens), "gen int, decimal and money")
	opt("max", f.Max != nil, isGen(rangeGens), "gen int, decimal and money")
	opt("decimals", f.Decimals != nil, isGen(decimalsGens), "gen decimal and money")
	opt("from", f.From != "", isGen(timeGens), "gen isoTime and epoch")
	opt("to", f.To != "", isGen(timeGens), "gen isoTime and epoch")
	opt("bytes", f.Bytes != 0, kind == "gen" && f.Gen == "text", "gen text")
	opt("dimensions", f.Dimensions != 0, kind == "gen" && f.Gen == "vector", "gen vector")
	if kind == "gen" && f.Gen == "vector" && (f.Dimensions < 1 || f.Dimensions > MaxVectorDimensions) {
		v.errf(path+".dimensions", "gen vector needs dimensions from 1 to %d (got %d)", MaxVectorDimensions, f.Dimensions)
	}
	opt("prefix", f.Prefix != "", isGen(prefixGens), "gen code, sku, uuid and word")
	opt("unique", f.Unique, kind == "gen", "generators (gen)")
	opt("cardinality", f.Cardinality != 0, kind == "gen", "generators (gen)")
	opt("weights", f.Weights != nil, kind == "oneOf", "oneOf")
	opt("of", f.Of != nil, kind == "array", "array")
	opt("dist", f.Dist != "", f.Cardinality > 0, "generators with a cardinality")
	opt("productionCardinality", f.ProductionCardinality != 0, f.Cardinality > 0, "generators with a cardinality")
	opt("skew", f.Skew != 0, f.Dist == "zipf", "dist zipf")
	opt("hotShare", f.HotShare != 0, f.Dist == "hot", "dist hot")

	if f.Optional < 0 || f.Optional >= 1 {
		v.errf(path+".optional", "must be a share from 0 up to (not including) 1 (got %g)", f.Optional)
	}
	if f.Cardinality < 0 || f.Cardinality > maxCardinality {
		v.errf(path+".cardinality", "must be between 1 and %d (got %d)", maxCardinality, f.Cardinality)
	}
	switch pc := f.ProductionCardinality; {
	case pc == 0:
	case pc < 1 || pc != math.Trunc(pc):
		v.errf(path+".productionCardinality", "must be a whole number of values, at least 1 (got %g)", pc)
	case pc > MaxProductionDocuments:
		v.errf(path+".productionCardinality", "must be at most %g (got %g)", float64(MaxProductionDocuments), pc)
	case x.t != nil && x.t.Production > 0 && pc > x.t.Production:
		v.errf(path+".productionCardinality", "%g values need at least as many documents, but type %s states production: %g; lower it to at most %g or raise production", pc, x.t.Type, x.t.Production, x.t.Production)
	}
	if f.Unique && f.Cardinality > 0 {
		v.errf(path+".unique", "unique values and a fixed cardinality exclude each other")
	}
	if f.Dist != "" && v.checkEnum(path+".dist", f.Dist, Dists) {
		if f.Dist == "zipf" && f.Skew <= 1 {
			v.errf(path+".skew", "must be greater than 1 (got %g)", f.Skew)
		}
		if f.Dist == "hot" && (f.HotShare <= 0 || f.HotShare > 1) {
			v.errf(path+".hotShare", "must be a share above 0 and at most 1 (got %g)", f.HotShare)
		}
	}
	switch kind {
	case "const":
		if _, err := json.Marshal(f.Const); err != nil {
			v.errf(path+".const", "cannot be written as JSON: %v", err)
		}
	case "copy":
		if !placeholderNameRe.MatchString(f.Copy) || isBuiltin(f.Copy) && f.Copy != PlaceholderType {
			v.errf(path+".copy", "must name a field, \"id\" or \"parent.<field>\" (got %q)", f.Copy)
		} else if !x.resolvable(f.Copy) {
			v.checkTemplate(path+".copy", "{"+f.Copy+"}", x)
		}
	case "template":
		v.checkTemplate(path+".template", f.Template, x)
	case "gen":
		if !v.checkEnum(path+".gen", f.Gen, Generators) {
			return
		}
		if f.Min != nil && f.Max != nil && *f.Min > *f.Max {
			v.errf(path, "min (%g) must not exceed max (%g)", *f.Min, *f.Max)
		}
		if f.Decimals != nil && (*f.Decimals < 0 || *f.Decimals > 10) {
			v.errf(path+".decimals", "must be between 0 and 10 (got %d)", *f.Decimals)
		}
		var from, to time.Time
		var okFrom, okTo bool
		if f.From != "" {
			if from, okFrom = parseDate(f.From); !okFrom {
				v.errf(path+".from", "must be a date (2024-01-31) or RFC 3339 time (got %q)", f.From)
			}
		}
		if f.To != "" {
			if to, okTo = parseDate(f.To); !okTo {
				v.errf(path+".to", "must be a date (2024-01-31) or RFC 3339 time (got %q)", f.To)
			}
		}
		if okFrom && okTo && !from.Before(to) {
			v.errf(path, "from (%s) must be before to (%s)", f.From, f.To)
		}
		if f.Bytes < 0 || f.Bytes > MaxDocumentBytes {
			v.errf(path+".bytes", "must be between 1 and %d (got %d)", MaxDocumentBytes, f.Bytes)
		}
	case "oneOf":
		if len(f.OneOf) == 0 {
			v.errf(path+".oneOf", "must list at least one value")
		}
		if f.Weights != nil {
			if len(f.Weights) != len(f.OneOf) {
				v.errf(path+".weights", "has %d weights for %d values; give one weight per value", len(f.Weights), len(f.OneOf))
			}
			sum := 0.0
			for i, w := range f.Weights {
				if w < 0 {
					v.errf(fmt.Sprintf("%s.weights[%d]", path, i), "must not be negative")
				}
				sum += w
			}
			if sum <= 0 {
				v.errf(path+".weights", "must not all be zero")
			}
		}
	case "array":
		if f.Array.Min < 0 || f.Array.Max < f.Array.Min || f.Array.Max > MaxArrayLen {
			v.errf(path+".array", "needs 0 <= min <= max <= %d (got min %d, max %d)", MaxArrayLen, f.Array.Min, f.Array.Max)
		}
		if f.Of == nil {
			v.errf(path, "an array needs of: with the element's generator, e.g. of: {gen: word}")
		} else {
			v.checkField(path+".of", f.Of, x, depth+1)
		}
	case "object":
		for _, nf := range f.Object {
			v.checkField(joinPath(path+".object", nf.Name), &nf.Field, x, depth+1)
		}
	}
}

// fieldRefs lists the top-level names a field's value depends on (copy and template references).
func fieldRefs(f *Field, out []string) []string {
	if f.Copy != "" {
		out = append(out, f.Copy)
	}
	if f.Template != "" {
		out = append(out, Placeholders(f.Template)...)
	}
	if f.Of != nil {
		out = fieldRefs(f.Of, out)
	}
	for i := range f.Object {
		out = fieldRefs(&f.Object[i].Field, out)
	}
	return out
}

// checkFieldCycles rejects copy/template references that go round in a circle (a → b → a),
// counting the id template as the field "id".
func (v *validator) checkFieldCycles(path string, t *DocType) {
	deps := map[string][]string{"id": Placeholders(t.ID)}
	for i := range t.Fields {
		deps[t.Fields[i].Name] = fieldRefs(&t.Fields[i].Field, nil)
	}
	const (
		unvisited = iota
		active
		done
	)
	state := map[string]int{}
	var stack []string
	var visit func(n string) bool
	visit = func(n string) bool {
		switch state[n] {
		case active:
			i := slices.Index(stack, n)
			cycle := append(slices.Clone(stack[i:]), n)
			fp := joinPath(path+".fields", n)
			if n == "id" {
				fp = path + ".id"
			}
			v.errf(fp, "references go round in a circle: %s", strings.Join(cycle, " -> "))
			return false
		case done:
			return true
		}
		state[n] = active
		stack = append(stack, n)
		for _, m := range deps[n] {
			if _, ok := deps[m]; ok && !visit(m) {
				return false
			}
		}
		stack = stack[:len(stack)-1]
		state[n] = done
		return true
	}
	visit("id")
	for _, f := range t.Fields {
		if !visit(f.Name) {
			return
		}
	}
}

// checkParentCycles rejects parent chains that loop (a's parent is b, b's parent is a).
func (v *validator) checkParentCycles(path string, c *Container) {
	for i := range c.Documents {
		seen := map[string]bool{}
		t := &c.Documents[i]
		for t != nil && t.Parent != nil {
			if seen[t.Type] {
				v.errf(fmt.Sprintf("%s.documents[%d].parent", path, i), "parent types go round in a circle")
				break
			}
			seen[t.Type] = true
			t = c.DocType(t.Parent.Type)
		}
	}
}

// maxBytes estimates an upper bound of a document's JSON size, to reject designs whose documents
// cannot fit the service's limit before anything is generated.
func (t *DocType) maxBytes() float64 {
	n := 64.0 + float64(len(t.ID)) + 40 // braces, id, system properties
	n += fieldsMaxBytes(t.Fields)
	return math.Max(n, float64(t.TargetBytes))
}

func fieldsMaxBytes(fs Fields) float64 {
	n := 2.0
	for i := range fs {
		n += float64(len(fs[i].Name)) + 4 + fieldMaxBytes(&fs[i].Field)
	}
	return n
}

func fieldMaxBytes(f *Field) float64 {
	switch {
	case f.Const != nil:
		b, _ := json.Marshal(f.Const)
		return float64(len(b))
	case f.OneOf != nil:
		m := 0.0
		for _, o := range f.OneOf {
			b, _ := json.Marshal(o)
			m = math.Max(m, float64(len(b)))
		}
		return m
	case f.Array != nil:
		if f.Of == nil {
			return 2
		}
		return 2 + float64(f.Array.Max)*(fieldMaxBytes(f.Of)+1)
	case f.Object != nil:
		return fieldsMaxBytes(f.Object)
	case f.Gen == "text":
		return float64(f.Bytes) + 2
	case f.Gen == "vector":
		return float64(f.Dimensions)*21 + 2
	case f.Template != "":
		// Referenced values are at most a generated value each.
		return float64(len(f.Template)) + 64*float64(len(Placeholders(f.Template)))
	}
	return 64
}

// checkSeedTotal bounds the documents a design seeds, counting children at their maximum.
func (v *validator) checkSeedTotal() {
	total := 0.0
	for ci := range v.d.Containers {
		c := &v.d.Containers[ci]
		for ti := range c.Documents {
			total += maxCount(c, &c.Documents[ti], 0)
		}
	}
	if total > MaxSeedDocuments {
		v.errf("containers", "the design seeds up to %.0f documents (children counted at per.max); the limit is %d: lower count or per.max", total, MaxSeedDocuments)
	}
}

// maxCount is the most documents of type t that seeding can create.
func maxCount(c *Container, t *DocType, depth int) float64 {
	if t.Parent == nil {
		return float64(max(t.Count, 0))
	}
	p := c.DocType(t.Parent.Type)
	if p == nil || depth > len(c.Documents) {
		return 0 // reported elsewhere (missing parent or a cycle)
	}
	return maxCount(c, p, depth+1) * float64(max(t.Parent.Per.Max, 0))
}

// Count renders n and a noun in the singular or plural: "1 container", "3 containers".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
