package engine

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cosmosdv/validate/internal/engine/index"
	"github.com/cosmosdv/validate/internal/engine/jsondoc"
	"github.com/cosmosdv/validate/internal/engine/sql"
)

// database is one database resource.
type database struct {
	id, rid, etag string
	ts            int64
	ridNum        uint32
	offer         *offer // shared throughput, nil when none
	colls         map[string]*container
}

// offer is a throughput resource of a database or container.
type offer struct {
	id, etag     string
	ts           int64
	resourceRID  string // offerResourceId
	resourceLink string // "dbs/<rid>/" or "dbs/<rid>/colls/<rid>/"
	manual       int    // RU/s when manual
	autoscaleMax int    // max RU/s when autoscale
}

// throughput is the RU/s the offer provides at most.
func (o *offer) throughput() int {
	if o == nil {
		return 0
	}
	if o.autoscaleMax > 0 {
		return o.autoscaleMax
	}
	return o.manual
}

// pkDef is a parsed partition-key definition.
type pkDef struct {
	Kind    string   `json:"kind"`
	Paths   []string `json:"paths"`
	Version int      `json:"version,omitempty"`
	parts   [][]string
}

// container is one container resource with its physical partitions.
type container struct {
	db            *database
	id, rid, etag string
	ts            int64
	ridNum        uint32
	props         map[string]any // the resource as the client sent it, system properties added on output
	pk            pkDef
	policy        *index.Compiled
	unique        [][][]string // unique keys: each a set of property paths
	defaultTTL    *int
	search        *sql.Search // full-text and vector settings (search.go); nil when none
	offer         *offer
	parts         []*partition // ordered by EPK range
	docSeq        uint64       // guarded by the partitions' locks through atomic use in nextDocRID
	docSeqMu      sync.Mutex
}

// partition is one simulated physical partition: a contiguous EPK range and its documents.
type partition struct {
	id       string
	min, max string // EPK range [min, max)
	mu       sync.RWMutex
	all      docList
	logical  map[string]*logical
	eqMu     sync.Mutex
	eq       map[string]*valueIndex // lazily built value indexes by pathKey (source.go)
	budget   throttleBucket
	changes  changeLog // the change feed (changefeed.go)
}

// logical is one logical partition inside a physical partition.
type logical struct {
	docs docList
	byID map[string]*doc
	uniq []map[string]*doc // per unique key: value tuple -> doc
}

// doc is a stored item: its JSON as stored, and what the engine reads of it on every request.
// The decoded body is not kept (docs/performance.md, "Memory"): a query decodes the documents it
// visits (visit), a write those it changes (body). Strings in a decoded body point into raw.
type doc struct {
	raw      []byte
	size     int            // len(raw): the item's size as the cost model and pages count it
	fresh    map[string]any // the body decoded while the write that made d is staged; nil once committed
	id       string
	lpk      string // canonical logical partition key
	pkVals   []any
	rid      string
	etag     string
	ts       int64
	expires  int64 // unix seconds; 0 = never
	seq      uint64
	lsn      int64 // the write that made this version, its change-feed position
	posAll   int
	posLocal int
	terms    int // index terms under the policy at write time
}

// docList is an insertion-ordered list with tombstones, compacted when half empty.
type docList struct {
	items []*doc
	live  int
	// ord are the ORDER BY indexes of these documents, by sql.Order.Key: each built on the first
	// query that walks it (partSource.WalkOrdered) and kept by partition.index and unindex.
	ord map[string]*sql.OrderIndex[*doc]
}

// body is d's decoded body: the one the write decoded while d is staged, else decoded afresh from
// the stored JSON (which the write validated, so decoding cannot fail). The caller may not write
// to it.
func (d *doc) body() map[string]any {
	if d.fresh != nil {
		return d.fresh
	}
	m, err := jsondoc.DecodeObject(d.raw)
	if err != nil {
		panic(fmt.Sprintf("engine: a stored item does not decode: %v", err))
	}
	return m
}

// visit is d as the query package sees it for one visit: its stored JSON, which the executor
// decodes as far as the query reads it, and d itself as the handle Result.Stored gives back.
func (d *doc) visit() *sql.Document {
	return &sql.Document{Raw: d.raw, Size: d.size, Ref: d}
}

func (l *docList) add(d *doc, local bool) {
	if local {
		d.posLocal = len(l.items)
	} else {
		d.posAll = len(l.items)
	}
	l.items = append(l.items, d)
	l.live++
}

func (l *docList) remove(d *doc, local bool) {
	pos := d.posAll
	if local {
		pos = d.posLocal
	}
	if pos < len(l.items) && l.items[pos] == d {
		l.items[pos] = nil
		l.live--
	}
	if len(l.items) > 32 && l.live < len(l.items)/2 {
		n := 0
		for _, x := range l.items {
			if x != nil {
				if local {
					x.posLocal = n
				} else {
					x.posAll = n
				}
				l.items[n] = x
				n++
			}
		}
		clear(l.items[n:])
		l.items = l.items[:n]
	}
}

func (l *docList) swap(old, nd *doc, local bool) {
	pos := old.posAll
	if local {
		pos = old.posLocal
	}
	if pos < len(l.items) && l.items[pos] == old {
		l.items[pos] = nd
		if local {
			nd.posLocal = pos
		} else {
			nd.posAll = pos
		}
		return
	}
	l.add(nd, local)
}

// partitionFor returns the physical partition owning an EPK.
func (c *container) partitionFor(epk string) *partition {
	i := sort.Search(len(c.parts), func(i int) bool { return c.parts[i].max == "FF" || epk < c.parts[i].max })
	if i >= len(c.parts) {
		i = len(c.parts) - 1
	}
	return c.parts[i]
}

// partitionsOverlapping returns the partitions whose range intersects [lo, hi).
func (c *container) partitionsOverlapping(lo, hi string) []*partition {
	var out []*partition
	for _, p := range c.parts {
		if (p.max == "FF" || lo < p.max) && (p.min == "" || hi > p.min) {
			out = append(out, p)
		}
	}
	return out
}

func newPartitions(c *container, n int) {
	bounds := rangeBounds(c.pk.Kind, c.pk.Version, n)
	c.parts = make([]*partition, n)
	for i := range n {
		p := &partition{id: strconv.Itoa(i), min: "", max: "FF", logical: map[string]*logical{}}
		if i > 0 {
			p.min = bounds[i-1]
		}
		if i < n-1 {
			p.max = bounds[i]
		}
		c.parts[i] = p
	}
}

// newRID encodes resource ids like the service: base64 of the binary ids of the resource chain.
func ridDB(n uint32) string {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], n)
	return encRID(b[:])
}

func ridColl(db, c uint32) string {
	var b [8]byte
	binary.LittleEndian.PutUint32(b[:4], db)
	binary.BigEndian.PutUint32(b[4:], c|0x80000000)
	return encRID(b[:])
}

func ridDoc(db, c uint32, d uint64) string {
	var b [16]byte
	binary.LittleEndian.PutUint32(b[:4], db)
	binary.BigEndian.PutUint32(b[4:8], c|0x80000000)
	binary.BigEndian.PutUint64(b[8:], d)
	return encRID(b[:])
}

func encRID(b []byte) string {
	return strings.ReplaceAll(base64.StdEncoding.EncodeToString(b), "/", "-")
}

// parsePKDef validates a partition-key definition as the service does.
func parsePKDef(raw any) (pkDef, error) {
	var d pkDef
	b, _ := json.Marshal(raw)
	if raw == nil || json.Unmarshal(b, &d) != nil {
		return d, fmt.Errorf("The partition key definition is missing or invalid.")
	}
	if d.Kind == "" {
		d.Kind = kindHash
	}
	switch d.Kind {
	case kindHash:
		if len(d.Paths) != 1 {
			return d, fmt.Errorf("A Hash partition key definition must have exactly one path.")
		}
	case kindMultiHash:
		if len(d.Paths) < 1 || len(d.Paths) > 3 {
			return d, fmt.Errorf("A MultiHash partition key definition must have between 1 and 3 paths.")
		}
		if d.Version != 2 {
			return d, fmt.Errorf("A MultiHash partition key definition requires version 2.")
		}
	default:
		return d, fmt.Errorf("Partition key kind %q is not supported.", d.Kind)
	}
	if d.Version == 0 {
		d.Version = 1
	}
	for _, p := range d.Paths {
		parts, err := splitPath(p)
		if err != nil {
			return d, fmt.Errorf("Partition key path %q is invalid: %v", p, err)
		}
		d.parts = append(d.parts, parts)
	}
	return d, nil
}

// splitPath turns "/a/b" into ["a","b"]; quoted segments ("/\"x y\"") are unquoted.
func splitPath(p string) ([]string, error) {
	if !strings.HasPrefix(p, "/") || len(p) < 2 {
		return nil, fmt.Errorf("must start with '/' and name a property")
	}
	var out []string
	for _, seg := range strings.Split(p[1:], "/") {
		if seg == "" {
			return nil, fmt.Errorf("empty segment")
		}
		if len(seg) >= 2 && seg[0] == '"' && seg[len(seg)-1] == '"' {
			seg = seg[1 : len(seg)-1]
		}
		out = append(out, seg)
	}
	return out, nil
}

// lookupPath walks property names from the root; ok=false when absent.
func lookupPath(body map[string]any, path []string) (any, bool) {
	var cur any = body
	for _, seg := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = m[seg]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}

// pkFromBody extracts the partition-key values of a document; absent paths are undefined.
func (c *container) pkFromBody(body map[string]any) []any {
	out := make([]any, len(c.pk.parts))
	for i, p := range c.pk.parts {
		v, ok := lookupPath(body, p)
		if !ok {
			out[i] = undefinedValue{}
			continue
		}
		switch v.(type) {
		case string, float64, bool, nil:
			out[i] = v
		default:
			out[i] = undefinedValue{} // objects and arrays cannot be keys; they hash as undefined
		}
	}
	return out
}

// canonicalPK renders key values as a stable string (the header's JSON form, {} for undefined).
func canonicalPK(vals []any) string {
	var sb strings.Builder
	sb.WriteByte('[')
	for i, v := range vals {
		if i > 0 {
			sb.WriteByte(',')
		}
		switch x := v.(type) {
		case undefinedValue:
			sb.WriteString("{}")
		case float64:
			sb.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		case string:
			if plainJSONString(x) {
				sb.WriteByte('"')
				sb.WriteString(x)
				sb.WriteByte('"')
				continue
			}
			b, _ := json.Marshal(x)
			sb.Write(b)
		default:
			b, _ := json.Marshal(x)
			sb.Write(b)
		}
	}
	sb.WriteByte(']')
	return sb.String()
}

// plainJSONString reports whether s is printable ASCII that encoding/json writes unchanged between
// quotes (no quote, backslash, control character or HTML-escaped character).
func plainJSONString(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// parsePKHeader decodes x-ms-documentdb-partitionkey: a JSON array of strings, numbers, booleans,
// null, or {} for undefined. present=false when the header is absent or "[]".
func parsePKHeader(h string) (vals []any, present bool, err error) {
	if h == "" {
		return nil, false, nil
	}
	// Fast path for the common one-string key, ["value"] with nothing to unescape.
	if len(h) >= 4 && h[0] == '[' && h[1] == '"' && h[len(h)-2] == '"' && h[len(h)-1] == ']' {
		if v := h[2 : len(h)-2]; plainJSONString(v) {
			return []any{v}, true, nil
		}
	}
	var raw []any
	if err := json.Unmarshal([]byte(h), &raw); err != nil {
		return nil, false, fmt.Errorf("The partition key header is not a JSON array.")
	}
	if len(raw) == 0 {
		return nil, false, nil
	}
	for i, v := range raw {
		switch x := v.(type) {
		case map[string]any:
			if len(x) != 0 {
				return nil, false, fmt.Errorf("The partition key component %d is not a valid value.", i)
			}
			raw[i] = undefinedValue{}
		case []any:
			return nil, false, fmt.Errorf("The partition key component %d is not a valid value.", i)
		}
	}
	return raw, true, nil
}

// scalarKey renders a scalar for equality indexes; ok=false for objects and arrays.
func scalarKey(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "z", true
	case bool:
		if x {
			return "t", true
		}
		return "f", true
	case string:
		return "s" + x, true
	case float64:
		if x == 0 {
			x = 0 // -0 equals 0
		}
		return "n" + strconv.FormatFloat(x, 'g', -1, 64), true
	case int:
		return scalarKey(float64(x))
	case int64:
		return scalarKey(float64(x))
	case json.Number:
		f, err := x.Float64()
		if err != nil || math.IsInf(f, 0) {
			return "", false
		}
		return scalarKey(f)
	}
	return "", false
}

// valuesAt collects the values at a path; "[]" steps into every array element.
func valuesAt(cur any, path []string, fn func(v any)) {
	if len(path) == 0 {
		fn(cur)
		return
	}
	if path[0] == "[]" {
		if arr, ok := cur.([]any); ok {
			for _, e := range arr {
				valuesAt(e, path[1:], fn)
			}
		}
		return
	}
	m, ok := cur.(map[string]any)
	if !ok {
		return
	}
	if v, ok := m[path[0]]; ok {
		valuesAt(v, path[1:], fn)
	}
}

// itemOverhead is the engine's heap per stored item beyond its JSON, the larger of the two
// `BenchmarkMemoryPerItem` measures (engine-B/item: 448 B for a 150 B item, 638 B for a 1 KB one,
// 2026-11-26; docs/performance.md): the document record, the partition's maps and lists, the
// allocator's slack. Indexes a query builds (value and ORDER BY) come on top.
const itemOverhead = 640

// ItemHeap estimates the heap one stored item takes in the engine, from its stored JSON's size
// (the client's JSON with the system properties, as plan sizes documents): that JSON plus
// itemOverhead. The embedded run sizes Go's memory limit from it (pipeline's memoryLimit).
func ItemHeap(storedBytes float64) float64 {
	return storedBytes + itemOverhead
}
