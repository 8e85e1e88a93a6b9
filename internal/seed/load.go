package seed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/sdk"
)

// Options tune Load. The zero value is usable.
type Options struct {
	// Concurrency bounds the requests in flight. Default 16. A target that answers 429 gets fewer:
	// the bound halves on throttling and recovers by one per window of writes without (limiter).
	Concurrency int
	// Reservoir is how many documents per type are kept to draw pattern parameters from. Default 64.
	Reservoir int
	// Reused names containers that existed before this run: documents are upserted into them (a
	// re-run with the same seed rewrites the same ids) and their counts are checked as a lower bound.
	Reused map[string]bool
	// MaxRetries bounds the retries of one document after 429 responses. Default 50.
	MaxRetries int
	// FreshTag tags probe-time documents (see Samples.Fresh) so that they never collide with seeded
	// documents or with another run's. Default "p".
	FreshTag string
	// Progress receives progress output; nil = none. TTY draws a bar, else plain lines at every 10%.
	Progress io.Writer
	TTY      bool
}

// Result is what seeding did.
type Result struct {
	// Stats holds one entry per document type, in design order.
	Stats []record.SeedStat
	// Findings are seeding problems (failed documents, counts that do not match).
	Findings []record.Finding
	// Samples are the documents kept to draw pattern parameters from.
	Samples *Samples
	// Throttled counts the 429 responses the load waited out.
	Throttled int64
	// LowestConcurrency is the fewest writes the load allowed in flight after 429s (the
	// configured concurrency when the target never throttled).
	LowestConcurrency int
}

type job struct {
	doc *Doc
}

type typeStat struct {
	docs, failed int
	bytes        int64
	ru           float64
	first, last  time.Time
	firstErr     string
	failedIDs    []string
}

const maxFailedIDs = 1000

// Load generates every document of p and writes it to its container through the SDK, with bounded
// concurrency and back-off on 429. A target failure (unreachable, 401/403, 503) stops the load and
// is returned wrapped as sdk.ErrInfrastructure; a document the service refuses for another reason
// is counted and reported as a finding. After loading, each container's documents are counted through
// the SDK and compared with what was written.
func Load(ctx context.Context, p *Plan, containers map[string]*azcosmos.ContainerClient, o Options) (*Result, error) {
	o = o.withDefaults()
	for _, t := range p.types {
		if containers[t.container] == nil {
			return nil, fmt.Errorf("seed %s: no client for container %s", t.name, t.container)
		}
	}
	counts := p.Counts()
	samples := newSamples(p, o.Reservoir, o.FreshTag, counts)
	lim := newLimiter(o.Concurrency)
	// perType counts every 429 each document type's writes received, the SDK's retries included.
	perType := make([]sdk.ThrottleCounter, len(p.types))
	stats, throttled, err := writeAll(ctx, p, containers, o, counts, samples, lim, perType)
	if err != nil {
		return nil, err
	}

	res := &Result{Samples: samples, Throttled: throttled, LowestConcurrency: lim.low()}
	perContainer := res.tally(p, stats, counts)
	var all int64 // every 429, the SDK's retries included: the count the Throttling section shows
	for i := range res.Stats {
		res.Stats[i].Throttled = perType[i].Throttled()
		res.Stats[i].RetryWaitMs = perType[i].RetryWaitMs()
		all += res.Stats[i].Throttled
	}
	if f, ok := throttleNote(all, res.Throttled, o.Concurrency, res.LowestConcurrency); ok {
		res.Findings = append(res.Findings, f)
	}
	if err := res.verify(ctx, containers, perContainer, o.Reused); err != nil {
		return nil, err
	}
	return res, nil
}

// throttleNote is the seeding note about 429s: all of them (counted by sdk.ThrottlePolicy, the SDK's
// own retries included, as the report's Throttling section counts them), and, when fewer reached the
// loader after the SDK's retries, how many did. A client without the policy counts none, so the
// loader's count is then the total.
func throttleNote(all, loader int64, concurrency, lowest int) (record.Finding, bool) {
	all = max(all, loader)
	if all == 0 {
		return record.Finding{}, false
	}
	msg := fmt.Sprintf("the target answered seeding writes with 429 (throttled) %d time(s)", all)
	if loader < all {
		msg += fmt.Sprintf(": the SDK retried %d of them itself and %d reached the loader", all-loader, loader)
	}
	if loader > 0 {
		msg += fmt.Sprintf("; the loader waited as asked, retried, and lowered the writes in flight from %d to as few as %d", concurrency, lowest)
	}
	return record.Finding{Stage: "seed", Level: "info", Subject: "seeding", Message: msg}, true
}

func (o Options) withDefaults() Options {
	if o.Concurrency <= 0 {
		o.Concurrency = 16
	}
	if o.Reservoir <= 0 {
		o.Reservoir = 64
	}
	if o.MaxRetries <= 0 {
		o.MaxRetries = 50
	}
	if o.FreshTag == "" {
		o.FreshTag = "p"
	}
	return o
}

// writeAll generates the documents of p and writes them with o.Concurrency workers, offering each
// to samples. It returns each worker's statistics per document type and the 429s waited out; a
// target failure stops every worker and is returned.
func writeAll(ctx context.Context, p *Plan, containers map[string]*azcosmos.ContainerClient, o Options,
	counts map[string]int, samples *Samples, lim *limiter, perType []sdk.ThrottleCounter) ([][]typeStat, int64, error) {
	total := 0
	for _, n := range counts {
		total += n
	}
	prog := newProgress(o.Progress, o.TTY, total)
	defer prog.stop()

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	jobs := make(chan job, o.Concurrency*4)
	stats := make([][]typeStat, o.Concurrency)
	var throttled atomic.Int64
	var wg sync.WaitGroup
	for w := range o.Concurrency {
		stats[w] = make([]typeStat, len(p.types))
		wg.Add(1)
		go func(st []typeStat) {
			defer wg.Done()
			for j := range jobs {
				if ctx.Err() != nil || lim.acquire(ctx) != nil {
					continue // drain
				}
				t := p.byName[j.doc.Type]
				s := &st[t.index]
				start := time.Now()
				wctx, _ := sdk.WithThrottleCounter(ctx, &perType[t.index])
				ru, err := writeDoc(wctx, containers[t.container], j.doc, o.Reused[t.container], o.MaxRetries, func() {
					throttled.Add(1)
					lim.throttled()
				})
				lim.release()
				s.span(start, time.Now())
				switch {
				case err == nil:
					s.docs++
					s.bytes += int64(len(j.doc.Body))
					s.ru += ru
				case sdk.TargetFailed(err):
					cancel(sdk.Infrastructure("seed "+t.container, err))
				case ctx.Err() != nil:
				default:
					s.refused(t, j.doc, ru, err)
				}
				prog.add(1)
			}
		}(stats[w])
	}

	genErr := p.Walk(ctx, func(d *Doc) error {
		samples.offer(d)
		select {
		case jobs <- job{doc: d}:
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	})
	close(jobs)
	wg.Wait()
	prog.stop()
	if cause := context.Cause(ctx); cause != nil {
		return nil, 0, cause
	}
	if genErr != nil {
		return nil, 0, fmt.Errorf("generate: %w", genErr)
	}
	return stats, throttled.Load(), nil
}

// span widens the type's time span to [start, end].
func (s *typeStat) span(start, end time.Time) {
	if s.first.IsZero() || start.Before(s.first) {
		s.first = start
	}
	if end.After(s.last) {
		s.last = end
	}
}

// refused counts a document the service refused, keeping the first message and the ids to drop
// from the samples.
func (s *typeStat) refused(t *typePlan, d *Doc, ru float64, err error) {
	s.failed++
	s.ru += ru
	if s.firstErr == "" {
		s.firstErr = sdk.ServiceMessage(err)
		if sdk.StatusOf(err) == http.StatusConflict && len(t.uniqueKeys) > 0 {
			s.firstErr += "; " + sdk.UniqueKeyHint(t.uniqueKeys)
		}
	}
	if len(s.failedIDs) < maxFailedIDs {
		s.failedIDs = append(s.failedIDs, d.ID)
	}
}

// tally adds the workers' statistics up per document type into res.Stats, records refused and
// missing documents as findings (and drops refused ones from the samples), and returns the
// documents written per container.
func (res *Result) tally(p *Plan, stats [][]typeStat, counts map[string]int) map[string]int {
	perContainer := map[string]int{}
	for _, t := range p.types {
		var agg typeStat
		for w := range stats {
			s := stats[w][t.index]
			agg.docs += s.docs
			agg.failed += s.failed
			agg.bytes += s.bytes
			agg.ru += s.ru
			if !s.first.IsZero() && (agg.first.IsZero() || s.first.Before(agg.first)) {
				agg.first = s.first
			}
			if s.last.After(agg.last) {
				agg.last = s.last
			}
			if agg.firstErr == "" {
				agg.firstErr = s.firstErr
			}
			agg.failedIDs = append(agg.failedIDs, s.failedIDs...)
		}
		res.Stats = append(res.Stats, record.SeedStat{
			Container: t.container, Type: t.name, Documents: agg.docs, Bytes: agg.bytes,
			RU: agg.ru, Duration: agg.last.Sub(agg.first),
		})
		perContainer[t.container] += agg.docs
		if agg.failed > 0 {
			res.Findings = append(res.Findings, record.Finding{
				Stage: "seed", Level: "error", Subject: "document type " + t.name,
				Message: fmt.Sprintf("%d of %d documents were refused: %s", agg.failed, counts[t.name], agg.firstErr),
			})
			res.Samples.drop(t.name, agg.failedIDs)
		}
		if agg.docs+agg.failed != counts[t.name] {
			res.Findings = append(res.Findings, record.Finding{
				Stage: "seed", Level: "error", Subject: "document type " + t.name,
				Message: fmt.Sprintf("generated %d documents but %d were written and %d refused", counts[t.name], agg.docs, agg.failed),
			})
		}
	}
	return perContainer
}

// verify counts each container's documents through the SDK and records, as findings, documents
// lost or duplicated (or, in a reused container, fewer than were written).
func (res *Result) verify(ctx context.Context, containers map[string]*azcosmos.ContainerClient, perContainer map[string]int, reused map[string]bool) error {
	for _, name := range sortedKeys(perContainer) {
		n, err := CountDocuments(ctx, containers[name])
		if err != nil {
			if sdk.TargetFailed(err) {
				return sdk.Infrastructure("count "+name, err)
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			res.Findings = append(res.Findings, record.Finding{
				Stage: "seed", Level: "warn", Subject: "container " + name,
				Message: "could not count the documents to verify the load: " + sdk.ServiceMessage(err),
			})
			continue
		}
		want := perContainer[name]
		switch {
		case reused[name] && n < want:
			res.Findings = append(res.Findings, record.Finding{Stage: "seed", Level: "error", Subject: "container " + name,
				Message: fmt.Sprintf("wrote %d documents into the existing container but it holds only %d", want, n)})
		case reused[name]:
			if n > want {
				res.Findings = append(res.Findings, record.Finding{Stage: "seed", Level: "info", Subject: "container " + name,
					Message: fmt.Sprintf("the existing container holds %d documents besides the %d seeded", n-want, want)})
			}
		case n != want:
			res.Findings = append(res.Findings, record.Finding{Stage: "seed", Level: "error", Subject: "container " + name,
				Message: fmt.Sprintf("wrote %d documents but the container holds %d (lost or duplicated documents)", want, n)})
		}
	}
	return nil
}

// writeDoc creates (or, into a reused container, upserts) one document, retrying 429 responses after
// the delay the service asks for (throttled is called at each). It returns the charge of the successful (or final) response.
func writeDoc(ctx context.Context, c *azcosmos.ContainerClient, d *Doc, upsert bool, maxRetries int, throttled func()) (float64, error) {
	pk := sdk.PartitionKey(d.PK)
	for attempt := 0; ; attempt++ {
		var resp azcosmos.ItemResponse
		var err error
		if upsert {
			resp, err = c.UpsertItem(ctx, pk, d.Body, nil)
		} else {
			resp, err = c.CreateItem(ctx, pk, d.Body, nil)
		}
		if err == nil {
			return sdk.Charge(resp.RequestCharge), nil
		}
		if sdk.StatusOf(err) != http.StatusTooManyRequests || attempt >= maxRetries {
			return 0, err
		}
		throttled()
		if werr := sleepCtx(ctx, retryAfter(err, attempt)); werr != nil {
			return 0, werr
		}
	}
}

// retryAfter is the delay a 429 asks for (x-ms-retry-after-ms), else an exponential back-off with
// jitter, capped at 5 s.
func retryAfter(err error, attempt int) time.Duration {
	var re *azcore.ResponseError
	if errors.As(err, &re) && re.RawResponse != nil {
		if v := re.RawResponse.Header.Get("x-ms-retry-after-ms"); v != "" {
			if ms, perr := strconv.ParseFloat(v, 64); perr == nil && ms >= 0 {
				return min(time.Duration(ms*float64(time.Millisecond)), 5*time.Second)
			}
		}
	}
	d := 10 * time.Millisecond << min(attempt, 9)
	d = min(d, 5*time.Second)
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// CountDocuments counts a container's documents through the SDK. The Go SDK cannot aggregate across
// partitions (the gateway refuses COUNT there), so it reads every id across partitions and counts.
func CountDocuments(ctx context.Context, c *azcosmos.ContainerClient) (int, error) {
	pager := c.NewQueryItemsPager("SELECT c.id FROM c", azcosmos.NewPartitionKey(), &azcosmos.QueryOptions{PageSizeHint: 1000})
	n := 0
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return 0, err
		}
		n += len(page.Items)
	}
	return n, nil
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// Samples holds, per document type, a deterministic reservoir sample of the seeded documents, and
// generates fresh documents for write patterns. It implements record.Documents.
type Samples struct {
	plan   *Plan
	tag    string
	counts map[string]int
	size   int
	byType map[string]*reservoir
}

var _ record.Documents = (*Samples)(nil)

type reservoir struct {
	seen int
	docs []*Doc
	r    *rand.Rand
}

func newSamples(p *Plan, size int, tag string, counts map[string]int) *Samples {
	s := &Samples{plan: p, tag: tag, counts: counts, size: size, byType: map[string]*reservoir{}}
	for _, t := range p.types {
		s.byType[t.name] = &reservoir{r: rand.New(rand.NewPCG(mix2(p.seed, 0x5a3), uint64(t.index)+1))}
	}
	return s
}

// offer is Vitter's algorithm R: after n offers each document is kept with probability size/n.
func (s *Samples) offer(d *Doc) {
	r := s.byType[d.Type]
	r.seen++
	if len(r.docs) < s.size {
		r.docs = append(r.docs, d)
		return
	}
	if j := r.r.IntN(r.seen); j < s.size {
		r.docs[j] = d
	}
}

func (s *Samples) drop(docType string, ids []string) {
	r := s.byType[docType]
	if r == nil || len(ids) == 0 {
		return
	}
	bad := make(map[string]bool, len(ids))
	for _, id := range ids {
		bad[id] = true
	}
	kept := r.docs[:0]
	for _, d := range r.docs {
		if !bad[d.ID] {
			kept = append(kept, d)
		}
	}
	r.docs = kept
}

// Len returns how many sampled documents of the type there are.
func (s *Samples) Len(docType string) int {
	if r := s.byType[docType]; r != nil {
		return len(r.docs)
	}
	return 0
}

// Sample returns the n-th (modulo the sample size) sampled document of the type, decoded.
func (s *Samples) Sample(docType string, n int) (map[string]any, bool) {
	r := s.byType[docType]
	if r == nil || len(r.docs) == 0 {
		return nil, false
	}
	var m map[string]any
	if err := json.Unmarshal(r.docs[((n%len(r.docs))+len(r.docs))%len(r.docs)].Body, &m); err != nil {
		return nil, false
	}
	return m, true
}

// Fresh generates the n-th probe-time document of the type, placed under parent for a child type.
func (s *Samples) Fresh(docType string, n int, parent map[string]any) (map[string]any, error) {
	d, err := s.plan.Fresh(docType, int64(s.counts[docType]+n), fmt.Sprintf("%s%d", s.tag, n), parent)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(d.Body, &m); err != nil {
		return nil, fmt.Errorf("decode fresh %s: %w", docType, err)
	}
	return m, nil
}

// ParentType returns the parent type of docType, "" for a root type.
func (s *Samples) ParentType(docType string) string { return s.plan.ParentType(docType) }
