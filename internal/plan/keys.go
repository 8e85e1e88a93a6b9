package plan

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/seed"
)

// keyDist is the static picture of how a document type's partition-key values spread.
type keyDist struct {
	Card  float64 // distinct values
	Share float64 // share of the type's documents that hold the commonest value
	Known bool    // false when the key field is missing from the type
	// Drawn is the share of the type's documents on the key value of the median draw when values are
	// drawn by picking a document (a pattern's sample): the larger values come up more often. 0 when
	// not computed; then 1/Card.
	Drawn float64
}

// drawnShare is keyDist.Drawn, or 1/Card when it was not computed.
func (d keyDist) drawnShare() float64 {
	if d.Drawn > 0 {
		return d.Drawn
	}
	return 1 / math.Max(d.Card, 1)
}

// count is the number of documents of a type that `run` seeds with the default seed, or, when
// that is unknown, the expected number (children: parents × average per parent).
// A production sizer (prod set) counts the production documents instead.
func (s *sizer) count(dt *design.DocType, depth int) float64 {
	if dt == nil || depth > 8 {
		return 0
	}
	if n, ok := s.prod[dt.Type]; ok {
		return n
	}
	return s.seededCount(dt, depth)
}

// seededCount is count at the seeded scale.
func (s *sizer) seededCount(dt *design.DocType, depth int) float64 {
	if dt == nil || depth > 8 {
		return 0
	}
	if n, ok := s.seeded[dt.Type]; ok {
		return float64(n)
	}
	if dt.Parent == nil {
		return float64(max(dt.Count, 0))
	}
	per := float64(dt.Parent.Per.Min+dt.Parent.Per.Max) / 2
	return s.seededCount(s.parentOf(dt), depth+1) * per
}

// growth is how many times more documents of type dt production holds than the seeded volume (1 at
// the seeded scale).
func (s *sizer) growth(dt *design.DocType) float64 {
	if s.prod == nil {
		return 1
	}
	if n := s.seededCount(dt, 0); n > 0 {
		return s.count(dt, 0) / n
	}
	return 1
}

// fieldAt finds the field at a key path such as "/tenantId" or "/address/city"; "[]" steps into an
// array's elements ("/lines/[]/qty", the paths JOIN aliases and FROM x IN name): the element field.
func fieldAt(dt *design.DocType, path string) *design.Field {
	return fieldUnder(&design.Field{Object: dt.Fields}, strings.Split(strings.Trim(path, "/"), "/"))
}

// fieldUnder is the field at path below f (property names, "[]" for an array's element); f itself
// for an empty path.
func fieldUnder(f *design.Field, path []string) *design.Field {
	for _, seg := range path {
		if seg == "[]" {
			if f.Array == nil || f.Of == nil {
				return nil
			}
			f = f.Of
			continue
		}
		g, ok := f.Object.Lookup(seg)
		if !ok {
			return nil
		}
		f = g
	}
	return f
}

// keyLevel is the distribution of one key path's values among a type's documents.
func (s *sizer) keyLevel(dt *design.DocType, path string, depth int) keyDist {
	n := math.Max(s.count(dt, 0), 1)
	if depth > 8 {
		return keyDist{Card: n, Share: 1 / n, Known: true}
	}
	f := fieldAt(dt, path)
	if f == nil {
		if strings.Trim(path, "/") == "id" {
			return keyDist{Card: n, Share: 1 / n, Known: true}
		}
		return keyDist{Card: 1, Share: 1, Known: false}
	}
	return s.fieldDist(dt, f, n, depth)
}

var templateRef = regexp.MustCompile(`\{([^}]+)\}`)

func (s *sizer) fieldDist(dt *design.DocType, f *design.Field, n float64, depth int) keyDist {
	unique := keyDist{Card: n, Share: 1 / n, Known: true}
	switch {
	case f.Const != nil:
		return keyDist{Card: 1, Share: 1, Known: true}
	case f.Copy != "":
		if ref, ok := strings.CutPrefix(f.Copy, "parent."); ok && dt.Parent != nil {
			pt := s.parentOf(dt)
			if pt == nil {
				return unique
			}
			pd := s.keyLevel(pt, "/"+strings.ReplaceAll(ref, ".", "/"), depth+1)
			// Children follow their parent's key; the busiest parent value also carries the most
			// children at most Per.Max of them against the average.
			// When the key identifies the parent, the busiest value also carries the most children:
			// at most Per.Max against the average. A coarser key averages over many parents.
			per := float64(dt.Parent.Per.Min+dt.Parent.Per.Max) / 2
			if per > 0 && pd.Card >= 0.5*s.count(pt, 0) {
				pd.Share = math.Min(1, pd.Share*float64(dt.Parent.Per.Max)/per)
			}
			return pd
		}
		if f.Copy == "id" {
			return unique
		}
		return s.keyLevel(dt, "/"+strings.ReplaceAll(f.Copy, ".", "/"), depth+1)
	case f.Template != "":
		d := keyDist{Card: 1, Share: 1, Known: true}
		drawn := 1.0
		for _, m := range templateRef.FindAllStringSubmatch(f.Template, -1) {
			switch m[1] {
			case "seq", "uuid":
				return unique
			case "type":
				continue
			}
			l := s.keyLevel(dt, "/"+strings.ReplaceAll(m[1], ".", "/"), depth+1)
			d.Card *= l.Card
			d.Share *= l.Share
			drawn *= l.drawnShare() // the parts a drawn document holds, taken as independent
		}
		d.Card = math.Min(d.Card, n)
		d.Share = math.Max(d.Share, 1/n)
		d.Drawn = math.Min(math.Max(drawn, 1/n), 1)
		return d
	case len(f.OneOf) > 0:
		var sum, top float64
		for i := range f.OneOf {
			w := 1.0
			if i < len(f.Weights) {
				w = math.Max(f.Weights[i], 0)
			}
			sum += w
			top = math.Max(top, w)
		}
		if sum == 0 {
			return keyDist{Card: float64(len(f.OneOf)), Share: 1 / float64(len(f.OneOf)), Known: true}
		}
		return keyDist{Card: float64(len(f.OneOf)), Share: top / sum, Known: true}
	case f.Cardinality > 0:
		// A cardinality is the number of values of the seeded volume; at production it is the
		// stated productionCardinality, or else it grows with the type's documents (assumed, as
		// HalfScale assumes between the seeded sizes).
		card := math.Min(float64(f.Cardinality)*s.growth(dt), n)
		if f.ProductionCardinality > 0 && s.prod != nil {
			card = math.Min(f.ProductionCardinality, n)
		}
		drawn := drawnMedianShare(f.Dist, card, f.Skew, f.HotShare)
		uniform := f.Dist == "" || f.Dist == "uniform"
		if uniform && n > 1 {
			// Documents take the values at random: a document drawn at random shares its value
			// with (n−1)/card others on average, more than the n/card of an average value.
			drawn = (1 + (n-1)/card) / n
		}
		if v := float64(seed.Vocabulary(f.Gen)); v > 0 {
			// Each of the card values is drawn from the generator's list: some coincide, and a
			// document drawn at random more likely holds a value that several of them took: with
			// uniform slots, 1 + (card−1)/v slots on average.
			if uniform {
				drawn *= 1 + (card-1)/v
			}
			card = math.Max(1, v*(1-math.Pow(1-1/v, card)))
		}
		return keyDist{Card: card, Share: distShare(f.Dist, card, f.Skew, f.HotShare), Known: true, Drawn: drawn}
	case f.Gen == "bool":
		return keyDist{Card: 2, Share: 0.5, Known: true}
	case seed.Vocabulary(f.Gen) > 0:
		card := math.Min(float64(seed.Vocabulary(f.Gen)), n)
		return keyDist{Card: card, Share: 1 / card, Known: true}
	case f.Gen == "int" && f.Min != nil && f.Max != nil && *f.Max >= *f.Min:
		card := math.Min(math.Floor(*f.Max-*f.Min)+1, n)
		return keyDist{Card: card, Share: 1 / card, Known: true}
	}
	return unique
}

// distShare is the share of the commonest of card values under a distribution: uniform 1/card; zipf
// 1/H(card, s); hot the hot share plus its part of the rest.
func distShare(dist string, card, skew, hot float64) float64 {
	if card <= 1 {
		return 1
	}
	switch dist {
	case "zipf":
		if skew <= 1 {
			skew = 1.2
		}
		return 1 / zipfH(card, skew)
	case "hot":
		if hot <= 0 || hot >= 1 {
			hot = 0.5
		}
		return hot + (1-hot)/card
	}
	return 1 / card
}

// zipfExact is how many terms of a zipf normaliser are summed one by one; the rest of a larger
// number of values (production's) is the integral of x^-s from zipfExact+½ to card+½, within a
// fraction of a percent of the sum for skew > 1.
const zipfExact = 10_000

// zipfH is the normaliser of a zipf distribution over card values, Σ k^-skew for k = 1…card.
func zipfH(card, skew float64) float64 {
	var h float64
	k := 1.0
	for ; k <= math.Min(card, zipfExact); k++ {
		h += 1 / math.Pow(k, skew)
	}
	if card > zipfExact {
		h += (math.Pow(zipfExact+0.5, 1-skew) - math.Pow(card+0.5, 1-skew)) / (skew - 1)
	}
	return h
}

// drawnMedianShare is the share of the value a document drawn at random holds, at the median of
// such draws: values sorted by share, the first whose cumulative share reaches one half. Uniform
// values all hold 1/card.
func drawnMedianShare(dist string, card, skew, hot float64) float64 {
	if card <= 1 {
		return 1
	}
	switch dist {
	case "zipf":
		if skew <= 1 {
			skew = 1.2
		}
		top := distShare(dist, card, skew, hot)
		cum := 0.0
		for k := 1.0; k <= math.Min(card, zipfExact); k++ {
			p := top / math.Pow(k, skew)
			cum += p
			if cum >= 0.5 {
				return p
			}
		}
	case "hot":
		if h := distShare(dist, card, skew, hot); h >= 0.5 {
			return h
		}
	}
	return 1 / card
}

// skewNote names the distribution a design sets on the key of the type that holds most of a
// container's busiest logical partition ("key /channelId of message: dist zipf over 360000 values at
// production puts 19% of its 90M documents on one value"), "" when that key's values are not drawn
// from a skewed distribution.
func (s *sizer) skewNote(c *design.Container, dt *design.DocType) string {
	if dt == nil {
		return ""
	}
	for _, path := range c.PartitionKey {
		owner, f := s.cardinalityField(dt, path, 0)
		if f == nil || f.Dist == "" || f.Dist == "uniform" {
			continue
		}
		l := s.keyLevel(dt, path, 0)
		return fmt.Sprintf("key %s of %s: dist %s (set on %s's generator) over %.0f values puts %.3g%% of its %.0f documents on one value; a skewed key's busiest value must stay under the limits: lower the skew or split the key (a hierarchical level, a suffix)",
			path, dt.Type, f.Dist, owner.Type, l.Card, l.Share*100, s.count(dt, 0))
	}
	if dt.Parent != nil && dt.Parent.Per.Dist != "" && dt.Parent.Per.Dist != "uniform" {
		return fmt.Sprintf("children of %s per %s drawn %s (up to %d a parent)", dt.Type, dt.Parent.Type, dt.Parent.Per.Dist, dt.Parent.Per.Max)
	}
	return ""
}

// partitionDist combines a container's key levels for a type: the full key (every level) and the
// first-level prefix. Hierarchical levels are taken as nested (tenant ⊃ user ⊃ session), so the finest
// level decides the logical partition: the most distinct values and the smallest busiest share.
func (s *sizer) partitionDist(dt *design.DocType) (full, prefix keyDist) {
	return s.prefixDist(dt, len(s.c.PartitionKey)), s.prefixDist(dt, 1)
}

// prefixDist is the distribution of the first k key levels of a type.
func (s *sizer) prefixDist(dt *design.DocType, k int) keyDist {
	n := math.Max(s.count(dt, 0), 1)
	d := keyDist{Card: 1, Share: 1, Known: true}
	for i, p := range s.c.PartitionKey {
		if i >= k {
			break
		}
		l := s.keyLevel(dt, p, 0)
		if l.Card >= d.Card {
			d.Drawn = l.Drawn
		}
		d.Card = math.Max(d.Card, l.Card)
		d.Share = math.Min(d.Share, l.Share)
		d.Known = d.Known && l.Known
	}
	d.Card = math.Min(d.Card, n)
	d.Share = math.Max(d.Share, 1/n)
	return d
}

// cardinalityField is the generator with a cardinality that a key path's values come from (through
// copies of a parent's or the document's own fields), nil when they come from anything else.
func (s *sizer) cardinalityField(dt *design.DocType, path string, depth int) (*design.DocType, *design.Field) {
	if dt == nil || depth > 8 {
		return nil, nil
	}
	f := fieldAt(dt, path)
	switch {
	case f == nil:
		return nil, nil
	case f.Cardinality > 0:
		return dt, f
	case f.Copy == "" || f.Copy == "id":
		return nil, nil
	}
	if ref, ok := strings.CutPrefix(f.Copy, "parent."); ok && dt.Parent != nil {
		return s.cardinalityField(s.parentOf(dt), "/"+strings.ReplaceAll(ref, ".", "/"), depth+1)
	}
	return s.cardinalityField(dt, "/"+strings.ReplaceAll(f.Copy, ".", "/"), depth+1)
}
