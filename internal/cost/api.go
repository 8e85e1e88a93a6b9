// Package cost is the request-unit model: what an operation costs from the facts of its execution,
// and what a design's throughput and storage cost per month. Pure functions, no I/O.
package cost

// Consistency is a consistency level as the service names it.
type Consistency string

// Consistency levels.
const (
	Strong           Consistency = "Strong"
	BoundedStaleness Consistency = "BoundedStaleness"
	Session          Consistency = "Session"
	ConsistentPrefix Consistency = "ConsistentPrefix"
	Eventual         Consistency = "Eventual"
)

// OpKind is a point operation kind.
type OpKind string

// Point operation kinds.
const (
	Read    OpKind = "read"
	Create  OpKind = "create"
	Replace OpKind = "replace"
	Upsert  OpKind = "upsert" // charged as Create when the item is new, as Replace otherwise
	Patch   OpKind = "patch"
	Delete  OpKind = "delete"
)

// PointOp is what the engine knows after executing a point operation.
type PointOp struct {
	Kind OpKind
	// SizeBytes is the item's JSON size: the stored item for read/delete, the new item for writes.
	SizeBytes int
	// OldSizeBytes is the replaced item's size for replace/patch/upsert-over-existing.
	OldSizeBytes int
	// IndexedTerms is the number of index terms the written (or deleted) item has under the policy.
	IndexedTerms int
	// ChangedTerms is the number of index terms that differ between old and new item.
	ChangedTerms int
	// PatchOps is the number of operations in a patch.
	PatchOps int
	// Consistency of a read; Strong and BoundedStaleness reads cost twice.
	Consistency Consistency
	// Regions the account writes to (1 if unknown).
	Regions int
}

// QueryFacts is what the query executor observed for one page (or one whole query) in one container.
type QueryFacts struct {
	// IndexLookups counts index seeks/range scans the plan performed.
	IndexLookups int
	// DocsLoaded and BytesLoaded count documents read from storage to evaluate the query.
	DocsLoaded  int
	BytesLoaded int64
	// DocsOutput and BytesOutput count the result.
	DocsOutput  int
	BytesOutput int64
	// PartitionsChecked is how many physical partitions' indexes were consulted.
	PartitionsChecked int
	// FullScan is true when a predicate could not use the index (excluded path, UPPER(), ...).
	FullScan bool
	// JoinRows counts rows produced by JOINs over arrays beyond the first per document.
	JoinRows int
	// FunctionCalls counts system-function evaluations that cannot use the index.
	FunctionCalls int
	// Consistency of the query; Strong and BoundedStaleness cost twice.
	Consistency Consistency
	// SortedInMemory counts documents the executor sorted itself because no composite index served
	// the ORDER BY (the service sorts from a range index plus memory in that case).
	SortedInMemory int
	// IndexEntriesRead counts the index entries the plan read to serve its predicates: the postings
	// of equality lookups, the entries inside each range scan, whole-path index scans of functions
	// such as CONTAINS, the slice of a composite index whose leading equalities and trailing range
	// match, and the entries an ORDER BY walks. It is the sum of IndexReads' entries, the distinct
	// values of full index scans (IndexScanValues) included.
	IndexEntriesRead int
	// IndexScanValues counts, of IndexEntriesRead, the distinct values full index scans read: the
	// entries of IndexReads of kind "scan" (CONTAINS, ENDSWITH, RegexMatch, StringEquals, the IS_*
	// checks; one per distinct value of the path in scope, at most one per document the seeks keep
	// when a seek is beside the scan). They stay in IndexEntriesRead, so that it remains the sum of
	// IndexReads' entries; the rate card charges them at queryScanValue and the rest of
	// IndexEntriesRead at queryIndexEntry, each entry once (RateCard.Query).
	IndexScanValues int
	// IndexReads breaks IndexEntriesRead down per predicate (and, filled by the engine, per physical
	// partition).
	IndexReads []IndexRead `json:",omitempty"`
	// DocsEvaluated counts loaded documents on which the query engine evaluated a predicate the
	// index did not serve (a scan's filter, UPPER(c.x) = ..., a residual filter after a lookup).
	DocsEvaluated int
}

// IndexRead is the index work of one predicate (or one ORDER BY walk) in one physical partition.
type IndexRead struct {
	// Partition is the physical partition's id; empty when the executor does not know it.
	Partition string `json:"partition,omitempty"`
	// Kind is "equality", "in", "range", "scan" (a whole-path index scan such as CONTAINS),
	// "composite" (a composite-index slice), "order" (an ORDER BY walk) or "other".
	Kind string `json:"kind"`
	// Predicate is the filter as written (the ORDER BY items for a walk).
	Predicate string `json:"predicate"`
	// Index is the index read: "/path/?" or the composite's specs.
	Index string `json:"index,omitempty"`
	// Entries is the number of index entries read.
	Entries int `json:"entries"`
}

// Point returns the modeled request charge of a point operation under the current rate card.
func Point(op PointOp) float64 { return Current.Point(op) }

// Query returns the modeled request charge of a query execution (one page or a whole query) under the
// current rate card.
func Query(f QueryFacts) float64 { return Current.Query(f) }

// Batch returns the modeled charge of a transactional batch: the sum of its operations.
func Batch(ops []PointOp) float64 { return Current.Batch(ops) }
