// Package sql parses and evaluates the Azure Cosmos DB NoSQL query language over JSON documents, with
// index-aware planning against a container's indexing policy. It knows nothing about HTTP.
package sql

import (
	"errors"
	"time"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/engine/index"
)

// This file is the contract between the query package and the engine. Keep these names stable.

// Document is one stored item as the executor sees it.
type Document struct {
	// Body is the decoded JSON (map[string]any, []any, string, float64, bool, nil as encoding/json
	// decodes with UseNumber off).
	Body map[string]any
	// Size is the item's JSON size in bytes, as stored.
	Size int
	// Raw, with Body nil, is the item's JSON as stored (valid JSON, an object): the executor decodes
	// only the top-level properties the query reads, or the whole item when the query uses it as a
	// value. An item Result.Stored names is then the stored document with only those properties:
	// send Raw for it, not the item. Strings of a decoded body point into Raw.
	Raw []byte
	// Ref is the caller's handle on the stored item (the engine's record), opaque to the executor:
	// Result.Stored hands it back for the items that are this document's Body itself.
	Ref any
}

// Source is the set of documents a query runs over: one physical partition, or the documents of one
// logical partition within it. The engine implements it.
type Source interface {
	// Scan calls fn for every document in a stable order (the engine's insertion order) until fn
	// returns false.
	Scan(fn func(d *Document) bool)
	// Len is the number of documents Scan would visit.
	Len() int
}

// IndexedSource is a Source that can answer equality lookups from an index. Lookup returns the
// documents whose value at path equals v (path as property names from the root, e.g.
// ["address","city"]), and ok=false when the source keeps no index for that path. Execute calls it
// only for a top-level AND-ed equality on a path the policy indexes, with v a string, number,
// boolean or null. The documents must come in Scan order; a superset is harmless (Execute evaluates
// the whole WHERE clause on every document Lookup returns).
type IndexedSource interface {
	Source
	Lookup(path []string, v any) (docs []*Document, ok bool)
}

// Shape summarises the clauses of a query that decide whether the gateway can serve it across
// partitions for an SDK without a query engine (the Go SDK).
type Shape struct {
	Top, OffsetLimit, Distinct, GroupBy, Aggregate, Value bool
	// OrderBy is the number of ORDER BY items.
	OrderBy int
}

// Options are the inputs of one execution besides the query and its documents.
type Options struct {
	// Params maps "@name" to a decoded JSON value.
	Params map[string]any
	// Policy is the container's compiled indexing policy (nil = everything indexed).
	Policy *index.Compiled
	// PopulateIndexMetrics asks for IndexMetrics in the result.
	PopulateIndexMetrics bool
	// MaxWork bounds the evaluation steps; past it Execute fails with a 400-style error. 0 = default
	// (DefaultMaxWork).
	MaxWork int
	// MaxAlloc bounds the bytes of memory the evaluator builds over one execution (estimated per
	// value: allocBytes), whatever builds them — projections of JOIN rows, function results,
	// sort rows, groups, the result list; past it Execute fails with an *AllocLimitError (a 400).
	// 0 = default (DefaultMaxAlloc).
	MaxAlloc int
	// MaxItemBytes bounds the JSON size of one result item; past it Execute fails with a
	// *ResultSizeError. 0 = default (DefaultMaxItemBytes).
	MaxItemBytes int64
	// MaxOutputBytes bounds the JSON size of the result items an execution builds (stored documents
	// returned whole, Result.Stored, are not built and do not count); past it Execute
	// fails with a *ResultSizeError. 0 = default (DefaultMaxOutputBytes).
	MaxOutputBytes int64
	// Now is the instant GetCurrentDateTime, GetCurrentTimestamp and GetCurrentTicks report; the zero
	// value means time.Now() at the start of the execution. Tests inject a fixed instant.
	Now time.Time
	// Search is the container's full-text and vector settings; nil = none (search.go).
	Search *Search
	// Page, when set, asks for one page of an ORDER BY that streams from an OrderedSource
	// (ordered.go); a query or source that does not stream ignores it and runs whole, unless
	// Page.After is set, which is then an error.
	Page *Page
	// Rules chooses the alternative of each rule with alternatives (cost.Rules) the execution
	// follows; nil = each rule's default. The estimator (internal/plan) reads the same selection.
	Rules *cost.Selection
	// PartitionKey is the container's partition-key paths (property names from the root), which
	// rule pk-equality-order-composite reads; nil = none known.
	PartitionKey [][]string
	// Recheck, when set, is the key-range check of a hierarchical-key prefix sent in the request
	// options: the index is per physical partition and the prefix's effective-partition-key range is
	// not an index term, so the executor evaluates it at runtime on every document the served
	// filters keep (each is loaded and evaluated; one outside the range is dropped), and an
	// aggregate is no longer answered from the index alone (azure-cosmos-dotnet-v3 #4248, a
	// maintainer's explanation; #3936). Assumed: it depends on the SDK version and the service's
	// query engine, which no document pins down.
	Recheck func(d *Document) bool
	// Whole runs the query whole even when its ORDER BY could stream: the reference a streamed
	// walk is tested against. Its facts are the whole execution's.
	Whole bool
}

// ErrNotStreamed is Execute's error for a Page to resume (Page.After) when the query does not
// stream from the source: the index policy or the source changed since the page before. The
// caller runs the query whole instead.
var ErrNotStreamed = errors.New("execute: a page to resume, but the query does not stream from this source")

// Result is the outcome of an execution over one Source.
type Result struct {
	// Items are the result values (decoded JSON) in result order.
	Items []any
	// Stored is parallel to Items: the Document an item is the Body of (SELECT * and SELECT VALUE c
	// return bodies whole), nil for an item the query built. The caller may send a stored item's
	// own JSON instead of encoding it; Facts.BytesOutput counts its Document.Size.
	Stored []*Document
	// Facts are the execution facts the cost model charges (PartitionsChecked and Consistency are the
	// engine's to fill).
	Facts cost.QueryFacts
	// IndexMetrics is set when Options.PopulateIndexMetrics is.
	IndexMetrics *IndexMetrics
	// Streamed reports an ORDER BY served by walking an OrderedSource in order (ordered.go): Items
	// are one page when Options.Page was set, and Facts are that walk's.
	Streamed bool
	// Next resumes a streamed page that stopped before the end (Options.Page.After); nil when the
	// walk is complete.
	Next *Cursor
}

// IndexMetrics are the used and recommended indexes, in the service's vocabulary.
type IndexMetrics struct {
	UtilizedSingleIndexes     []SingleIndex
	PotentialSingleIndexes    []SingleIndex
	UtilizedCompositeIndexes  []CompositeIndex
	PotentialCompositeIndexes []CompositeIndex
}

// SingleIndex is one single-path index the query used or could use.
type SingleIndex struct {
	FilterExpression string
	IndexSpec        string // e.g. "/userId/?"
	IndexImpactScore string // "High" or "Low"
}

// CompositeIndex is one composite index the query used or could use.
type CompositeIndex struct {
	IndexSpecs       []string // e.g. "/userId ASC", "/createdAt DESC"
	IndexImpactScore string
}
