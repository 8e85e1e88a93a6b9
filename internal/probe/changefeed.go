package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/sdk"
)

// changeFeed reads the container's change feed (latest-version mode) from the pattern's start until
// a page comes back empty (304), through azcosmos ReadChangeFeed and its composite continuation:
// the charge is the sum over every page, the final empty one included, as a consumer catching up
// pays it. With scope "range", execution i reads feed range i modulo the ranges; with a partition
// key, the key's logical partition.
func (x *exec) changeFeed(ctx context.Context, i int) (record.Execution, error) {
	cf := x.ap.ChangeFeed
	opts := azcosmos.ChangeFeedOptions{MaxItemCount: int32(cf.PageSize)}
	switch cf.From {
	case "now":
		// azcosmos v1.5.0 has no start-from-now option; its composite continuation carries the
		// service's one, If-None-Match "*", per range (set below once the range is known).
	case "beginning", "":
	default:
		t, err := time.Parse(time.RFC3339, cf.From)
		if err != nil {
			return record.Execution{}, &failure{msg: "changeFeed.from: " + err.Error(), expl: "give beginning, now or an RFC 3339 time"}
		}
		opts.StartFrom = &t
	}
	if len(x.ap.PartitionKey) > 0 {
		pk, _, err := x.fullKey()
		if err != nil {
			return record.Execution{}, err
		}
		opts.PartitionKey = &pk
	}
	start := time.Now()
	whole := azcosmos.FeedRange{MinInclusive: "", MaxExclusive: "FF"}
	opts.FeedRange = &whole
	ex := record.Execution{}
	if cf.Scope == "range" {
		ranges, err := x.cc.ReadFeedRanges(ctx, nil)
		if err != nil {
			return ex, err
		}
		if len(ranges) == 0 {
			return ex, &failure{msg: "the container has no feed ranges", expl: "the target listed no partition key ranges"}
		}
		fr := ranges[i%len(ranges)]
		opts.FeedRange = &fr
	}
	if cf.From == "now" {
		token, err := json.Marshal(map[string]any{"version": 1, "resourceId": "", "continuation": []map[string]string{{
			"minInclusive": opts.FeedRange.MinInclusive, "maxExclusive": opts.FeedRange.MaxExclusive, "continuationToken": "*"}}})
		if err != nil {
			return ex, err
		}
		t := string(token)
		opts.Continuation, opts.FeedRange = &t, nil
	}
	ranges := map[string]bool{}
	for ex.Pages < maxChangeFeedPages {
		resp, err := x.cc.ReadChangeFeed(ctx, &opts)
		if err != nil {
			ex.Latency = time.Since(start)
			ex.RU += chargeOf(err)
			ex.Partitions = len(ranges)
			return ex, err
		}
		ex.Pages++
		ex.RU += sdk.Charge(resp.RequestCharge)
		if resp.RawResponse != nil {
			ex.Status = resp.RawResponse.StatusCode
			if id := resp.RawResponse.Header.Get("x-ms-documentdb-partitionkeyrangeid"); id != "" && len(resp.Items) > 0 {
				ranges[id] = true
			}
		}
		if resp.ContinuationToken != "" {
			token := resp.ContinuationToken
			opts.Continuation, opts.FeedRange = &token, nil
		}
		if len(resp.Items) == 0 || ex.Status == http.StatusNotModified {
			ex.Latency = time.Since(start)
			ex.Partitions = max(len(ranges), 1)
			return ex, nil
		}
		ex.Results += len(resp.Items)
	}
	ex.Latency = time.Since(start)
	ex.Partitions = max(len(ranges), 1)
	return ex, &failure{msg: fmt.Sprintf("the change feed did not drain in %d pages", maxChangeFeedPages),
		expl: "raise changeFeed.pageSize, or read from a later start"}
}

// maxChangeFeedPages bounds one execution of a changeFeed pattern.
const maxChangeFeedPages = 10000
