package cost

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// statedFigures are the rate card's limits and prices: figures their source states outright, with no
// model between the words and the value. They are held to the stated value; the mutation check
// counts a change of one as noticed here and says so ("stated by its source"), apart from the
// coefficients validation figures notice. Key: RateCard field name.
var statedFigures = map[string]float64{
	"PartitionMaxRU":       10_000, // partitioning-overview.md: 10,000 RU/s per physical partition
	"PartitionMaxGB":       50,     // partitioning-overview.md: 50 GB per physical partition
	"PartitionCreateRU":    6_000,  // scaling-provisioned-throughput-best-practices.md: RU/s ÷ 6,000 at creation
	"LogicalMaxGB":         20,     // concepts-limits.md: 20 GB per logical partition
	"ItemMaxKB":            2048,   // concepts-limits.md: 2 MB per item
	"BatchMaxOps":          100,    // concepts-limits.md: 100 operations per transactional batch
	"ManualMinRU":          400,    // concepts-limits.md: 400 RU/s minimum
	"ManualMinRUPerGB":     1,      // concepts-limits.md: 1 RU/s per GB stored
	"ManualStep":           100,    // concepts-limits.md: increments of 100 RU/s
	"AutoscaleMinMax":      1_000,  // autoscale-faq.yml: smallest max 1,000 RU/s
	"AutoscaleStep":        1_000,  // autoscale-faq.yml: max in steps of 1,000 RU/s
	"AutoscaleMaxPerGB":    10,     // autoscale-faq.yml: storage limit is max RU/s ÷ 10 GB
	"AutoscaleFloor":       0.1,    // autoscale-faq.yml: billed at least 10% of max
	"ServerlessMaxRU":      20_000, // throughput-serverless.md: 20,000 RU/s per container
	"ServerlessPartRU":     5_000,  // throughput-serverless.md: 5,000 RU/s per physical partition
	"ServerlessMaxRegions": 1,      // throughput-serverless.md: one region
	"BurstMaxRU":           3_000,  // burst-capacity.md: consumed at up to 3,000 RU/s, partitions under 3,000 RU/s
	"BurstIdleSeconds":     300,    // burst-capacity.md: up to 5 minutes of idle capacity
	"HoursPerMonth":        730,    // understand-your-bill.md: 730 h
	"SecondsPerMonthFor":   730 * 3600,
	"ManualPrice":          0.008, // understand-your-bill.md: $0.008 per 100 RU/s per hour
	"ManualMRWPrice":       0.016, // understand-your-bill.md: $0.016 with multi-region writes
	"AutoscalePrice":       0.012, // how-to-choose-offer.md: 1.5 × manual
	"AutoscaleMRWPrice":    0.016, // autoscale-faq.yml: same as manual multi-region writes
	"ServerlessPrice":      0.25,  // understand-your-bill.md: $0.25 per million RU
	"StoragePrice":         0.25,  // understand-your-bill.md: $0.25 per GB-month
}

// mutation is what the validation figures made of one rate-card field multiplied by 0.7 and by 1.3.
type mutation struct {
	field string
	// down and up name the validation figures that left their bound.
	down, up []string
	// stated: a limit or price held to the value its source states.
	stated bool
	// statedOK: the card's value equals the stated one.
	statedOK bool
	// zero: the field is 0, which no factor moves.
	zero bool
	// unvalidated is the card's own label (Coefficient.Unvalidated), "" when it has none.
	unvalidated string
}

func (m mutation) noticed() bool { return len(m.down) > 0 && len(m.up) > 0 }

func (m mutation) status() string {
	switch {
	case m.noticed():
		return "validated"
	case m.stated:
		return "stated by its source"
	case m.unvalidated != "":
		return "unvalidated: " + m.unvalidated
	case m.zero:
		return "zero: no factor moves it"
	}
	return "UNNOTICED and not labelled"
}

// numericFields lists the rate card's numeric fields by reflection: every Coefficient, every
// SizeTable (its charges scaled together) and any bare number, so a field added later is covered.
func numericFields() []string {
	var out []string
	t := reflect.TypeOf(RateCard{})
	for i := range t.NumField() {
		f := t.Field(i)
		switch {
		case f.Type == reflect.TypeOf(Coefficient{}), f.Type == reflect.TypeOf(SizeTable{}):
			out = append(out, f.Name)
		case f.Type.Kind() >= reflect.Int && f.Type.Kind() <= reflect.Float64:
			out = append(out, f.Name)
		}
	}
	return out
}

// scaled returns a copy of base with field multiplied by k (a size table's charges all of them), and
// whether the field was 0.
func scaled(base *RateCard, field string, k float64) (*RateCard, bool) {
	c := *base
	v := reflect.ValueOf(&c).Elem().FieldByName(field)
	switch x := v.Addr().Interface().(type) {
	case *Coefficient:
		x.Value *= k
		return &c, base.coefficient(field) == 0
	case *SizeTable:
		pts := make([]SizePoint, len(x.Points))
		for i, p := range x.Points {
			pts[i] = SizePoint{KB: p.KB, RU: p.RU * k}
		}
		x.Points = pts
		return &c, false
	}
	switch {
	case v.CanFloat():
		v.SetFloat(v.Float() * k)
		return &c, v.Float() == 0
	case v.CanInt():
		v.SetInt(int64(float64(v.Int()) * k))
		return &c, v.Int() == 0
	}
	panic("not numeric: " + field)
}

func (c *RateCard) coefficient(field string) float64 {
	if k, ok := reflect.ValueOf(c).Elem().FieldByName(field).Interface().(Coefficient); ok {
		return k.Value
	}
	return 0
}

func unvalidatedLabel(c *RateCard, field string) string {
	switch x := reflect.ValueOf(c).Elem().FieldByName(field).Interface().(type) {
	case Coefficient:
		return x.Unvalidated
	case SizeTable:
		return x.Unvalidated
	}
	return ""
}

// mutate runs the mutation check against base.
func mutate(base *RateCard) []mutation {
	var out []mutation
	rows := fidelityFigures()
	for _, field := range numericFields() {
		m := mutation{field: field, unvalidated: unvalidatedLabel(base, field)}
		if want, ok := statedFigures[field]; ok {
			m.stated = true
			m.statedOK = base.coefficient(field) == want
		}
		for _, k := range []float64{0.7, 1.3} {
			c, zero := scaled(base, field, k)
			m.zero = zero
			var failed []string
			for _, r := range rows {
				if r.role == validation && !r.ok(r.model(c)) {
					failed = append(failed, r.what)
				}
			}
			if k < 1 {
				m.down = failed
			} else {
				m.up = failed
			}
		}
		out = append(out, m)
	}
	return out
}

// TestMutation multiplies each numeric rate-card field by 0.7 and by 1.3 and requires some validation
// figure to leave its bound each time; a field none notices must be a stated limit or price, or carry
// the card's `unvalidated` label saying why. It prints the unnoticed list (go test -v, make mutate).
func TestMutation(t *testing.T) {
	ms := mutate(Current)
	if len(ms) < 10 {
		t.Fatalf("reflection found %d numeric rate-card fields, want every coefficient", len(ms))
	}
	var unnoticed, stated []string
	for _, m := range ms {
		if m.stated && !m.statedOK {
			t.Errorf("%s = %v, its source states %v", m.field, Current.coefficient(m.field), statedFigures[m.field])
		}
		if m.noticed() {
			if m.unvalidated != "" {
				t.Errorf("%s is labelled unvalidated (%q) but validation figures notice it both ways: drop the label", m.field, m.unvalidated)
			}
			continue
		}
		if m.stated {
			stated = append(stated, m.field)
			continue
		}
		dir := []string{}
		if len(m.down) == 0 {
			dir = append(dir, "×0.7")
		}
		if len(m.up) == 0 {
			dir = append(dir, "×1.3")
		}
		unnoticed = append(unnoticed, fmt.Sprintf("%s (%s): %s", m.field, strings.Join(dir, ", "), m.status()))
		if m.unvalidated == "" {
			t.Errorf("%s: no validation figure notices it at %s and the rate card does not label it unvalidated "+
				"(add an independent published figure to fidelity_test.go, or set its Unvalidated note)", m.field, strings.Join(dir, " and "))
		}
	}
	t.Logf("%d numeric rate-card fields: %d validated both ways, %d stated limits and prices held to their source (%s), "+
		"%d not noticed by any validation figure at ×0.7 or ×1.3:\n  %s",
		len(ms), len(ms)-len(stated)-len(unnoticed), len(stated), strings.Join(stated, ", "), len(unnoticed), strings.Join(unnoticed, "\n  "))
}

// TestMutation_Catches proves the fidelity test can fail: issue 31's wrong model (the in-memory sort
// coefficient tripled, the per-entry cost quadrupled, the per-seek cost tripled) moved the ORDER BY
// figure from 38.2 to 58.7 RU and passed; under fixed bounds some figure leaves its bound.
func TestMutation_Catches(t *testing.T) {
	c, _ := scaled(Current, "QuerySortDoc", 3)
	c, _ = scaled(c, "QueryEntry", 4)
	c, _ = scaled(c, "QueryIndexSeek", 3)
	var out []string
	for _, r := range fidelityFigures() {
		if !r.ok(r.model(c)) {
			out = append(out, r.what)
		}
	}
	if len(out) == 0 {
		t.Fatal("a card with three coefficients tripled or quadrupled passes every fidelity figure")
	}
	t.Logf("the wrong model leaves %d figures' bounds: %s", len(out), strings.Join(out, "; "))
}
