package cost

import "math"

// strongFactor is the multiplier of reads at consistency level c.
func (c *RateCard) strongFactor(level Consistency) float64 {
	if level == Strong || level == BoundedStaleness {
		return c.StrongRead.Value
	}
	return 1
}

func kb(bytes int) float64 {
	if bytes <= 0 {
		return 0
	}
	return float64(bytes) / 1024
}

func nonNeg(n int) float64 {
	if n < 0 {
		return 0
	}
	return float64(n)
}

// regionFactor is the write multiplier for an account with n regions.
func (c *RateCard) regionFactor(n int) float64 {
	if n <= 1 {
		return 1
	}
	return 1 + c.ExtraRegion.Value*float64(n-1)
}

// Point returns the modeled request charge of a point operation:
//
//	read    = ReadBySize(size) × consistency factor
//	create  = WriteBySize(size) + IndexTerm × indexed terms
//	delete  = WriteBySize(size) + IndexTerm × indexed terms
//	replace = WriteBySize(old) + WriteBySize(new) + 2 × IndexTerm × changed terms
//	patch   = replace + PatchBase × patch operations
//	upsert  = create when OldSizeBytes is 0, replace otherwise
//
// The formulas are those of the worked examples of understand-request-unit-consumption.md; the size
// parts come from its table. Unknown kinds are charged as a create.
func (c *RateCard) Point(op PointOp) float64 {
	size := kb(op.SizeBytes)
	old := kb(op.OldSizeBytes)
	if old == 0 {
		old = size
	}
	terms := nonNeg(op.IndexedTerms)
	changed := nonNeg(op.ChangedTerms)
	rf := c.regionFactor(op.Regions)
	switch op.Kind {
	case Read:
		return c.ReadBySize.At(size) * c.strongFactor(op.Consistency)
	case Replace:
		return c.replace(old, size, changed) * rf
	case Patch:
		n := nonNeg(op.PatchOps)
		if n == 0 {
			n = 1 // a patch carries at least one operation
		}
		return (c.replace(old, size, changed) + c.PatchBase.Value*n) * rf
	case Upsert:
		if op.OldSizeBytes > 0 {
			return c.replace(old, size, changed) * rf
		}
	}
	// Create, Delete, a new-item Upsert, and anything unknown.
	return (c.WriteBySize.At(size) + c.IndexTerm.Value*terms) * rf
}

func (c *RateCard) replace(oldKB, newKB, changed float64) float64 {
	return c.WriteBySize.At(oldKB) + c.WriteBySize.At(newKB) + 2*c.IndexTerm.Value*changed
}

// Batch returns the charge of a transactional batch: the sum of its operations' charges.
func (c *RateCard) Batch(ops []PointOp) float64 {
	var sum float64
	for _, op := range ops {
		sum += c.Point(op)
	}
	return sum
}

// Query returns the modeled request charge of a query execution:
//
//	QueryMin       × p                     (p = physical partitions checked, at least 1: one request each)
//	+ IndexCheck   × p                     when the query consults the index (a served filter, an ORDER BY walk)
//	+ QueryIndexSeek × partitions where the index found entries
//	+ QueryLookup  × (index seeks − 1)
//	+ QueryEntry     × index entries read other than full index scans' values
//	+ QueryScanValue × distinct values full index scans read
//	+ QueryDocLoaded × documents loaded    + QueryKBLoaded × KB loaded
//	+ QueryDocEval   × documents evaluated by a filter the index does not serve
//	+ QueryKBOutput  × (KB output − 1)
//	+ QueryFunction  × function calls      + QueryJoinRow × rows beyond the first per document
//	+ QuerySortDoc   × documents sorted in memory
//
// all times the consistency factor. IndexCheck is QueryPartition − QueryMin: a physical partition
// whose index is checked costs QueryPartition (2.5 RU) even when nothing in it matches
// (how-to-query-container.md), of which QueryMin (2.3 RU) is the request itself (devblogs); a
// partition where the index found entries pays QueryIndexSeek on top, so a one-document indexed
// query costs 2.3 + 0.2 + 0.3 ≈ 2.8 RU (courselabs 2.82). Entries are assumed spread over the
// partitions by the partition key's hash (partitioning-overview.md), so E entries over p partitions
// reach p × (1 − (1 − 1/p)^E) of them. A full index scan's distinct values are index entries too
// (IndexEntriesRead counts them), priced at QueryScanValue instead of QueryEntry: the scan evaluates
// each distinct value of its path, which costs less than a range's entry (the CONTAINS devblog's
// figure). The minimum covers a 1 KB result, hence the output's "− 1"
// (never below zero). The work is in the index and in loading documents: output bytes and
// projections cost little (docs/cost-model.md). FullScan itself adds nothing: a scan is charged
// through the documents it loads and evaluates.
func (c *RateCard) Query(f QueryFacts) float64 {
	over := func(x float64) float64 {
		if x <= 1 {
			return 0
		}
		return x - 1
	}
	p := max(nonNeg(f.PartitionsChecked), 1)
	ru := c.QueryMin.Value * p
	if consultsIndex(f) {
		ru += c.IndexCheck() * p
		ru += c.QueryIndexSeek.Value * PartitionsReached(p, foundEntries(f))
	}
	ru += c.QueryLookup.Value * over(nonNeg(f.IndexLookups))
	scan := nonNeg(f.IndexScanValues)
	ru += c.QueryEntry.Value * max(nonNeg(f.IndexEntriesRead)-scan, 0)
	ru += c.QueryScanValue.Value * scan
	ru += c.QueryDocLoaded.Value * nonNeg(f.DocsLoaded)
	ru += c.QueryKBLoaded.Value * float64(max(f.BytesLoaded, 0)) / 1024
	ru += c.QueryDocEval.Value * nonNeg(f.DocsEvaluated)
	ru += c.QueryKBOutput.Value * over(float64(max(f.BytesOutput, 0))/1024)
	ru += c.QueryFunction.Value * nonNeg(f.FunctionCalls)
	ru += c.QueryJoinRow.Value * nonNeg(f.JoinRows)
	ru += c.QuerySortDoc.Value * nonNeg(f.SortedInMemory)
	return ru * c.strongFactor(f.Consistency)
}

// IndexCheck is what checking one physical partition's index adds to a request's minimum: the
// published per-partition floor less the published query minimum (QueryPartition − QueryMin).
func (c *RateCard) IndexCheck() float64 {
	return max(c.QueryPartition.Value-c.QueryMin.Value, 0)
}

// PartitionChecks is the part of Query(f) that pays for the physical partitions beyond the first:
// each one's request minimum and index check, and the first seek in those the index found entries in.
func (c *RateCard) PartitionChecks(f QueryFacts) float64 {
	p := max(nonNeg(f.PartitionsChecked), 1)
	if p <= 1 {
		return 0
	}
	per := c.QueryMin.Value
	seek := 0.0
	if consultsIndex(f) {
		per += c.IndexCheck()
		seek = c.QueryIndexSeek.Value * (PartitionsReached(p, foundEntries(f)) - PartitionsReached(1, foundEntries(f)))
	}
	return (per*(p-1) + seek) * c.strongFactor(f.Consistency)
}

// consultsIndex reports whether the execution used the index at all.
func consultsIndex(f QueryFacts) bool {
	return f.IndexLookups > 0 || f.IndexEntriesRead > 0
}

// foundEntries is how many index entries the execution found: the entries read, or, for an estimate
// that counts only the documents the index handed over, those documents.
func foundEntries(f QueryFacts) float64 {
	if f.IndexEntriesRead > 0 {
		return float64(f.IndexEntriesRead)
	}
	return nonNeg(f.DocsLoaded)
}

// PartitionsReached is how many of p physical partitions hold at least one of n entries spread
// evenly by hash (assumed: the partition key's hash spreads documents evenly, partitioning-overview.md):
// the expectation p × (1 − (1 − 1/p)^n), which is min(n, 1) for one partition and tends to p.
func PartitionsReached(p, n float64) float64 {
	if n <= 0 || p <= 0 {
		return 0
	}
	if p <= 1 {
		return 1
	}
	return p * (1 - math.Pow(1-1/p, n))
}

// QueryPages is the charge of a query whose result comes in pages: Query(f) for the work, plus for
// every page after the first the minimum again, and the index check and first seek again when the
// index serves the query (the engine charges every page as a request of its own; the service does too).
func (c *RateCard) QueryPages(f QueryFacts, pages int) float64 {
	ru := c.Query(f)
	if pages <= 1 {
		return ru
	}
	per := c.QueryMin.Value
	if consultsIndex(f) {
		per += c.IndexCheck()
		if foundEntries(f) > 0 {
			per += c.QueryIndexSeek.Value
		}
	}
	return ru + float64(pages-1)*per*c.strongFactor(f.Consistency)
}

// MinQuery is the least a query can cost when it reaches partitions physical partitions: one request
// minimum each (a query that checks their indexes pays IndexCheck more in each).
func (c *RateCard) MinQuery(partitions int, level Consistency) float64 {
	return c.Query(QueryFacts{PartitionsChecked: partitions, Consistency: level})
}
