// Package design holds the design-file model: the containers, document types and access patterns a
// team wrote down, parsed strictly from YAML and validated before anything talks to a database.
package design

// CurrentVersion is the newest design-file format version this build reads.
const CurrentVersion = 1

// Design is a whole design file after parsing and defaulting.
type Design struct {
	Version     int    `yaml:"version" json:"version"`
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// VariantOf names the design this one is a variant of (validate advise --write-variants writes
	// it): compare takes a run of this design against a run of that one without --force.
	VariantOf string `yaml:"variantOf,omitempty" json:"variantOf,omitempty"`
	// Database is the database name the design targets. Runs on shared accounts derive a run-scoped
	// name from it. Default: Name.
	Database string `yaml:"database,omitempty" json:"database,omitempty"`
	// Scale is the production scale the estimates are for; it drives partition and cost math.
	Scale Scale `yaml:"scale,omitempty" json:"scale,omitempty"`
	// Regions is the number of regions the account is replicated to. Default 1.
	Regions int `yaml:"regions,omitempty" json:"regions,omitempty"`
	// MultiRegionWrites says whether every region accepts writes.
	MultiRegionWrites bool `yaml:"multiRegionWrites,omitempty" json:"multiRegionWrites,omitempty"`
	// Consistency is the account's default consistency level: Strong, BoundedStaleness, Session
	// (default), ConsistentPrefix or Eventual.
	Consistency string `yaml:"consistency,omitempty" json:"consistency,omitempty"`
	// Tolerance overrides the default verdict tolerances for every pattern.
	Tolerance *Tolerance `yaml:"tolerance,omitempty" json:"tolerance,omitempty"`
	// Pricing is what the designer assumed the service costs; plan checks it against the rate card.
	Pricing *Pricing `yaml:"pricing,omitempty" json:"pricing,omitempty"`
	// App describes the application that runs the access patterns (app.go).
	App *App `yaml:"app,omitempty" json:"app,omitempty"`
	// Traffic is the shape of the load over the day and the billed month: hourly factors of every
	// pattern's rps.avg, the highest second's share over the hour's average, and dated events
	// (traffic.go). Plan bills and judges throttling hour by hour with it; without it the load is flat.
	Traffic *Traffic `yaml:"traffic,omitempty" json:"traffic,omitempty"`

	Containers     []Container     `yaml:"containers" json:"containers"`
	AccessPatterns []AccessPattern `yaml:"accessPatterns" json:"accessPatterns"`
	// Waive lists findings of any code the team accepts for the whole design (waive.go).
	Waive []Waive `yaml:"waive,omitempty" json:"waive,omitempty"`

	// File is the path the design was read from ("" for a reader); not part of the format.
	File string `yaml:"-" json:"-"`
	// Positions maps a field path ("containers[0].partitionKey[1]") to where it stands in the file.
	Positions map[string]Pos `yaml:"-" json:"-"`
	// src keeps what ValuePos needs of the file (nil for a design built in Go).
	src *source
}

// Pos is a 1-based line and column in a design file.
type Pos struct {
	Line int `json:"line"`
	Col  int `json:"col"`
}

// Scale describes production size.
type Scale struct {
	// StorageGB is the expected total storage across all containers at production scale.
	StorageGB float64 `yaml:"storageGB,omitempty" json:"storageGB,omitempty"`
}

// Pricing is the designer's stated price assumptions, as found in cosmosdb_data_model.md files.
type Pricing struct {
	// ManualPer100RUsHour is the stated price of 100 RU/s of manual throughput for one hour, in USD.
	ManualPer100RUsHour float64 `yaml:"manualPer100RUsHour,omitempty" json:"manualPer100RUsHour,omitempty"`
	// ManualPerRUHour is the stated price of 1 RU/s for one hour (a common unit mistake).
	ManualPerRUHour float64 `yaml:"manualPerRUHour,omitempty" json:"manualPerRUHour,omitempty"`
	// StoragePerGBMonth is the stated storage price.
	StoragePerGBMonth float64 `yaml:"storagePerGBMonth,omitempty" json:"storagePerGBMonth,omitempty"`
	// SecondsPerMonth is the month length the designer used (the service bills 730 hours).
	SecondsPerMonth float64 `yaml:"secondsPerMonth,omitempty" json:"secondsPerMonth,omitempty"`
}

// Tolerance is how far a charge may stray from the estimate before the verdict is not "pass".
// A charge within max(Abs, Pct% of estimate) passes.
type Tolerance struct {
	// Point is the tolerance for point operations (read, create, upsert, replace, patch, delete, batch).
	Point *Band `yaml:"point,omitempty" json:"point,omitempty"`
	// Query is the tolerance for queries.
	Query *Band `yaml:"query,omitempty" json:"query,omitempty"`
}

// Band is a symmetric tolerance: the larger of an absolute RU amount and a percentage.
type Band struct {
	// Pct is the tolerance as a percentage of the estimate.
	Pct float64 `yaml:"pct,omitempty" json:"pct,omitempty"`
	// RU is the tolerance in request units.
	RU float64 `yaml:"ru,omitempty" json:"ru,omitempty"`
}

// Container is one container of the design.
type Container struct {
	Name string `yaml:"name" json:"name"`
	// PartitionKey holds 1 to 3 paths; more than one is a hierarchical (MultiHash v2) key.
	PartitionKey []string   `yaml:"partitionKey" json:"partitionKey"`
	Throughput   Throughput `yaml:"throughput,omitempty" json:"throughput,omitempty"`
	// ThroughputBuckets are the container's throughput buckets (at most 5, preview): each caps the
	// requests a pattern sends with its id (rps.bucket) at a percentage of the throughput.
	ThroughputBuckets []ThroughputBucket `yaml:"throughputBuckets,omitempty" json:"throughputBuckets,omitempty"`
	// DefaultTTL: nil = TTL off; -1 = on with no default expiry; n > 0 = expire after n seconds.
	DefaultTTL *int `yaml:"defaultTtl,omitempty" json:"defaultTtl,omitempty"`
	// UniqueKeys lists unique-key constraints, each a set of paths.
	UniqueKeys [][]string `yaml:"uniqueKeys,omitempty" json:"uniqueKeys,omitempty"`
	// Indexing is the indexing policy. Default: consistent, everything included (/*).
	Indexing *Indexing `yaml:"indexing,omitempty" json:"indexing,omitempty"`
	// FullText is the container's full-text policy: the paths full-text search reads.
	FullText *FullTextSpec `yaml:"fullText,omitempty" json:"fullText,omitempty"`
	// Vectors is the container's vector embedding policy: one entry per vector path.
	Vectors []VectorSpec `yaml:"vectors,omitempty" json:"vectors,omitempty"`
	// Partitions overrides the number of simulated physical partitions (default: from scale and
	// throughput through the cost model).
	Partitions int `yaml:"partitions,omitempty" json:"partitions,omitempty"`
	// StorageGB is this container's share of production storage (default: design scale split by
	// seeded bytes).
	StorageGB float64 `yaml:"storageGB,omitempty" json:"storageGB,omitempty"`
	// Documents are the document types stored in the container.
	Documents []DocType `yaml:"documents" json:"documents"`
	// Waive lists this container's findings the team accepts (waive.go).
	Waive []Waive `yaml:"waive,omitempty" json:"waive,omitempty"`
}

// IsHierarchical reports whether the container uses a hierarchical (MultiHash) partition key.
func (c *Container) IsHierarchical() bool { return len(c.PartitionKey) > 1 }

// Throughput is one of manual, autoscale or serverless. Default: manual 400.
type Throughput struct {
	Manual       int  `yaml:"manual,omitempty" json:"manual,omitempty"`
	AutoscaleMax int  `yaml:"autoscaleMax,omitempty" json:"autoscaleMax,omitempty"`
	Serverless   bool `yaml:"serverless,omitempty" json:"serverless,omitempty"`
}

// Indexing mirrors the service's indexing policy in a compact form.
type Indexing struct {
	// Mode is "consistent" (default) or "none".
	Mode      string            `yaml:"mode,omitempty" json:"mode,omitempty"`
	Included  []string          `yaml:"included,omitempty" json:"included,omitempty"`
	Excluded  []string          `yaml:"excluded,omitempty" json:"excluded,omitempty"`
	Composite [][]CompositePath `yaml:"composite,omitempty" json:"composite,omitempty"`
	// FullText lists the paths with a full-text index (each in the container's fullText paths).
	FullText []string `yaml:"fullText,omitempty" json:"fullText,omitempty"`
	// Vector lists the vector indexes (each path in the container's vectors).
	Vector []VectorIndexSpec `yaml:"vector,omitempty" json:"vector,omitempty"`
}

// FullTextSpec is a container's full-text policy.
type FullTextSpec struct {
	// Language is the default language of the paths (default "en-US").
	Language string `yaml:"language,omitempty" json:"language,omitempty"`
	// Paths are the document paths full-text search reads, e.g. /description.
	Paths []string `yaml:"paths" json:"paths"`
}

// VectorSpec is one vector path of a container's vector embedding policy.
type VectorSpec struct {
	// Path is the document path of the vector, e.g. /embedding.
	Path string `yaml:"path" json:"path"`
	// DataType is float32 (default), float16, int8 or uint8.
	DataType string `yaml:"dataType,omitempty" json:"dataType,omitempty"`
	// Dimensions is the vector's length, 1 to 4096.
	Dimensions int `yaml:"dimensions" json:"dimensions"`
	// Distance is cosine (default), dotproduct or euclidean.
	Distance string `yaml:"distance,omitempty" json:"distance,omitempty"`
}

// VectorIndexSpec is one vector index: flat (default; at most 505 dimensions), quantizedFlat or
// diskANN.
type VectorIndexSpec struct {
	Path string `yaml:"path" json:"path"`
	Type string `yaml:"type,omitempty" json:"type,omitempty"`
}

// CompositePath is one path of a composite index with its order ("asc" or "desc").
type CompositePath struct {
	Path  string `yaml:"path" json:"path"`
	Order string `yaml:"order,omitempty" json:"order,omitempty"`
}

// DocType is a kind of document in a container and how to generate it.
type DocType struct {
	// Type names the document type; patterns refer to it by this name.
	Type string `yaml:"type" json:"type"`
	// Count is how many documents of a root type to seed. A child type has Parent instead.
	Count int `yaml:"count,omitempty" json:"count,omitempty"`
	// Production is how many documents of this type production holds (root and child types alike);
	// 0 = not stated (then the container's storageGB share scales the seeded count, or production
	// scale is the seeded one). Run projects query charges to it.
	Production float64 `yaml:"production,omitempty" json:"production,omitempty"`
	// Parent places children in their parent's logical partition, Per documents per parent.
	Parent *Parent `yaml:"parent,omitempty" json:"parent,omitempty"`
	// ID is the id template, e.g. "user-{seq}" or "order-{uuid}". Default "{type}-{seq}".
	ID string `yaml:"id,omitempty" json:"id,omitempty"`
	// TargetBytes pads each document with filler text to about this many bytes of JSON.
	TargetBytes int `yaml:"targetBytes,omitempty" json:"targetBytes,omitempty"`
	// Fields generate the document's properties, in order.
	Fields Fields `yaml:"fields" json:"fields"`
	// AppFields are property paths ("/lastLoginAt", "/prefs/theme") the application writes to
	// documents of this type outside the seeded shape, e.g. by a patch. Queries, patches, keys and
	// indexes may name them; lint reports any other path no field generates.
	AppFields []string `yaml:"appFields,omitempty" json:"appFields,omitempty"`
}

// Parent says that documents of a type are children of another type.
type Parent struct {
	Type string `yaml:"type" json:"type"`
	Per  Per    `yaml:"per" json:"per"`
}

// Per is how many children each parent gets.
type Per struct {
	Min int `yaml:"min" json:"min"`
	Max int `yaml:"max" json:"max"`
	// Dist is uniform (default), zipf or hot.
	Dist string `yaml:"dist,omitempty" json:"dist,omitempty"`
}

// Fields is an ordered list of named field generators (a YAML mapping, order kept).
type Fields []NamedField

// NamedField is one property of a generated document.
type NamedField struct {
	Name  string
	Field Field
}

// Lookup returns the field with the given name.
func (fs Fields) Lookup(name string) (*Field, bool) {
	for i := range fs {
		if fs[i].Name == name {
			return &fs[i].Field, true
		}
	}
	return nil, false
}

// Field generates one value. Exactly one of Const, Copy, Template, Gen, OneOf, Array or Object is set.
type Field struct {
	// Const is a fixed value.
	Const any `yaml:"const,omitempty" json:"const,omitempty"`
	// Copy copies another field of this document ("id", "tenantId") or of the parent ("parent.userId").
	Copy string `yaml:"copy,omitempty" json:"copy,omitempty"`
	// Template builds a string from other fields: "{tenantId}_{userId}".
	Template string `yaml:"template,omitempty" json:"template,omitempty"`
	// Gen names a generator: fullName, firstName, lastName, email, word, text, code, uuid, int,
	// decimal, money, bool, isoTime, epoch, city, country, phone, sku, vector.
	Gen string `yaml:"gen,omitempty" json:"gen,omitempty"`
	// OneOf picks one of the values, with optional Weights.
	OneOf   []any     `yaml:"oneOf,omitempty" json:"oneOf,omitempty"`
	Weights []float64 `yaml:"weights,omitempty" json:"weights,omitempty"`
	// Array generates an array of Of, with a length between Array.Min and Array.Max.
	Array *ArraySpec `yaml:"array,omitempty" json:"array,omitempty"`
	Of    *Field     `yaml:"of,omitempty" json:"of,omitempty"`
	// Object generates a nested object.
	Object Fields `yaml:"object,omitempty" json:"object,omitempty"`

	// Generator options.
	Min      *float64 `yaml:"min,omitempty" json:"min,omitempty"`
	Max      *float64 `yaml:"max,omitempty" json:"max,omitempty"`
	Decimals *int     `yaml:"decimals,omitempty" json:"decimals,omitempty"`
	From     string   `yaml:"from,omitempty" json:"from,omitempty"`
	To       string   `yaml:"to,omitempty" json:"to,omitempty"`
	Bytes    int      `yaml:"bytes,omitempty" json:"bytes,omitempty"`
	Prefix   string   `yaml:"prefix,omitempty" json:"prefix,omitempty"`
	Unique   bool     `yaml:"unique,omitempty" json:"unique,omitempty"`

	// Dimensions is the length of a gen vector (a unit-length vector of numbers).
	Dimensions int `yaml:"dimensions,omitempty" json:"dimensions,omitempty"`

	// Cardinality limits the generator to this many distinct values (e.g. 50 tenants).
	Cardinality int `yaml:"cardinality,omitempty" json:"cardinality,omitempty"`
	// ProductionCardinality is how many distinct values the generator has at production (25 tenants
	// whatever the seeded volume). Without it the cardinality is assumed to grow with the type's
	// documents (each value keeping its share of them), which is what the production-scale
	// projection then reasons from.
	ProductionCardinality float64 `yaml:"productionCardinality,omitempty" json:"productionCardinality,omitempty"`
	// Dist is how values are drawn among Cardinality: uniform (default), zipf or hot.
	Dist string `yaml:"dist,omitempty" json:"dist,omitempty"`
	// Skew is the zipf exponent s (> 1, default 1.2).
	Skew float64 `yaml:"skew,omitempty" json:"skew,omitempty"`
	// HotShare is, for dist hot, the share of documents that get the single hot value (default 0.5).
	HotShare float64 `yaml:"hotShare,omitempty" json:"hotShare,omitempty"`

	// Optional makes the field absent from this share of documents (0..1).
	Optional float64 `yaml:"optional,omitempty" json:"optional,omitempty"`
}

// ArraySpec bounds an array's length.
type ArraySpec struct {
	Min int `yaml:"min" json:"min"`
	Max int `yaml:"max" json:"max"`
}

// Operation kinds of access patterns.
const (
	OpRead    = "read"
	OpQuery   = "query"
	OpCreate  = "create"
	OpUpsert  = "upsert"
	OpReplace = "replace"
	OpPatch   = "patch"
	OpDelete  = "delete"
	OpBatch   = "batch"
	// OpChangeFeed reads the container's change feed (latest-version mode) from a start to its end.
	OpChangeFeed = "changeFeed"
)

// AccessPattern is one numbered access pattern with its estimate.
type AccessPattern struct {
	ID        string `yaml:"id" json:"id"`
	Name      string `yaml:"name" json:"name"`
	Container string `yaml:"container" json:"container"`
	// Op is read, query, create, upsert, replace, patch, delete, batch or changeFeed.
	Op string `yaml:"op" json:"op"`
	// Sample draws parameters ({field} placeholders) from a seeded document of this type.
	Sample string `yaml:"sample,omitempty" json:"sample,omitempty"`
	// Document is the type of the fresh document a create, upsert or replace writes.
	Document string `yaml:"document,omitempty" json:"document,omitempty"`
	// ItemID is the id template of the item a read, replace, patch or delete targets: "{id}".
	ItemID string `yaml:"itemId,omitempty" json:"itemId,omitempty"`
	// PartitionKey holds one template per key level. Fewer levels than the container's key is a
	// hierarchical prefix (queries only). Omitted on a query = cross-partition.
	PartitionKey []string `yaml:"partitionKey,omitempty" json:"partitionKey,omitempty"`
	// Query is the NoSQL query text, with @parameters.
	Query string `yaml:"query,omitempty" json:"query,omitempty"`
	// Params maps each @parameter to a template or a literal value.
	Params map[string]any `yaml:"params,omitempty" json:"params,omitempty"`
	// Patch lists patch operations (at most 10).
	Patch []PatchOp `yaml:"patch,omitempty" json:"patch,omitempty"`
	// Condition is a patch precondition, a filter predicate: "FROM c WHERE c.status = 'pending'".
	Condition string `yaml:"condition,omitempty" json:"condition,omitempty"`
	// Batch lists the operations of a transactional batch (at most 100, one logical partition).
	Batch []BatchOp `yaml:"batch,omitempty" json:"batch,omitempty"`
	// ChangeFeed says where a changeFeed pattern starts, what it reads and its page size.
	ChangeFeed *ChangeFeedSpec `yaml:"changeFeed,omitempty" json:"changeFeed,omitempty"`
	// Consistency overrides the consistency level of reads and queries.
	Consistency string `yaml:"consistency,omitempty" json:"consistency,omitempty"`
	// PrefixIn says how the application sends a hierarchical-key prefix with this query: "options"
	// (in the request options only: a PartitionKeyBuilder prefix), "where" (as equalities in WHERE
	// only) or "both". Default: as the pattern's partitionKey and WHERE say, except that app.sdk
	// efcore lifts a prefix equality out of WHERE into the request (options). Lint weighs the forms
	// (hpk-prefix-options), plan and the engine charge each by its mechanism, and run sends the
	// prefix in the request for options and both.
	PrefixIn string `yaml:"prefixIn,omitempty" json:"prefixIn,omitempty"`
	// Expect states what the pattern must do besides its charge.
	Expect *Expect `yaml:"expect,omitempty" json:"expect,omitempty"`
	RPS    RPS     `yaml:"rps" json:"rps"`
	// Estimate is what the designer promised.
	Estimate Estimate `yaml:"estimate" json:"estimate"`
	// Tolerance overrides the verdict tolerance for this pattern.
	Tolerance *Band `yaml:"tolerance,omitempty" json:"tolerance,omitempty"`
	// Regression overrides the baseline drift threshold for this pattern.
	Regression *Band `yaml:"regression,omitempty" json:"regression,omitempty"`
	// Samples overrides the number of executions.
	Samples int `yaml:"samples,omitempty" json:"samples,omitempty"`
	// Waive lists this pattern's findings the team accepts (waive.go).
	Waive []Waive `yaml:"waive,omitempty" json:"waive,omitempty"`
}

// PatchOp is one patch operation: set, add, replace, remove, incr or move.
type PatchOp struct {
	Op   string `yaml:"op" json:"op"`
	Path string `yaml:"path" json:"path"`
	// Value is a literal or a template string ("{status}"); "{now}" is the current time.
	Value any    `yaml:"value,omitempty" json:"value,omitempty"`
	From  string `yaml:"from,omitempty" json:"from,omitempty"`
}

// BatchOp is one operation of a transactional batch. Its document type or item id are resolved in
// the sampled document's logical partition.
type BatchOp struct {
	// Op is create, upsert, replace, read, delete or patch.
	Op       string    `yaml:"op" json:"op"`
	Document string    `yaml:"document,omitempty" json:"document,omitempty"`
	ItemID   string    `yaml:"itemId,omitempty" json:"itemId,omitempty"`
	Patch    []PatchOp `yaml:"patch,omitempty" json:"patch,omitempty"`
	// Repeat runs the operation this many times (fresh documents each time). Default 1.
	Repeat int `yaml:"repeat,omitempty" json:"repeat,omitempty"`
}

// ChangeFeedSpec is how a changeFeed pattern reads the feed. One execution reads from the start
// until the feed has nothing more (a 304), as a consumer catching up does.
type ChangeFeedSpec struct {
	// From is where reading starts: "beginning" (default), "now", or an RFC 3339 time.
	From string `yaml:"from,omitempty" json:"from,omitempty"`
	// Scope is "container" (default: every feed range, one composite continuation) or "range"
	// (one feed range per execution, in turn, as one of several parallel consumers reads).
	Scope string `yaml:"scope,omitempty" json:"scope,omitempty"`
	// PageSize is the most items per page (maxItemCount); default 100.
	PageSize int `yaml:"pageSize,omitempty" json:"pageSize,omitempty"`
}

// Expect holds the behavioural expectations of a pattern.
type Expect struct {
	SinglePartition *bool `yaml:"singlePartition,omitempty" json:"singlePartition,omitempty"`
	MinResults      *int  `yaml:"minResults,omitempty" json:"minResults,omitempty"`
	MaxResults      *int  `yaml:"maxResults,omitempty" json:"maxResults,omitempty"`
	// Status is the expected HTTP status (e.g. 412 for a conditional patch that must fail).
	Status int `yaml:"status,omitempty" json:"status,omitempty"`
}

// RPS is the request rate the design expects.
type RPS struct {
	// Avg is the average request rate per second.
	Avg float64 `yaml:"avg" json:"avg"`
	// Peak is the peak request rate per second. Default: Avg.
	Peak float64 `yaml:"peak,omitempty" json:"peak,omitempty"`
	// HotKeyShare is the share (0 < share ≤ 1) of the pattern's requests that land on its busiest
	// partition-key value at peak: 1 when the whole peak goes to one key (one event's on-sale).
	// Traffic skew, apart from data skew: it does not change the generated documents. Default: the
	// requests follow the documents' key distribution (the share of the commonest key value).
	HotKeyShare float64 `yaml:"hotKeyShare,omitempty" json:"hotKeyShare,omitempty"`
	// Shape names this pattern's shape over the day (flat, business, evening), overriding the
	// design's traffic shape; Hourly gives its 24 factors instead (they average 1).
	Shape  string    `yaml:"shape,omitempty" json:"shape,omitempty"`
	Hourly []float64 `yaml:"hourly,omitempty" json:"hourly,omitempty"`
	// Priority is the requests' priority with priority-based execution: high (the service's default)
	// or low (throttled first when the container is over its throughput; best effort, no reservation).
	Priority string `yaml:"priority,omitempty" json:"priority,omitempty"`
	// Bucket is the throughput bucket (1–5, preview) the requests are sent with: capped at the
	// container's throughputBuckets[] percentage for it.
	Bucket int `yaml:"bucket,omitempty" json:"bucket,omitempty"`
}

// ThroughputBucket caps the requests sent with bucket ID at MaxPercent of the container's
// throughput (throughput-buckets.md, preview): a cap, not a reservation.
type ThroughputBucket struct {
	ID         int `yaml:"id" json:"id"`
	MaxPercent int `yaml:"maxPercent" json:"maxPercent"`
}

// Estimate is the designer's promised charge per execution.
type Estimate struct {
	// RU is the charge of one execution in request units, summed over all pages.
	RU float64 `yaml:"ru" json:"ru"`
	// Measured is a charge the designer measured for one execution (the portal's query stats, a
	// diagnostics string, a load test), kept as what it is: run shows it beside the model's figure;
	// the verdict still judges the model against RU.
	Measured float64 `yaml:"measured,omitempty" json:"measured,omitempty"`
}
