package design

import (
	"slices"
	"strings"
)

// Defaults of the format. docs/design-format.md lists them; keep the two in step.
const (
	// DefaultConsistency is the account consistency a design gets when it names none.
	DefaultConsistency = "Session"
	// DefaultManualThroughput is the throughput of a container that names none: the service minimum.
	DefaultManualThroughput = 400
	// DefaultIDTemplate is the id template of a document type that names none.
	DefaultIDTemplate = "{type}-{seq}"
	// DefaultZipfSkew is the zipf exponent when dist is zipf and skew is not given.
	DefaultZipfSkew = 1.2
	// DefaultHotShare is the share of documents given the hot value when dist is hot.
	DefaultHotShare = 0.5
	// DefaultTextBytes is the length of gen text when bytes is not given.
	DefaultTextBytes = 100
)

// applyDefaults fills every omitted setting that has a default. It is the only place defaults are
// applied, and it runs before validation so that the validator sees what will be provisioned.
func applyDefaults(d *Design) {
	if d.Database == "" {
		d.Database = d.Name
	}
	if d.Regions == 0 {
		d.Regions = 1
	}
	if d.Consistency == "" {
		d.Consistency = DefaultConsistency
	}
	for ci := range d.Containers {
		c := &d.Containers[ci]
		if c.Throughput == (Throughput{}) {
			c.Throughput.Manual = DefaultManualThroughput
		}
		if c.Indexing == nil {
			c.Indexing = &Indexing{}
		}
		ix := c.Indexing
		if ix.Mode == "" {
			ix.Mode = "consistent"
		}
		// The service needs the root path included or excluded; like the service, include it when
		// the policy names neither.
		if ix.Mode == "consistent" && !slices.Contains(ix.Included, "/*") && !slices.Contains(ix.Excluded, "/*") {
			ix.Included = append(ix.Included, "/*")
		}
		defaultSearch(c)
		for i := range ix.Composite {
			for j := range ix.Composite[i] {
				if ix.Composite[i][j].Order == "" {
					ix.Composite[i][j].Order = "asc"
				}
			}
		}
		for ti := range c.Documents {
			t := &c.Documents[ti]
			if t.ID == "" {
				t.ID = DefaultIDTemplate
			}
			if t.Parent != nil && t.Parent.Per.Dist == "" {
				t.Parent.Per.Dist = "uniform"
			}
			defaultFields(t.Fields)
		}
	}
	for pi := range d.AccessPatterns {
		p := &d.AccessPatterns[pi]
		if p.RPS.Peak == 0 {
			p.RPS.Peak = p.RPS.Avg
		}
		if p.Op == OpReplace && p.Document == "" {
			p.Document = p.Sample
		}
		// A point operation on a sampled document targets that document unless told otherwise.
		pointOp := p.Op == OpRead || p.Op == OpReplace || p.Op == OpPatch || p.Op == OpDelete
		if pointOp && p.Sample != "" && p.ItemID == "" {
			p.ItemID = "{id}"
		}
		if (pointOp || p.Op == OpBatch) && p.Sample != "" && len(p.PartitionKey) == 0 {
			if c := d.Container(p.Container); c != nil {
				p.PartitionKey = keyTemplates(c.PartitionKey)
			}
		}
		if p.Op == OpChangeFeed {
			if p.ChangeFeed == nil {
				p.ChangeFeed = &ChangeFeedSpec{}
			}
			if p.ChangeFeed.From == "" {
				p.ChangeFeed.From = "beginning"
			}
			if p.ChangeFeed.Scope == "" {
				p.ChangeFeed.Scope = "container"
			}
			if p.ChangeFeed.PageSize == 0 {
				p.ChangeFeed.PageSize = 100
			}
		}
		for bi := range p.Batch {
			if p.Batch[bi].Repeat == 0 {
				p.Batch[bi].Repeat = 1
			}
		}
	}
}

func defaultFields(fs Fields) {
	for i := range fs {
		defaultField(&fs[i].Field)
	}
}

func defaultField(f *Field) {
	if f.Cardinality > 0 && f.Dist == "" {
		f.Dist = "uniform"
	}
	if f.Dist == "zipf" && f.Skew == 0 {
		f.Skew = DefaultZipfSkew
	}
	if f.Dist == "hot" && f.HotShare == 0 {
		f.HotShare = DefaultHotShare
	}
	if f.Gen == "text" && f.Bytes == 0 {
		f.Bytes = DefaultTextBytes
	}
	if f.Of != nil {
		defaultField(f.Of)
	}
	defaultFields(f.Object)
}

// keyTemplates turns key paths into templates ("/tenantId" → "{tenantId}"); nil when a path is
// nested, because a placeholder names a top-level field only.
func keyTemplates(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		segs := SplitPath(p)
		if len(segs) == 0 {
			return nil
		}
		for _, seg := range segs {
			if !identRe.MatchString(seg) {
				return nil
			}
		}
		out = append(out, "{"+strings.Join(segs, ".")+"}") // /address/city → {address.city}
	}
	return out
}

// BusiestKeyShare is the share of a pattern's requests that land on its busiest key value: the
// design's rps.hotKeyShare (traffic skew) when it states one, else dataShare, the share of the
// documents on the commonest key value (the requests then follow the data). traffic says which was
// used. It is the one place that fallback is decided.
func (p *AccessPattern) BusiestKeyShare(dataShare float64) (share float64, traffic bool) {
	if p.RPS.HotKeyShare > 0 {
		return p.RPS.HotKeyShare, true
	}
	return dataShare, false
}

// WrittenType is the document type a create, upsert or replace writes: Document, or by default the
// sampled type (Sample). It is the one place that fallback is decided.
func (p *AccessPattern) WrittenType() string {
	if p.Document != "" {
		return p.Document
	}
	return p.Sample
}

// BatchWrittenType is the document type a create or upsert of a batch writes: the operation's
// Document, or by default the pattern's sampled type.
func (p *AccessPattern) BatchWrittenType(op *BatchOp) string {
	if op.Document != "" {
		return op.Document
	}
	return p.Sample
}
