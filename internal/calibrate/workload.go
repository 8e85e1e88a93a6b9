package calibrate

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// The workload: containers and operations chosen so that every calibrated figure of the rate card
// (cost.Params) carries a measurable share of some operation's charge. It is one list, run in the
// same order on the target and on the embedded engine that records the facts, so the i-th
// operation of one is the i-th of the other.

// spreadPartitions is the number of physical partitions of the "spread" container on a provisioned
// account (created with spreadPartitions × 6,000 RU/s, the rate card's rule).
const spreadPartitions = 3

// containerSpec is one container the calibration creates.
type containerSpec struct {
	name       string
	policy     *azcosmos.IndexingPolicy // nil = the default policy (every path indexed)
	partitions int                      // physical partitions wanted on a provisioned account
}

var containers = []containerSpec{
	{name: "default", partitions: 1},
	{name: "selective", partitions: 1, policy: &azcosmos.IndexingPolicy{
		Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
		IncludedPaths: []azcosmos.IncludedPath{{Path: "/pk/?"}, {Path: "/cat/?"}, {Path: "/n/?"}},
		ExcludedPaths: []azcosmos.ExcludedPath{{Path: "/*"}},
	}},
	{name: "composite", partitions: 1, policy: &azcosmos.IndexingPolicy{
		Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
		IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}},
		CompositeIndexes: [][]azcosmos.CompositeIndex{{
			{Path: "/cat", Order: azcosmos.CompositeIndexAscending},
			{Path: "/n", Order: azcosmos.CompositeIndexAscending},
		}},
	}},
	{name: "spread", partitions: spreadPartitions},
}

// throughput is what a container is created with on a provisioned account: 400 RU/s for one
// physical partition, 6,000 RU/s per partition for more (scaling-provisioned-throughput-best-practices.md).
func (c containerSpec) throughput() int32 {
	if c.partitions <= 1 {
		return 400
	}
	return int32(6000 * c.partitions)
}

// operation is one request (or one query, all its pages) of the workload.
type operation struct {
	name      string
	container string
	// measured operations become measurements; the others (most of the seeding) only set data up.
	measured bool
	// optional operations may be refused by a target (a Strong read on an account whose default
	// consistency is weaker): they are then left out of the fit on both sides.
	optional bool
	run      func(ctx context.Context, c *azcosmos.ContainerClient) ([]response, error)
}

// response is one HTTP response of an operation: its charge and activity id.
type response struct {
	charge   float64
	activity string
}

func one(r azcosmos.Response) []response {
	return []response{{charge: float64(r.RequestCharge), activity: r.ActivityID}}
}

// doc renders a document: its id, partition key and fields, with a filler string "s" of pad bytes.
func doc(id, pk string, fields map[string]any, pad int) []byte {
	m := map[string]any{"id": id, "pk": pk}
	for k, v := range fields {
		m[k] = v
	}
	if pad > 0 {
		m["s"] = strings.Repeat("x", pad)
	}
	b, _ := json.Marshal(m)
	return b
}

// sizesKB are the sizes of the point-operation documents: one in each segment of the published
// size tables, just below each point, so that every point of the tables is pinned.
var sizesKB = []float64{0.5, 1.9, 3.9, 7.8, 15.6, 31, 62, 125, 250, 500, 1000, 1990}

// smallDocs is the number of small documents the query floor and per-document terms are measured on.
const smallDocs = 1000

// workload builds the operation list. The Strong reads and query are optional: an account whose
// default consistency is weaker refuses them, and the Strong factor then keeps its built-in value.
func workload() []operation {
	var ops []operation
	add := func(o operation) { ops = append(ops, o) }
	pkOf := azcosmos.NewPartitionKeyString

	create := func(cont, name string, body []byte, pk string, measured bool) {
		add(operation{name: name, container: cont, measured: measured,
			run: func(ctx context.Context, c *azcosmos.ContainerClient) ([]response, error) {
				r, err := c.CreateItem(ctx, pkOf(pk), body, &azcosmos.ItemOptions{EnableContentResponseOnWrite: false})
				return one(r.Response), err
			}})
	}
	read := func(cont, name, id, pk string, level *azcosmos.ConsistencyLevel, optional bool) {
		add(operation{name: name, container: cont, measured: true, optional: optional,
			run: func(ctx context.Context, c *azcosmos.ContainerClient) ([]response, error) {
				r, err := c.ReadItem(ctx, pkOf(pk), id, &azcosmos.ItemOptions{ConsistencyLevel: level})
				return one(r.Response), err
			}})
	}
	query := func(cont, name, q string, pk *string, level *azcosmos.ConsistencyLevel, optional bool) {
		add(operation{name: name, container: cont, measured: true, optional: optional,
			run: func(ctx context.Context, c *azcosmos.ContainerClient) ([]response, error) {
				key := azcosmos.NewPartitionKey()
				if pk != nil {
					key = pkOf(*pk)
				}
				opts := &azcosmos.QueryOptions{PageSizeHint: 1000, ConsistencyLevel: level}
				pager := c.NewQueryItemsPager(q, key, opts)
				var out []response
				for pager.More() {
					page, err := pager.NextPage(ctx)
					if err != nil {
						return out, err
					}
					out = append(out, one(page.Response)...)
				}
				return out, nil
			}})
	}
	strong := azcosmos.ConsistencyLevelStrong.ToPtr()
	// Every other read and query asks for Session: an account whose default is Strong would
	// otherwise charge them twice while the engine recording the facts reads at Session.
	session := azcosmos.ConsistencyLevelSession.ToPtr()
	str := func(s string) *string { return &s }

	// Point operations by size, in the default and the selective policy.
	for i, kb := range sizesKB {
		pad := int(kb * 1024)
		for _, cont := range []string{"default", "selective"} {
			id := "size" + strconv.Itoa(i)
			label := fmt.Sprintf("%s: %%s %g KB", cont, kb)
			create(cont, fmt.Sprintf(label, "create"), doc(id, "sized", map[string]any{"n": i, "cat": "sized"}, pad), "sized", true)
			read(cont, fmt.Sprintf(label, "read"), id, "sized", session, false)
			if cont == "default" {
				read(cont, fmt.Sprintf(label, "read Strong"), id, "sized", strong, true)
			}
			body := doc(id, "sized", map[string]any{"n": i + 1000, "cat": "resized"}, pad)
			add(operation{name: fmt.Sprintf(label, "replace"), container: cont, measured: true,
				run: func(ctx context.Context, c *azcosmos.ContainerClient) ([]response, error) {
					r, err := c.ReplaceItem(ctx, pkOf("sized"), id, body, nil)
					return one(r.Response), err
				}})
		}
	}
	// Documents by indexed terms (array lengths): the same shape, few to many terms.
	for _, n := range []int{1, 30, 120, 400} {
		arr := make([]int, n)
		for j := range arr {
			arr[j] = j
		}
		for _, cont := range []string{"default", "selective"} {
			create(cont, fmt.Sprintf("%s: create, array of %d", cont, n), doc("terms"+strconv.Itoa(n), "terms", map[string]any{"arr": arr}, 0), "terms", true)
		}
	}
	// Patch: one operation and four.
	for _, nops := range []int{1, 4} {
		id := "size2"
		add(operation{name: fmt.Sprintf("default: patch, %d operations", nops), container: "default", measured: true,
			run: func(ctx context.Context, c *azcosmos.ContainerClient) ([]response, error) {
				var p azcosmos.PatchOperations
				for j := 0; j < nops; j++ {
					p.AppendSet("/p"+strconv.Itoa(j), nops*10+j)
				}
				r, err := c.PatchItem(ctx, pkOf("sized"), id, p, nil)
				return one(r.Response), err
			}})
	}

	// Query data: small documents in one logical partition of the selective and composite
	// containers; documents of 48 KB; documents with long arrays; small documents across the
	// spread container's physical partitions.
	for _, cont := range []string{"selective", "composite"} {
		for i := 0; i < smallDocs; i++ {
			fields := map[string]any{"cat": "c" + strconv.Itoa(i%10), "n": i, "name": "name" + strconv.Itoa(i), "v": "v" + strconv.Itoa(i)}
			create(cont, cont+": create small", doc("small"+strconv.Itoa(i), "small", fields, 0), "small", i%100 == 0)
		}
	}
	for i := 0; i < 20; i++ {
		create("selective", "selective: create 48 KB", doc("big"+strconv.Itoa(i), "big", map[string]any{"n": i}, 48*1024), "big", false)
	}
	for i := 0; i < 20; i++ {
		arr := make([]int, 500)
		for j := range arr {
			arr[j] = j
		}
		create("selective", "selective: create array of 500", doc("arr"+strconv.Itoa(i), "arrays", map[string]any{"arr": arr, "n": i}, 0), "arrays", false)
	}
	for i := 0; i < 300; i++ {
		create("spread", "spread: create", doc("sp"+strconv.Itoa(i), "k"+strconv.Itoa(i), map[string]any{"n": i, "cat": "c" + strconv.Itoa(i%10)}, 0), "k"+strconv.Itoa(i), i%50 == 0)
	}

	// Queries. Single partition unless said otherwise.
	small, big, arrays, empty := str("small"), str("big"), str("arrays"), str("none")
	query("selective", "query: empty partition, no filter", "SELECT * FROM c", empty, session, false)
	query("selective", "query: indexed equality, no match", "SELECT * FROM c WHERE c.n = -1", small, session, false)
	query("selective", "query: indexed equality, one match", "SELECT * FROM c WHERE c.n = 5", small, session, false)
	var in []string
	for j := 0; j < 40; j++ {
		in = append(in, strconv.Itoa(j*7))
	}
	query("selective", "query: IN of 40 values", "SELECT * FROM c WHERE c.n IN ("+strings.Join(in, ",")+")", small, session, false)
	query("selective", "query: range and equality, no match", "SELECT * FROM c WHERE c.n >= 0 AND c.cat = 'none'", small, session, false)
	query("selective", "query: index-only count over a range", "SELECT VALUE COUNT(1) FROM c WHERE c.n >= 0", small, session, false)
	query("selective", "query: every small document", "SELECT * FROM c", small, session, false)
	query("selective", "query: every small document, Strong", "SELECT * FROM c", small, strong, true)
	query("selective", "query: ids of the small documents", "SELECT VALUE c.id FROM c", small, session, false)
	query("selective", "query: unindexed filter (scan)", "SELECT * FROM c WHERE c.v = 'none'", small, session, false)
	query("selective", "query: functions on every document", "SELECT VALUE c.id FROM c WHERE UPPER(c.name) = 'X' OR LOWER(c.name) = 'x' OR UPPER(c.v) = 'Y' OR LOWER(c.v) = 'y'", small, session, false)
	query("selective", "query: every 48 KB document", "SELECT * FROM c", big, session, false)
	query("selective", "query: ids of the 48 KB documents", "SELECT VALUE c.id FROM c", big, session, false)
	query("selective", "query: FROM x IN an array of 500", "SELECT VALUE x FROM x IN c.arr WHERE x < 0", arrays, session, false)
	query("selective", "query: JOIN over arrays of 500", "SELECT c.id FROM c JOIN x IN c.arr WHERE x = 7", arrays, session, false)
	query("selective", "query: ORDER BY sorted in memory", "SELECT * FROM c WHERE c.cat = 'c1' ORDER BY c.n", small, session, false)
	query("composite", "query: composite slice", "SELECT * FROM c WHERE c.cat = 'c1' AND c.n > 500", small, session, false)
	// Ten ranges over every small document, answered from the index: 10,000 entries, the reads
	// that pin queryIndexEntry now that seeks read none (0.0000648 RU an entry is 0.65 RU here).
	query("composite", "query: index-only count over ten ranges", "SELECT VALUE COUNT(1) FROM c WHERE c.n >= 0 AND c.n < 1000000 AND "+
		"c.cat >= '' AND c.cat < 'z' AND c.name >= '' AND c.name < 'z' AND c.v >= '' AND c.v < 'z' AND c.id >= '' AND c.id < 'z'", small, session, false)
	// Ten full index scans over every small document, matching none: each reads the 1,000 distinct
	// values of its path, 10,000 in all, the reads that pin queryScanValue (0.0000248 RU a value is
	// 0.25 RU here).
	var scans []string
	for _, p := range []string{"c.name", "c.v"} {
		scans = append(scans, "CONTAINS("+p+", 'zz')", "CONTAINS("+p+", 'zz', true)", "ENDSWITH("+p+", 'zz')",
			"RegexMatch("+p+", 'zz')", "StringEquals("+p+", 'zz')")
	}
	query("composite", "query: ten full index scans, no match", "SELECT * FROM c WHERE "+strings.Join(scans, " AND "), small, session, false)
	query("composite", "query: ORDER BY from the composite index", "SELECT * FROM c WHERE c.cat = 'c2' ORDER BY c.cat, c.n", small, session, false)
	query("composite", "query: ORDER BY walk", "SELECT TOP 50 * FROM c ORDER BY c.n", small, session, false)
	query("spread", "query: across partitions, indexed, no match", "SELECT * FROM c WHERE c.n = -1", nil, session, false)
	query("spread", "query: across partitions, indexed, one match", "SELECT * FROM c WHERE c.n = 7", nil, session, false)
	query("spread", "query: across partitions, every document", "SELECT * FROM c", nil, session, false)
	query("spread", "query: one partition key", "SELECT * FROM c WHERE c.n >= 0", str("k3"), session, false)

	// Deletes by size, last.
	for i, kb := range sizesKB {
		id := "size" + strconv.Itoa(i)
		add(operation{name: fmt.Sprintf("selective: delete %g KB", kb), container: "selective", measured: true,
			run: func(ctx context.Context, c *azcosmos.ContainerClient) ([]response, error) {
				r, err := c.DeleteItem(ctx, pkOf("sized"), id, nil)
				return one(r.Response), err
			}})
	}
	return ops
}
