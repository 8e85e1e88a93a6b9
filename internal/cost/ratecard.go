package cost

// Sources of the rate card. Each names a file of the public MicrosoftDocs/azure-databases-docs
// repository (under articles/cosmos-db/) or a public post; "assumed" marks figures no document gives.
const (
	SrcRUConsumption  = "understand-request-unit-consumption.md (2026-04-21)"
	SrcOptimizeRW     = "optimize-cost-reads-writes.md"
	SrcIndexPolicy    = "index-policy.md"
	SrcTroubleshootQ  = "nosql/troubleshoot-query-performance.md"
	SrcDevblogsPoint  = "devblogs.microsoft.com/cosmosdb: point reads versus queries"
	SrcQueryContainer = "nosql/how-to-query-container.md"
	SrcPartitioning   = "partitioning-overview.md"
	SrcScalingBP      = "scaling-provisioned-throughput-best-practices.md"
	SrcLimits         = "concepts-limits.md"
	SrcHierarchical   = "hierarchical-partition-keys.md"
	SrcBill           = "understand-your-bill.md"
	SrcChooseOffer    = "how-to-choose-offer.md"
	SrcAutoscaleFAQ   = "autoscale-faq.yml"
	SrcServerless     = "throughput-serverless.md"
	SrcAssumed        = "assumed"
)

// Coefficient is one figure of the rate card with where it comes from.
type Coefficient struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
	// Source names the document the figure comes from, or "assumed".
	Source string `json:"source"`
	// Note says how a derived figure was derived, or why an assumed one was chosen.
	Note string `json:"note,omitempty"`
}

// SizePoint is one published (size, charge) pair.
type SizePoint struct {
	KB float64 `json:"kb"`
	RU float64 `json:"ru"`
}

// SizeTable is a published charge-by-size table, interpolated piecewise linearly between its points.
// Below the first point the first charge applies; above the last the last segment's slope continues.
type SizeTable struct {
	Points []SizePoint `json:"points"`
	Source string      `json:"source"`
	Note   string      `json:"note,omitempty"`
}

// At returns the interpolated charge at kb kilobytes.
func (t SizeTable) At(kb float64) float64 {
	p := t.Points
	if len(p) == 0 {
		return 0
	}
	if kb <= p[0].KB || len(p) == 1 {
		return p[0].RU
	}
	for i := 1; i < len(p); i++ {
		if kb <= p[i].KB {
			a, b := p[i-1], p[i]
			return a.RU + (b.RU-a.RU)*(kb-a.KB)/(b.KB-a.KB)
		}
	}
	a, b := p[len(p)-2], p[len(p)-1]
	return b.RU + (b.RU-a.RU)*(kb-b.KB)/(b.KB-a.KB)
}

// RateCard holds every figure the model uses. Charges change over time, so a card is versioned and
// dated; reports print the card they used.
type RateCard struct {
	Version string `json:"version"`
	// Date is when the figures were last checked against their sources (YYYY-MM-DD).
	Date     string `json:"date"`
	Currency string `json:"currency"`

	// Point operations.
	ReadBySize  SizeTable   `json:"readBySize"`
	WriteBySize SizeTable   `json:"writeBySize"`
	IndexTerm   Coefficient `json:"indexTerm"`
	PatchBase   Coefficient `json:"patchBase"`
	StrongRead  Coefficient `json:"strongRead"`
	ExtraRegion Coefficient `json:"extraRegionWrite"`
	SystemTerms Coefficient `json:"systemTerms"`

	// Queries.
	QueryMin       Coefficient `json:"queryMin"`
	QueryPartition Coefficient `json:"queryPartition"`
	QueryLookup    Coefficient `json:"queryLookup"`
	QueryKBLoaded  Coefficient `json:"queryKBLoaded"`
	QueryDocLoaded Coefficient `json:"queryDocLoaded"`
	QueryKBOutput  Coefficient `json:"queryKBOutput"`
	QueryFunction  Coefficient `json:"queryFunction"`
	QueryJoinRow   Coefficient `json:"queryJoinRow"`
	QuerySortDoc   Coefficient `json:"querySortDoc"`

	// Partitions and limits.
	PartitionMaxRU       Coefficient `json:"partitionMaxRU"`
	PartitionMaxGB       Coefficient `json:"partitionMaxGB"`
	PartitionCreateRU    Coefficient `json:"partitionCreateRU"`
	LogicalMaxGB         Coefficient `json:"logicalMaxGB"`
	ItemMaxKB            Coefficient `json:"itemMaxKB"`
	BatchMaxOps          Coefficient `json:"batchMaxOps"`
	ManualMinRU          Coefficient `json:"manualMinRU"`
	ManualMinRUPerGB     Coefficient `json:"manualMinRUPerGB"`
	ManualStep           Coefficient `json:"manualStep"`
	AutoscaleMinMax      Coefficient `json:"autoscaleMinMax"`
	AutoscaleStep        Coefficient `json:"autoscaleStep"`
	AutoscaleMaxPerGB    Coefficient `json:"autoscaleMaxPerGB"`
	AutoscaleFloor       Coefficient `json:"autoscaleFloor"`
	ServerlessMaxRU      Coefficient `json:"serverlessMaxRU"`
	ServerlessPartRU     Coefficient `json:"serverlessPartitionRU"`
	ServerlessMaxRegions Coefficient `json:"serverlessMaxRegions"`

	// Prices (US list prices).
	HoursPerMonth      Coefficient `json:"hoursPerMonth"`
	ManualPrice        Coefficient `json:"manualPrice"`
	ManualMRWPrice     Coefficient `json:"manualMultiRegionWritePrice"`
	AutoscalePrice     Coefficient `json:"autoscalePrice"`
	AutoscaleMRWPrice  Coefficient `json:"autoscaleMultiRegionWritePrice"`
	ServerlessPrice    Coefficient `json:"serverlessPrice"`
	StoragePrice       Coefficient `json:"storagePrice"`
	SecondsPerMonthFor Coefficient `json:"secondsPerMonth"`
}

// Coefficients lists the card's scalar figures in a stable order, for reports.
func (c *RateCard) Coefficients() []Coefficient {
	return []Coefficient{
		c.IndexTerm, c.PatchBase, c.StrongRead, c.ExtraRegion, c.SystemTerms,
		c.QueryMin, c.QueryPartition, c.QueryLookup, c.QueryKBLoaded, c.QueryDocLoaded,
		c.QueryKBOutput, c.QueryFunction, c.QueryJoinRow, c.QuerySortDoc,
		c.PartitionMaxRU, c.PartitionMaxGB, c.PartitionCreateRU, c.LogicalMaxGB, c.ItemMaxKB,
		c.BatchMaxOps, c.ManualMinRU, c.ManualMinRUPerGB, c.ManualStep, c.AutoscaleMinMax,
		c.AutoscaleStep, c.AutoscaleMaxPerGB, c.AutoscaleFloor, c.ServerlessMaxRU,
		c.ServerlessPartRU, c.ServerlessMaxRegions,
		c.HoursPerMonth, c.ManualPrice, c.ManualMRWPrice, c.AutoscalePrice, c.AutoscaleMRWPrice,
		c.ServerlessPrice, c.StoragePrice, c.SecondsPerMonthFor,
	}
}

// The UPPER() scan of troubleshoot-query-performance.md publishes its whole metrics block: 60,951
// documents, 399,998,938 bytes retrieved, 7 output (510 bytes), 4,059.95 RU, and the execution time
// split (total 4,500.34 ms; document load 4,177.66 ms; query engine 322.16 ms of which system
// functions 85.74 ms). The load, per-document and function coefficients below split the charge in
// proportion to that time split (the proportionality is the assumption):
//
//	load:      4,059.95 × 4,177.66/4,500.34 = 3,768.9 RU / 390,624 KB  = 0.009648 RU/KB
//	engine:    4,059.95 × 236.42/4,500.34   =   213.3 RU / 60,951 docs = 0.003499 RU/doc
//	functions: 4,059.95 × 85.74/4,500.34    =    77.35 RU / 60,951 calls = 0.001269 RU/call
//
// The output coefficient comes from the indexed one-document query of optimize-cost-reads-writes.md
// (9,963 bytes retrieved, 10,012 bytes output, 3.19 RU) after the 2.3 RU minimum, which covers a
// 1 KB result: (3.19 − 2.3 − 8.73 KB × 0.009648) / 8.78 KB = 0.0918 RU/KB.

// Current is the rate card the package-level functions use.
var Current = &RateCard{
	Version:  "2026.11-1",
	Date:     "2026-11-21",
	Currency: "USD",

	ReadBySize: SizeTable{
		Source: SrcRUConsumption,
		Note:   "point read, Session/Eventual consistency; piecewise linear between published sizes",
		Points: []SizePoint{
			{1, 1.00}, {2, 1.04}, {4, 1.14}, {8, 1.33}, {16, 1.67}, {32, 2.19}, {64, 4.76},
			{128, 9.95}, {256, 20.28}, {512, 40.95}, {1024, 145.90}, {2048, 291.80},
		},
	},
	WriteBySize: SizeTable{
		Source: SrcRUConsumption,
		Note:   "document-size part of a write, one region; piecewise linear between published sizes",
		Points: []SizePoint{
			{1, 4.95}, {2, 6.29}, {4, 6.67}, {8, 7.04}, {16, 9.52}, {32, 11.23}, {64, 22.67},
			{128, 48.19}, {256, 98.29}, {512, 184.57}, {1024, 625}, {2048, 1250},
		},
	},
	IndexTerm: Coefficient{Name: "index term written or removed", Value: 0.2, Unit: "RU/term",
		Source: SrcRUConsumption},
	PatchBase: Coefficient{Name: "patch base", Value: 0.4, Unit: "RU/patch operation",
		Source: SrcRUConsumption, Note: "worked example: 0.4 × 2 for two modified properties"},
	StrongRead: Coefficient{Name: "Strong/BoundedStaleness read factor", Value: 2, Unit: "×",
		Source: SrcOptimizeRW, Note: "point reads and queries; writes unchanged"},
	ExtraRegion: Coefficient{Name: "write charge per extra region", Value: 0, Unit: "× per region",
		Source: SrcAssumed, Note: "the service says writes cost more with more regions but publishes no " +
			"coefficient; the model leaves the charge unchanged and bills throughput per region instead"},
	SystemTerms: Coefficient{Name: "always-indexed system terms (id, _ts)", Value: 2, Unit: "terms",
		Source: SrcIndexPolicy, Note: "id and _ts are indexed whenever the mode is consistent; the " +
			"engine counts them in IndexedTerms"},

	QueryMin: Coefficient{Name: "query minimum (one partition, one lookup, 1 KB result)", Value: 2.3,
		Unit: "RU", Source: SrcDevblogsPoint},
	QueryPartition: Coefficient{Name: "each further physical partition checked", Value: 2.5, Unit: "RU",
		Source: SrcQueryContainer, Note: "partitioning-overview.md says 2-3 RU per partition"},
	QueryLookup: Coefficient{Name: "each further index lookup", Value: 0.1, Unit: "RU",
		Source: SrcAssumed, Note: "no published figure; small against the minimum, which covers the first"},
	QueryKBLoaded: Coefficient{Name: "document bytes loaded beyond the first KB", Value: 0.009648,
		Unit: "RU/KB", Source: SrcTroubleshootQ, Note: "UPPER() scan, load share of the time split"},
	QueryDocLoaded: Coefficient{Name: "documents evaluated beyond the first", Value: 0.003499,
		Unit: "RU/doc", Source: SrcTroubleshootQ, Note: "UPPER() scan, engine share of the time split"},
	QueryKBOutput: Coefficient{Name: "result bytes beyond the first KB", Value: 0.0918, Unit: "RU/KB",
		Source: SrcOptimizeRW, Note: "3.19 RU one-document query after the 2.3 RU minimum"},
	QueryFunction: Coefficient{Name: "non-index system function call", Value: 0.001269, Unit: "RU/call",
		Source: SrcTroubleshootQ, Note: "UPPER() scan, function share of the time split"},
	QueryJoinRow: Coefficient{Name: "JOIN row beyond the first per document", Value: 0.0006,
		Unit: "RU/row", Source: SrcAssumed, Note: "calibrated on the JOIN vs subquery pair of " +
			SrcTroubleshootQ + " assuming 250 matching documents (the count is not published)"},
	QuerySortDoc: Coefficient{Name: "document sorted in memory (no composite index)", Value: 0.025,
		Unit: "RU/doc", Source: SrcAssumed, Note: "calibrated on the ORDER BY pair of " +
			SrcTroubleshootQ + " assuming 400 matching documents, 10 returned (counts not published)"},

	PartitionMaxRU: Coefficient{Name: "physical partition throughput", Value: 10000, Unit: "RU/s",
		Source: SrcPartitioning},
	PartitionMaxGB: Coefficient{Name: "physical partition storage", Value: 50, Unit: "GB",
		Source: SrcPartitioning},
	PartitionCreateRU: Coefficient{Name: "manual RU/s per partition at creation", Value: 6000,
		Unit: "RU/s", Source: SrcScalingBP},
	LogicalMaxGB: Coefficient{Name: "logical partition storage (full key)", Value: 20, Unit: "GB",
		Source: SrcLimits, Note: SrcHierarchical + ": a key prefix may exceed it"},
	ItemMaxKB: Coefficient{Name: "item size", Value: 2048, Unit: "KB", Source: SrcLimits},
	BatchMaxOps: Coefficient{Name: "transactional batch operations", Value: 100, Unit: "ops",
		Source: SrcLimits},
	ManualMinRU: Coefficient{Name: "manual minimum", Value: 400, Unit: "RU/s", Source: SrcLimits},
	ManualMinRUPerGB: Coefficient{Name: "manual minimum per GB stored", Value: 1, Unit: "RU/s per GB",
		Source: SrcLimits},
	ManualStep: Coefficient{Name: "manual increment", Value: 100, Unit: "RU/s", Source: SrcLimits},
	AutoscaleMinMax: Coefficient{Name: "autoscale smallest max", Value: 1000, Unit: "RU/s",
		Source: SrcAutoscaleFAQ},
	AutoscaleStep: Coefficient{Name: "autoscale max increment", Value: 1000, Unit: "RU/s",
		Source: SrcAutoscaleFAQ},
	AutoscaleMaxPerGB: Coefficient{Name: "autoscale max per GB stored", Value: 10, Unit: "RU/s per GB",
		Source: SrcAutoscaleFAQ, Note: "storage limit is max RU/s ÷ 10 GB"},
	AutoscaleFloor: Coefficient{Name: "autoscale billed floor", Value: 0.1, Unit: "× max",
		Source: SrcAutoscaleFAQ},
	ServerlessMaxRU: Coefficient{Name: "serverless container throughput", Value: 20000, Unit: "RU/s",
		Source: SrcServerless},
	ServerlessPartRU: Coefficient{Name: "serverless physical partition throughput", Value: 5000,
		Unit: "RU/s", Source: SrcServerless},
	ServerlessMaxRegions: Coefficient{Name: "serverless regions", Value: 1, Unit: "regions",
		Source: SrcServerless},

	HoursPerMonth: Coefficient{Name: "billed hours per month", Value: 730, Unit: "h", Source: SrcBill},
	ManualPrice: Coefficient{Name: "manual throughput", Value: 0.008, Unit: "$ per 100 RU/s per hour",
		Source: SrcBill, Note: "per region"},
	ManualMRWPrice: Coefficient{Name: "manual throughput, multi-region writes", Value: 0.016,
		Unit: "$ per 100 RU/s per hour", Source: SrcBill, Note: "per region"},
	AutoscalePrice: Coefficient{Name: "autoscale throughput", Value: 0.012,
		Unit: "$ per 100 RU/s per hour", Source: SrcChooseOffer,
		Note: "1.5 × manual; billed on the hour's highest RU/s, at least 10% of max; per region"},
	AutoscaleMRWPrice: Coefficient{Name: "autoscale throughput, multi-region writes", Value: 0.016,
		Unit: "$ per 100 RU/s per hour", Source: SrcAutoscaleFAQ, Note: "same rate as manual multi-region writes"},
	ServerlessPrice: Coefficient{Name: "serverless consumption", Value: 0.25, Unit: "$ per million RU",
		Source: SrcBill},
	StoragePrice: Coefficient{Name: "transactional storage", Value: 0.25, Unit: "$ per GB-month",
		Source: SrcBill, Note: "per region"},
	SecondsPerMonthFor: Coefficient{Name: "seconds in a billed month", Value: 730 * 3600, Unit: "s",
		Source: SrcBill, Note: "730 h; a 30-day month (2,592,000 s) is 1.4% short"},
}
