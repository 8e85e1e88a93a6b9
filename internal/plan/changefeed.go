package plan

import (
	"fmt"
	"math"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
)

// estimateChangeFeed prices one execution of a changeFeed pattern: reading the feed from its start
// until every range answers 304. Each page is priced as the engine prices it (a read-feed page of
// the items it returns; assumed, docs/cost-model.md), the final round pays one empty page per range
// read. From "beginning" or a time, the feed holds every seeded document in scope (a static plan
// cannot tell a time's share); from "now", none.
func (s *sizer) estimateChangeFeed(rc *cost.RateCard, ests map[string]docEstimate, ap *design.AccessPattern, partitions int, level cost.Consistency) (model, floor float64, detail string) {
	cf := ap.ChangeFeed
	var items, bytes float64
	for i := range s.c.Documents {
		dt := &s.c.Documents[i]
		n := s.count(dt, 0)
		items += n
		bytes += n * ests[dt.Type].Bytes
	}
	ranges := max(partitions, 1) // ranges holding the items
	polled := ranges             // ranges read until they answer 304
	scope := "the container"
	switch {
	case len(ap.PartitionKey) > 0:
		if dt := s.docType(ap.Sample); dt != nil {
			full, _ := s.partitionDist(dt)
			share := 1 / math.Max(full.Card, 1)
			items, bytes = items*share, bytes*share
		}
		// azcosmos v1.5.0 cannot map a key to its feed range: it reads every range with the key,
		// and the ranges without it answer 304.
		ranges, scope = 1, "one logical partition"
	case cf.Scope == "range":
		items, bytes = items/float64(ranges), bytes/float64(ranges)
		ranges, polled, scope = 1, 1, "one feed range"
	}
	if cf.From == "now" {
		items, bytes = 0, 0
	}
	page := float64(max(cf.PageSize, 1))
	perRange := items / float64(ranges)
	fullPages := math.Floor(perRange / page)
	rest := perRange - fullPages*page
	avg := 0.0
	if items > 0 {
		avg = bytes / items
	}
	pageCharge := func(n float64) float64 {
		k := int(math.Round(n))
		b := int64(math.Round(n * avg))
		return rc.Query(cost.QueryFacts{DocsLoaded: k, BytesLoaded: b, DocsOutput: k, BytesOutput: b, PartitionsChecked: 1, Consistency: level})
	}
	empty := pageCharge(0)
	perRangeCharge := fullPages * pageCharge(page)
	pages := fullPages
	if rest >= 0.5 {
		perRangeCharge += pageCharge(rest)
		pages++
	}
	model = float64(ranges)*perRangeCharge + float64(polled)*empty
	floor = float64(polled) * empty
	detail = fmt.Sprintf("change feed of %s from %s: %.0f item(s) in %.0f page(s) of ≤ %d, then %d empty page(s) (304)", scope, cf.From,
		math.Round(items), pages*float64(ranges), cf.PageSize, polled)
	return model, floor, detail
}
