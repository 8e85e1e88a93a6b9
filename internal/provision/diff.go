package provision

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/sdk"
)

// readBack reads the stored container and its throughput and reports every difference from want.
func readBack(ctx context.Context, cc *azcosmos.ContainerClient, c *design.Container, want azcosmos.ContainerProperties,
	tp azcosmos.ThroughputProperties, created bool) ([]record.Finding, error) {
	resp, err := cc.Read(ctx, nil)
	if err != nil {
		return nil, wrap("read container "+c.Name, err)
	}
	if resp.ContainerProperties == nil {
		return []record.Finding{{Stage: "provision", Level: "warn", Subject: "container " + c.Name,
			Message: "the target returned no container properties; nothing could be compared"}}, nil
	}
	fs := Diff(c.Name, want, *resp.ContainerProperties)
	if !created {
		for i := range fs {
			fs[i].Message = "existing container: " + fs[i].Message
		}
	}
	tr, err := cc.ReadThroughput(ctx, nil)
	switch {
	case err == nil && tr.ThroughputProperties != nil:
		if hasThroughput(tp) && !sameThroughput(tp, *tr.ThroughputProperties) {
			fs = append(fs, finding(c.Name, "warn", fmt.Sprintf("throughput: designed %s, stored %s",
				describeThroughput(tp), describeThroughput(*tr.ThroughputProperties))))
		}
		if !hasThroughput(tp) && hasThroughput(*tr.ThroughputProperties) {
			fs = append(fs, finding(c.Name, "warn", fmt.Sprintf("throughput: designed serverless, stored %s",
				describeThroughput(*tr.ThroughputProperties))))
		}
	case err == nil:
	case sdk.TargetFailed(err):
		return nil, wrap("read throughput "+c.Name, err)
	case sdk.StatusOf(err) == http.StatusNotFound || sdk.StatusOf(err) == http.StatusBadRequest:
		if hasThroughput(tp) {
			fs = append(fs, finding(c.Name, "warn", fmt.Sprintf("throughput: designed %s, but the target reports no offer for the container",
				describeThroughput(tp))))
		}
	default:
		fs = append(fs, finding(c.Name, "warn", "throughput could not be read back: "+sdk.ServiceMessage(err)))
	}
	return fs, nil
}

func finding(container, level, msg string) record.Finding {
	return record.Finding{Stage: "provision", Level: level, Subject: "container " + container, Message: msg}
}

// Diff compares designed and stored container properties and returns one finding per difference.
// Partition-key differences are errors (nothing measured on such a container means what the design
// says); indexing, unique keys and TTL are warnings, because a target that ignores them (the vNext
// emulator ignores custom indexing policies) still runs every pattern, only with other charges.
func Diff(name string, want, got azcosmos.ContainerProperties) []record.Finding {
	var fs []record.Finding
	wk, gk := want.PartitionKeyDefinition, got.PartitionKeyDefinition
	if !slices.Equal(wk.Paths, gk.Paths) {
		fs = append(fs, finding(name, "error", fmt.Sprintf("partition key: designed %v, stored %v", wk.Paths, gk.Paths)))
	}
	gotKind := gk.Kind
	if gotKind == "" {
		gotKind = azcosmos.PartitionKeyKindHash
		if len(gk.Paths) > 1 {
			gotKind = azcosmos.PartitionKeyKindMultiHash
		}
	}
	if wk.Kind != gotKind {
		fs = append(fs, finding(name, "error", fmt.Sprintf("partition key kind: designed %s, stored %s", wk.Kind, gotKind)))
	}
	if wk.Kind == azcosmos.PartitionKeyKindMultiHash && gk.Version != 2 {
		fs = append(fs, finding(name, "error", fmt.Sprintf("hierarchical partition key version: designed 2, stored %d", gk.Version)))
	}
	if wk.Kind == azcosmos.PartitionKeyKindHash && gk.Version != wk.Version && gk.Version != 0 {
		fs = append(fs, finding(name, "info", fmt.Sprintf("partition key version: designed %d, stored %d", wk.Version, gk.Version)))
	}
	fs = append(fs, diffIndexing(name, want.IndexingPolicy, got.IndexingPolicy)...)
	fs = append(fs, diffSearch(name, want, got)...)
	wu, gu := uniqueSets(want.UniqueKeyPolicy), uniqueSets(got.UniqueKeyPolicy)
	if !slices.Equal(wu, gu) {
		fs = append(fs, finding(name, "warn", fmt.Sprintf("unique keys: designed %s, stored %s", listOrNone(wu), listOrNone(gu))))
	}
	if !sameTTL(want.DefaultTimeToLive, got.DefaultTimeToLive) {
		fs = append(fs, finding(name, "warn", fmt.Sprintf("default TTL: designed %s, stored %s", ttlText(want.DefaultTimeToLive), ttlText(got.DefaultTimeToLive))))
	}
	return fs
}

// diffIndexing compares indexing policies path by path. The service adds the system path /"_etag"/?
// to the excluded paths on its own; that is not a difference.
func diffIndexing(name string, want, got *azcosmos.IndexingPolicy) []record.Finding {
	if want == nil {
		return nil
	}
	if got == nil {
		return []record.Finding{finding(name, "warn", "indexing policy: the target stored none; it probably ignores indexing policies, so query charges and composite-index errors will not reflect the design")}
	}
	var diffs []string
	if !strings.EqualFold(string(want.IndexingMode), string(got.IndexingMode)) && got.IndexingMode != "" {
		diffs = append(diffs, fmt.Sprintf("mode designed %s, stored %s", want.IndexingMode, got.IndexingMode))
	}
	if want.Automatic != got.Automatic {
		diffs = append(diffs, fmt.Sprintf("automatic designed %t, stored %t", want.Automatic, got.Automatic))
	}
	wi, gi := includedSet(want.IncludedPaths), includedSet(got.IncludedPaths)
	if !slices.Equal(wi, gi) {
		diffs = append(diffs, fmt.Sprintf("included paths designed %s, stored %s", listOrNone(wi), listOrNone(gi)))
	}
	we, ge := excludedSet(want.ExcludedPaths), excludedSet(got.ExcludedPaths)
	if !slices.Equal(we, ge) {
		diffs = append(diffs, fmt.Sprintf("excluded paths designed %s, stored %s", listOrNone(we), listOrNone(ge)))
	}
	wc, gc := compositeSet(want.CompositeIndexes), compositeSet(got.CompositeIndexes)
	if !slices.Equal(wc, gc) {
		diffs = append(diffs, fmt.Sprintf("composite indexes designed %s, stored %s", listOrNone(wc), listOrNone(gc)))
	}
	if len(diffs) == 0 {
		return nil
	}
	return []record.Finding{finding(name, "warn", "indexing policy differs ("+strings.Join(diffs, "; ")+
		"): the target did not keep the designed policy, so query charges and composite-index errors will not reflect the design")}
}

func normPath(p string) string { return strings.ReplaceAll(p, `"`, "") }

func includedSet(ps []azcosmos.IncludedPath) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, normPath(p.Path))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func excludedSet(ps []azcosmos.ExcludedPath) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		if normPath(p.Path) == "/_etag/?" {
			continue
		}
		out = append(out, normPath(p.Path))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func compositeSet(cs [][]azcosmos.CompositeIndex) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		parts := make([]string, 0, len(c))
		for _, p := range c {
			order := "asc"
			if strings.HasPrefix(strings.ToLower(string(p.Order)), "desc") {
				order = "desc"
			}
			parts = append(parts, normPath(p.Path)+" "+order)
		}
		out = append(out, "("+strings.Join(parts, ", ")+")")
	}
	slices.Sort(out)
	return out
}

func uniqueSets(u *azcosmos.UniqueKeyPolicy) []string {
	if u == nil {
		return nil
	}
	var out []string
	for _, k := range u.UniqueKeys {
		paths := slices.Clone(k.Paths)
		slices.Sort(paths)
		out = append(out, "("+strings.Join(paths, ", ")+")")
	}
	slices.Sort(out)
	return out
}

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return "[" + strings.Join(xs, " ") + "]"
}

func sameTTL(a, b *int32) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func ttlText(t *int32) string {
	switch {
	case t == nil:
		return "off"
	case *t == -1:
		return "on (no default expiry)"
	default:
		return fmt.Sprintf("%d s", *t)
	}
}
