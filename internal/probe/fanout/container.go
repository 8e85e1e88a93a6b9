package fanout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// Container is the Backend of an azcosmos container. Every request goes through the client's own
// pipeline (its retries, authentication and transport): the query-plan and range headers are added
// per request with policy.WithHTTPHeader, and the query-plan body is read from the response the SDK
// returns. No second HTTP client, no fork of the SDK.
type Container struct {
	C *azcosmos.ContainerClient

	mu     sync.Mutex
	ranges []Range
	// pk, when set, is the hierarchical-key prefix an application sends in the request options
	// with each range's query (WithPartitionKey); base is the Container whose ranges it shares.
	pk   *azcosmos.PartitionKey
	base *Container
}

// WithPartitionKey is c sending pk (a hierarchical-key prefix the application gives in the request
// options) with each range's query, as an SDK with a query engine forwards it; the service then
// re-checks the prefix's key range on every document it reads. It shares c's ranges.
func (c *Container) WithPartitionKey(pk azcosmos.PartitionKey) *Container {
	return &Container{C: c.C, pk: &pk, base: c}
}

// NewContainer returns the Backend of c.
func NewContainer(c *azcosmos.ContainerClient) *Container { return &Container{C: c} }

// Header names, as the service and the SDKs spell them (azcosmos v1.5.0 cosmos_http_constants.go
// declares the first three; .NET HttpConstants.HttpHeaders).
const (
	hdrIsQueryPlan       = "x-ms-cosmos-is-query-plan-request"
	hdrSupportedFeatures = "x-ms-cosmos-supported-query-features"
	hdrRangeID           = "x-ms-documentdb-partitionkeyrangeid"
	hdrQueryVersion      = "x-ms-cosmos-query-version"
)

// QueryPlan asks the gateway for the plan: the query request with the plan headers.
func (c *Container) QueryPlan(ctx context.Context, query string, params []azcosmos.QueryParameter) ([]byte, float64, error) {
	h := http.Header{}
	h.Set(hdrIsQueryPlan, "True")
	h.Set(hdrSupportedFeatures, SupportedFeatures)
	h.Set(hdrQueryVersion, "1.4")
	pager := c.C.NewQueryItemsPager(query, azcosmos.NewPartitionKey(), &azcosmos.QueryOptions{QueryParameters: params})
	page, err := pager.NextPage(policy.WithHTTPHeader(ctx, h))
	if err != nil {
		return nil, 0, err
	}
	if page.RawResponse == nil {
		return nil, 0, errors.New("query plan: no response")
	}
	body, err := runtime.Payload(page.RawResponse)
	if err != nil {
		return nil, 0, fmt.Errorf("query plan: %w", err)
	}
	return body, charge(page.RequestCharge), nil
}

// Ranges lists the container's partition key ranges. azcosmos v1.5.0 gives their bounds
// (ReadFeedRanges) but not their ids, which the range header needs; the SDK's change feed for a
// feed range addresses the range by id, so one change-feed read per range (at most one item, read
// once per Container and not counted in any query's charge, as an SDK's own partition key range
// reads are not) tells the id from the request the SDK sent.
func (c *Container) Ranges(ctx context.Context) ([]Range, error) {
	if c.base != nil {
		return c.base.Ranges(ctx)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ranges != nil {
		return c.ranges, nil
	}
	frs, err := c.C.ReadFeedRanges(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("partition key ranges: %w", err)
	}
	out := make([]Range, 0, len(frs))
	for _, fr := range frs {
		fr := fr
		resp, err := c.C.ReadChangeFeed(ctx, &azcosmos.ChangeFeedOptions{FeedRange: &fr, MaxItemCount: 1})
		if err != nil {
			return nil, fmt.Errorf("partition key range [%s, %s): %w", fr.MinInclusive, fr.MaxExclusive, err)
		}
		id := ""
		if raw := resp.RawResponse; raw != nil {
			if raw.Request != nil {
				id = raw.Request.Header.Get(hdrRangeID)
			}
			if id == "" {
				id = raw.Header.Get(hdrRangeID)
			}
		}
		if id == "" {
			return nil, fmt.Errorf("partition key range [%s, %s): the SDK did not address it by id", fr.MinInclusive, fr.MaxExclusive)
		}
		out = append(out, Range{ID: id, Min: fr.MinInclusive, Max: fr.MaxExclusive})
	}
	c.ranges = out
	return out, nil
}

// QueryRange runs one page of query on one partition key range.
func (c *Container) QueryRange(ctx context.Context, id, query string, params []azcosmos.QueryParameter, continuation string, pageSize int) (Page, error) {
	o := &azcosmos.QueryOptions{QueryParameters: params}
	if pageSize > 0 {
		o.PageSizeHint = int32(pageSize)
	}
	if continuation != "" {
		o.ContinuationToken = &continuation
	}
	h := http.Header{}
	h.Set(hdrRangeID, id)
	key := azcosmos.NewPartitionKey()
	if c.pk != nil {
		key = *c.pk
	}
	pager := c.C.NewQueryItemsPager(query, key, o)
	page, err := pager.NextPage(policy.WithHTTPHeader(ctx, h))
	if err != nil {
		return Page{}, err
	}
	pg := Page{Charge: charge(page.RequestCharge)}
	if page.RawResponse != nil {
		pg.Header = page.RawResponse.Header
	}
	for _, it := range page.Items {
		pg.Items = append(pg.Items, json.RawMessage(it))
	}
	if page.ContinuationToken != nil {
		pg.Continuation = *page.ContinuationToken
	}
	return pg, nil
}

// String names the backend in errors.
func (c *Container) String() string { return "container " + strconv.Quote(c.C.ID()) }

// charge widens an SDK charge (float32) to the decimal the service sent.
func charge(f float32) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(float64(f), 'f', -1, 32), 64)
	return v
}
