package probe

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmosdv/validate/internal/probe/fanout"
	"github.com/cosmosdv/validate/internal/record"
)

// unservable reports the gateway's 400 for a cross-partition query it cannot serve (substatus
// 1004): the shapes an SDK with a query engine runs itself.
func unservable(err error) bool {
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != 400 || re.RawResponse == nil {
		return false
	}
	sub, _ := strconv.Atoi(re.RawResponse.Header.Get("x-ms-substatus"))
	return sub == 1004
}

// fanoutFor returns the pipeline backend of a container, one per run (it remembers the ranges).
func (x *exec) fanoutFor() *fanout.Container {
	if x.r.fanouts == nil {
		x.r.fanouts = map[*azcosmos.ContainerClient]*fanout.Container{}
	}
	b := x.r.fanouts[x.cc]
	if b == nil {
		b = fanout.NewContainer(x.cc)
		x.r.fanouts[x.cc] = b
	}
	return b
}

// crossPartition runs a query the gateway refused as a cross-partition shape through the pipeline.
// For an application whose SDK has a query engine the pipeline's run is the execution; for one on
// the Go SDK the refusal stands (lint and run agree) and the pipeline's figure is kept as what the
// query would cost from an SDK with a query engine. ok is false when err is not that refusal.
// A hierarchical-key prefix the query sends in the request (prefix, non-nil) goes with each range's
// query, as an SDK with a query engine forwards it.
func (x *exec) crossPartition(ctx context.Context, err error, opts *azcosmos.QueryOptions, failed record.Execution, prefix *azcosmos.PartitionKey) (record.Execution, error, bool) {
	if !unservable(err) {
		return failed, err, false
	}
	start := time.Now()
	var b fanout.Backend = x.fanoutFor()
	if prefix != nil {
		b = x.fanoutFor().WithPartitionKey(*prefix)
	}
	res, perr := fanout.Run(ctx, b, x.ap.Query, fanout.Options{Params: opts.QueryParameters})
	run := func() *record.PipelineRun {
		p := &record.PipelineRun{RU: res.Charge, Hypothetical: !x.r.d.QueryEngine()}
		for _, r := range res.Ranges {
			p.Ranges = append(p.Ranges, record.RangeCharge{ID: r.ID, RU: r.Charge, Pages: r.Pages})
		}
		return p
	}
	if !x.r.d.QueryEngine() {
		if perr == nil {
			failed.Pipeline = run()
		}
		return failed, err, true
	}
	if perr != nil {
		return record.Execution{Latency: time.Since(start)}, perr, true
	}
	touched := 0
	for _, r := range res.Ranges {
		if r.Pages > 0 {
			touched++
		}
	}
	// Partitions counts the ranges the pipeline asked (a TOP met early leaves later ranges unasked);
	// Pipeline.Ranges lists every range the plan targeted, an unasked one with no pages.
	ex := record.Execution{Latency: time.Since(start), RU: res.Charge, Results: len(res.Items), Pages: res.Pages(),
		Partitions: touched, Status: 200, Pipeline: run()}
	for _, h := range res.PageHeaders() {
		addFacts(&ex, h)
	}
	return ex, nil, true
}
