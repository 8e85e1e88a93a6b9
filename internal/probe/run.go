package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/probe/fanout"
	"github.com/cosmosdv/validate/internal/querycheck"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/sdk"
)

// Options tune RunPatterns.
type Options struct {
	// Samples is the least number of executions per pattern (a pattern's own Samples wins and is
	// exact). Default 20. Past it the probe samples on until the median is stable (stable.go).
	Samples int
	// MaxSamples bounds the executions of a pattern; 0 = DefaultMaxSamplesFactor × Samples.
	MaxSamples int
	// Seed chooses which sampled documents each execution draws its parameters from.
	Seed int64
	// DefaultConsistency is sent with every read and query whose pattern names no level: the
	// design's account default, where the target is the embedded engine (an account measures its
	// own default, and a request may not ask for a stronger level than the account's). "" = none.
	DefaultConsistency string
	// Progress receives one line per pattern; nil = none.
	Progress func(format string, args ...any)
	// Tick is called after every execution with the executions done and due in the whole run and
	// the pattern running; nil = none. A progress display draws from it while probing.
	Tick func(done, total int, pattern string)
}

// runner holds what every execution needs.
type runner struct {
	d          *design.Design
	containers map[string]*azcosmos.ContainerClient
	docs       record.Documents
	o          Options
	fresh      int
	findings   []record.Finding
	fanouts    map[*azcosmos.ContainerClient]*fanout.Container // cross-partition pipelines (pipeline.go)
}

// RunPatterns executes every access pattern of d Samples times and returns one Pattern per access
// pattern, in design order, plus findings about the patterns themselves (e.g. a hierarchical prefix
// query that does not filter on the prefix). A failed execution is recorded in its Execution and never
// stops the pass; only a target failure (returned wrapped as ErrInfrastructure) or ctx does.
func RunPatterns(ctx context.Context, d *design.Design, containers map[string]*azcosmos.ContainerClient, docs record.Documents, o Options) ([]record.Pattern, []record.Finding, error) {
	if o.Samples <= 0 {
		o.Samples = 20
	}
	r := &runner{d: d, containers: containers, docs: docs, o: o}
	out := make([]record.Pattern, 0, len(d.AccessPatterns))
	// total is the executions due: each pattern's least number, raised while a pattern samples on
	// past it until its median is stable.
	total, done := 0, 0
	for _, ap := range d.AccessPatterns {
		total += o.Samples
		if ap.Samples > 0 {
			total += ap.Samples - o.Samples
		}
	}
	for pi := range d.AccessPatterns {
		ap := &d.AccessPatterns[pi]
		n, most := o.Samples, o.MaxSamples
		if most <= 0 {
			most = DefaultMaxSamplesFactor * n
		}
		if ap.Samples > 0 {
			n, most = ap.Samples, ap.Samples
		}
		pat := record.Pattern{ID: ap.ID, Executions: make([]record.Execution, 0, n)}
		r.checkPattern(ap)
		im, err := r.warmUp(ctx, pi, ap)
		if err != nil {
			return out, r.findings, err
		}
		pat.IndexMetrics = im
		// pctx counts the pattern's 429s, the ones the SDK retried before answering included.
		pctx, throttle := sdk.WithThrottleCounter(ctx, nil)
		for i := 0; wantMore(pat.Executions, n, most); i++ {
			if err := ctx.Err(); err != nil {
				return out, r.findings, err
			}
			ex, err := r.execute(pctx, pi, ap, i)
			pat.Throttled, pat.RetryWaitMs = throttle.Throttled(), throttle.RetryWaitMs()
			if err != nil {
				return out, r.findings, err
			}
			pat.Executions = append(pat.Executions, ex)
			done++
			if len(pat.Executions) > n {
				total++
			}
			if o.Tick != nil {
				o.Tick(done, total, ap.ID)
			}
		}
		out = append(out, pat)
		if o.Progress != nil {
			o.Progress("probe: %s %s: %d executions (%d/%d patterns, %d/%d executions)", ap.ID, ap.Op, len(pat.Executions), pi+1, len(d.AccessPatterns), done, total)
		}
	}
	return out, r.findings, nil
}

// warmUp executes a query pattern once before its samples and keeps nothing of it: the first
// execution of a query is the one that pays for what a target prepares once (the SDK's query plan
// and routing caches, a connection; on the embedded engine, an equality or ORDER BY index built on
// the first query that needs it, docs/performance.md), and none of that belongs in the sampled
// latencies. The charge is the target's as usual (an account bills it; EstimateRunCost counts it).
// Point operations have nothing to prepare, and writes would change what the samples see.
//
// The warm-up is also the one execution that asks for index metrics (PopulateIndexMetrics): they add
// overhead on the service, so the sampled charges are measured without them (as calibrate fits its
// charges); it returns the metrics the target answered (nil when none).
func (r *runner) warmUp(ctx context.Context, pi int, ap *design.AccessPattern) (*record.IndexMetrics, error) {
	if ap.Op != design.OpQuery {
		return nil, nil
	}
	ex, err := r.execute(ctx, pi, ap, -1)
	return ex.IndexMetrics, err // only the target's failure or ctx: a failed query is the samples' to record
}

// pick is the sample index of execution i of pattern pi: independent of everything else in the run.
func (r *runner) pick(pi, i int) int {
	x := uint64(r.o.Seed)*0x9e3779b97f4a7c15 ^ uint64(pi+1)<<32 ^ uint64(i+1)
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	return int(x >> 1 & 0x7fffffff)
}

func (r *runner) note(ap *design.AccessPattern, level, msg string) {
	r.findings = append(r.findings, record.Finding{Stage: "probe", Level: level, Subject: "pattern " + ap.ID, Message: msg})
}

// checkPattern records findings about a pattern's shape that no single execution would explain.
func (r *runner) checkPattern(ap *design.AccessPattern) {
	c := r.d.Container(ap.Container)
	if c == nil || ap.Op != design.OpQuery {
		return
	}
	levels := len(c.PartitionKey)
	if form, _ := querycheck.PrefixForm(r.d, c, ap); form == design.PrefixOptions || form == design.PrefixBoth {
		return // the run sends the prefix in the request (exec.query): it routes, and is re-checked
	}
	if k := len(ap.PartitionKey); k > 0 && k < levels {
		ci := slices.IndexFunc(r.d.Containers, func(x design.Container) bool { return x.Name == c.Name })
		a := querycheck.Check(r.d, ci, ap.Query).Analysis
		for _, path := range c.PartitionKey[:k] {
			if !querycheck.FiltersOn(a, path) {
				r.note(ap, "warn", fmt.Sprintf("hierarchical prefix query sent with prefixIn: where: the key prefix is passed as an empty partition key, so the query "+
					"must filter on %s in its WHERE clause; without it the query fans out to every partition", path))
			}
		}
	}
}

// failure is an execution error with its explanation.
type failure struct {
	status int
	msg    string
	expl   string
}

func (r *runner) execute(ctx context.Context, pi int, ap *design.AccessPattern, i int) (record.Execution, error) {
	c := r.d.Container(ap.Container)
	cc := r.containers[ap.Container]
	if c == nil || cc == nil {
		return record.Execution{Error: "container " + ap.Container + " is not provisioned",
			Explanation: "the pattern names a container the design does not define"}, nil
	}
	x := &exec{r: r, ap: ap, c: c, cc: cc, indexMetrics: i < 0}
	sampleType := ap.Sample
	if sampleType == "" && ap.Op != design.OpCreate && ap.Op != design.OpUpsert && ap.Op != design.OpQuery && ap.Op != design.OpRead {
		sampleType = ap.Document
	}
	if sampleType != "" {
		doc, ok := r.docs.Sample(sampleType, r.pick(pi, i))
		if !ok {
			return record.Execution{Error: "no seeded document of type " + sampleType,
				Explanation: "the pattern draws its parameters from a type that has no seeded documents; give the type a count or a parent"}, nil
		}
		x.sample = doc
	}
	var ex record.Execution
	var err error
	switch ap.Op {
	case design.OpRead:
		ex, err = x.read(ctx)
	case design.OpQuery:
		ex, err = x.query(ctx)
	case design.OpCreate, design.OpUpsert:
		ex, err = x.write(ctx)
	case design.OpReplace, design.OpPatch, design.OpDelete:
		ex, err = x.modify(ctx)
	case design.OpBatch:
		ex, err = x.batch(ctx)
	case design.OpChangeFeed:
		ex, err = x.changeFeed(ctx, i)
	default:
		return record.Execution{Error: "unknown operation " + ap.Op}, nil
	}
	x.cleanup()
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return ex, err
		}
		if sdk.TargetFailed(err) {
			return ex, sdk.Infrastructure("probe "+ap.ID, errors.New(sdk.ServiceMessage(err)))
		}
		var f *failure
		if errors.As(err, &f) {
			ex.Status, ex.Error, ex.Explanation = f.status, f.msg, f.expl
		} else {
			ex.Status = sdk.StatusOf(err)
			ex.Error = sdk.ServiceMessage(err)
			ex.Explanation = explain(r.d, ap, c, ex.Status, ex.Error)
		}
		if ap.Expect != nil && ap.Expect.Status != 0 && ap.Expect.Status == ex.Status {
			ex.Explanation = fmt.Sprintf("failed with %d as the design expects (%s)", ex.Status, ex.Error)
			ex.Error = ""
		}
	}
	return ex, nil
}

func (f *failure) Error() string { return f.msg }

// exec is one execution in progress.
type exec struct {
	r       *runner
	ap      *design.AccessPattern
	c       *design.Container
	cc      *azcosmos.ContainerClient
	sample  map[string]any
	scratch []scratchDoc // documents to delete afterwards (not counted)
	// indexMetrics asks the target for index metrics (the warm-up only: warmUp).
	indexMetrics bool
}

type scratchDoc struct {
	id string
	pk azcosmos.PartitionKey
}

// cleanup deletes the scratch and fresh documents of the execution so later patterns see the data
// exactly as seeded. Best effort; charges are not counted.
func (x *exec) cleanup() {
	if len(x.scratch) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, s := range x.scratch {
		_, _ = x.cc.DeleteItem(ctx, s.pk, s.id, nil)
	}
}

func (x *exec) consistency() *azcosmos.ConsistencyLevel {
	level := x.ap.Consistency
	if level == "" {
		level = x.r.o.DefaultConsistency
	}
	if level == "" {
		return nil
	}
	l := azcosmos.ConsistencyLevel(level)
	return &l
}

// key resolves the pattern's partition-key templates against the sample. With no templates it
// takes the sample's own key values.
func (x *exec) key() ([]any, error) {
	if len(x.ap.PartitionKey) == 0 {
		if x.sample == nil {
			return nil, nil
		}
		return keyValues(x.c, x.sample), nil
	}
	vals := make([]any, 0, len(x.ap.PartitionKey))
	for _, t := range x.ap.PartitionKey {
		v, err := resolve(t, x.sample)
		if err != nil {
			return nil, &failure{msg: "partition key: " + err.Error(), expl: "the partitionKey template names a field the sampled document does not have"}
		}
		vals = append(vals, v)
	}
	return vals, nil
}

func (x *exec) fullKey() (azcosmos.PartitionKey, []any, error) {
	vals, err := x.key()
	if err != nil {
		return azcosmos.PartitionKey{}, nil, err
	}
	if len(vals) != len(x.c.PartitionKey) {
		return azcosmos.PartitionKey{}, nil, &failure{
			msg: fmt.Sprintf("partition key has %d of %d levels", len(vals), len(x.c.PartitionKey)),
			expl: "a point operation or batch must give every level of the partition key (" +
				strings.Join(x.c.PartitionKey, ", ") + "); only queries may pass a hierarchical prefix"}
	}
	return sdk.PartitionKey(vals), vals, nil
}

func (x *exec) itemID() (string, error) {
	t := x.ap.ItemID
	if t == "" {
		t = "{id}"
	}
	v, err := resolve(t, x.sample)
	if err != nil {
		return "", &failure{msg: "item id: " + err.Error(), expl: "the itemId template names a field the sampled document does not have"}
	}
	return toString(v), nil
}

func (x *exec) read(ctx context.Context) (record.Execution, error) {
	pk, _, err := x.fullKey()
	if err != nil {
		return record.Execution{}, err
	}
	id, err := x.itemID()
	if err != nil {
		return record.Execution{}, err
	}
	start := time.Now()
	resp, err := x.cc.ReadItem(ctx, pk, id, &azcosmos.ItemOptions{ConsistencyLevel: x.consistency()})
	ex := record.Execution{Latency: time.Since(start), Pages: 1, Partitions: 1}
	if err != nil {
		ex.RU = chargeOf(err)
		return ex, err
	}
	ex.RU, ex.Status, ex.Results = sdk.Charge(resp.RequestCharge), resp.RawResponse.StatusCode, 1
	return ex, nil
}

func (x *exec) query(ctx context.Context) (record.Execution, error) {
	vals, err := x.key()
	if err != nil {
		return record.Execution{}, err
	}
	pk := azcosmos.NewPartitionKey() // cross-partition, or a hierarchical prefix given in WHERE
	var prefix *azcosmos.PartitionKey
	if len(x.ap.PartitionKey) > 0 && len(vals) == len(x.c.PartitionKey) {
		pk = sdk.PartitionKey(vals)
	} else if form, n := querycheck.PrefixForm(x.r.d, x.c, x.ap); (form == design.PrefixOptions || form == design.PrefixBoth) && n > 0 && len(vals) >= n {
		// The application sends the prefix in the request options (prefixIn, or as partitionKey
		// and WHERE say): so does the run, and the service re-checks its key range at runtime. A
		// prefix only WHERE gives (app.sdk efcore lifting it) is sent as written, in WHERE.
		pk = sdk.PartitionKey(vals[:n])
		prefix = &pk
	}
	opts := &azcosmos.QueryOptions{PopulateIndexMetrics: x.indexMetrics, ConsistencyLevel: x.consistency()}
	for _, name := range sortedParamNames(x.ap.Params) {
		v, err := resolve(x.ap.Params[name], x.sample)
		if err != nil {
			return record.Execution{}, &failure{msg: "parameter " + name + ": " + err.Error(), expl: "the parameter template names a field the sampled document does not have"}
		}
		opts.QueryParameters = append(opts.QueryParameters, azcosmos.QueryParameter{Name: name, Value: v})
	}
	ex := record.Execution{}
	ranges := map[string]bool{}
	start := time.Now()
	pager := x.cc.NewQueryItemsPager(x.ap.Query, pk, opts)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			ex.Latency = time.Since(start)
			ex.RU += chargeOf(err)
			ex.Partitions = max(len(ranges), 1)
			if ex.Pages == 0 {
				if px, perr, ok := x.crossPartition(ctx, err, opts, ex, prefix); ok {
					return px, perr
				}
			}
			return ex, err
		}
		ex.Pages++
		ex.RU += sdk.Charge(page.RequestCharge)
		ex.Results += len(page.Items)
		if page.RawResponse != nil {
			ex.Status = page.RawResponse.StatusCode
			if id := page.RawResponse.Header.Get("x-ms-documentdb-partitionkeyrangeid"); id != "" {
				for _, part := range strings.Split(id, ",") {
					ranges[strings.TrimSpace(part)] = true
				}
			}
		}
		if page.RawResponse != nil {
			addFacts(&ex, page.RawResponse.Header)
		}
		if page.QueryMetrics != nil {
			if ex.QueryMetrics == nil {
				ex.QueryMetrics = map[string]float64{}
			}
			AddQueryMetrics(ex.QueryMetrics, *page.QueryMetrics)
		}
		if page.IndexMetrics != nil {
			if im := decodeIndexMetrics(*page.IndexMetrics); im != nil {
				ex.IndexMetrics = mergeIndexMetrics(ex.IndexMetrics, im)
			}
		}
	}
	ex.Latency = time.Since(start)
	ex.Partitions = len(ranges)
	return ex, nil
}

// parentFor returns the document a fresh document of docType is placed under: the sample when it is
// of the parent type, else a sampled document of the parent type.
func (x *exec) parentFor(docType string) map[string]any {
	pt := x.r.docs.ParentType(docType)
	if pt == "" {
		return nil
	}
	if x.sample != nil && x.ap.Sample == pt {
		return x.sample
	}
	p, _ := x.r.docs.Sample(pt, x.r.fresh)
	return p
}

func (x *exec) freshDoc(docType string) (map[string]any, error) {
	if docType == "" {
		return nil, &failure{msg: "no document type", expl: "a write pattern needs a document type (document:) to generate fresh documents of"}
	}
	n := x.r.fresh
	x.r.fresh++
	doc, err := x.r.docs.Fresh(docType, n, x.parentFor(docType))
	if err != nil {
		return nil, &failure{msg: "generate " + docType + ": " + err.Error()}
	}
	return doc, nil
}

func (x *exec) write(ctx context.Context) (record.Execution, error) {
	docType := x.ap.WrittenType()
	doc, err := x.freshDoc(docType)
	if err != nil {
		return record.Execution{}, err
	}
	vals := keyValues(x.c, doc)
	body, err := json.Marshal(doc)
	if err != nil {
		return record.Execution{}, &failure{msg: "encode document: " + err.Error()}
	}
	pk := sdk.PartitionKey(vals)
	start := time.Now()
	var resp azcosmos.ItemResponse
	if x.ap.Op == design.OpUpsert {
		resp, err = x.cc.UpsertItem(ctx, pk, body, nil)
	} else {
		resp, err = x.cc.CreateItem(ctx, pk, body, nil)
	}
	ex := record.Execution{Latency: time.Since(start), Pages: 1, Partitions: 1}
	if err != nil {
		ex.RU = chargeOf(err)
		return ex, err
	}
	x.scratch = append(x.scratch, scratchDoc{id: toString(doc["id"]), pk: sdk.PartitionKey(vals)})
	ex.RU, ex.Status, ex.Results = sdk.Charge(resp.RequestCharge), resp.RawResponse.StatusCode, 1
	return ex, nil
}

// makeScratch creates an uncounted copy of the item id in partition vals (new id, same partition,
// unique-key values made distinct) and returns its decoded body.
func (x *exec) makeScratch(ctx context.Context, id string, vals []any) (map[string]any, error) {
	var base map[string]any
	if x.sample != nil && toString(x.sample["id"]) == id {
		base = cloneMap(x.sample)
	} else {
		resp, err := x.cc.ReadItem(ctx, sdk.PartitionKey(vals), id, nil)
		if err != nil {
			if sdk.StatusOf(err) == http.StatusNotFound {
				return nil, &failure{status: 404, msg: sdk.ServiceMessage(err),
					expl: fmt.Sprintf("item %q does not exist in partition %v: check the itemId and partitionKey templates", id, vals)}
			}
			return nil, err
		}
		if err := json.Unmarshal(resp.Value, &base); err != nil {
			return nil, &failure{msg: "decode item: " + err.Error()}
		}
	}
	for k := range base {
		if strings.HasPrefix(k, "_") {
			delete(base, k)
		}
	}
	n := x.r.fresh
	x.r.fresh++
	tag := fmt.Sprintf("~scratch%d", n)
	newID := id + tag
	base["id"] = newID
	for _, set := range x.c.UniqueKeys {
		for _, path := range set {
			distinguish(base, design.SplitPath(path), tag, n)
		}
	}
	body, err := json.Marshal(base)
	if err != nil {
		return nil, &failure{msg: "encode scratch copy: " + err.Error()}
	}
	pk := sdk.PartitionKey(vals)
	if _, err := x.cc.CreateItem(ctx, pk, body, nil); err != nil {
		if sdk.TargetFailed(err) || ctx.Err() != nil {
			return nil, err
		}
		expl := "the probe writes to a copy of the sampled document so that seeded data stays intact; creating that copy failed"
		if sdk.StatusOf(err) == http.StatusConflict && len(x.c.UniqueKeys) > 0 {
			expl += ": " + sdk.UniqueKeyHint(x.c.UniqueKeys)
		}
		return nil, &failure{status: sdk.StatusOf(err), msg: "scratch copy: " + sdk.ServiceMessage(err), expl: expl}
	}
	x.scratch = append(x.scratch, scratchDoc{id: newID, pk: sdk.PartitionKey(vals)})
	return base, nil
}

func (x *exec) modify(ctx context.Context) (record.Execution, error) {
	pk, vals, err := x.fullKey()
	if err != nil {
		return record.Execution{}, err
	}
	id, err := x.itemID()
	if err != nil {
		return record.Execution{}, err
	}
	scratch, err := x.makeScratch(ctx, id, vals)
	if err != nil {
		return record.Execution{}, err
	}
	sid := toString(scratch["id"])
	ex := record.Execution{Pages: 1, Partitions: 1}
	var resp azcosmos.ItemResponse
	var start time.Time
	switch x.ap.Op {
	case design.OpReplace:
		body, err := x.replacement(scratch)
		if err != nil {
			return record.Execution{}, err
		}
		start = time.Now()
		resp, err = x.cc.ReplaceItem(ctx, pk, sid, body, nil)
		ex.Latency = time.Since(start)
		if err != nil {
			ex.RU = chargeOf(err)
			return ex, err
		}
	case design.OpPatch:
		ops, err := patchOps(x.ap.Patch, scratch)
		if err != nil {
			return record.Execution{}, err
		}
		if x.ap.Condition != "" {
			ops.SetCondition(x.ap.Condition)
		}
		start = time.Now()
		resp, err = x.cc.PatchItem(ctx, pk, sid, ops, nil)
		ex.Latency = time.Since(start)
		if err != nil {
			ex.RU = chargeOf(err)
			return ex, err
		}
	case design.OpDelete:
		start = time.Now()
		resp, err = x.cc.DeleteItem(ctx, pk, sid, nil)
		ex.Latency = time.Since(start)
		if err != nil {
			ex.RU = chargeOf(err)
			return ex, err
		}
		x.scratch = x.scratch[:len(x.scratch)-1]
	}
	ex.RU, ex.Status, ex.Results = sdk.Charge(resp.RequestCharge), resp.RawResponse.StatusCode, 1
	return ex, nil
}

// replacement is the new body of a replace: a fresh document of the pattern's type that keeps the
// target's id and partition-key values.
func (x *exec) replacement(target map[string]any) ([]byte, error) {
	docType := x.ap.WrittenType()
	doc, err := x.freshDoc(docType)
	if err != nil {
		return nil, err
	}
	doc["id"] = target["id"]
	for _, path := range x.c.PartitionKey {
		segs := design.SplitPath(path)
		if v, ok := lookupPath(target, segs); ok {
			setPath(doc, segs, v)
		}
	}
	for _, set := range x.c.UniqueKeys {
		for _, path := range set {
			segs := design.SplitPath(path)
			if v, ok := lookupPath(target, segs); ok {
				setPath(doc, segs, v)
			}
		}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, &failure{msg: "encode document: " + err.Error()}
	}
	return b, nil
}

// batch runs a transactional batch in the sampled document's logical partition.
func (x *exec) batch(ctx context.Context) (record.Execution, error) {
	pk, vals, err := x.fullKey()
	if err != nil {
		return record.Execution{}, err
	}
	total := 0
	for _, op := range x.ap.Batch {
		total += max(op.Repeat, 1)
	}
	if total > 100 {
		return record.Execution{}, &failure{status: 400, msg: fmt.Sprintf("batch has %d operations", total),
			expl: "a transactional batch holds at most 100 operations; split it"}
	}
	b := x.cc.NewTransactionalBatch(pk)
	var kinds []string
	for _, op := range x.ap.Batch {
		for range max(op.Repeat, 1) {
			kinds = append(kinds, op.Op)
			switch op.Op {
			case design.OpCreate, design.OpUpsert:
				docType := x.ap.BatchWrittenType(&op)
				doc, err := x.freshDoc(docType)
				if err != nil {
					return record.Execution{}, err
				}
				for li, path := range x.c.PartitionKey {
					setPath(doc, design.SplitPath(path), vals[li])
				}
				body, _ := json.Marshal(doc)
				if op.Op == design.OpCreate {
					b.CreateItem(body, nil)
				} else {
					b.UpsertItem(body, nil)
				}
				x.scratch = append(x.scratch, scratchDoc{id: toString(doc["id"]), pk: sdk.PartitionKey(vals)})
			case design.OpRead:
				id, err := x.batchItemID(op)
				if err != nil {
					return record.Execution{}, err
				}
				b.ReadItem(id, nil)
			case design.OpReplace, design.OpDelete, design.OpPatch:
				id, err := x.batchItemID(op)
				if err != nil {
					return record.Execution{}, err
				}
				scratch, err := x.makeScratch(ctx, id, vals)
				if err != nil {
					return record.Execution{}, err
				}
				sid := toString(scratch["id"])
				switch op.Op {
				case design.OpReplace:
					body, err := x.replacement(scratch)
					if err != nil {
						return record.Execution{}, err
					}
					b.ReplaceItem(sid, body, nil)
				case design.OpDelete:
					b.DeleteItem(sid, nil)
				case design.OpPatch:
					ops, err := patchOps(op.Patch, scratch)
					if err != nil {
						return record.Execution{}, err
					}
					b.PatchItem(sid, ops, nil)
				}
			default:
				return record.Execution{}, &failure{msg: "unknown batch operation " + op.Op}
			}
		}
	}
	start := time.Now()
	resp, err := x.cc.ExecuteTransactionalBatch(ctx, b, nil)
	ex := record.Execution{Latency: time.Since(start), Pages: 1, Partitions: 1}
	if err != nil {
		ex.RU = chargeOf(err)
		return ex, err
	}
	ex.RU = sdk.Charge(resp.RequestCharge)
	ex.Status = resp.RawResponse.StatusCode
	if !resp.Success {
		for i, res := range resp.OperationResults {
			if res.StatusCode != http.StatusFailedDependency {
				kind := "?"
				if i < len(kinds) {
					kind = kinds[i]
				}
				ex.Status = int(res.StatusCode)
				return ex, &failure{status: int(res.StatusCode),
					msg:  fmt.Sprintf("batch rolled back: operation %d (%s) failed with %d", i+1, kind, res.StatusCode),
					expl: explain(x.r.d, x.ap, x.c, int(res.StatusCode), "")}
			}
		}
		return ex, &failure{status: ex.Status, msg: "batch rolled back"}
	}
	ex.Results = len(resp.OperationResults)
	return ex, nil
}

func (x *exec) batchItemID(op design.BatchOp) (string, error) {
	t := op.ItemID
	if t == "" {
		t = "{id}"
	}
	v, err := resolve(t, x.sample)
	if err != nil {
		return "", &failure{msg: "batch item id: " + err.Error()}
	}
	return toString(v), nil
}

// patchOps translates patch operations, resolving templates against doc.
func patchOps(ops []design.PatchOp, doc map[string]any) (azcosmos.PatchOperations, error) {
	var p azcosmos.PatchOperations
	for _, op := range ops {
		v, err := resolve(op.Value, doc)
		if err != nil {
			return p, &failure{msg: "patch " + op.Path + ": " + err.Error()}
		}
		switch strings.ToLower(op.Op) {
		case "set":
			p.AppendSet(op.Path, v)
		case "add":
			p.AppendAdd(op.Path, v)
		case "replace":
			p.AppendReplace(op.Path, v)
		case "remove":
			p.AppendRemove(op.Path)
		case "incr", "increment":
			n, ok := toInt64(v)
			if !ok {
				return p, &failure{msg: fmt.Sprintf("patch incr %s: %v is not an integer", op.Path, v),
					expl: "the Go SDK increments by integers only"}
			}
			p.AppendIncrement(op.Path, n)
		case "move":
			return p, &failure{msg: "patch move is not available in the Go SDK",
				expl: "azcosmos v1.5.0 has no move patch operation; use remove and add (or set) instead, or an SDK that supports move"}
		default:
			return p, &failure{msg: "unknown patch operation " + op.Op}
		}
	}
	return p, nil
}

// chargeOf is the request charge of a failed request, when the response carried one.
func chargeOf(err error) float64 {
	var re *azcore.ResponseError
	if errors.As(err, &re) && re.RawResponse != nil {
		var f float64
		if _, serr := fmt.Sscan(re.RawResponse.Header.Get("x-ms-request-charge"), &f); serr == nil {
			return f
		}
	}
	return 0
}

// addFacts adds the query facts a target reports for one page (the embedded engine and `validate
// serve`: cost.FactsHeader) to the execution's; a malformed header leaves the execution without
// facts rather than with wrong ones.
func addFacts(ex *record.Execution, h http.Header) {
	v := h.Get(cost.FactsHeader)
	if v == "" {
		return
	}
	if ex.Facts == nil {
		ex.Facts = map[string]float64{}
	}
	if err := cost.AddFactsText(ex.Facts, v); err != nil {
		ex.Facts = nil
	}
}

// Executor runs single executions of a design's patterns exactly as RunPatterns does (the same
// parameters from the seeded samples, the same SDK calls): a load replay (internal/replay) drives
// the patterns at a rate of its own through it.
type Executor struct{ r *runner }

// NewExecutor prepares executions of d's patterns on the provisioned containers.
func NewExecutor(d *design.Design, containers map[string]*azcosmos.ContainerClient, docs record.Documents, o Options) *Executor {
	return &Executor{r: &runner{d: d, containers: containers, docs: docs, o: o}}
}

// Execute runs execution i of pattern pi (its index in the design's accessPatterns). A failed
// execution is recorded in the Execution; only a target failure or ctx returns an error.
func (e *Executor) Execute(ctx context.Context, pi, i int) (record.Execution, error) {
	return e.r.execute(ctx, pi, &e.r.d.AccessPatterns[pi], i)
}
