package cost

// Sources of the rate card. Each names a file of the public MicrosoftDocs/azure-databases-docs
// repository (under articles/cosmos-db/) or a public post; "assumed" marks figures no document gives.
const (
	SrcRUConsumption  = "understand-request-unit-consumption.md (2026-04-21)"
	SrcOptimizeRW     = "optimize-cost-reads-writes.md"
	SrcKeyValue       = "key-value-store-cost.md (2019-08-23)"
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
	SrcBurst          = "burst-capacity.md"
	SrcDynamicScale   = "autoscale-per-partition-region.md"
	SrcIndexOverview  = "index-overview.md"
	SrcQueryMetrics   = "nosql/query-metrics.md"
	// SrcDevblogComposite is the composite-index devblog (Tim Sander, 2021-02-16): a TOP 10 with one
	// equality and two range filters over 9 million items, 533.47 RU with range indexes, 72.23 RU
	// with a composite index per range filter.
	SrcDevblogComposite = "devblogs.microsoft.com/cosmosdb: New ways to use composite indexes (2021-02-16)"
	// SrcDevblogStringFns is the string-function devblog (June 2020): CONTAINS(c.address, "Brooks
	// Street") over 8.5 million documents of about 150 B, 17 results, 224.99 RU once the path is
	// indexed (221,566.68 RU before the improvement it announces).
	SrcDevblogStringFns = "devblogs.microsoft.com/cosmosdb: New string function performance improvements and case-insensitive search (2020-06)"
	// SrcCourselabs is a public third-party measurement on a real account (courselabs/azure,
	// labs/cosmos-perf/README.md): 1,000 documents of 60 B in one container with only /id indexed.
	// Not Microsoft's, so every figure taken from it says so.
	SrcCourselabs = "courselabs/azure labs/cosmos-perf (third-party measurement)"
	SrcAssumed    = "assumed"
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
	// Unvalidated, when set, says that no published figure independent of the one the value came
	// from checks it, and why (docs/fidelity.md, mutation check). Reports list these coefficients.
	Unvalidated string `json:"unvalidated,omitempty"`
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
	// Unvalidated is as for Coefficient.
	Unvalidated string `json:"unvalidated,omitempty"`
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
	// File is the base name of the card file LoadRateCard read it from ("" otherwise): it names
	// the card in ChargesLabel. Not part of the card's JSON.
	File string `json:"-"`
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

	// Queries.
	QueryMin       Coefficient `json:"queryMin"`
	QueryPartition Coefficient `json:"queryPartition"`
	QueryIndexSeek Coefficient `json:"queryIndexSeek"`
	QueryLookup    Coefficient `json:"queryLookup"`
	QueryEntry     Coefficient `json:"queryIndexEntry"`
	QueryScanValue Coefficient `json:"queryScanValue"`
	QueryDocEval   Coefficient `json:"queryDocEvaluated"`
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
	// Burst capacity (burst-capacity.md): a physical partition under BurstMaxRU of provisioned
	// throughput accumulates up to BurstIdleSeconds of its idle capacity and spends it at up to
	// BurstMaxRU. Not guaranteed, not on serverless: a cushion, never capacity.
	BurstMaxRU       Coefficient `json:"burstMaxRU"`
	BurstIdleSeconds Coefficient `json:"burstIdleSeconds"`

	// Prices (US list prices).
	HoursPerMonth      Coefficient `json:"hoursPerMonth"`
	ManualPrice        Coefficient `json:"manualPrice"`
	ManualMRWPrice     Coefficient `json:"manualMultiRegionWritePrice"`
	AutoscalePrice     Coefficient `json:"autoscalePrice"`
	AutoscaleMRWPrice  Coefficient `json:"autoscaleMultiRegionWritePrice"`
	ServerlessPrice    Coefficient `json:"serverlessPrice"`
	StoragePrice       Coefficient `json:"storagePrice"`
	SecondsPerMonthFor Coefficient `json:"secondsPerMonth"`

	// Calibration is set on a card fitted to an account's measured charges (a calibration
	// profile, LoadCalibration); nil on the built-in card.
	Calibration *CalibrationRef `json:"calibration,omitempty"`
}

// Coefficients lists the card's scalar figures in a stable order, for reports.
func (c *RateCard) Coefficients() []Coefficient {
	return []Coefficient{
		c.IndexTerm, c.PatchBase, c.StrongRead, c.ExtraRegion,
		c.QueryMin, c.QueryPartition, c.QueryIndexSeek, c.QueryLookup, c.QueryEntry, c.QueryScanValue,
		c.QueryKBLoaded, c.QueryDocLoaded, c.QueryDocEval,
		c.QueryKBOutput, c.QueryFunction, c.QueryJoinRow, c.QuerySortDoc,
		c.PartitionMaxRU, c.PartitionMaxGB, c.PartitionCreateRU, c.LogicalMaxGB, c.ItemMaxKB,
		c.BatchMaxOps, c.ManualMinRU, c.ManualMinRUPerGB, c.ManualStep, c.AutoscaleMinMax,
		c.AutoscaleStep, c.AutoscaleMaxPerGB, c.AutoscaleFloor, c.ServerlessMaxRU,
		c.ServerlessPartRU, c.ServerlessMaxRegions, c.BurstMaxRU, c.BurstIdleSeconds,
		c.HoursPerMonth, c.ManualPrice, c.ManualMRWPrice, c.AutoscalePrice, c.AutoscaleMRWPrice,
		c.ServerlessPrice, c.StoragePrice, c.SecondsPerMonthFor,
	}
}

// Unvalidated names the card's coefficients and size tables that no published figure independent of
// their own source checks (their Unvalidated note says why; docs/fidelity.md's mutation check finds
// them). Reports list them beside the card's version.
func (c *RateCard) Unvalidated() []string {
	var out []string
	for _, t := range []struct {
		name string
		tb   SizeTable
	}{{"point read by size", c.ReadBySize}, {"write by size", c.WriteBySize}} {
		if t.tb.Unvalidated != "" {
			out = append(out, t.name)
		}
	}
	for _, k := range c.Coefficients() {
		if k.Unvalidated != "" {
			out = append(out, k.Name)
		}
	}
	return out
}

// Query terms. Three sets of published figures give the per-document and per-KB terms; solved
// together (the derivation is in docs/cost-model.md; TestFidelity holds the figures as calibration rows):
//
//   - courselabs (third-party, real account, 1,000 documents of 60 B, 58.55 KB in all, one partition):
//     SELECT * with no filter 7.46 RU (every document loaded, none evaluated);
//     the same with a filter on an unindexed path 18.59 RU (every document loaded and evaluated);
//     SELECT p.name, p.price 8.22 RU (output 5.4 KB instead of 58.8 KB: output bytes cost little);
//     an indexed one-document lookup 2.82 RU; one ~59 KB document by an indexed equality 3.59 RU;
//     FROM p IN c.items over that document's 1,000 elements, one returned, 4.94 RU.
//   - troubleshoot-query-performance.md, UPPER() scan: 60,951 documents, 399,998,938 B, 7 output,
//     4,059.95 RU; system functions took 85.74 of 4,500.34 ms, charged in proportion (assumed).
//
//	evaluated:  (18.59 − 7.46) / 1,000                                   = 0.01113 RU/doc
//	per KB:     UPPER − 2.3 − functions − 60,951 × (load + evaluated), with
//	            load = (7.46 − 2.3 − 58.55 × perKB) / 1,000               → 0.007648 RU/KB
//	load:       (7.46 − 2.3 − 58.55 × 0.007648) / 1,000                  = 0.004712 RU/doc
//	functions:  4,059.95 × 85.74 / 4,500.34 / 60,951                     = 0.001269 RU/call
//	first seek: 2.82 − 2.5 (partition checked) − one 60 B document         ≈ 0.3 RU
//	output:     (3.59 − 2.5 − 0.3 − 0.0047 − 58 KB × 0.007648) / 58 KB   = 0.0058 RU/KB
//	row:        (4.94 − 3.59 + 58 KB × 0.0058) / 999 further elements     = 0.00169 RU/row
//
// Checks against figures not used above: troubleshoot's indexed filter on one 6.4 KB document
// (2.98 RU) comes out at 2.88; the 9,963 B one-document query of query-metrics (3.19 RU) at 2.92.

// Current is the rate card the package-level functions use.
var Current = &RateCard{
	Version:  "2026.11-5",
	Date:     "2026-11-28",
	Currency: "USD",

	ReadBySize: SizeTable{
		Source: SrcRUConsumption,
		Note: "point read, Session/Eventual consistency; piecewise linear between published sizes. " +
			"Kept against the \"100 KB = 10 RU\" of " + SrcOptimizeRW + " (2021), " + SrcKeyValue +
			" and this article's own point-read section: the table's points from 64 to 512 KB lie on " +
			"one line (0.080-0.081 RU per KB between them), which puts 100 KB at 7.7 RU; 10 RU would " +
			"need 0.1 RU/KB, which no two points of the table give below 512 KB. The round figure " +
			"predates the 2026 article, which says charges fell since (binary encoding lowered the " +
			"persisted size and the read charge); no source says charges step between table sizes",
		Points: []SizePoint{
			{1, 1.00}, {2, 1.04}, {4, 1.14}, {8, 1.33}, {16, 1.67}, {32, 2.19}, {64, 4.76},
			{128, 9.95}, {256, 20.28}, {512, 40.95}, {1024, 145.90}, {2048, 291.80},
		},
	},
	WriteBySize: SizeTable{
		Source: SrcRUConsumption,
		Note: "document-size part of a write, one region; piecewise linear between published sizes. " +
			"Kept against the 50 RU for a 100 KB write of " + SrcKeyValue + ": the table's points from " +
			"64 to 512 KB lie near one line (0.34-0.40 RU per KB), 37 RU at 100 KB; the 2019 figure is " +
			"as much above the table as the old read figure, the mark of an older rate, not of a kink",
		Points: []SizePoint{
			{1, 4.95}, {2, 6.29}, {4, 6.67}, {8, 7.04}, {16, 9.52}, {32, 11.23}, {64, 22.67},
			{128, 48.19}, {256, 98.29}, {512, 184.57}, {1024, 625}, {2048, 1250},
		},
	},
	IndexTerm: Coefficient{Name: "index term written or removed", Value: 0.2, Unit: "RU/term",
		Source:      SrcRUConsumption,
		Unvalidated: "partly: read off the worked formulas it is used in; CosmosDB/labs lab 09's 2019 write ratio (one 3.6 KB document with and without 95 terms indexed, ~48 ÷ ~16 RU) notices it lowered 30%, not raised (the model's ratio, 2.66, then reaches 2.92 of the published 3.0)"},
	PatchBase: Coefficient{Name: "patch base", Value: 0.4, Unit: "RU/patch operation",
		Source: SrcRUConsumption, Note: "worked example: 0.4 × 2 for two modified properties",
		Unvalidated: "read off the only published patch charge"},
	StrongRead: Coefficient{Name: "Strong/BoundedStaleness read factor", Value: 2, Unit: "×",
		Source: SrcOptimizeRW, Note: "point reads and queries; writes unchanged. Checked by the first " +
			"published charge of a Strong read, DP-420 lab 21 (a 186 B item: Strong 2 RU, Eventual 1 RU)"},
	ExtraRegion: Coefficient{Name: "write charge per extra region", Value: 0, Unit: "× per region",
		Source: SrcAssumed, Note: "the service says writes cost more with more regions but publishes no " +
			"coefficient; the model leaves the charge unchanged and bills throughput per region instead",
		Unvalidated: "assumed 0: no coefficient is published, so no figure can check it"},

	QueryMin: Coefficient{Name: "query minimum (one partition, no index seek, 1 KB result)", Value: 2.3,
		Unit: "RU", Source: SrcDevblogsPoint},
	QueryPartition: Coefficient{Name: "each physical partition whose index a query checks, even when nothing matches",
		Value: 2.5, Unit: "RU", Source: SrcQueryContainer,
		Note: "\"a minimum of about 2.5 RUs each time you check a physical partition's index\": the " +
			"request's minimum (queryMin, 2.3 RU) plus the index check (the 0.2 RU difference); " +
			"partitioning-overview.md says 2-3 RU per partition. A partition reached without an index " +
			"check (a scan) pays the minimum alone; one where the index finds entries also pays queryIndexSeek",
		Unvalidated: "partly: partitioning-overview.md's 2-3 RU per partition notices it raised 30%, not lowered (the 0.2 RU index check then vanishes under the 2.3 RU minimum)"},
	QueryIndexSeek: Coefficient{Name: "first index seek that finds entries, per partition", Value: 0.3, Unit: "RU",
		Source: SrcCourselabs, Note: "indexed one-document lookup 2.82 RU − 2.5 RU per partition checked " +
			"(queryPartition) − one 60 B document; troubleshoot-query-performance.md's indexed filter " +
			"(2.98 RU) models at 2.89",
		Unvalidated: "read off courselabs' indexed lookup; the published indexed filters (2.98 and 3.19 RU) and DP-420 lab 17's IN-list lookups (3.06-3.47 RU) stay inside ±25% when it moves ±30% (0.09 RU)"},
	QueryLookup: Coefficient{Name: "each further index seek", Value: 0.1, Unit: "RU",
		Source: SrcAssumed, Note: "no published figure pins it; a B-tree descent, small against the first " +
			"seek, which also opens the query's index scan",
		Unvalidated: "assumed; DP-420 lab 17's IN-list lookups isolate further seeks (5 ids − 2 ids, 0.41 RU published, 0.32 modeled), but only to the lab's ±0.1 RU run to run (±0.2 RU on the difference), more than a 30% move (0.09 RU); raised 30% the model gives 0.41 RU, the published difference"},
	QueryEntry: Coefficient{Name: "index entry read (range scan, composite slice, ORDER BY walk)",
		Value: 0.0000648, Unit: "RU/entry", Source: SrcDevblogComposite,
		Note: "the default-policy figure (533.47 RU): 3 seeks, 5 partitions (assumed) returning their TOP 10 " +
			"of 500 B (assumed), and the entries the two ranges cover over 9 million items, one half after the " +
			"_ts bound (assumed: a bound copied from an item) and 38.9% after the GUID id bound: 8.0 million " +
			"entries, (533.47 − 14.76) ÷ 8,002,674. An equality or IN is a seek, charged by queryIndexSeek and " +
			"queryLookup, never per entry (index-overview.md: constant per equality filter)",
		Unvalidated: "read off the composite devblog's default-policy figure; its composite figure (72.23 RU) is a known miss, 0.35× (docs/fidelity.md)"},
	QueryScanValue: Coefficient{Name: "distinct value a full index scan reads (CONTAINS, ENDSWITH, RegexMatch, StringEquals, IS_*)",
		Value: 0.0000248, Unit: "RU/value", Source: SrcDevblogStringFns,
		Note: "CONTAINS(c.address, \"Brooks Street\") over 8.5 million documents, 17 returned, 224.99 RU: 1 seek, " +
			"5 partitions (assumed: 30,000 RU/s at creation ÷ partitionCreateRU), 17 documents of 354 B as stored " +
			"loaded and returned, 14.15 RU in all, and one value per distinct address, every address taken " +
			"distinct (assumed: a generated full address, number, street, city and country, repeats rarely): " +
			"(224.99 − 14.15) ÷ 8,500,000. A full index scan \"scans through the distinct set of possible " +
			"values\" (index-overview.md) and evaluates the function on each, its charge a slight increase over " +
			"a seek by the property's cardinality (Learn module \"Index usage\"): a value evaluated, not a range's " +
			"entry read, and 0.38× queryIndexEntry. The value goes as 1 ÷ the distinct addresses: were they half " +
			"as many, it would double",
		Unvalidated: "read off the CONTAINS devblog's figure, the one published charge of a full index scan; no other published figure gives a scan's distinct values"},
	QueryKBLoaded: Coefficient{Name: "document bytes loaded", Value: 0.007648,
		Unit: "RU/KB", Source: SrcTroubleshootQ, Note: "UPPER() scan after the per-document terms of " +
			SrcCourselabs,
		Unvalidated: "partly: the excluded-path example notices it lowered 30%, not raised"},
	QueryDocLoaded: Coefficient{Name: "document loaded from the store", Value: 0.004712,
		Unit: "RU/doc", Source: SrcCourselabs, Note: "SELECT * over 1,000 documents, 7.46 RU",
		Unvalidated: "partly: the projection example notices it lowered 30%, not raised"},
	QueryDocEval: Coefficient{Name: "document evaluated by a filter the index does not serve",
		Value: 0.01113, Unit: "RU/doc", Source: SrcCourselabs,
		Note:        "filter on an unindexed path over 1,000 documents (18.59 RU) − SELECT * (7.46 RU)",
		Unvalidated: "read off courselabs' unindexed filter; the excluded-path example that could check it has assumed counts and moves less than 25% when it moves 30%"},
	QueryKBOutput: Coefficient{Name: "result bytes beyond the first KB", Value: 0.0058, Unit: "RU/KB",
		Source: SrcCourselabs, Note: "one ~59 KB document by an indexed equality, 3.59 RU; a " +
			"projection costs what SELECT * does (8.22 vs 7.46 RU) because the work is loading",
		Unvalidated: "read off courselabs' one 59 KB document; no other published query returns enough bytes to check it"},
	QueryFunction: Coefficient{Name: "non-index system function call", Value: 0.001269, Unit: "RU/call",
		Source: SrcTroubleshootQ, Note: "UPPER() scan, function share of the time split",
		Unvalidated: "read off the UPPER() scan's time split, the only published query that calls a function on every document"},
	QueryJoinRow: Coefficient{Name: "row iterated beyond the first per document (JOIN, FROM x IN array)",
		Value: 0.00169, Unit: "RU/row", Source: SrcCourselabs,
		Note: "FROM p IN c.items over 1,000 elements (4.94 RU) − the same document returned whole " +
			"(3.59 RU, of which 0.34 RU output), over 999 further rows",
		Unvalidated: "partly: the three-JOIN example notices it raised 30%, not lowered"},
	QuerySortDoc: Coefficient{Name: "document sorted in memory (no composite index)", Value: 0.025,
		Unit: "RU/doc", Source: SrcAssumed, Note: "calibrated on the ORDER BY pair of " +
			SrcTroubleshootQ + " assuming 400 matching documents, 100 returned (counts not published)",
		Unvalidated: "calibrated on the ORDER BY pair of troubleshoot-query-performance.md (counts assumed); no other published figure sorts in memory"},

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
	BurstMaxRU: Coefficient{Name: "burst capacity rate (and the per-partition throughput below which a partition bursts)",
		Value: 3000, Unit: "RU/s", Source: SrcBurst, Note: "not guaranteed; never counted as capacity"},
	BurstIdleSeconds: Coefficient{Name: "burst capacity accumulated idle time", Value: 300, Unit: "s",
		Source: SrcBurst, Note: "at most 300 s × the partition's provisioned RU/s"},

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
