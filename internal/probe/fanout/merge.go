package fanout

import (
	"bytes"
	"encoding/json"
	"math"
	"sort"
	"strings"

	"github.com/cosmosdv/validate/internal/jsonorder"
)

// undefined is a value that is not there (a missing property, an aggregate over nothing).
type undefined = jsonorder.Undefined

// decode reads JSON into generic values; numbers are float64.
func decode(b []byte) any {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return undefined{}
	}
	return v
}

// field returns m[k], undefined when m is not an object or has no k.
func field(v any, k string) any {
	m, ok := v.(map[string]any)
	if !ok {
		return undefined{}
	}
	x, ok := m[k]
	if !ok {
		return undefined{}
	}
	return x
}

// rank is the service's type order for ORDER BY and MIN/MAX (internal/jsonorder, the engine's
// own): undefined < null < booleans < numbers < strings < arrays < objects.
func rank(v any) int { return jsonorder.Rank(v) }

// compare orders two values as ORDER BY does, exactly as one partition sorts them.
func compare(a, b any) int { return jsonorder.Compare(a, b) }

// canonical renders v as JSON with object keys sorted, for DISTINCT and GROUP BY identity.
func canonical(v any) string {
	var b bytes.Buffer
	writeCanonical(&b, v)
	return b.String()
}

func writeCanonical(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case undefined:
		b.WriteString("undefined")
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			writeCanonical(b, x[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanonical(b, e)
		}
		b.WriteByte(']')
	default:
		e, _ := json.Marshal(x)
		b.Write(e)
	}
}

// aggregator merges the per-range partials of one aggregate, with the service's semantics: COUNT
// over nothing is 0, SUM over nothing 0; SUM and AVG of anything but numbers, and MIN and MAX of
// arrays or objects, are undefined; AVG, MIN and MAX over nothing are undefined.
type aggregator struct {
	kind  string // Count, Sum, Min, Max, Average
	sum   float64
	n     float64
	bad   bool
	has   bool
	best  any
	count float64
}

// add merges one partial: {"item": v} or, for MIN and MAX, {"item": v, "item2": {"min"|"max": v,
// "count": n}} (item2 tells an undefined partial over values from one over nothing), for AVG
// {"item": {"sum": s, "count": n}}.
func (a *aggregator) add(partial any) {
	item := field(partial, "item")
	switch a.kind {
	case "Count":
		if f, ok := item.(float64); ok {
			a.count += f
		}
	case "Sum":
		f, ok := item.(float64)
		if !ok {
			a.bad = true // SUM over nothing is 0, so an undefined partial had a non-number
			return
		}
		a.sum += f
	case "Average":
		c, _ := field(item, "count").(float64)
		if c == 0 {
			return
		}
		s, ok := field(item, "sum").(float64)
		if !ok {
			a.bad = true
			return
		}
		a.sum += s
		a.n += c
	case "Min", "Max":
		v := item
		if i2 := field(partial, "item2"); rank(i2) == 6 {
			c, _ := field(i2, "count").(float64)
			if c == 0 {
				return
			}
			v = field(i2, strings.ToLower(a.kind))
			if _, un := v.(undefined); un {
				a.bad = true
				return
			}
		} else if _, un := v.(undefined); un {
			return // no item2: an undefined partial is taken as a range with nothing
		}
		switch v.(type) {
		case []any, map[string]any:
			a.bad = true
			return
		}
		if !a.has {
			a.best, a.has = v, true
			return
		}
		c := compare(v, a.best)
		if a.kind == "Min" && c < 0 || a.kind == "Max" && c > 0 {
			a.best = v
		}
	}
}

func (a *aggregator) result() any {
	switch a.kind {
	case "Count":
		return a.count
	case "Sum":
		if a.bad || math.IsInf(a.sum, 0) || math.IsNaN(a.sum) {
			return undefined{}
		}
		return a.sum
	case "Average":
		if a.bad || a.n == 0 || math.IsInf(a.sum, 0) || math.IsNaN(a.sum) {
			return undefined{}
		}
		return a.sum / a.n
	}
	if a.bad || !a.has {
		return undefined{}
	}
	return a.best
}

// encode renders a merged value; ok is false for undefined (the service leaves it out).
func encode(v any) (json.RawMessage, bool) {
	if _, un := v.(undefined); un {
		return nil, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	return b, true
}
